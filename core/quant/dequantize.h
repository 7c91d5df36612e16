// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Decoding of tensor data to float32 (docs/FORMAT.md §4), bit-exact with ggml's own `to_float` dequantizers
// (`dequantize_row_*` in ggml `src/ggml-quants.c`) for every type it decodes.

#include <cstdint>
#include <span>

namespace gguf {

/// True when dequantizeRange can decode this type id: F32, F16, BF16, F64, I8–I64, the legacy
/// Q4_0…Q8_1 blocks, the k-quants Q2_K…Q8_K, every IQ type, TQ1_0, TQ2_0, MXFP4, NVFP4, Q1_0,
/// Q2_0 and BitNet's I2_S (fork id 36).
bool canDequantize(uint32_t typeId);

/// Decode elements [firstElement, firstElement + out.size()) of a tensor of `totalElements`
/// elements whose bytes are `tensorData` (exactly the tensor's byte range). Only the blocks that
/// contain the range are read. `swapBytes` is true for byte-swapped (big-endian) files: plain
/// element types (F32/F16/BF16/F64/I8..I64) are byte-swapped, and so is every multi-byte member
/// of a block (each f16, u16, i16, f32 word; byte arrays stay as stored) and I2_S's tensor-wide
/// scale (docs/FORMAT.md §2.3).
/// Integer types give the C conversion `(float)value`; F64 rounds to nearest (overflow → ±inf).
/// Returns false (and leaves `out` unspecified) for an unsupported type or a range/size mismatch.
bool dequantizeRange(uint32_t typeId, std::span<const uint8_t> tensorData, uint64_t totalElements,
                     uint64_t firstElement, std::span<float> out, bool swapBytes = false);

} // namespace gguf
