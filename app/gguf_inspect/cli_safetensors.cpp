// SPDX-License-Identifier: GPL-3.0-or-later
// A Hugging Face .safetensors file given to gguf-inspect (#43, first commands): the overview, info,
// tensors, validate and layout, read by core/safetensors (docs/SAFETENSORS.md). A FILE is taken
// for safetensors by its first bytes, not its name.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/gguf_parser.h"
#include "core/safetensors/safetensors_file.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace cli {
namespace {

using gguf::st::SafetensorsFile;
using gguf::st::TensorEntry;

std::string shapeOf(const TensorEntry &t)
{
    std::string s = "[";
    for (size_t i = 0; i < t.shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(t.shape[i]);
    return s + "]";
}

/// The dtypes and how many tensors hold each, in the format's order.
std::map<gguf::st::Dtype, uint64_t> dtypeCounts(const SafetensorsFile &f)
{
    std::map<gguf::st::Dtype, uint64_t> counts;
    for (const TensorEntry &t : f.tensors())
        ++counts[t.dtype];
    return counts;
}

std::string verdict(const SafetensorsFile &f)
{
    if (f.referenceAccepts())
        return "the safetensors library would load this file";
    for (const gguf::Finding &x : f.findings())
        if (x.severity == gguf::Severity::Error)
            return "the safetensors library would refuse this file: " + printable(x.message);
    return "the safetensors library would refuse this file";
}

/// The first `count` tensors as a table, names cut at `nameWidth` characters.
void printTensorRows(const SafetensorsFile &f, size_t count, size_t nameWidth)
{
    TextTable table({{"#", TextTable::Align::Right},
                     {"name"},
                     {"dtype"},
                     {"shape"},
                     {"elements", TextTable::Align::Right},
                     {"bytes", TextTable::Align::Right},
                     {"data offset", TextTable::Align::Right},
                     {"file offset", TextTable::Align::Right}});
    for (size_t i = 0; i < count; ++i) {
        const TensorEntry &t = f.tensors()[i];
        table.addRow({std::to_string(i), printable(t.name, nameWidth), std::string(gguf::st::dtypeName(t.dtype)),
                      shapeOf(t), groupDigits(t.elements), groupDigits(t.end >= t.begin ? t.end - t.begin : 0),
                      groupDigits(t.begin), groupDigits(t.fileBegin)});
    }
    table.print();
}

void writeInfoJson(const SafetensorsFile &f)
{
    JsonWriter json(stdout);
    json.beginObject();
    json.field("path", f.path());
    json.field("format", "safetensors");
    json.field("file_size", f.fileSize());
    json.field("header_length", f.headerLength());
    json.field("data_offset", f.dataOffset());
    json.field("tensor_count", static_cast<uint64_t>(f.tensors().size()));
    json.field("metadata_count", static_cast<uint64_t>(f.metadata().size()));
    json.field("parameter_count", f.parameterCount());
    json.key("tensor_types");
    json.beginObject();
    for (const auto &[dtype, n] : dtypeCounts(f))
        json.field(gguf::st::dtypeName(dtype), n);
    json.endObject();
    json.key("metadata");
    json.beginObject();
    for (const gguf::st::MetadataItem &m : f.metadata())
        json.field(m.key, m.value);
    json.endObject();
    json.field("accepted", f.referenceAccepts());
    json.endObject();
    json.finish();
}

void printOverview(const SafetensorsFile &f, bool withTensors)
{
    std::string types;
    for (const auto &[dtype, n] : dtypeCounts(f))
        types += (types.empty() ? "" : ", ") + std::string(gguf::st::dtypeName(dtype)) + " × " + groupDigits(n);
    std::string out;
    out += "path:           " + printable(f.path()) + "\n";
    out += "format:         safetensors\n";
    out += "file size:      " + groupDigits(f.fileSize()) + " bytes (" + humanBytes(f.fileSize()) + ")\n";
    out += "header length:  " + groupDigits(f.headerLength()) + " bytes of JSON\n";
    out += "data offset:    " + gguf::formatOffset(f.dataOffset()) + "\n";
    out += "tensors:        " + groupDigits(f.tensors().size()) + "\n";
    out += "metadata keys:  " + groupDigits(f.metadata().size()) + "\n";
    for (const gguf::st::MetadataItem &m : f.metadata())
        out += "  " + printable(m.key, 40) + " = " + printable(m.value, 80) + "\n";
    out += "parameters:     " + groupDigits(f.parameterCount()) + "\n";
    out += "tensor types:   " + (types.empty() ? std::string("-") : types) + "\n";
    out += verdict(f) + "\n";
    print(out);
    if (!withTensors || f.tensors().empty())
        return;
    print("\n");
    const size_t shown = std::min<size_t>(f.tensors().size(), 10);
    printTensorRows(f, shown, 60);
    if (shown < f.tensors().size())
        print("… and " + countOf(f.tensors().size() - shown, "more tensor", "more tensors") + "\n");
}

void writeTensorsJson(const SafetensorsFile &f)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (size_t i = 0; i < f.tensors().size(); ++i) {
        const TensorEntry &t = f.tensors()[i];
        json.beginObject();
        json.field("index", static_cast<uint64_t>(i));
        json.field("name", t.name);
        json.field("type", gguf::st::dtypeName(t.dtype));
        json.key("shape"); // as written: outermost first
        json.beginArray();
        for (const uint64_t d : t.shape)
            json.unsignedInteger(d);
        json.endArray();
        json.key("dims"); // GGUF's order: innermost first
        json.beginArray();
        for (auto d = t.shape.rbegin(); d != t.shape.rend(); ++d)
            json.unsignedInteger(*d);
        json.endArray();
        json.field("elements", t.elements);
        json.field("bytes", t.end >= t.begin ? t.end - t.begin : 0);
        json.field("offset", t.begin);
        json.field("file_offset", t.fileBegin);
        json.endObject();
    }
    json.endArray();
    json.finish();
}

int runTensorsOf(const SafetensorsFile &f, const CommandArgs &args)
{
    if (args.json) {
        writeTensorsJson(f);
    } else if (args.names) {
        for (const TensorEntry &t : f.tensors())
            print(printable(t.name) + "\n");
    } else {
        printTensorRows(f, f.tensors().size(), 80);
    }
    return f.headerComplete() ? kExitOk : kExitBadFile;
}

int runValidateOf(const SafetensorsFile &f, const CommandArgs &args)
{
    if (args.json) {
        JsonWriter json(stdout);
        json.beginArray();
        for (const gguf::Finding &x : f.findings()) {
            json.beginObject();
            json.field("severity", gguf::severityName(x.severity));
            json.field("code", x.code);
            json.field("offset", x.offset);
            json.field("message", x.message);
            json.endObject();
        }
        json.endArray();
        json.finish();
    } else {
        for (const gguf::Finding &x : f.findings())
            print(std::string(gguf::severityName(x.severity)) + ": offset " + gguf::formatOffset(x.offset) + ": " +
                  x.code + ": " + printable(x.message) + "\n");
        print((f.findings().empty() ? std::string("no findings\n")
                                    : countOf(f.findings().size(), "finding", "findings") + "\n") +
              verdict(f) + "\n");
    }
    return f.referenceAccepts() ? kExitOk : kExitBadFile;
}

int runLayoutOf(const SafetensorsFile &f, const CommandArgs &args)
{
    const std::vector<gguf::st::Region> regions = gguf::st::byteRegions(f);
    if (args.json) {
        JsonWriter json(stdout);
        json.beginArray();
        for (const gguf::st::Region &r : regions) {
            json.beginObject();
            json.field("offset", r.offset);
            json.field("size", r.size);
            json.field("kind", gguf::st::regionKindName(r.kind));
            json.field("label", r.label);
            json.endObject();
        }
        json.endArray();
        json.finish();
    } else {
        std::vector<LayoutRow> rows;
        rows.reserve(regions.size());
        for (const gguf::st::Region &r : regions)
            rows.push_back({r.offset, r.size, gguf::st::regionKindName(r.kind), r.label});
        printLayoutTable(rows);
    }
    return f.headerComplete() ? kExitOk : kExitBadFile;
}

/// The first bytes of a local file say safetensors (URLs are not read as safetensors yet).
bool isSafetensorsFile(const std::string &path)
{
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return false;
    const auto size = static_cast<uint64_t>(in.tellg());
    std::array<char, 64> head{};
    in.seekg(0);
    in.read(head.data(), head.size());
    return gguf::st::looksLikeSafetensors(reinterpret_cast<const uint8_t *>(head.data()),
                                          static_cast<size_t>(in.gcount()), size);
}

} // namespace

std::optional<int> runSafetensors(std::string_view command, const CommandArgs &args)
{
    if (args.file.empty() || !isSafetensorsFile(args.file))
        return std::nullopt;
    if (command != "" && command != "info" && command != "tensors" && command != "validate" && command != "layout") {
        std::fprintf(stderr,
                     "gguf-inspect: %s: a safetensors file; `%s` does not read safetensors yet (info, tensors, "
                     "validate and layout do)\n",
                     printable(args.file).c_str(), std::string(command).c_str());
        return kExitBadFile;
    }
    const gguf::st::SafetensorsOpen opened = gguf::st::SafetensorsFile::open(args.file);
    if (!opened.file) {
        reportError(args.file, opened.error);
        return kExitBadFile;
    }
    const SafetensorsFile &f = *opened.file;
    if (command == "tensors")
        return runTensorsOf(f, args);
    if (command == "validate")
        return runValidateOf(f, args);
    if (command == "layout")
        return runLayoutOf(f, args);
    if (args.json)
        writeInfoJson(f);
    else
        printOverview(f, command.empty());
    if (!f.headerComplete())
        reportError(args.file, f.error());
    return f.headerComplete() ? kExitOk : kExitBadFile;
}

} // namespace cli
