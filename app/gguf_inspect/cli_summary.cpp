// SPDX-License-Identifier: GPL-3.0-or-later
// The overview (`gguf-inspect FILE`) and `info`.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_parser.h"
#include "core/kind/file_kind.h"
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

std::string shortNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
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
    const gguf::KindReport kind = gguf::describeKind(file);
    row("kind", std::string(gguf::fileKindTitle(kind.kind)) + " (" + printable(kind.why, 80) + ")");
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
    if (kind.lora) {
        std::string ranks;
        for (const uint64_t r : kind.lora->ranks)
            ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
        row("LoRA", std::to_string(kind.lora->pairs.size()) + " pairs, rank " + (ranks.empty() ? "-" : ranks) +
                        ", alpha " + (kind.lora->alpha ? shortNumber(*kind.lora->alpha) : std::string("-")));
    }
    if (kind.imatrix)
        row("importance matrix", std::to_string(kind.imatrix->entries.size()) + " weights, " +
                                     std::to_string(kind.imatrix->chunkCount.value_or(0)) + " chunks of " +
                                     std::to_string(kind.imatrix->chunkSize.value_or(0)) + " tokens, " +
                                     std::to_string(kind.imatrix->unusedExperts.size()) + " unused experts");
    if (kind.projector)
        row("projector", printable(kind.projector->type, 40) + (kind.projector->hasVision ? ", vision" : "") +
                             (kind.projector->hasAudio ? ", audio" : ""));
    if (kind.quantizedWith)
        row("quantized with", "importance matrix " + printable(kind.quantizedWith->file, 80));
    table.print(0, false);
    print(verdict(file) + "\n");
    for (const gguf::KindFinding &f : kind.findings)
        print(std::string("but as a ") + gguf::fileKindTitle(kind.kind) + ": " + printable(f.message) + "\n");
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

void optionalNumber(JsonWriter &json, const char *key, const std::optional<uint64_t> &value)
{
    json.key(key);
    if (value)
        json.unsignedInteger(*value);
    else
        json.null();
}

void writeEncoder(JsonWriter &json, const char *key, const std::optional<gguf::EncoderFacts> &e)
{
    json.key(key);
    if (!e) {
        json.null();
        return;
    }
    json.beginObject();
    optionalNumber(json, "image_size", e->imageSize);
    optionalNumber(json, "patch_size", e->patchSize);
    optionalNumber(json, "embedding_length", e->embeddingLength);
    optionalNumber(json, "block_count", e->blockCount);
    optionalNumber(json, "feed_forward_length", e->feedForwardLength);
    optionalNumber(json, "projection_dim", e->projectionDim);
    optionalNumber(json, "head_count", e->headCount);
    json.endObject();
}

// "kind", "kind_findings" and the kind's facts (docs/KINDS.md).
void writeKindJson(JsonWriter &json, const gguf::KindReport &r)
{
    json.key("kind");
    json.string(gguf::fileKindName(r.kind));
    json.key("kind_findings");
    json.beginArray();
    for (const gguf::KindFinding &f : r.findings) {
        json.beginObject();
        json.key("code");
        json.string(f.code);
        json.key("message");
        json.string(f.message);
        json.key("refusal");
        json.boolean(f.refusal);
        json.key("tensor");
        json.string(f.tensor);
        json.endObject();
    }
    json.endArray();
    if (r.lora) {
        json.key("lora");
        json.beginObject();
        // one rank and its scale; null when the pairs have several ("ranks" lists them) or none
        const bool oneRank = r.lora->ranks.size() == 1;
        json.key("rank");
        if (oneRank)
            json.unsignedInteger(r.lora->ranks.front());
        else
            json.null();
        json.key("ranks");
        json.beginArray();
        for (const uint64_t rank : r.lora->ranks)
            json.unsignedInteger(rank);
        json.endArray();
        json.key("alpha");
        if (r.lora->alpha)
            json.number(*r.lora->alpha);
        else
            json.null();
        json.key("scale");
        if (oneRank)
            json.number(r.lora->scale(r.lora->ranks.front()));
        else
            json.null();
        json.key("task_name");
        json.string(r.lora->taskName);
        json.key("prompt_prefix");
        json.string(r.lora->promptPrefix);
        json.key("targets");
        json.beginArray();
        for (const gguf::LoraPair &p : r.lora->pairs)
            json.string(p.base);
        json.endArray();
        json.endObject();
    }
    if (r.imatrix) {
        json.key("imatrix");
        json.beginObject();
        json.key("datasets");
        json.beginArray();
        for (const std::string &d : r.imatrix->datasets)
            json.string(d);
        json.endArray();
        optionalNumber(json, "chunk_count", r.imatrix->chunkCount);
        optionalNumber(json, "chunk_size", r.imatrix->chunkSize);
        json.key("entries");
        json.unsignedInteger(r.imatrix->entries.size());
        json.key("truncated");
        json.boolean(r.imatrix->truncated);
        json.key("unused_experts");
        json.beginArray();
        for (const gguf::ImatrixExpert &x : r.imatrix->unusedExperts) {
            json.beginObject();
            json.key("tensor");
            json.string(x.tensor);
            json.key("expert");
            json.unsignedInteger(x.expert);
            json.endObject();
        }
        json.endArray();
        json.endObject();
    }
    if (r.projector) {
        json.key("projector");
        json.beginObject();
        json.key("type");
        json.string(r.projector->type);
        json.key("has_vision_encoder");
        json.boolean(r.projector->hasVision);
        json.key("has_audio_encoder");
        json.boolean(r.projector->hasAudio);
        writeEncoder(json, "vision", r.projector->vision);
        writeEncoder(json, "audio", r.projector->audio);
        json.endObject();
    }
    if (r.controlVector) {
        json.key("control_vector");
        json.beginObject();
        json.key("model_hint");
        json.string(r.controlVector->modelHint);
        optionalNumber(json, "layer_count", r.controlVector->layerCount);
        json.key("embedding_length");
        json.unsignedInteger(r.controlVector->embeddingLength);
        json.key("layers");
        json.beginArray();
        for (const gguf::ControlDirection &d : r.controlVector->directions)
            json.unsignedInteger(d.layer);
        json.endArray();
        json.endObject();
    }
    if (r.quantizedWith) {
        json.key("quantized_with_imatrix");
        json.beginObject();
        json.key("file");
        json.string(r.quantizedWith->file);
        json.key("dataset");
        json.string(r.quantizedWith->dataset);
        optionalNumber(json, "entries", r.quantizedWith->entries);
        optionalNumber(json, "chunks", r.quantizedWith->chunks);
        json.endObject();
    }
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
    writeKindJson(json, gguf::describeKind(file));
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
