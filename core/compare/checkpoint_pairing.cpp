// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/checkpoint_pairing.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <initializer_list>
#include <map>
#include <optional>
#include <string_view>

namespace gguf {
namespace {

// What the converter did to a tensor besides renaming it (docs/SAFETENSORS.md §7).
enum class ConversionStep : uint8_t {
    Plain,
    RopeQ,        // rows regrouped over the attention heads
    RopeK,        // the same over the key/value heads
    Experts,      // one tensor per expert ("{e}" in the name), stacked
    FusedGateExp, // the first half of each expert's rows of a fused gate_up tensor
    FusedUpExp,   // the second half
    FusedExperts, // already stacked (a 3-D tensor of every expert)
};

struct Rule {
    std::string_view gguf;                      // after "blk.N." (or the whole name)
    std::initializer_list<std::string_view> hf; // after the layer prefix; the first found is used
    ConversionStep kind = ConversionStep::Plain;
};

// Names after "blk.N." in the GGUF and after "model.layers.N." in the checkpoint, as gguf-py's
// tensor_mapping.py maps them for the architectures pairableArchitectures() lists.
const std::array kLayerRules{
    Rule{"attn_norm.weight", {"input_layernorm.weight"}},
    Rule{"attn_q.weight", {"self_attn.q_proj.weight"}, ConversionStep::RopeQ},
    Rule{"attn_q.bias", {"self_attn.q_proj.bias"}, ConversionStep::RopeQ},
    Rule{"attn_k.weight", {"self_attn.k_proj.weight"}, ConversionStep::RopeK},
    Rule{"attn_k.bias", {"self_attn.k_proj.bias"}, ConversionStep::RopeK},
    Rule{"attn_v.weight", {"self_attn.v_proj.weight"}},
    Rule{"attn_v.bias", {"self_attn.v_proj.bias"}},
    Rule{"attn_output.weight", {"self_attn.o_proj.weight"}},
    Rule{"attn_output.bias", {"self_attn.o_proj.bias"}},
    Rule{"attn_qkv.weight", {"self_attn.qkv_proj.weight"}},
    Rule{"attn_q_norm.weight", {"self_attn.q_norm.weight"}},
    Rule{"attn_k_norm.weight", {"self_attn.k_norm.weight"}},
    Rule{"post_attention_norm.weight", {"post_attention_layernorm.weight"}}, // gemma2/3
    Rule{"post_ffw_norm.weight", {"post_feedforward_layernorm.weight"}},     // gemma2/3
    Rule{"ffn_gate.weight", {"mlp.gate_proj.weight"}},
    Rule{"ffn_up.weight", {"mlp.up_proj.weight", "mlp.gate_up_proj.weight"}}, // phi3 keeps gate_up fused
    Rule{"ffn_down.weight", {"mlp.down_proj.weight"}},
    Rule{"ffn_gate_inp.weight", {"mlp.gate.weight", "block_sparse_moe.gate.weight"}},
    Rule{"ffn_gate_exps.weight",
         {"mlp.experts.{e}.gate_proj.weight", "block_sparse_moe.experts.{e}.w1.weight"},
         ConversionStep::Experts},
    Rule{"ffn_up_exps.weight",
         {"mlp.experts.{e}.up_proj.weight", "block_sparse_moe.experts.{e}.w3.weight"},
         ConversionStep::Experts},
    Rule{"ffn_down_exps.weight",
         {"mlp.experts.{e}.down_proj.weight", "block_sparse_moe.experts.{e}.w2.weight"},
         ConversionStep::Experts},
    Rule{"ffn_gate_inp_shexp.weight", {"mlp.shared_expert_gate.weight"}},
    Rule{"ffn_gate_shexp.weight", {"mlp.shared_expert.gate_proj.weight"}},
    Rule{"ffn_up_shexp.weight", {"mlp.shared_expert.up_proj.weight"}},
    Rule{"ffn_down_shexp.weight", {"mlp.shared_expert.down_proj.weight"}},
};

// Experts stored already stacked (transformers ≥ 4.57 for qwen2/3-moe): tried when no per-expert
// tensor is found.
const std::array kFusedExpertRules{
    Rule{"ffn_gate_exps.weight",
         {"mlp.experts.gate_up_proj", "mlp.experts.gate_up_proj.weight"},
         ConversionStep::FusedGateExp},
    Rule{"ffn_up_exps.weight",
         {"mlp.experts.gate_up_proj", "mlp.experts.gate_up_proj.weight"},
         ConversionStep::FusedUpExp},
    Rule{"ffn_down_exps.weight",
         {"mlp.experts.down_proj", "mlp.experts.down_proj.weight"},
         ConversionStep::FusedExperts},
};

const std::array kModelRules{
    Rule{"token_embd.weight", {"embed_tokens.weight"}},
    Rule{"output_norm.weight", {"norm.weight"}},
};

// Where transformers puts the decoder: text-only models under "model.", multimodal ones under the
// language model.
constexpr std::array<std::string_view, 3> kPrefixes{"model.", "language_model.model.", "model.language_model."};

bool gemmaFamily(std::string_view arch)
{
    return arch == "gemma" || arch == "gemma2" || arch == "gemma3";
}

// gemma2 and gemma3 norm around the attention and the FFN both ways: their post_attention_layernorm
// is the attention's output norm and pre_feedforward_layernorm the FFN's; elsewhere (gemma v1
// included) post_attention_layernorm is the norm before the FFN (tensor_mapping.py's FFN_NORM).
bool sandwichNorms(std::string_view arch)
{
    return arch == "gemma2" || arch == "gemma3";
}

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
        if (suffix == "ffn_norm.weight") { // gemma2/3's "post_attention" norm is not the ffn norm
            tryRule(pair,
                    sandwichNorms(m_arch) ? Rule{suffix, {"pre_feedforward_layernorm.weight"}}
                                          : Rule{suffix, {"post_attention_layernorm.weight"}},
                    prefix);
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

// ---- the other way: the converter's tensors from the checkpoint's (docs/SAFETENSORS.md §8)

/// The type the converter writes a tensor in at the checkpoint's own dtype (conversion/base.py's
/// prepare_tensors): F32 for 1-D tensors, norms, the expert routers (ffn_gate_inp, and the shared
/// expert's) and anything not named ".weight"; the rest as the dtype; a dtype with no ggml
/// counterpart (FP8, integers) as F16, the converter's default.
uint32_t convertedType(st::Dtype dtype, size_t dims, std::string_view name)
{
    if (dims <= 1 || name.ends_with("_norm.weight") || name.ends_with(".ffn_gate_inp.weight") ||
        name.ends_with(".ffn_gate_inp_shexp.weight") || !name.ends_with(".weight"))
        return 0;
    switch (dtype) {
    case st::Dtype::F32: return 0;
    case st::Dtype::BF16: return 30;
    default: return 1;
    }
}

/// "experts.12.gate_proj" against "experts.{e}.gate_proj": the expert's number, or nullopt.
std::optional<uint64_t> expertOf(std::string_view name, std::string_view pattern)
{
    const size_t at = pattern.find("{e}");
    if (at == std::string_view::npos || name.size() <= pattern.size() - 3 || !name.starts_with(pattern.substr(0, at)) ||
        !name.ends_with(pattern.substr(at + 3)))
        return std::nullopt;
    const std::string_view digits = name.substr(at, name.size() - (pattern.size() - 3));
    uint64_t e = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), e);
    return ec == std::errc() && end == digits.data() + digits.size() && !digits.empty() ? std::optional(e)
                                                                                        : std::nullopt;
}

class Converter {
public:
    Converter(const st::Checkpoint &checkpoint, uint64_t experts, ConvertedTensors &out)
        : m_checkpoint(checkpoint), m_out(out), m_expertCount(experts)
    {
    }

    // In the checkpoint's order; a layer's experts stacked where the last of them comes, as the
    // converter writes them once it holds them all.
    void run()
    {
        for (const st::Checkpoint::TensorRef &ref : m_checkpoint.tensors())
            if (!mapOne(*ref.entry))
                m_out.unmapped.push_back(ref.entry->name);
        for (auto &[name, group] : m_experts)
            if (!group.written)
                m_out.unmapped.push_back(name + " (" + std::to_string(group.count) + " experts of " +
                                         std::to_string(m_expertCount) + ")");
    }

private:
    struct ExpertGroup {
        uint64_t count = 0;
        bool written = false;
    };

    void add(const std::string &name, std::vector<uint64_t> dims, st::Dtype dtype)
    {
        const uint32_t type = convertedType(dtype, dims.size(), name);
        m_out.tensors.push_back({name, std::move(dims), type});
    }

    bool mapOne(const st::TensorEntry &e)
    {
        const std::vector<uint64_t> dims(e.shape.rbegin(), e.shape.rend());
        if (e.name == "lm_head.weight" || e.name == "language_model.lm_head.weight") {
            add("output.weight", dims, e.dtype);
            return true;
        }
        for (std::string_view prefix : kPrefixes) {
            if (!std::string_view(e.name).starts_with(prefix))
                continue;
            const std::string_view rest = std::string_view(e.name).substr(prefix.size());
            for (const Rule &rule : kModelRules)
                if (rule.hf.size() && *rule.hf.begin() == rest) {
                    add(std::string(rule.gguf), dims, e.dtype);
                    return true;
                }
            return rest.starts_with("layers.") && mapLayer(e, rest.substr(7), dims);
        }
        return false;
    }

    bool mapLayer(const st::TensorEntry &e, std::string_view rest, const std::vector<uint64_t> &dims)
    {
        const size_t dot = rest.find('.');
        uint64_t layer = 0;
        if (dot == std::string_view::npos ||
            std::from_chars(rest.data(), rest.data() + dot, layer).ptr != rest.data() + dot)
            return false;
        const std::string blk = "blk." + std::to_string(layer) + ".";
        const std::string_view sub = rest.substr(dot + 1);
        const bool sandwich = sandwichNorms(m_out.architecture);
        if (sub == "pre_feedforward_layernorm.weight" || (!sandwich && sub == "post_attention_layernorm.weight")) {
            add(blk + "ffn_norm.weight", dims, e.dtype);
            return true;
        }
        for (const Rule &rule : kLayerRules)
            for (std::string_view hf : rule.hf) {
                if (rule.kind == ConversionStep::Experts) {
                    if (const auto x = expertOf(sub, hf); x && *x < m_expertCount) {
                        const std::string name = blk + std::string(rule.gguf);
                        ExpertGroup &g = m_experts[name];
                        if (++g.count == m_expertCount) {
                            std::vector<uint64_t> stacked = dims;
                            stacked.push_back(m_expertCount);
                            add(name, stacked, e.dtype);
                            g.written = true;
                        }
                        return true;
                    }
                } else if (hf == sub) {
                    add(blk + std::string(rule.gguf), dims, e.dtype);
                    return true;
                }
            }
        return mapFusedExperts(e, sub, blk);
    }

    // [experts, 2·ff, embd] gate_up: the gate half and the up half, each [embd, ff, experts]
    bool mapFusedExperts(const st::TensorEntry &e, std::string_view sub, const std::string &blk)
    {
        if (e.shape.size() != 3)
            return false;
        if (sub == "mlp.experts.gate_up_proj" || sub == "mlp.experts.gate_up_proj.weight") {
            if (e.shape[1] % 2 != 0)
                return false;
            const std::vector<uint64_t> half{e.shape[2], e.shape[1] / 2, e.shape[0]};
            add(blk + "ffn_gate_exps.weight", half, e.dtype);
            add(blk + "ffn_up_exps.weight", half, e.dtype);
            return true;
        }
        if (sub == "mlp.experts.down_proj" || sub == "mlp.experts.down_proj.weight") {
            add(blk + "ffn_down_exps.weight", {e.shape[2], e.shape[1], e.shape[0]}, e.dtype);
            return true;
        }
        return false;
    }

    const st::Checkpoint &m_checkpoint;
    ConvertedTensors &m_out;
    uint64_t m_expertCount = 0;
    std::map<std::string, ExpertGroup> m_experts;
};

} // namespace

std::string architectureForModelType(std::string_view modelType)
{
    static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
        {"llama", "llama"},        {"mistral", "llama"}, {"mixtral", "llama"},      {"qwen2", "qwen2"},
        {"qwen2_moe", "qwen2moe"}, {"qwen3", "qwen3"},   {"qwen3_moe", "qwen3moe"}, {"gemma", "gemma"},
        {"gemma2", "gemma2"},      {"gemma3", "gemma3"}, {"gemma3_text", "gemma3"}, {"phi3", "phi3"}};
    for (const auto &[hf, gguf] : kNames)
        if (hf == modelType)
            return std::string(gguf);
    return {};
}

ConvertedTensors convertedTensors(const st::Checkpoint &checkpoint)
{
    ConvertedTensors out;
    const json::Value *config = checkpoint.config();
    const json::Value *type = config ? config->find("model_type") : nullptr;
    const std::string modelType = type && type->kind == json::Value::Kind::String ? type->text : "";
    out.architecture = architectureForModelType(modelType);
    if (out.architecture.empty()) {
        out.problem = !config ? "no config.json beside the checkpoint: its architecture is not known"
                      : modelType.empty()
                          ? "config.json names no model_type"
                          : "the conversion of model_type '" + modelType +
                                "' is not known here (known: llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, "
                                "qwen3_moe, gemma, gemma2, gemma3, phi3)";
        return out;
    }
    // experts per layer (a multimodal config keeps the language model's under text_config)
    uint64_t experts = 0;
    const json::Value *text = config->find("text_config");
    for (const json::Value *c : {text, config})
        for (const char *key : {"num_local_experts", "num_experts"})
            if (const json::Value *v = c ? c->find(key) : nullptr; v && experts == 0)
                experts = v->asUnsigned().value_or(0);
    Converter(checkpoint, experts, out).run();
    return out;
}

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
