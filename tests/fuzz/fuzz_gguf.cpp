// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target over the whole read path: parse, byte map, validation, metadata values (arrays
// included), vocabulary index, the tokenizer (built from hostile vocabularies, then tokenizing and
// detokenizing a mixed text), the chat template (parsed and rendered), and dequantization +
// statistics + heatmap of every tensor found; the kind of file, the memory estimate and the report
// in both forms; and the safetensors reader and the tokenizer.json reader (#43) over the same bytes.
// Built with clang by scripts/fuzz.sh; the same function is replayed over the seed corpus and the
// regression inputs by the tst_fuzz_replay test in every normal build.
#include "core/edit/header_writer.h"
#include "core/format/byte_map.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/kind/control_vector.h"
#include "core/kind/file_kind.h"
#include "core/kind/importance.h"
#include "core/kind/lora_delta.h"
#include "core/memory/memory_estimate.h"
#include "core/quant/dequantize.h"
#include "core/report/model_report.h"
#include "core/safetensors/hf_tokenizer.h"
#include "core/safetensors/json_reader.h"
#include "core/safetensors/safetensors_file.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_stats.h"
#include "core/template/chat_template.h"
#include "core/vocab/tokenizer.h"
#include "core/vocab/tokenizer_json.h"
#include "core/vocab/vocabulary.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

// Touches a value the way the views do (display text, array elements at both ends).
uint64_t touchValue(const gguf::Value &v)
{
    uint64_t sink = v.toDisplayString(64).size();
    if (v.type() != gguf::ValueType::Array)
        return sink + v.toUInt().value_or(0);
    const gguf::ArrayRef a = v.array();
    const uint64_t n = a.size();
    for (uint64_t i : {uint64_t(0), n / 2, n ? n - 1 : 0})
        if (i < n)
            sink += touchValue(a.at(i));
    return sink;
}

// The safetensors reader over the same bytes: the header, its rules, every tensor's range (a
// tensor said to be in the file lies inside it; findings point inside the file).
uint64_t fuzzSafetensors(const uint8_t *data, size_t size)
{
    const gguf::st::SafetensorsOpen r =
        gguf::st::SafetensorsFile::openBuffer(std::vector<uint8_t>(data, data + size), "fuzz-input");
    if (!r.file)
        return 0;
    uint64_t sink = r.file->parameterCount() + r.file->metadata().size() + r.file->referenceAccepts();
    for (const gguf::st::TensorEntry &t : r.file->tensors()) {
        if (t.dataInFile && (t.fileBegin > size || t.end - t.begin > size - t.fileBegin))
            __builtin_trap();
        if (t.dataInFile && t.end > t.begin)
            sink += r.file->source().data()[t.fileBegin + (t.end - t.begin) - 1];
        sink += t.name.size() + t.shape.size() + gguf::st::dtypeSize(t.dtype);
    }
    for (const gguf::Finding &f : r.file->findings())
        if (f.offset > size)
            __builtin_trap();
    return sink;
}

// The same bytes as a tokenizer.json (the checkpoint's Tokenizer page): an error lies inside the
// text, and every id read is below the cap.
uint64_t fuzzTokenizerJson(const uint8_t *data, size_t size)
{
    gguf::Error error;
    const auto t =
        gguf::st::parseHfTokenizer(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz-input", error);
    if (!t)
        return error.offset > size ? (__builtin_trap(), 0) : error.offset;
    if (t->tokens.size() > gguf::st::kMaxTokenizerIds)
        __builtin_trap();
    return t->tokens.size() + t->merges + t->gaps;
}

// The same bytes as a tokenizer.json to run (tokenize on a checkpoint): when it loads, a text with
// spaces, a special-looking token, accents, digits, an emoji and a newline is encoded both ways and
// decoded; no id is negative (a template's ids are the file's to choose), and decoding gives UTF-8.
uint64_t fuzzJsonTokenizer(const uint8_t *data, size_t size)
{
    std::string why;
    const auto t = gguf::JsonTokenizer::create(std::string_view(reinterpret_cast<const char *>(data), size), why);
    if (!t)
        return why.size();
    uint64_t sum = 0;
    for (const bool special : {false, true}) {
        const auto ids =
            t->encode("Hello  world <s></s> \xC3\xBC e\xCC\x81 12345 \xF0\x9F\xA6\x99\n", {special, special});
        for (const gguf::TokenId id : ids)
            if (id < 0)
                __builtin_trap();
        const std::string text = t->decode(ids, special);
        if (gguf::json::firstInvalidUtf8(text))
            __builtin_trap();
        sum += ids.size() + text.size();
    }
    return sum;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    volatile uint64_t safetensorsSink =
        fuzzSafetensors(data, size) + fuzzTokenizerJson(data, size) + fuzzJsonTokenizer(data, size);
    (void)safetensorsSink;
    gguf::OpenResult r = gguf::GgufFile::openBuffer(std::vector<uint8_t>(data, data + size), "fuzz-input");
    if (!r.file)
        return 0;
    const gguf::GgufFile &f = *r.file;
    uint64_t sink = f.findings().size() + f.llamaCppAccepts();
    sink += f.parameterCount() + f.layerCount() + f.contextLength().value_or(0) + f.vocabSize().value_or(0);

    const gguf::ByteMap map(f);
    for (const gguf::Region &region : map.regions())
        sink += map.label(region).size();
    sink += map.regionAt(size / 2) != nullptr;

    for (const gguf::MetadataEntry &e : f.metadata())
        sink += touchValue(e.value);

    // the kind and its facts, and the memory estimate (a budget search included) from hostile metadata
    const gguf::KindReport kind = gguf::describeKind(f);
    sink += kind.findings.size() + (kind.imatrix ? kind.imatrix->unusedExperts.size() : 0) +
            (kind.lora ? kind.lora->pairs.size() : 0);
    if (kind.imatrix) // the importance statistics read every in_sum2 and counts within bounds
        if (const auto importance = gguf::computeImportance(f, *kind.imatrix))
            sink += importance->tensors.size() + static_cast<uint64_t>(importance->total > 0);
    if (kind.lora) // ΔW of each small pair: decoding, the rows, the statistics and a region
        for (const gguf::LoraPair &pair : kind.lora->pairs) {
            const gguf::LoraDelta delta(f, pair, kind.lora->scale(pair.rank));
            if (!delta.ok() || delta.rows() * delta.columns() * delta.rank() > (1u << 16))
                continue;
            gguf::LoraDeltaStats stats;
            sink += static_cast<uint64_t>(gguf::computeLoraDeltaStats(delta, 16, {}, stats)) + stats.count;
            gguf::Heatmap region;
            sink += static_cast<uint64_t>(gguf::loraDeltaHeatmap(delta, 0, 2, 1, 3, {}, region));
        }
    if (kind.controlVector)
        if (const auto norms = gguf::directionNorms(f, *kind.controlVector))
            sink += norms->size();
    const gguf::MemoryModel memory(f);
    gguf::MemoryInputs inputs;
    inputs.parallel = 3;
    inputs.gpuLayers = 2;
    const gguf::MemoryEstimate estimate = memory.estimate(inputs);
    sink += estimate.total() + estimate.terms.size() + memory.maxContextForBudget(inputs, uint64_t(1) << 30);

    // the report (#45) in both forms, from hostile metadata: always valid UTF-8
    const auto model = gguf::SplitModel::single(r.file);
    for (const gguf::ReportFormat format : {gguf::ReportFormat::Markdown, gguf::ReportFormat::Html}) {
        gguf::ReportOptions options;
        options.format = format;
        options.source = "fuzz-input";
        const std::string report = gguf::renderReport(*model, options);
        if (gguf::json::firstInvalidUtf8(report))
            __builtin_trap();
        sink += report.size();
    }

    const gguf::Vocabulary vocab(f);
    for (uint64_t id = 0; id < std::min<uint64_t>(vocab.size(), 32); ++id)
        sink += vocab.decoded(id).size() + vocab.type(id).value_or(0) + (vocab.score(id).value_or(0) > 0 ? 1u : 0u);
    sink += vocab.merge(vocab.mergeCount() ? vocab.mergeCount() - 1 : 0).size();

    const auto tokenizer = gguf::Tokenizer::create(r.file);
    if (tokenizer->canTokenize())
        for (const bool special : {false, true}) {
            const std::vector<gguf::TokenId> ids = tokenizer->tokenize(
                "Hello  w\xC3\xB6rld <s></s><|endoftext|> 12345\n\t\xE2\x9C\x93 \xF0\x9F\xA6\x99 \xFF",
                {special, special});
            sink += tokenizer->detokenize(ids, {special, !special}).size();
            for (size_t i = 0; i < std::min<size_t>(ids.size(), 8); ++i)
                sink += tokenizer->tokenToPiece(ids[i], special, 1).size();
        }
    if (const std::string_view source = f.value("tokenizer.chat_template").toStringView(); !source.empty()) {
        const gguf::ChatTemplate chat(source);
        gguf::ChatTemplateInput input;
        input.messages = gguf::ChatTemplate::exampleMessages();
        sink += chat.render(input).text.size();
    }

    // the metadata writer: with nothing changed the header comes out as it was, copied or encoded
    // anew; with a key added, the result parses and holds it
    // (the metadata of a split set is edited in its first shard only: later shards are refused)
    if (f.complete() && !f.findMetadata(gguf::kPaddingKey) && f.value("split.no").toUInt().value_or(0) == 0) {
        for (const bool reencode : {false, true}) {
            std::string error;
            const auto plan = gguf::planHeader(f, {}, gguf::HeaderOptions{0, true, reencode}, error);
            if (!plan && error.find("are not written") == std::string::npos) // only a header too big to build
                __builtin_trap();
            if (!plan)
                continue;
            const uint64_t end = f.tensorInfoEnd();
            if (plan->fitsInPlace && (plan->bytes.size() < end || !std::equal(data, data + end, plan->bytes.data())))
                __builtin_trap();
        }
        gguf::MetadataChanges changes;
        changes.set("fuzz.added", gguf::OwnedValue::string(std::string(100, 'x')));
        std::string error;
        if (const auto plan = gguf::planHeader(f, changes, {}, error)) {
            std::vector<uint8_t> edited = plan->bytes;
            edited.insert(edited.end(), data + std::min<uint64_t>(f.dataOffset(), size), data + size);
            const gguf::OpenResult back = gguf::GgufFile::openBuffer(std::move(edited), "edited");
            if (!back.file || !back.file->complete() ||
                back.file->value("fuzz.added").toStringView() != std::string(100, 'x') ||
                back.file->tensors().size() != f.tensors().size())
                __builtin_trap();
        } else if (!f.findMetadata("fuzz.added") && error.find("are not written") == std::string::npos) {
            __builtin_trap(); // refused only for a key that exists already or a header too big to build
        }
    }

    // decode at most 64k elements per input so each run stays fast
    uint64_t budget = uint64_t(1) << 16;
    for (const gguf::TensorInfo &t : f.tensors()) {
        if (!gguf::canDequantize(t.typeId) || !t.dataInFile || !t.sizeFromType || t.elements > budget)
            continue;
        budget -= t.elements;
        const gguf::TensorData d = gguf::tensorData(f, t);
        gguf::StatsOptions options;
        options.threads = 1;
        options.bins = 16;
        // bits of where the tensor's name lies pick the sampled-percentile path and a chosen range too
        options.exactKeyElements = (t.nameOffset & 1) ? 1 + (t.nameOffset >> 1) % 4096 : options.exactKeyElements;
        if (t.nameOffset & 2)
            options.range = std::make_pair(-1.0, 1.0);
        gguf::TensorStatistics stats;
        gguf::computeStatistics(d, options, stats);
        sink += stats.count;
        gguf::HeatmapOptions heat;
        heat.threads = 1;
        heat.rows = heat.cols = 8;
        gguf::Heatmap h;
        gguf::computeHeatmap(d, t.ne[0], heat, h);
        std::vector<float> slice(static_cast<size_t>(std::min<uint64_t>(t.elements, 100)));
        gguf::dequantizeRange(t.typeId, d.bytes, t.elements, t.elements - slice.size(), slice);
    }
    volatile uint64_t keep = sink;
    (void)keep;
    return 0;
}
