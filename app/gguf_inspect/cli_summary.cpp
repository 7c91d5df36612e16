// SPDX-License-Identifier: GPL-3.0-or-later
// The overview (`gguf-inspect FILE`) and `info`.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_parser.h"
#include "core/format/model_summary.h"
#include "core/kind/file_kind.h"
#include "core/report/model_report.h"
#include "core/vocab/well_known_keys.h"

#include <cstdio>
#include <map>

namespace cli {
namespace {

constexpr size_t kSummaryTensorRows = 20;

void printOverview(const CommandArgs &args, const gguf::SplitModel &model)
{
    TextTable table({{"field"}, {"value"}});
    const gguf::KindReport kind = gguf::describeKind(model.primary());
    for (const gguf::OverviewField &f : gguf::overviewFields(model, args.file, kind, gguf::summarizeModel(model)))
        table.addRow({f.name + ":", printable(f.value)});
    table.print(0, false);
    // llama.cpp loads a split set only when it would load every shard
    print(printable(gguf::verdictLine(model)) + "\n");
    for (const gguf::KindFinding &f : kind.findings)
        print(std::string("but as a ") + gguf::fileKindTitle(kind.kind) + ": " + printable(f.message) + "\n");
}

void printTensorHead(const CommandArgs &args, const gguf::SplitModel &model)
{
    const std::vector<gguf::SplitModel::TensorRef> &tensors = model.tensors();
    if (tensors.empty())
        return;
    const size_t shown = std::min(tensors.size(), kSummaryTensorRows);
    print("\nTensors" +
          (shown < tensors.size() ? " (first " + std::to_string(shown) + " of " + std::to_string(tensors.size()) + ")"
                                  : std::string()) +
          ":\n");
    printTensorTable(model, 0, shown, 2);
    if (shown < tensors.size())
        print("  … " + std::to_string(tensors.size() - shown) + " more: gguf-inspect tensors " + printable(args.file) +
              "\n");
}

void writeEncoder(JsonWriter &json, const char *key, const std::optional<gguf::EncoderFacts> &e)
{
    json.key(key);
    if (!e) {
        json.null();
        return;
    }
    json.beginObject();
    json.field("image_size", e->imageSize);
    json.field("patch_size", e->patchSize);
    json.field("embedding_length", e->embeddingLength);
    json.field("block_count", e->blockCount);
    json.field("feed_forward_length", e->feedForwardLength);
    json.field("projection_dim", e->projectionDim);
    json.field("head_count", e->headCount);
    json.endObject();
}

void writeLoraJson(JsonWriter &json, const gguf::LoraFacts &lora)
{
    json.key("lora");
    json.beginObject();
    // one rank and its scale; null when the pairs have several ("ranks" lists them) or none
    const bool oneRank = lora.ranks.size() == 1;
    json.field("rank", oneRank ? std::optional(lora.ranks.front()) : std::nullopt);
    json.key("ranks");
    json.beginArray();
    for (const uint64_t rank : lora.ranks)
        json.unsignedInteger(rank);
    json.endArray();
    json.field("alpha", lora.alpha);
    json.field("scale", oneRank ? std::optional(lora.scale(lora.ranks.front())) : std::nullopt);
    json.field("task_name", lora.taskName);
    json.field("prompt_prefix", lora.promptPrefix);
    json.key("targets");
    json.beginArray();
    for (const gguf::LoraPair &p : lora.pairs)
        json.string(p.base);
    json.endArray();
    json.endObject();
}

void writeImatrixJson(JsonWriter &json, const gguf::ImatrixFacts &imatrix)
{
    json.key("imatrix");
    json.beginObject();
    json.key("datasets");
    json.beginArray();
    for (const std::string &d : imatrix.datasets)
        json.string(d);
    json.endArray();
    json.field("chunk_count", imatrix.chunkCount);
    json.field("chunk_size", imatrix.chunkSize);
    json.field("entries", imatrix.entries.size());
    json.field("truncated", imatrix.truncated);
    json.key("unused_experts");
    json.beginArray();
    for (const gguf::ImatrixExpert &x : imatrix.unusedExperts) {
        json.beginObject();
        json.field("tensor", x.tensor);
        json.field("expert", x.expert);
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

void writeControlVectorJson(JsonWriter &json, const gguf::ControlVectorFacts &cv)
{
    json.key("control_vector");
    json.beginObject();
    json.field("model_hint", cv.modelHint);
    json.field("layer_count", cv.layerCount);
    json.field("embedding_length", cv.embeddingLength);
    json.key("layers");
    json.beginArray();
    for (const gguf::ControlDirection &d : cv.directions)
        json.unsignedInteger(d.layer);
    json.endArray();
    json.endObject();
}

// "kind", "kind_findings" and the kind's facts (docs/KINDS.md).
void writeKindJson(JsonWriter &json, const gguf::KindReport &r)
{
    json.field("kind", gguf::fileKindName(r.kind));
    json.key("kind_findings");
    json.beginArray();
    for (const gguf::KindFinding &f : r.findings) {
        json.beginObject();
        json.field("code", f.code);
        json.field("message", f.message);
        json.field("refusal", f.refusal);
        json.field("tensor", f.tensor);
        json.endObject();
    }
    json.endArray();
    if (r.lora)
        writeLoraJson(json, *r.lora);
    if (r.imatrix)
        writeImatrixJson(json, *r.imatrix);
    if (r.projector) {
        json.key("projector");
        json.beginObject();
        json.field("type", r.projector->type);
        json.field("has_vision_encoder", r.projector->hasVision);
        json.field("has_audio_encoder", r.projector->hasAudio);
        writeEncoder(json, "vision", r.projector->vision);
        writeEncoder(json, "audio", r.projector->audio);
        json.endObject();
    }
    if (r.controlVector)
        writeControlVectorJson(json, *r.controlVector);
    if (r.quantizedWith) {
        json.key("quantized_with_imatrix");
        json.beginObject();
        json.field("file", r.quantizedWith->file);
        json.field("dataset", r.quantizedWith->dataset);
        json.field("entries", r.quantizedWith->entries);
        json.field("chunks", r.quantizedWith->chunks);
        json.endObject();
    }
}

void writeShardsJson(JsonWriter &json, const gguf::ModelSummary &summary)
{
    json.key("shards");
    json.beginArray();
    for (const gguf::ModelSummary::Shard &shard : summary.shards) {
        json.beginObject();
        json.field("path", shard.path);
        json.field("size", shard.size);
        json.field("error", shard.error.empty() ? std::nullopt : std::optional(shard.error));
        json.endObject();
    }
    json.endArray();
}

void writeInfoJson(const CommandArgs &args, const gguf::SplitModel &model)
{
    const gguf::GgufFile &file = model.primary();
    const gguf::ModelSummary summary = gguf::summarizeModel(model);
    JsonWriter json(stdout);
    json.beginObject();
    json.field("path", args.file);
    json.field("file_size", summary.fileSize);
    json.field("version", file.version());
    json.field("byte_order", file.byteSwapped() ? "big" : "little");
    json.field("header", file.headerLayout() == gguf::HeaderLayout::Plain ? "plain" : "extended");
    json.field("alignment", file.alignment());
    json.field("data_offset", file.dataOffset());
    json.field("tensor_count", summary.tensorCount);
    json.field("metadata_count", file.metadata().size());
    json.key("architecture");
    if (const gguf::MetadataEntry *arch = file.findMetadata("general.architecture");
        arch && arch->value.type() == gguf::ValueType::String)
        json.string(arch->value.toStringView());
    else
        json.null();
    json.field("parameter_count", summary.parameters);
    json.field("layers", summary.layers);
    json.key("tensor_types");
    json.beginObject();
    for (const auto &[id, count] : summary.tensorTypes) {
        json.key(gguf::typeName(id));
        json.unsignedInteger(count);
    }
    json.endObject();
    writeKindJson(json, gguf::describeKind(file));
    writeShardsJson(json, summary);
    json.endObject();
    json.finish();
}

} // namespace

// The overview and info describe a split set as a whole, and a damaged file or set as far as it
// was read (then the missing shard or the break on stderr, and exit 1), as the window does.
int runSummary(const CommandArgs &args)
{
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    printOverview(args, *model);
    printTensorHead(args, *model);
    return reportModelProblem(*model) ? kExitBadFile : kExitOk;
}

int runInfo(const CommandArgs &args)
{
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    if (args.json)
        writeInfoJson(args, *model);
    else
        printOverview(args, *model);
    return reportModelProblem(*model) ? kExitBadFile : kExitOk;
}

} // namespace cli
