// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the dequantizer: the whole-block decoders, one per type, that dequantize.cpp puts
// into its traits table. Each decodes `nBlocks` consecutive blocks from `src` (no alignment
// required) into `nBlocks * blockSize` floats at `dst`, in ggml's element order and with ggml's
// float operation order, so the results are bit-identical to ggml's `dequantize_row_*`
// (docs/FORMAT.md §4). Where a type has a hand-written x86 kernel (x86/kernels.h), its portable
// decoder here hands the whole call to it when the CPU allows.

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "core/format/ggml_blocks.h"
#include "core/quant/quant_tables.h"
#include "core/util/byte_order.h"
#include "core/util/cpu_features.h"
#include "core/util/float_convert.h"

// ggml rounds a*b+c as two operations; forbid clang from fusing them. GCC fuses only where FMA
// is enabled, which neither the baseline x86-64 code nor the kernels of x86/ enable.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace gguf::detail {

// Block fields are read as little-endian with memcpy.
static_assert(std::endian::native == std::endian::little, "the block decoders read little-endian fields directly");

// One element of type T, read as stored or byte-swapped, so that the decoders' loops stay branch-free.
template <typename T, bool Swap> inline T loadElement(const uint8_t *src, size_t index)
{
    T value;
    std::memcpy(&value, src + index * sizeof(T), sizeof(T));
    if constexpr (Swap)
        return byteSwap(value);
    else
        return value;
}

// The IQ1 shift: -delta when the sign bit is set, built without a branch.
inline float iq1Delta(bool negative)
{
    return std::bit_cast<float>(std::bit_cast<uint32_t>(tables::kIq1Delta) | (static_cast<uint32_t>(negative) << 31));
}

/// The eight sub-block factors of a Q4_K or Q5_K block (docs/FORMAT.md §4.4), each computed as
/// ggml does: value = scale[s] * code - min[s], scale[s] = d * sc[s], min[s] = dmin * m[s]. The
/// 64-element chunk c uses sub-block 2c for its low nibbles and 2c+1 for its high ones.
struct KSubBlockFactors {
    float scale[8];
    float min[8];
};

template <typename Block> inline KSubBlockFactors kSubBlockFactors(const uint8_t *block)
{
    const float d = fp16ToFp32(loadU16(block + offsetof(Block, d)));
    const float dmin = fp16ToFp32(loadU16(block + offsetof(Block, dmin)));
    uint8_t scaleMin[16]; // scales 0-7, then mins 0-7
    unpackQ4KScaleMins(block + offsetof(Block, scales), scaleMin);
    KSubBlockFactors f;
    for (int s = 0; s < 8; ++s) {
        f.scale[s] = d * static_cast<float>(scaleMin[s]);
        f.min[s] = dmin * static_cast<float>(scaleMin[8 + s]);
    }
    return f;
}

/// The 16 group scales of an IQ1_M block, two per 32-element group ib (2ib for its first 16
/// elements, 2ib+1 for the rest): d * (2s + 1), where the f16 block scale d is the top nibble of
/// each of the four scale words and s is 3 bits of the rest (docs/FORMAT.md §4.5).
inline std::array<float, 16> iq1mGroupScales(const uint8_t *block)
{
    const uint8_t *scales = block + offsetof(BlockIQ1_M, scales);
    const uint16_t sc[4] = {loadU16(scales), loadU16(scales + 2), loadU16(scales + 4), loadU16(scales + 6)};
    const uint16_t scaleBits =
        static_cast<uint16_t>((sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000));
    const float d = fp16ToFp32(scaleBits);
    std::array<float, 16> out{};
    for (int ib = 0; ib < 8; ++ib) {
        const int shift = 6 * (ib & 1);
        out[2 * ib] = d * static_cast<float>(2 * ((sc[ib / 2] >> shift) & 7) + 1);
        out[2 * ib + 1] = d * static_cast<float>(2 * ((sc[ib / 2] >> (shift + 3)) & 7) + 1);
    }
    return out;
}

/// Signature shared by every entry of the decoder table.
using BlockDecoder = void (*)(const uint8_t *src, size_t nBlocks, float *dst);

// Blocks are read in place, field by field: copying a whole block to the stack and reloading
// it at other offsets stalls store-to-load forwarding on every block.

/// Start of block `index` in a packed array of `Block`s.
template <typename Block> inline const uint8_t *blockAt(const uint8_t *src, size_t index)
{
    return src + index * sizeof(Block);
}

/// Sign-bit masks for each bit of a byte: row b, column j is 0x80000000 where bit j of b is set.
/// XOR with these is negation, exactly as GCC compiles ggml's `x * (bit ? -1.f : 1.f)`.
inline constexpr auto kSignMasks = [] {
    std::array<std::array<uint32_t, 8>, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
        for (unsigned j = 0; j < 8; ++j)
            t[b][j] = ((b >> j) & 1u) << 31;
    return t;
}();

// Plain element types (block size 1); the *Swapped variants read the other byte order.
void decodeF32(const uint8_t *src, size_t n, float *dst);
void decodeF32Swapped(const uint8_t *src, size_t n, float *dst);
void decodeF16(const uint8_t *src, size_t n, float *dst);
void decodeF16Swapped(const uint8_t *src, size_t n, float *dst);
void decodeBF16(const uint8_t *src, size_t n, float *dst);
void decodeBF16Swapped(const uint8_t *src, size_t n, float *dst);
void decodeF64(const uint8_t *src, size_t n, float *dst);
void decodeF64Swapped(const uint8_t *src, size_t n, float *dst);
void decodeI8(const uint8_t *src, size_t n, float *dst);
// the safetensors dtypes without a ggml type (ExtendedType)
void decodeU8(const uint8_t *src, size_t n, float *dst);
void decodeU16(const uint8_t *src, size_t n, float *dst);
void decodeU16Swapped(const uint8_t *src, size_t n, float *dst);
void decodeU32(const uint8_t *src, size_t n, float *dst);
void decodeU32Swapped(const uint8_t *src, size_t n, float *dst);
void decodeU64(const uint8_t *src, size_t n, float *dst);
void decodeU64Swapped(const uint8_t *src, size_t n, float *dst);
void decodeBool(const uint8_t *src, size_t n, float *dst);
void decodeF8E4M3(const uint8_t *src, size_t n, float *dst);
void decodeF8E5M2(const uint8_t *src, size_t n, float *dst);
void decodeI16(const uint8_t *src, size_t n, float *dst);
void decodeI16Swapped(const uint8_t *src, size_t n, float *dst);
void decodeI32(const uint8_t *src, size_t n, float *dst);
void decodeI32Swapped(const uint8_t *src, size_t n, float *dst);
void decodeI64(const uint8_t *src, size_t n, float *dst);
void decodeI64Swapped(const uint8_t *src, size_t n, float *dst);

// 32/64/128-element blocks with one scale (dequantize_simple.cpp).
void decodeQ4_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ4_1(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ5_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ5_1(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ8_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ8_1(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ1_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ2_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ4_NL(const uint8_t *src, size_t nBlocks, float *dst);
void decodeMXFP4(const uint8_t *src, size_t nBlocks, float *dst);
void decodeNVFP4(const uint8_t *src, size_t nBlocks, float *dst);

// Ternary types (dequantize_ternary.cpp). I2_S yields the codes' values -1/0/+1; the caller
// multiplies by the tensor-wide scale stored after the codes.
void decodeTQ1_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeTQ2_0(const uint8_t *src, size_t nBlocks, float *dst);
void decodeI2_S(const uint8_t *src, size_t nBlocks, float *dst);

// 256-element k-quant super-blocks (dequantize_kquants.cpp).
void decodeQ2_K(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ3_K(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ4_K(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ5_K(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ6_K(const uint8_t *src, size_t nBlocks, float *dst);
void decodeQ8_K(const uint8_t *src, size_t nBlocks, float *dst);

// 256-element codebook super-blocks (dequantize_iquants.cpp).
void decodeIQ2_XXS(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ2_XS(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ2_S(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ3_XXS(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ3_S(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ1_S(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ1_M(const uint8_t *src, size_t nBlocks, float *dst);
void decodeIQ4_XS(const uint8_t *src, size_t nBlocks, float *dst);

} // namespace gguf::detail
