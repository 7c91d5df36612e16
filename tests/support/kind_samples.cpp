// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/kind_samples.h"

#include <cstring>

namespace gguf::test {

std::vector<uint8_t> f32Data(const std::vector<float> &values)
{
    std::vector<uint8_t> out(values.size() * 4);
    if (!values.empty())
        std::memcpy(out.data(), values.data(), out.size());
    return out;
}

std::vector<uint8_t> f32Data(std::initializer_list<float> values)
{
    return f32Data(std::vector<float>(values));
}

GgufBuilder imatrixSample()
{
    GgufBuilder b;
    b.kv("general.type", V::str("imatrix"))
        .kv("imatrix.datasets", V::stringArray({"calibration.txt"}))
        .kv("imatrix.chunk_count", V::u32(20))
        .kv("imatrix.chunk_size", V::u32(512))
        .tensor("blk.0.attn_q.weight.in_sum2", {4, 1}, 0, f32Data({10, 20, 30, 40}))
        .tensor("blk.0.attn_q.weight.counts", {1, 1}, 0, f32Data({10}))
        .tensor("blk.1.attn_q.weight.in_sum2", {4, 1}, 0, f32Data({40, 30, 20, 10}))
        .tensor("blk.1.attn_q.weight.counts", {1, 1}, 0, f32Data({5}))
        .tensor("blk.0.ffn_up_exps.weight.in_sum2", {2, 3}, 0, f32Data({2, 4, 9, 9, 1, 3}))
        .tensor("blk.0.ffn_up_exps.weight.counts", {1, 3}, 0, f32Data({2, 0, 1}))
        .tensor("blk.0.attn_k.weight.in_sum2", {2, 1}, 0, f32Data({1, 1}))
        .tensor("blk.0.attn_k.weight.counts", {1, 1}, 0, f32Data({0}))
        .tensor("blk.0.attn_v.weight.in_sum2", {4, 1}, 1)
        .tensor("blk.0.attn_v.weight.counts", {1, 1}, 0, f32Data({3}));
    return b;
}

GgufBuilder loraSample()
{
    GgufBuilder b;
    b.kv("general.architecture", V::str("llama"))
        .kv("general.type", V::str("adapter"))
        .kv("adapter.type", V::str("lora"))
        .kv("adapter.lora.alpha", V::f32(4))
        .tensor("blk.0.attn_q.weight.lora_a", {3, 2}, 0, f32Data({1, 0, 2, 0, 1, -1}))
        .tensor("blk.0.attn_q.weight.lora_b", {2, 2}, 0, f32Data({1, 2, 3, -1}))
        .tensor("token_embd.weight.lora_a", {2, 3}, 0, f32Data({1, 0, 0, 1, 2, 3}))
        .tensor("token_embd.weight.lora_b", {2, 2}, 0, f32Data({1, 1, 0, 2}))
        .tensor("blk.0.ffn_up_exps.weight.lora_a", {2, 1, 2}, 0, f32Data({1, 2, 3, 4}))
        .tensor("blk.0.ffn_up_exps.weight.lora_b", {1, 2, 2}, 0, f32Data({1, -1, 2, 0}))
        .tensor("blk.0.attn_k.weight.lora_a", {3, 2}, 0)
        .tensor("blk.0.attn_k.weight.lora_b", {4, 2}, 0)
        .tensor("blk.0.attn_v.weight.lora_a", {3, 2}, 0)
        .tensor("blk.0.attn_norm.weight", {3}, 0, f32Data({1, 1, 1}));
    return b;
}

GgufBuilder moeSample(uint32_t embd, uint32_t ff)
{
    GgufBuilder b;
    b.kv("general.architecture", V::str("qwen3moe"))
        .kv("qwen3moe.block_count", V::u32(8u))
        .kv("qwen3moe.context_length", V::u32(4096))
        .kv("qwen3moe.embedding_length", V::u32(embd))
        .kv("qwen3moe.feed_forward_length", V::u32(ff))
        .kv("qwen3moe.expert_feed_forward_length", V::u32(ff))
        .kv("qwen3moe.expert_count", V::u32(8u))
        .kv("qwen3moe.expert_used_count", V::u32(2))
        .kv("qwen3moe.attention.head_count", V::u32(4))
        .kv("qwen3moe.attention.head_count_kv", V::u32(2))
        .kv("qwen3moe.attention.key_length", V::u32(16))
        .kv("qwen3moe.attention.value_length", V::u32(16))
        .kv("qwen3moe.vocab_size", V::u32(256u));
    b.tensor("token_embd.weight", {embd, 256u}, 8);
    for (uint32_t il = 0; il < 8u; ++il) {
        const std::string p = "blk." + std::to_string(il) + ".";
        b.tensor(p + "attn_norm.weight", {embd}, 0)
            .tensor(p + "attn_q.weight", {embd, 64}, 1)
            .tensor(p + "attn_k.weight", {embd, 32}, 1)
            .tensor(p + "attn_v.weight", {embd, 32}, 1)
            .tensor(p + "attn_output.weight", {64, embd}, 1)
            .tensor(p + "ffn_norm.weight", {embd}, 0)
            .tensor(p + "ffn_gate_inp.weight", {embd, 8u}, 0)
            .tensor(p + "ffn_gate_exps.weight", {embd, ff, 8u}, 2)
            .tensor(p + "ffn_up_exps.weight", {embd, ff, 8u}, 2)
            .tensor(p + "ffn_down_exps.weight", {ff, embd, 8u}, 8);
    }
    b.tensor("output_norm.weight", {embd}, 0).tensor("output.weight", {embd, 256u}, 8);
    return b;
}

} // namespace gguf::test
