// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small files of the other kinds of GGUF (#18) shared by the core and window tests, in the layouts
// llama.cpp writes (docs/KINDS.md). Their values are chosen so that the expected figures are small
// numbers the tests work out by hand.

#include "tests/support/gguf_builder.h"

#include <initializer_list>
#include <vector>

namespace gguf::test {

/// `values` as little-endian F32 tensor data.
std::vector<uint8_t> f32Data(const std::vector<float> &values);
std::vector<uint8_t> f32Data(std::initializer_list<float> values);

/// An importance matrix in llama-imatrix's layout (W.in_sum2 F32 [n_in, n_mat], W.counts F32
/// [1, n_mat]), 20 chunks of 512 tokens from "calibration.txt":
/// - blk.0.attn_q: sums 10 20 30 40, count 10 → importances 1 2 3 4;
/// - blk.1.attn_q: sums 40 30 20 10, count 5 → importances 8 6 4 2;
/// - blk.0.ffn_up_exps: 3 experts of 2 channels, sums (2 4) (9 9) (1 3), counts 2 0 1 → expert 1
///   never activated, importances (1 2) and (1 3);
/// - blk.0.attn_k: one matrix whose count is 0;
/// - blk.0.attn_v: in_sum2 is F16 (llama.cpp writes and reads F32 only).
GgufBuilder imatrixSample();

/// A LoRA adapter in convert_lora_to_gguf.py's layout, alpha 4:
/// - blk.0.attn_q: n_in 3, n_out 2, rank 2 → scale 2; lora_a rows (1 0 2), (0 1 −1), lora_b rows
///   (1 2), (3 −1), so ΔW = 2 · B·A = ((2 4 0), (6 −2 14));
/// - token_embd: lora_a ne [2, 3] rows (1 0), (0 1), (2 3); lora_b ne [2, 2] rows (1 1), (0 2);
/// - blk.0.ffn_up_exps: two experts of rank 1, A_e = (1 2), (3 4), B_e = (1, −1), (2, 0);
/// - blk.0.attn_k: ranks that do not chain (lora_a rank 2, lora_b rank 4);
/// - blk.0.attn_v: a lora_a without its lora_b;
/// - blk.0.attn_norm.weight: a plain F32 tensor (1 1 1).
GgufBuilder loraSample();

/// A qwen3moe model of 8 layers and 8 experts (2 used) for the offload plan (#44): token_embd and
/// output Q8_0 [embd, 256], attention F16 (q 64 rows, k and v 32, output [64, embd]), norms and
/// the router F32, experts gate/up Q4_0 [embd, ff, 8] and down Q8_0 [ff, embd, 8] — every kind of
/// tensor its own size; 4 heads, 2 KV heads of 16, context 4096; zero-filled.
GgufBuilder moeSample(uint32_t embd = 64, uint32_t ff = 32);

} // namespace gguf::test
