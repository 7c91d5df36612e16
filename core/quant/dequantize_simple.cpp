// SPDX-License-Identifier: GPL-3.0-or-later
// Blocks of 32 to 128 elements sharing one scale (or four, for NVFP4). Layouts follow ggml's
// block_* structs in src/ggml-common.h (docs/FORMAT.md §4.2); the arithmetic mirrors ggml's dequantize_row_* exactly.
#include "core/format/ggml_blocks.h"
#include "core/quant/quant_tables.h"
#include "core/util/float_convert.h"
#include "dequantize_blocks.h"
#include "x86/kernels.h"

#include <cstddef>

namespace gguf::detail {
namespace {

// The fifth bit of Q5_0/Q5_1 element j (bit j of qh) as 0 or 16. The masks come from a table so
// that a vectorized loop loads them instead of shifting by a per-lane count (SSE2 has none).
inline constexpr auto kBitMasks = [] {
    std::array<uint32_t, 32> t{};
    for (unsigned j = 0; j < 32; ++j)
        t[j] = 1u << j;
    return t;
}();

inline int highBit16(uint32_t qh, int j)
{
    return static_cast<int>((qh & kBitMasks[j]) != 0) << 4;
}

} // namespace

// Every decoder reads its blocks in place; __restrict tells the compiler the output never
// overlaps the input, so it vectorizes without runtime overlap checks.

void decodeQ4_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ4_0Avx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ4_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ4_0, d)));
        const uint8_t *qs = b + offsetof(BlockQ4_0, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = static_cast<float>((qs[j] & 0x0f) - 8) * d;
            dst[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
        }
    }
}

void decodeQ4_1(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ4_1Avx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ4_1>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ4_1, d)));
        const float m = fp16ToFp32(loadU16(b + offsetof(BlockQ4_1, m)));
        const uint8_t *qs = b + offsetof(BlockQ4_1, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = static_cast<float>(qs[j] & 0x0f) * d + m;
            dst[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
        }
    }
}

void decodeQ5_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ5_0Avx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ5_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ5_0, d)));
        const uint32_t qh = loadU32(b + offsetof(BlockQ5_0, qh));
        const uint8_t *qs = b + offsetof(BlockQ5_0, qs);
        for (int j = 0; j < 16; ++j) {
            const int lo = ((qs[j] & 0x0f) | highBit16(qh, j)) - 16;
            const int hi = ((qs[j] >> 4) | highBit16(qh, j + 16)) - 16;
            dst[j] = static_cast<float>(lo) * d;
            dst[j + 16] = static_cast<float>(hi) * d;
        }
    }
}

void decodeQ5_1(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ5_1Avx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ5_1>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ5_1, d)));
        const float m = fp16ToFp32(loadU16(b + offsetof(BlockQ5_1, m)));
        const uint32_t qh = loadU32(b + offsetof(BlockQ5_1, qh));
        const uint8_t *qs = b + offsetof(BlockQ5_1, qs);
        for (int j = 0; j < 16; ++j) {
            const unsigned lo = (qs[j] & 0x0fu) | highBit16(qh, j);
            const unsigned hi = (qs[j] >> 4) | highBit16(qh, j + 16);
            dst[j] = static_cast<float>(lo) * d + m;
            dst[j + 16] = static_cast<float>(hi) * d + m;
        }
    }
}

GGUF_DECODER_CLONES void decodeQ8_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeQ8_0Avx512(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ8_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ8_0, d)));
        const auto *qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_0, qs));
        for (int j = 0; j < 32; ++j)
            dst[j] = static_cast<float>(qs[j]) * d;
    }
}

GGUF_DECODER_CLONES void decodeQ8_1(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    // ggml has no to_float for Q8_1; decode it the way Q8_0 is decoded (value = q * d)
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ8_1>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ8_1, d)));
        const auto *qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_1, qs));
        for (int j = 0; j < 32; ++j)
            dst[j] = static_cast<float>(qs[j]) * d;
    }
}

void decodeQ1_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 128) {
        const uint8_t *b = blockAt<BlockQ1_0>(src, i);
        const uint32_t d = std::bit_cast<uint32_t>(fp16ToFp32(loadU16(b + offsetof(BlockQ1_0, d))));
        const uint8_t *qs = b + offsetof(BlockQ1_0, qs);
        for (int byte = 0; byte < 16; ++byte) {
            // a clear bit selects -d: flipping d's sign bit is exactly the negation
            const uint32_t *flip = kSignMasks[static_cast<uint8_t>(~qs[byte])].data();
            for (int k = 0; k < 8; ++k)
                dst[8 * byte + k] = std::bit_cast<float>(d ^ flip[k]);
        }
    }
}

void decodeQ2_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 64) {
        const uint8_t *b = blockAt<BlockQ2_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ2_0, d)));
        const uint8_t *qs = b + offsetof(BlockQ2_0, qs);
        for (int byte = 0; byte < 16; ++byte) {
            const int bits = qs[byte];
            for (int k = 0; k < 4; ++k)
                dst[4 * byte + k] = static_cast<float>(((bits >> (2 * k)) & 3) - 1) * d;
        }
    }
}

void decodeIQ4_NL(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeIQ4_NLAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockIQ4_NL>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ4_NL, d)));
        const uint8_t *qs = b + offsetof(BlockIQ4_NL, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = d * tables::kValuesIq4nlFloat[qs[j] & 0x0f];
            dst[j + 16] = d * tables::kValuesIq4nlFloat[qs[j] >> 4];
        }
    }
}

void decodeMXFP4(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeMXFP4Avx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockMXFP4>(src, i);
        const float d = e8m0ToFp32Half(b[offsetof(BlockMXFP4, e)]);
        const uint8_t *qs = b + offsetof(BlockMXFP4, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = tables::kValuesFp4Float[qs[j] & 0x0f] * d;
            dst[j + 16] = tables::kValuesFp4Float[qs[j] >> 4] * d;
        }
    }
}

void decodeNVFP4(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeNVFP4Avx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockNVFP4>(src, i);
        for (int s = 0; s < 4; ++s, dst += 16) {
            const float d = kUe4m3HalfTable[b[offsetof(BlockNVFP4, d) + s]];
            const uint8_t *q = b + offsetof(BlockNVFP4, qs) + 8 * s;
            for (int j = 0; j < 8; ++j) {
                dst[j] = tables::kValuesFp4Float[q[j] & 0x0f] * d;
                dst[j + 8] = tables::kValuesFp4Float[q[j] >> 4] * d;
            }
        }
    }
}

} // namespace gguf::detail
