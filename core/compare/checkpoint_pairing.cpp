// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/checkpoint_pairing.h"

#include "checkpoint_rules.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <optional>
#include <string_view>

namespace gguf {
namespace {

using namespace detail::conversion;

std::optional<uint64_t> metadataUnsigned(const GgufFile &file, const std::string &key)
{
    const Value v = file.value(key);
    return v.isValid() ? v.toUInt() : std::nullopt;
}

class Pairer {
public:
    Pairer(const SplitModel &model, const st::Checkpoint &checkpoint, CheckpointPairing &out)
        : m_model(model), m_checkpoint(checkpoint), m_out(out), m_used(checkpoint.tensors().size(), false)
    {
        const GgufFile &primary = model.primary();
        m_arch = out.architecture;
        m_heads = metadataUnsigned(primary, m_arch + ".attention.head_count").value_or(0);
        m_kvHeads = metadataUnsigned(primary, m_arch + ".attention.head_count_kv").value_or(m_heads);
        m_experts = metadataUnsigned(primary, m_arch + ".expert_count").value_or(0);
        for (std::string_view prefix : kPrefixes)
            if (checkpoint.tensor(std::string(prefix) + "embed_tokens.weight")) {
                m_prefix = prefix;
                break;
            }
    }

    void run()
    {
        for (size_t i = 0; i < m_model.tensors().size(); ++i)
            m_out.pairs.push_back(pairOne(static_cast<int>(i)));
        for (size_t i = 0; i < m_used.size(); ++i)
            if (!m_used[i]) {
                CheckpointPair only;
                only.sources.push_back(static_cast<int>(i));
                only.sourceName = m_checkpoint.tensors()[i].entry->name;
                m_out.pairs.push_back(std::move(only));
            }
    }

private:
    int find(const std::string &name) const
    {
        const st::Checkpoint::TensorRef *ref = m_checkpoint.tensor(name);
        return ref ? static_cast<int>(ref - m_checkpoint.tensors().data()) : -1;
    }

    const st::TensorEntry &entry(int index) const { return *m_checkpoint.tensors()[size_t(index)].entry; }

    CheckpointPair pairOne(int index)
    {
        CheckpointPair pair;
        pair.ggufTensor = index;
        const std::string_view name = m_model.tensors()[size_t(index)].info->name;
        if (name == "output.weight") {
            for (const char *head : {"lm_head.weight", "language_model.lm_head.weight"})
                if (const int s = find(head); s >= 0) {
                    place(pair, {s}, ConversionStep::Plain, head);
                    break;
                }
        } else if (name.starts_with("blk.")) {
            pairLayer(pair, name);
        } else {
            for (const Rule &rule : kModelRules)
                if (rule.gguf == name)
                    tryRule(pair, rule, m_prefix);
        }
        if (pair.paired())
            checkShape(pair);
        return pair;
    }

    void pairLayer(CheckpointPair &pair, std::string_view name)
    {
        const size_t dot = name.find('.', 4);
        if (dot == std::string_view::npos)
            return;
        const std::string_view layer = name.substr(4, dot - 4), suffix = name.substr(dot + 1);
        uint64_t n = 0;
        if (std::from_chars(layer.data(), layer.data() + layer.size(), n).ptr != layer.data() + layer.size())
            return;
        const std::string prefix = m_prefix + "layers." + std::string(layer) + ".";
        if (const Rule &ffnNorm = ffnNormRule(m_arch); suffix == ffnNorm.gguf) {
            tryRule(pair, ffnNorm, prefix);
            return;
        }
        for (const Rule &rule : kLayerRules)
            if (rule.gguf == suffix && tryRule(pair, rule, prefix))
                return;
        for (const Rule &rule : kFusedExpertRules)
            if (rule.gguf == suffix && tryRule(pair, rule, prefix))
                return;
    }

    bool tryRule(CheckpointPair &pair, const Rule &rule, const std::string &prefix)
    {
        for (std::string_view hf : rule.hf) {
            const std::string full = prefix + std::string(hf);
            if (rule.kind == ConversionStep::Experts) {
                std::vector<int> sources;
                for (uint64_t e = 0; m_experts == 0 || e < m_experts; ++e) {
                    std::string name = full;
                    name.replace(name.find("{e}"), 3, std::to_string(e));
                    const int s = find(name);
                    if (s < 0)
                        break;
                    sources.push_back(s);
                }
                if (sources.empty() || (m_experts != 0 && sources.size() != m_experts))
                    continue;
                std::string shown = full;
                shown.replace(shown.find("{e}"), 3, "{0…" + std::to_string(sources.size() - 1) + "}");
                place(pair, sources, rule.kind, shown);
                return true;
            }
            if (const int s = find(full); s >= 0) {
                place(pair, {s}, rule.kind, full);
                return true;
            }
        }
        return false;
    }

    void place(CheckpointPair &pair, std::vector<int> sources, ConversionStep kind, std::string shown)
    {
        const st::TensorEntry &first = entry(sources.front());
        const std::vector<uint64_t> &shape = first.shape;
        pair.sources = std::move(sources);
        pair.sourceName = std::move(shown);
        for (int s : pair.sources)
            m_used[size_t(s)] = true;
        // rows of `cols` values: a 1-D tensor is a column (its rows may be regrouped)
        pair.cols = shape.size() >= 2 ? shape.back() : 1;
        uint64_t rows = 1;
        for (size_t i = 0; i + (shape.size() >= 2 ? 1 : 0) < shape.size(); ++i)
            rows *= shape[i];
        pair.rowsPerSource = rows;
        pair.sourceDims.assign(shape.rbegin(), shape.rend());
        if (kind == ConversionStep::Experts) {
            pair.sourceDims.push_back(pair.sources.size());
            pair.undone.push_back(std::to_string(pair.sources.size()) + " experts stacked");
        } else if (kind == ConversionStep::FusedGateExp || kind == ConversionStep::FusedUpExp) {
            // [experts, 2·ff, embd]: each expert's gate rows, then its up rows
            if (shape.size() != 3 || shape[1] % 2 != 0) {
                pair.problem = "a fused gate_up tensor of shape " + st::shapeText(shape) + " cannot be split in two";
                return;
            }
            pair.rowsPerSource = shape[1] / 2;
            pair.expertStride = shape[1];
            pair.firstRow = kind == ConversionStep::FusedUpExp ? pair.rowsPerSource : 0;
            pair.sourceDims = {shape[2], shape[1] / 2, shape[0]};
            pair.undone.push_back(std::string(kind == ConversionStep::FusedGateExp ? "first" : "second") +
                                  " half of each expert's gate_up rows");
        }
        if ((kind == ConversionStep::RopeQ || kind == ConversionStep::RopeK) && m_arch == "llama") {
            pair.ropeHeads = static_cast<uint32_t>(kind == ConversionStep::RopeQ ? m_heads : m_kvHeads);
            if (pair.ropeHeads == 0 || rows % (2 * uint64_t(pair.ropeHeads)) != 0)
                pair.problem = "the rows of " + pair.sourceName + " cannot be regrouped over " +
                               std::to_string(pair.ropeHeads) + " heads";
            else
                pair.undone.push_back("rows regrouped over " + std::to_string(pair.ropeHeads) + " heads (RoPE)");
        }
        if (gemmaFamily(m_arch) && pair.sourceName.ends_with("norm.weight")) {
            pair.shift = 1.0f;
            pair.undone.push_back("+1 (gemma norm)");
        }
    }

    void checkShape(CheckpointPair &pair) const
    {
        if (!pair.problem.empty())
            return;
        const TensorInfo &info = *m_model.tensors()[size_t(pair.ggufTensor)].info;
        std::vector<uint64_t> dims(info.ne.begin(), info.ne.begin() + std::min<uint32_t>(info.nDims, 4));
        std::vector<uint64_t> expected = pair.sourceDims;
        while (!expected.empty() && expected.size() > dims.size() && expected.back() == 1)
            expected.pop_back();
        // gemma3's converter drops the embedding rows past the tokenizer's vocabulary
        if (m_arch == "gemma3" && info.name == "token_embd.weight" && dims.size() == 2 && expected.size() == 2 &&
            dims[0] == expected[0] && dims[1] < expected[1]) {
            pair.undone.push_back("first " + std::to_string(dims[1]) + " of " + std::to_string(expected[1]) +
                                  " rows (the converter drops rows past the vocabulary)");
            pair.rowsPerSource = dims[1];
            pair.sourceDims[1] = dims[1];
            return;
        }
        if (dims != expected)
            pair.problem = "the checkpoint's " + pair.sourceName + " does not fit its shape";
    }

    const SplitModel &m_model;
    const st::Checkpoint &m_checkpoint;
    CheckpointPairing &m_out;
    std::vector<bool> m_used;
    std::string m_arch, m_prefix = "model.";
    uint64_t m_heads = 0, m_kvHeads = 0, m_experts = 0;
};

} // namespace

const std::vector<std::string> &pairableArchitectures()
{
    static const std::vector<std::string> names{"llama", "qwen2",  "qwen2moe", "qwen3", "qwen3moe",
                                                "gemma", "gemma2", "gemma3",   "phi3"};
    return names;
}

CheckpointPairing pairWithCheckpoint(const SplitModel &model, const st::Checkpoint &checkpoint)
{
    CheckpointPairing out;
    const Value arch = model.primary().value("general.architecture");
    out.architecture = arch.isValid() && arch.type() == ValueType::String ? std::string(arch.toStringView()) : "";
    const auto &known = pairableArchitectures();
    out.known = std::find(known.begin(), known.end(), out.architecture) != known.end();
    if (!out.known) {
        out.problem = out.architecture.empty() ? "the GGUF has no general.architecture"
                                               : "the conversion of architecture '" + out.architecture +
                                                     "' is not known here (known: llama, qwen2, qwen2moe, qwen3, "
                                                     "qwen3moe, gemma, gemma2, gemma3, phi3)";
        for (size_t i = 0; i < model.tensors().size(); ++i) {
            CheckpointPair only;
            only.ggufTensor = static_cast<int>(i);
            out.pairs.push_back(std::move(only));
        }
        for (size_t i = 0; i < checkpoint.tensors().size(); ++i) {
            CheckpointPair only;
            only.sources.push_back(static_cast<int>(i));
            only.sourceName = checkpoint.tensors()[i].entry->name;
            out.pairs.push_back(std::move(only));
        }
        return out;
    }
    Pairer(model, checkpoint, out).run();
    return out;
}

std::optional<TensorData> checkpointTensorData(const st::Checkpoint &checkpoint, size_t index)
{
    const st::Checkpoint::TensorRef &ref = checkpoint.tensors()[index];
    const st::TensorEntry &e = *ref.entry;
    const std::optional<uint32_t> type = st::ggmlTypeOf(e.dtype);
    const st::SafetensorsFile *file = checkpoint.shards()[ref.shard].file.get();
    if (!type || !file)
        return std::nullopt;
    return tensorData(file->source(), *type, e.elements, e.fileBegin, e.bytes(), e.dataInFile);
}

ComposedValues composedValues(const CheckpointPair &pair, const st::Checkpoint &checkpoint)
{
    ComposedValues out;
    out.cols = pair.cols;
    out.shift = pair.shift;
    for (int s : pair.sources) {
        const st::TensorEntry &e = *checkpoint.tensors()[size_t(s)].entry;
        const std::optional<TensorData> read = checkpointTensorData(checkpoint, size_t(s));
        if (!read)
            return {};
        const TensorData &data = *read;
        if (pair.expertStride != 0 && e.shape.size() == 3) {
            // one stacked tensor: rows [firstRow, firstRow + rowsPerSource) of each expert's expertStride
            for (uint64_t x = 0; x < e.shape[0]; ++x)
                out.pieces.push_back({data, x * pair.expertStride + pair.firstRow, pair.rowsPerSource, 0});
        } else {
            out.pieces.push_back({data, pair.firstRow, pair.rowsPerSource, pair.ropeHeads});
        }
    }
    return out;
}

} // namespace gguf

namespace gguf {

CheckpointPairOutcome compareCheckpointPair(const SplitModel &model, const st::Checkpoint &checkpoint,
                                            const CheckpointPair &pair, bool checkpointIsA, bool values,
                                            const ValueDiffOptions &options)
{
    CheckpointPairOutcome out;
    if (pair.ggufTensor < 0)
        out.status = checkpointIsA ? TensorDiffStatus::OnlyA : TensorDiffStatus::OnlyB;
    else if (pair.sources.empty())
        out.status = checkpointIsA ? TensorDiffStatus::OnlyB : TensorDiffStatus::OnlyA;
    else if (!pair.problem.empty())
        out.status = TensorDiffStatus::ShapeChanged;
    out.problem = pair.problem;
    if (!values || !pair.paired() || !pair.problem.empty())
        return out;
    const SplitModel::TensorRef &ref = model.tensors()[size_t(pair.ggufTensor)];
    const ComposedValues gguf = ComposedValues::of(tensorData(*model.shards()[ref.shard].file, *ref.info));
    const ComposedValues original = composedValues(pair, checkpoint);
    if (original.pieces.empty()) {
        out.problem = "the checkpoint's dtype cannot be read as values";
        return out;
    }
    const StatsStatus status = checkpointIsA ? compareValues(original, gguf, options, out.values)
                                             : compareValues(gguf, original, options, out.values);
    switch (status) {
    case StatsStatus::Ok:
        out.compared = true;
        out.status = out.values.sameValues() ? TensorDiffStatus::SameValues : TensorDiffStatus::Changed;
        break;
    case StatsStatus::Unsupported:
        out.problem = "the GGUF's type " + typeName(ref.info->typeId) + " cannot be decoded";
        break;
    case StatsStatus::NoData: out.problem = "the data of one side is not inside its file"; break;
    case StatsStatus::Cancelled: out.problem = "cancelled"; break;
    }
    return out;
}

} // namespace gguf
