// SPDX-License-Identifier: GPL-3.0-or-later
// AVX2 decoders of the blocks of 32 to 128 elements with one scale (the portable ones and the
// choice between them are in ../dequantize_simple.cpp; layouts in docs/FORMAT.md §4.2).
#include "../dequantize_blocks.h"
#include "avx2_helpers.h"
#include "core/format/ggml_blocks.h"
#include "core/quant/quant_tables.h"
#include "core/util/float_convert.h"
#include "kernels.h"

#if GGUF_X86_KERNELS

namespace gguf::detail {

// AVX2 kernels. Codes are built with byte operations and widened to floats 8 at a time; the
// float operations are the portable loops', in the same order.

GGUF_AVX2_KERNEL void decodeQ4_0Avx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    // code - 8 as a lookup table
    const __m128i lut = _mm_setr_epi8(-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7);
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ4_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ4_0, d)));
        avx2::storeNibbleLut32(avx2::load16(b + offsetof(BlockQ4_0, qs)), lut, _mm256_set1_ps(d), dst);
    }
}

GGUF_AVX2_KERNEL void decodeQ4_1Avx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ4_1>(src, i);
        const __m256 d = _mm256_set1_ps(fp16ToFp32(loadU16(b + offsetof(BlockQ4_1, d))));
        const __m256 m = _mm256_set1_ps(fp16ToFp32(loadU16(b + offsetof(BlockQ4_1, m))));
        const __m256i codes = avx2::splitNibbles(avx2::load16(b + offsetof(BlockQ4_1, qs)));
        avx2::storeAffine16<false>(_mm256_castsi256_si128(codes), d, m, dst);
        avx2::storeAffine16<false>(_mm256_extracti128_si256(codes, 1), d, m, dst + 16);
    }
}

GGUF_AVX2_KERNEL void decodeQ5_0Avx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m256i sixteen = _mm256_set1_epi8(16);
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ5_0>(src, i);
        const __m256 d = _mm256_set1_ps(fp16ToFp32(loadU16(b + offsetof(BlockQ5_0, d))));
        const __m256i high = avx2::spreadBits32(loadU32(b + offsetof(BlockQ5_0, qh)), 16);
        const __m256i nibbles = avx2::splitNibbles(avx2::load16(b + offsetof(BlockQ5_0, qs)));
        avx2::storeScaled32(_mm256_sub_epi8(_mm256_or_si256(nibbles, high), sixteen), d, d, dst);
    }
}

GGUF_AVX2_KERNEL void decodeQ5_1Avx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ5_1>(src, i);
        const __m256 d = _mm256_set1_ps(fp16ToFp32(loadU16(b + offsetof(BlockQ5_1, d))));
        const __m256 m = _mm256_set1_ps(fp16ToFp32(loadU16(b + offsetof(BlockQ5_1, m))));
        const __m256i high = avx2::spreadBits32(loadU32(b + offsetof(BlockQ5_1, qh)), 16);
        const __m256i codes = _mm256_or_si256(avx2::splitNibbles(avx2::load16(b + offsetof(BlockQ5_1, qs))), high);
        avx2::storeAffine16<false>(_mm256_castsi256_si128(codes), d, m, dst);
        avx2::storeAffine16<false>(_mm256_extracti128_si256(codes, 1), d, m, dst + 16);
    }
}

// The 16-entry codebook types decode with pshufb lookups; the portable loops below gather.
GGUF_AVX2_KERNEL void decodeIQ4_NLAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m128i lut = avx2::lutOf(tables::kValuesIq4nl);
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockIQ4_NL>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ4_NL, d)));
        avx2::storeNibbleLut32(avx2::load16(b + offsetof(BlockIQ4_NL, qs)), lut, _mm256_set1_ps(d), dst);
    }
}

GGUF_AVX2_KERNEL void decodeMXFP4Avx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m128i lut = avx2::lutOf(tables::kValuesFp4);
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockMXFP4>(src, i);
        const float d = e8m0ToFp32Half(b[offsetof(BlockMXFP4, e)]);
        avx2::storeNibbleLut32(avx2::load16(b + offsetof(BlockMXFP4, qs)), lut, _mm256_set1_ps(d), dst);
    }
}

GGUF_AVX2_KERNEL void decodeNVFP4Avx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m128i lut = avx2::lutOf(tables::kValuesFp4);
    const __m128i low = _mm_set1_epi8(0x0f);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockNVFP4>(src, i);
        // 16 bytes hold two sub-blocks: bytes 0-7 the first, 8-15 the second
        for (int pair = 0; pair < 2; ++pair, dst += 32) {
            const __m128i q = avx2::load16(b + offsetof(BlockNVFP4, qs) + 16 * pair);
            const __m128i lows = _mm_shuffle_epi8(lut, _mm_and_si128(q, low));
            const __m128i highs = _mm_shuffle_epi8(lut, _mm_and_si128(_mm_srli_epi16(q, 4), low));
            const __m256 d0 = _mm256_set1_ps(kUe4m3HalfTable[b[offsetof(BlockNVFP4, d) + 2 * pair]]);
            const __m256 d1 = _mm256_set1_ps(kUe4m3HalfTable[b[offsetof(BlockNVFP4, d) + 2 * pair + 1]]);
            avx2::storeScaled8(lows, d0, dst);
            avx2::storeScaled8(highs, d0, dst + 8);
            avx2::storeScaled8(_mm_unpackhi_epi64(lows, lows), d1, dst + 16);
            avx2::storeScaled8(_mm_unpackhi_epi64(highs, highs), d1, dst + 24);
        }
    }
}

} // namespace gguf::detail

#endif
