// SPDX-License-Identifier: GPL-3.0-or-later
// AVX2 decoders of the k-quant super-blocks (the portable ones and the choice between them are in
// ../dequantize_kquants.cpp; layouts in docs/FORMAT.md §4.3, §4.4).
#include "../dequantize_blocks.h"
#include "avx2_helpers.h"
#include "core/format/ggml_blocks.h"
#include "core/util/float_convert.h"
#include "kernels.h"

#if GGUF_X86_KERNELS

namespace gguf::detail {

// AVX2 kernels: the codes of 32 elements are built with byte operations, then widened to floats
// 8 at a time; every float operation is the portable loop's, in the same order.

GGUF_AVX2_KERNEL void decodeQ2_KAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m256i three = _mm256_set1_epi8(3);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ2_K>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ2_K, d)));
        const float dmin = fp16ToFp32(loadU16(b + offsetof(BlockQ2_K, dmin)));
        const uint8_t *scales = b + offsetof(BlockQ2_K, scales);
        for (int half = 0; half < 2; ++half) {
            const __m256i q = avx2::load32(b + offsetof(BlockQ2_K, qs) + 32 * half);
            for (int shift = 0; shift < 8; shift += 2, dst += 32) {
                // a 16-bit shift is exact here: the mask keeps bits that came from the same byte
                const __m256i codes = _mm256_and_si256(_mm256_srli_epi16(q, shift), three);
                const uint8_t sc0 = scales[8 * half + shift];
                const uint8_t sc1 = scales[8 * half + shift + 1];
                avx2::storeAffine16<true>(_mm256_castsi256_si128(codes),
                                          _mm256_set1_ps(d * static_cast<float>(sc0 & 0x0f)),
                                          _mm256_set1_ps(dmin * static_cast<float>(sc0 >> 4)), dst);
                avx2::storeAffine16<true>(_mm256_extracti128_si256(codes, 1),
                                          _mm256_set1_ps(d * static_cast<float>(sc1 & 0x0f)),
                                          _mm256_set1_ps(dmin * static_cast<float>(sc1 >> 4)), dst + 16);
            }
        }
    }
}

GGUF_AVX2_KERNEL void decodeQ3_KAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m256i three = _mm256_set1_epi8(3);
    const __m256i four = _mm256_set1_epi8(4);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ3_K>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ3_K, d)));
        const std::array<int, 16> scales = unpackQ3Scales(b + offsetof(BlockQ3_K, scales));
        const __m256i hmask = avx2::load32(b + offsetof(BlockQ3_K, hmask));
        int maskBit = 0;
        for (int half = 0; half < 2; ++half) {
            const __m256i q = avx2::load32(b + offsetof(BlockQ3_K, qs) + 32 * half);
            for (int shift = 0; shift < 8; shift += 2, ++maskBit, dst += 32) {
                const __m256i low = _mm256_and_si256(_mm256_srli_epi16(q, shift), three);
                // 4 where the hmask bit is clear
                const __m256i bit = _mm256_set1_epi8(static_cast<char>(1 << maskBit));
                const __m256i clear = _mm256_cmpeq_epi8(_mm256_and_si256(hmask, bit), _mm256_setzero_si256());
                const __m256i codes = _mm256_sub_epi8(low, _mm256_and_si256(clear, four));
                const int is = 8 * half + shift;
                avx2::storeScaled32(codes, _mm256_set1_ps(d * static_cast<float>(scales[is])),
                                    _mm256_set1_ps(d * static_cast<float>(scales[is + 1])), dst);
            }
        }
    }
}

namespace {

// The 64 elements of chunk `chunk` of a Q4_K or Q5_K block from its low-nibble and high-nibble
// codes: scale * code - min with the factors of sub-blocks 2*chunk and 2*chunk+1.
GGUF_AVX2 inline void storeKChunk(__m256i codesLo, __m256i codesHi, const KSubBlockFactors &f, int chunk, float *dst)
{
    const __m256 d1 = _mm256_set1_ps(f.scale[2 * chunk]);
    const __m256 m1 = _mm256_set1_ps(f.min[2 * chunk]);
    const __m256 d2 = _mm256_set1_ps(f.scale[2 * chunk + 1]);
    const __m256 m2 = _mm256_set1_ps(f.min[2 * chunk + 1]);
    avx2::storeAffine16<true>(_mm256_castsi256_si128(codesLo), d1, m1, dst);
    avx2::storeAffine16<true>(_mm256_extracti128_si256(codesLo, 1), d1, m1, dst + 16);
    avx2::storeAffine16<true>(_mm256_castsi256_si128(codesHi), d2, m2, dst + 32);
    avx2::storeAffine16<true>(_mm256_extracti128_si256(codesHi, 1), d2, m2, dst + 48);
}

} // namespace

GGUF_AVX2_KERNEL void decodeQ4_KAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m256i lowNibble = _mm256_set1_epi8(0x0f);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ4_K>(src, i);
        const KSubBlockFactors f = kSubBlockFactors<BlockQ4_K>(b);
        for (int chunk = 0; chunk < 4; ++chunk, dst += 64) {
            const __m256i q = avx2::load32(b + offsetof(BlockQ4_K, qs) + 32 * chunk);
            const __m256i codesLo = _mm256_and_si256(q, lowNibble);
            const __m256i codesHi = _mm256_and_si256(_mm256_srli_epi16(q, 4), lowNibble);
            storeKChunk(codesLo, codesHi, f, chunk, dst);
        }
    }
}

GGUF_AVX2_KERNEL void decodeQ5_KAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m256i lowNibble = _mm256_set1_epi8(0x0f);
    const __m256i sixteen = _mm256_set1_epi8(16);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ5_K>(src, i);
        const KSubBlockFactors f = kSubBlockFactors<BlockQ5_K>(b);
        const __m256i qh = avx2::load32(b + offsetof(BlockQ5_K, qh));
        for (int chunk = 0; chunk < 4; ++chunk, dst += 64) {
            const __m256i q = avx2::load32(b + offsetof(BlockQ5_K, qs) + 32 * chunk);
            // 16 where qh has bit 2*chunk (low nibbles) or 2*chunk+1 (high nibbles)
            const __m256i bitLo = _mm256_set1_epi8(static_cast<char>(1 << (2 * chunk)));
            const __m256i bitHi = _mm256_set1_epi8(static_cast<char>(2 << (2 * chunk)));
            const __m256i highLo = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, bitLo), bitLo), sixteen);
            const __m256i highHi = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(qh, bitHi), bitHi), sixteen);
            const __m256i codesLo = _mm256_or_si256(_mm256_and_si256(q, lowNibble), highLo);
            const __m256i codesHi = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(q, 4), lowNibble), highHi);
            storeKChunk(codesLo, codesHi, f, chunk, dst);
        }
    }
}

GGUF_AVX2_KERNEL void decodeQ6_KAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m256i lowNibble = _mm256_set1_epi8(0x0f);
    const __m256i bits45 = _mm256_set1_epi8(0x30);
    const __m256i bias = _mm256_set1_epi8(32);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ6_K>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ6_K, d)));
        const auto *scales = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ6_K, scales));
        for (int half = 0; half < 2; ++half, dst += 128) {
            const __m256i ql0 = avx2::load32(b + offsetof(BlockQ6_K, ql) + 64 * half);
            const __m256i ql1 = avx2::load32(b + offsetof(BlockQ6_K, ql) + 64 * half + 32);
            const __m256i qh = avx2::load32(b + offsetof(BlockQ6_K, qh) + 32 * half);
            // bit pairs 0-1, 2-3, 4-5, 6-7 of qh become bits 4-5 of the four code groups
            const __m256i q1 =
                _mm256_or_si256(_mm256_and_si256(ql0, lowNibble), _mm256_and_si256(_mm256_slli_epi16(qh, 4), bits45));
            const __m256i q2 =
                _mm256_or_si256(_mm256_and_si256(ql1, lowNibble), _mm256_and_si256(_mm256_slli_epi16(qh, 2), bits45));
            const __m256i q3 =
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql0, 4), lowNibble), _mm256_and_si256(qh, bits45));
            const __m256i q4 = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), lowNibble),
                                               _mm256_and_si256(_mm256_srli_epi16(qh, 2), bits45));
            // (d * scale) first, as ggml evaluates d * sc * q left to right
            __m256 ds[8];
            for (int k = 0; k < 8; ++k)
                ds[k] = _mm256_set1_ps(d * static_cast<float>(scales[8 * half + k]));
            avx2::storeScaled32(_mm256_sub_epi8(q1, bias), ds[0], ds[1], dst);
            avx2::storeScaled32(_mm256_sub_epi8(q2, bias), ds[2], ds[3], dst + 32);
            avx2::storeScaled32(_mm256_sub_epi8(q3, bias), ds[4], ds[5], dst + 64);
            avx2::storeScaled32(_mm256_sub_epi8(q4, bias), ds[6], ds[7], dst + 96);
        }
    }
}

} // namespace gguf::detail

#endif
