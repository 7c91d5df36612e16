// SPDX-License-Identifier: GPL-3.0-or-later
// The overview (`gguf-inspect FILE`) and `info`.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_parser.h"
#include "core/vocab/well_known_keys.h"

#include <cstdio>
#include <map>

namespace cli {
namespace {

constexpr size_t kSummaryTensorRows = 20;

// Tensor count per type id, in id order.
std::map<uint32_t, uint64_t> typeCounts(const gguf::GgufFile &file)
{
    std::map<uint32_t, uint64_t> counts;
    for (const gguf::TensorInfo &t : file.tensors())
        ++counts[t.typeId];
    return counts;
}

// Layers seen in tensor names; a file without tensors (a vocabulary) falls back to block_count.
uint64_t layers(const gguf::GgufFile &file)
{
    if (const uint32_t n = file.layerCount(); n != 0 || !file.tensors().empty())
        return n;
    return file.blockCount().value_or(0);
}

std::string verdict(const gguf::GgufFile &file)
{
    if (file.llamaCppAccepts())
        return "llama.cpp would accept this file";
    const gguf::Finding *refusal = file.firstRefusal();
    const std::string why = refusal ? refusal->message : file.error().message;
    return "llama.cpp would refuse this file: " + printable(why);
}

void printOverview(const CommandArgs &args, const gguf::GgufFile &file)
{
    TextTable table({{"field"}, {"value"}});
    const auto row = [&](std::string name, std::string value) { table.addRow({name + ":", std::move(value)}); };
    row("path", printable(args.file));
    row("file size", groupDigits(file.fileSize()) + " bytes (" + humanBytes(file.fileSize()) + ")");
    row("GGUF version", std::to_string(file.version()));
    row("byte order", file.byteSwapped() ? "big-endian (byte-swapped)" : "little-endian");
    row("header layout", file.headerLayout() == gguf::HeaderLayout::Plain ? "plain" : "extended (BitNet-rs)");
    row("alignment", std::to_string(file.alignment()));
    row("data offset", gguf::formatOffset(file.dataOffset()));
    row("tensors", groupDigits(file.tensors().size()));
    row("metadata keys", groupDigits(file.metadata().size()));
    const std::string arch = file.architecture();
    row("architecture", arch.empty() ? "-" : printable(arch, 80));
    const std::string name = file.name();
    row("name", name.empty() ? "-" : printable(name, 80));
    const auto ftype = file.fileType();
    row("file type",
        ftype ? std::to_string(*ftype) + " (" + std::string(gguf::fileTypeName(*ftype).value_or("unknown")) + ")"
              : "-");
    row("layers", std::to_string(layers(file)));
    row("parameters", groupDigits(file.parameterCount()));
    row("tensor data", groupDigits(file.tensorDataBytes()) + " bytes (" + humanBytes(file.tensorDataBytes()) + ")");
    std::string types;
    for (const auto &[id, count] : typeCounts(file))
        types += (types.empty() ? "" : ", ") + gguf::typeName(id) + " × " + std::to_string(count);
    row("tensor types", types.empty() ? "-" : types);
    table.print(0, false);
    print(verdict(file) + "\n");
}

void printTensorHead(const CommandArgs &args, const gguf::GgufFile &file)
{
    const auto tensors = file.tensors();
    if (tensors.empty())
        return;
    const size_t shown = std::min(tensors.size(), kSummaryTensorRows);
    print("\nTensors" +
          (shown < tensors.size() ? " (first " + std::to_string(shown) + " of " + std::to_string(tensors.size()) + ")"
                                  : std::string()) +
          ":\n");
    TextTable table({{"#", TextTable::Align::Right},
                     {"name"},
                     {"type"},
                     {"shape"},
                     {"elements", TextTable::Align::Right},
                     {"bytes", TextTable::Align::Right},
                     {"offset", TextTable::Align::Right}});
    for (size_t i = 0; i < shown; ++i) {
        const gguf::TensorInfo &t = tensors[i];
        table.addRow({std::to_string(t.index), printable(t.name, 64), gguf::typeName(t.typeId), shapeText(t),
                      groupDigits(t.elements), groupDigits(t.byteSize), groupDigits(t.fileOffset)});
    }
    table.print(2);
    if (shown < tensors.size())
        print("  … " + std::to_string(tensors.size() - shown) + " more: gguf-inspect tensors " + printable(args.file) +
              "\n");
}

void writeInfoJson(const CommandArgs &args, const gguf::GgufFile &file)
{
    JsonWriter json(stdout);
    json.beginObject();
    json.key("path");
    json.string(args.file);
    json.key("file_size");
    json.unsignedInteger(file.fileSize());
    json.key("version");
    json.unsignedInteger(file.version());
    json.key("byte_order");
    json.string(file.byteSwapped() ? "big" : "little");
    json.key("header");
    json.string(file.headerLayout() == gguf::HeaderLayout::Plain ? "plain" : "extended");
    json.key("alignment");
    json.unsignedInteger(file.alignment());
    json.key("data_offset");
    json.unsignedInteger(file.dataOffset());
    json.key("tensor_count");
    json.unsignedInteger(file.tensors().size());
    json.key("metadata_count");
    json.unsignedInteger(file.metadata().size());
    json.key("architecture");
    if (const gguf::MetadataEntry *arch = file.findMetadata("general.architecture");
        arch && arch->value.type() == gguf::ValueType::String)
        json.string(arch->value.toStringView());
    else
        json.null();
    json.key("parameter_count");
    json.unsignedInteger(file.parameterCount());
    json.key("layers");
    json.unsignedInteger(layers(file));
    json.key("tensor_types");
    json.beginObject();
    for (const auto &[id, count] : typeCounts(file)) {
        json.key(gguf::typeName(id));
        json.unsignedInteger(count);
    }
    json.endObject();
    json.endObject();
    json.finish();
}

} // namespace

int runSummary(const CommandArgs &args)
{
    const auto file = openFile(args.file, OpenMode::Complete);
    if (!file)
        return kExitBadFile;
    printOverview(args, *file);
    printTensorHead(args, *file);
    return kExitOk;
}

int runInfo(const CommandArgs &args)
{
    const auto file = openFile(args.file, OpenMode::Complete);
    if (!file)
        return kExitBadFile;
    if (args.json)
        writeInfoJson(args, *file);
    else
        printOverview(args, *file);
    return kExitOk;
}

} // namespace cli
