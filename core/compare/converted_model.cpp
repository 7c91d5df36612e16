// SPDX-License-Identifier: GPL-3.0-or-later
// The converter's GGUF header for a checkpoint (docs/SAFETENSORS.md §8). The keys and their sources
// are those of convert_hf_to_gguf.py's TextModel.set_gguf_parameters and the architectures' own
// additions, read in llama.cpp 3f545bec (the version tests/data/hf-oracle was made with).
#include "core/compare/converted_model.h"

#include "checkpoint_rules.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>

namespace gguf {
namespace {

// One tensor as llama.cpp's converter would write it from a checkpoint (docs/SAFETENSORS.md §8).
struct ConvertedTensor {
    std::string name;           ///< the GGUF name ("blk.0.attn_q.weight")
    std::vector<uint64_t> dims; ///< innermost first, experts stacked last
    uint32_t type = 0;          ///< ggml type id
};

// The tensors of a checkpoint under the names, shapes and types the converter
// (convert_hf_to_gguf.py, at the checkpoint's own dtype: --outtype f32, f16 or bf16) gives them, by
// the same rules as pairWithCheckpoint read the other way; `unmapped` names what no rule maps (a
// vision tower, rotary tables), which the converter would write differently or not at all.
struct ConvertedTensors {
    std::string architecture; ///< llama.cpp's name for the config's model_type ("llama" for mistral)
    std::vector<ConvertedTensor> tensors;
    std::vector<std::string> unmapped;
    std::string problem; ///< why nothing could be mapped (an unknown model_type)
};
using namespace detail::conversion;

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
        if (const Rule &ffnNorm = ffnNormRule(m_out.architecture); sub == *ffnNorm.hf.begin()) {
            add(blk + std::string(ffnNorm.gguf), dims, e.dtype);
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

    // Experts already stacked (kFusedExpertRules): [experts, 2·ff, embd] gate_up gives the gate half
    // and the up half, each [embd, ff, experts]; [experts, rows, cols] down_proj gives one tensor.
    bool mapFusedExperts(const st::TensorEntry &e, std::string_view sub, const std::string &blk)
    {
        if (e.shape.size() != 3)
            return false;
        bool mapped = false;
        for (const Rule &rule : kFusedExpertRules) {
            if (std::find(rule.hf.begin(), rule.hf.end(), sub) == rule.hf.end())
                continue;
            const bool half = rule.kind != ConversionStep::FusedExperts;
            if (half && e.shape[1] % 2 != 0)
                return false;
            add(blk + std::string(rule.gguf), {e.shape[2], half ? e.shape[1] / 2 : e.shape[1], e.shape[0]}, e.dtype);
            mapped = true;
        }
        return mapped;
    }

    const st::Checkpoint &m_checkpoint;
    ConvertedTensors &m_out;
    uint64_t m_expertCount = 0;
    std::map<std::string, ExpertGroup> m_experts;
};

constexpr uint32_t kTypeUint32 = 4;
constexpr uint32_t kTypeString = 8;
constexpr uint64_t kAlignment = 32;

class HeaderBytes {
public:
    void u32(uint32_t v) { raw(&v, 4); }
    void u64(uint64_t v) { raw(&v, 8); }
    void text(std::string_view s)
    {
        u64(s.size());
        raw(s.data(), s.size());
    }
    void pairU32(const std::string &key, uint64_t v)
    {
        text(key);
        u32(kTypeUint32);
        u32(static_cast<uint32_t>(v));
        ++pairs;
    }
    void pairText(const std::string &key, std::string_view v)
    {
        text(key);
        u32(kTypeString);
        text(v);
        ++pairs;
    }
    std::vector<uint8_t> bytes;
    uint64_t pairs = 0;

private:
    void raw(const void *p, size_t n) // little-endian hosts only, as everything that maps GGUF here
    {
        const auto *b = static_cast<const uint8_t *>(p);
        bytes.insert(bytes.end(), b, b + n);
    }
};

// A config number that is a whole number ≤ 2^32 − 1 (a float written "4096.0" counts).
std::optional<uint64_t> whole(const json::Value *v)
{
    if (!v || v->kind != json::Value::Kind::Number)
        return std::nullopt;
    if (const auto u = v->asUnsigned())
        return *u <= UINT32_MAX ? u : std::nullopt;
    char *end = nullptr;
    const double d = std::strtod(v->text.c_str(), &end);
    if (end != v->text.c_str() + v->text.size() || !(d >= 0) || d > UINT32_MAX || d != static_cast<uint64_t>(d))
        return std::nullopt;
    return static_cast<uint64_t>(d);
}

// The hyperparameters: a multimodal config keeps the language model's under text_config.
class Hparams {
public:
    explicit Hparams(const json::Value &config) : m_config(config)
    {
        const json::Value *text = config.find("text_config");
        m_text = text && text->kind == json::Value::Kind::Object ? text : nullptr;
    }
    std::optional<uint64_t> get(std::initializer_list<const char *> names) const
    {
        for (const char *name : names) {
            if (m_text)
                if (const auto v = whole(m_text->find(name)))
                    return v;
            if (const auto v = whole(m_config.find(name)))
                return v;
        }
        return std::nullopt;
    }

private:
    const json::Value &m_config;
    const json::Value *m_text = nullptr;
};

void writeHparams(HeaderBytes &h, const std::string &arch, const Hparams &hp)
{
    const auto put = [&](const char *suffix, std::optional<uint64_t> v) {
        if (v)
            h.pairU32(arch + "." + suffix, *v);
    };
    put("block_count", hp.get({"num_hidden_layers", "n_layer", "num_layers"}));
    put("context_length", hp.get({"max_position_embeddings", "n_ctx", "n_positions"}));
    put("embedding_length", hp.get({"hidden_size", "n_embd"}));
    put("feed_forward_length", hp.get({"intermediate_size", "n_inner"}));
    const auto heads = hp.get({"num_attention_heads", "n_head"});
    put("attention.head_count", heads);
    put("attention.head_count_kv", hp.get({"num_key_value_heads", "n_head_kv"}));
    if (arch != "phi3") { // phi3's converter derives the rotary size instead
        put("attention.key_length", hp.get({"head_dim"}));
        put("attention.value_length", hp.get({"head_dim"}));
    }
    put("expert_count", hp.get({"num_local_experts", "num_experts"}));
    put("expert_used_count", hp.get({"num_experts_per_tok"}));
    if (arch == "qwen2moe" || arch == "qwen3moe") {
        put("expert_feed_forward_length", hp.get({"moe_intermediate_size"}));
        if (arch == "qwen2moe")
            put("expert_shared_feed_forward_length", hp.get({"shared_expert_intermediate_size"}));
    }
    if (arch == "gemma2" || arch == "gemma3" || arch == "phi3")
        put("attention.sliding_window", hp.get({"sliding_window"}));
    put("vocab_size", hp.get({"vocab_size"}));
}

// llama.cpp's architecture name for a Hugging Face `model_type` among those whose conversion is
// known ("mistral" → "llama", "qwen3_moe" → "qwen3moe", "gemma3_text" → "gemma3"); "" otherwise.
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
    // experts per layer, read as the header's expert_count is (writeHparams)
    const uint64_t experts = Hparams(*config).get({"num_local_experts", "num_experts"}).value_or(0);
    Converter(checkpoint, experts, out).run();
    return out;
}

} // namespace

ConvertedModel convertedModel(const st::Checkpoint &checkpoint)
{
    ConvertedModel out;
    const ConvertedTensors converted = convertedTensors(checkpoint);
    out.unmapped = converted.unmapped;
    if (!converted.problem.empty() || !checkpoint.config()) {
        out.problem = converted.problem;
        return out;
    }
    HeaderBytes kv;
    kv.pairText("general.architecture", converted.architecture);
    kv.pairText("general.type", "model");
    writeHparams(kv, converted.architecture, Hparams(*checkpoint.config()));
    HeaderBytes h;
    h.bytes.insert(h.bytes.end(), {'G', 'G', 'U', 'F'});
    h.u32(3);
    h.u64(converted.tensors.size());
    h.u64(kv.pairs);
    h.bytes.insert(h.bytes.end(), kv.bytes.begin(), kv.bytes.end());
    uint64_t offset = 0;
    for (const ConvertedTensor &t : converted.tensors) {
        h.text(t.name);
        h.u32(static_cast<uint32_t>(t.dims.size()));
        for (const uint64_t d : t.dims)
            h.u64(d);
        h.u32(t.type);
        h.u64(offset);
        uint64_t elements = 1;
        for (const uint64_t d : t.dims)
            elements *= d;
        const uint64_t bytes = tensorByteSize(t.type, t.dims.empty() ? 1 : t.dims[0], elements).value_or(0);
        offset += (bytes + kAlignment - 1) / kAlignment * kAlignment;
    }
    h.bytes.resize((h.bytes.size() + kAlignment - 1) / kAlignment * kAlignment, 0);
    OpenResult opened = GgufFile::openBuffer(std::move(h.bytes), checkpoint.path() + " (as converted)");
    if (!opened.file) {
        out.problem = "the converted header does not parse: " + opened.error.message;
        return out;
    }
    out.model = SplitModel::single(std::move(opened.file));
    return out;
}

} // namespace gguf
