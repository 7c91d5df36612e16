// SPDX-License-Identifier: GPL-3.0-or-later
// The converter's GGUF header for a checkpoint (docs/SAFETENSORS.md §8). The keys and their sources
// are those of convert_hf_to_gguf.py's TextModel.set_gguf_parameters and the architectures' own
// additions, read in llama.cpp 3f545bec (the version tests/data/hf-oracle was made with).
#include "core/compare/converted_model.h"

#include "core/compare/checkpoint_pairing.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/json_reader.h"

#include <cstring>
#include <optional>

namespace gguf {
namespace {

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
        const uint64_t bytes = elements * (t.type == 0 ? 4 : 2);
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
