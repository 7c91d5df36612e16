// SPDX-License-Identifier: GPL-3.0-or-later
// `validate`: the findings of the parse, and whether llama.cpp would load the file (docs/FORMAT.md §5).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/gguf_parser.h"

#include <cstdio>

namespace cli {
namespace {

void writeValidationJson(const gguf::GgufFile &file)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (const gguf::Finding &f : file.findings()) {
        json.beginObject();
        json.field("severity", gguf::severityName(f.severity));
        json.field("code", f.code);
        json.field("offset", f.offset);
        json.field("message", f.message);
        json.endObject();
    }
    json.endArray();
    json.finish();
}

void printReport(const gguf::GgufFile &file)
{
    size_t counts[3] = {0, 0, 0};
    for (const gguf::Finding &f : file.findings()) {
        ++counts[static_cast<size_t>(f.severity)];
        print(std::string(gguf::severityName(f.severity)) + ": offset " + gguf::formatOffset(f.offset) + ": " + f.code +
              ": " + printable(f.message) + "\n");
    }
    if (file.findings().empty())
        print("no findings\n");
    else
        print(std::to_string(file.findings().size()) + (file.findings().size() == 1 ? " finding: " : " findings: ") +
              std::to_string(counts[static_cast<size_t>(gguf::Severity::Error)]) + " errors, " +
              std::to_string(counts[static_cast<size_t>(gguf::Severity::Warning)]) + " warnings, " +
              std::to_string(counts[static_cast<size_t>(gguf::Severity::Info)]) + " notes\n");
    if (file.llamaCppAccepts()) {
        print("llama.cpp would accept this file\n");
        return;
    }
    const gguf::Finding *refusal = file.firstRefusal();
    print("llama.cpp would refuse this file: " + printable(refusal ? refusal->message : file.error().message) + "\n");
}

} // namespace

int runValidate(const CommandArgs &args)
{
    // A file that stopped early still has findings worth printing (the last one says why it stopped).
    const auto file = openFile(args.file, OpenMode::Partial);
    if (!file)
        return kExitBadFile;
    if (args.json)
        writeValidationJson(*file);
    else
        printReport(*file);
    return file->llamaCppAccepts() ? kExitOk : kExitBadFile;
}

} // namespace cli
