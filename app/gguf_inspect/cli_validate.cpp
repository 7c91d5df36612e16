// SPDX-License-Identifier: GPL-3.0-or-later
// `validate`: the findings of the parse, and whether llama.cpp would load the file (docs/FORMAT.md §5).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/gguf_parser.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace cli {
namespace {

// A finding and the file it is about (a split set's findings come from several shards).
struct SetFinding {
    const gguf::Finding *finding;
    std::string file;
};

// Every shard's findings in shard order, after what is wrong with the set as a whole.
std::vector<SetFinding> collectFindings(const gguf::SplitModel &model, const std::vector<gguf::Finding> &setFindings)
{
    std::vector<SetFinding> out;
    for (size_t i = 0; i < setFindings.size(); ++i)
        out.push_back({&setFindings[i], {}});
    for (const gguf::SplitModel::Shard &shard : model.shards())
        if (shard.file)
            for (const gguf::Finding &f : shard.file->findings())
                out.push_back({&f, shard.path});
    return out;
}

// A set's JSON findings name their file (offsets are per file); a single file's keep the four keys.
void writeValidationJson(const std::vector<SetFinding> &findings, bool split)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (const SetFinding &item : findings) {
        const gguf::Finding &f = *item.finding;
        json.beginObject();
        json.field("severity", gguf::severityName(f.severity));
        json.field("code", f.code);
        json.field("offset", f.offset);
        json.field("message", f.message);
        if (split)
            json.field("file", item.file.empty() ? std::optional<std::string>() : std::optional(item.file));
        json.endObject();
    }
    json.endArray();
    json.finish();
}

void printReport(const gguf::SplitModel &model, const std::vector<SetFinding> &findings)
{
    size_t counts[3] = {0, 0, 0};
    for (const SetFinding &item : findings) {
        const gguf::Finding &f = *item.finding;
        ++counts[static_cast<size_t>(f.severity)];
        const std::string where = model.isSplit() && !item.file.empty() ? printable(item.file) + ": " : std::string();
        print(std::string(gguf::severityName(f.severity)) + ": " + where + "offset " + gguf::formatOffset(f.offset) +
              ": " + f.code + ": " + printable(f.message) + "\n");
    }
    if (findings.empty())
        print("no findings\n");
    else
        print(countOf(findings.size(), "finding", "findings") + ": " +
              countOf(counts[static_cast<size_t>(gguf::Severity::Error)], "error", "errors") + ", " +
              countOf(counts[static_cast<size_t>(gguf::Severity::Warning)], "warning", "warnings") + ", " +
              countOf(counts[static_cast<size_t>(gguf::Severity::Info)], "note", "notes") + "\n");
    const char *what = model.isSplit() ? "model" : "file";
    if (const auto refusal = model.firstRefusal())
        print(std::string("llama.cpp would refuse this ") + what + ": " + printable(refusal->finding.message) + "\n");
    else
        print(std::string("llama.cpp would accept this ") + what + "\n");
}

} // namespace

int runValidate(const CommandArgs &args)
{
    // A set as a whole (a missing shard is a refusal); a file that stopped early still has findings
    // worth printing (the last one says why it stopped).
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    const std::vector<gguf::Finding> setFindings = model->setFindings();
    const std::vector<SetFinding> findings = collectFindings(*model, setFindings);
    if (args.json)
        writeValidationJson(findings, model->isSplit());
    else
        printReport(*model, findings);
    return model->llamaCppAccepts() ? kExitOk : kExitBadFile;
}

} // namespace cli
