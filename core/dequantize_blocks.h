// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the dequantizer: the whole-block decoders, one per type, that dequantize.cpp puts
// into its traits table. Each decodes `nBlocks` consecutive blocks from `src` (no alignment
// required) into `nBlocks * blockSize` floats at `dst`, in ggml's element order and with ggml's
// float operation order, so the results are bit-identical to ggml's `dequantize_row_*`.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

// ggml rounds a*b+c as two operations; forbid clang from fusing them (GCC leaves ISO C++ uncontracted).
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace gguf::detail {

// Block fields are read as little-endian with memcpy.
static_assert(std::endian::native == std::endian::little, "the block decoders read little-endian fields directly");

/// Signature shared by every entry of the decoder table.
using BlockDecoder = void (*)(const uint8_t *src, size_t nBlocks, float *dst);

// Blocks are read in place, field by field: copying a whole block to the stack and reloading
// it at other offsets stalls store-to-load forwarding on every block.

/// Start of block `index` in a packed array of `Block`s.
template <typename Block> inline const uint8_t *blockAt(const uint8_t *src, size_t index)
{
    return src + index * sizeof(Block);
}

/// Little-endian scalar fields at any alignment.
inline uint16_t loadU16(const uint8_t *p)
{
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline uint32_t loadU32(const uint8_t *p)
{
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline uint64_t loadU64(const uint8_t *p)
{
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
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

/// Bit j of byte b as byte j (0 or 1) of entry b, so bit fields widen with byte operations.
inline constexpr auto kBitSpread = [] {
    std::array<uint64_t, 256> t{};
    for (unsigned b = 0; b < 256; ++b)
        for (unsigned j = 0; j < 8; ++j)
            t[b] |= static_cast<uint64_t>((b >> j) & 1u) << (8 * j);
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
