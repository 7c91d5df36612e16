// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>

namespace bench {

/// Writes a GGUF v3 file holding one tensor of `typeId` with `bytes` bytes of pseudo-random data
/// (real bytes, not holes, so decoding does real work). Returns the data's element count.
uint64_t writeSingleTensorFile(const std::string &path, uint32_t typeId, uint64_t bytes);

/// Writes the "big model" of the open benchmark: a 256k-token vocabulary (tokens, scores, types),
/// 500k merges, and 20,000 tensor infos whose data claims ~30 GB; the data region is a hole
/// (ftruncate), so the file is sparse. Returns the header size (start of the data region).
uint64_t writeBigSparseModel(const std::string &path, uint64_t &claimedFileSize);

/// Writes the vocabulary of the token search benchmark, GPT-2 style and without tensors: the 256
/// byte tokens, then pseudo-words of 2–10 letters, 6 in 10 of them starting with Ġ, with types,
/// scores and one merge rule per word. Drawn from std::mt19937 seeded with 7, so the match counts
/// are the same in every run. Returns the number of merge rules.
uint64_t writeTokenVocabulary(const std::string &path, uint32_t tokens);

/// Writes a GGUF v3 file holding the one tensor of the single-tensor file `source`, decoded and
/// stored as F16 with the same dims (the same values, rounded to half precision). Returns the
/// element count, 0 when the source could not be read.
uint64_t writeF16CopyFile(const std::string &path, const std::string &source);

/// Writes a safetensors file holding the one tensor of the single-tensor GGUF `source` as its BF16
/// original would be, named `name` with shape [ne1, ne0]: the decoded values rounded to BF16, the
/// rows in the checkpoint's order for `ropeHeads` heads (the converter's regrouping undone; 0: as
/// they are). Returns the element count, 0 when the source could not be read.
uint64_t writeBf16OriginalFile(const std::string &path, const std::string &source, const std::string &name,
                               uint32_t ropeHeads);

/// Writes a LoRA adapter with one pair `blk.0.ffn_up.weight.lora_a` F32 [nIn, rank] and `.lora_b`
/// F32 [rank, nOut] of pseudo-random values in [−0.5, 0.5), alpha = 2 · rank. Returns the file size.
uint64_t writeLoraFile(const std::string &path, uint64_t nIn, uint64_t nOut, uint64_t rank);

/// Writes an importance matrix in llama-imatrix's layout: per layer four dense weights (attn_q, k,
/// v, output: in_sum2 F32 [channels, 1]) and three MoE weights (ffn_gate/up/down_exps: in_sum2 F32
/// [channels, experts]), each with its counts (every 16th expert never used). Returns the file size.
uint64_t writeImatrixFile(const std::string &path, uint32_t layers, uint64_t experts, uint64_t channels);

} // namespace bench
