// SPDX-License-Identifier: GPL-3.0-or-later
// AVX2 decoders of the IQ1 and IQ4_XS codebook super-blocks (the portable ones and the choice
// between them are in ../dequantize_iquants.cpp; layouts in docs/FORMAT.md §4.5).
#include "../dequantize_blocks.h"
#include "avx2_helpers.h"
#include "core/format/ggml_blocks.h"
#include "core/quant/quant_tables.h"
#include "core/util/float_convert.h"
#include "kernels.h"

#if GGUF_X86_KERNELS

namespace gguf::detail {

namespace {

// Eight IQ1 values dl * (grid + delta) from the int8 grid point.
GGUF_AVX2 inline void storeIq1(__m256 dl, __m256 delta, uint64_t point, float *y)
{
    const __m256 grid = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_cvtsi64_si128(static_cast<long long>(point))));
    _mm256_storeu_ps(y, _mm256_mul_ps(dl, _mm256_add_ps(grid, delta)));
}

} // namespace

GGUF_AVX2_KERNEL void decodeIQ1_SAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ1_S>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ1_S, d)));
        const uint8_t *qs = b + offsetof(BlockIQ1_S, qs);
        for (int ib = 0; ib < 8; ++ib) {
            const unsigned qh = loadU16(b + offsetof(BlockIQ1_S, qh) + 2 * ib);
            const __m256 dl = _mm256_set1_ps(d * static_cast<float>(2 * ((qh >> 12) & 7) + 1));
            const __m256 delta = _mm256_set1_ps(iq1Delta(qh & 0x8000u));
            for (int l = 0; l < 4; ++l, dst += 8) {
                const unsigned index = qs[4 * ib + l] | (((qh >> (3 * l)) & 7u) << 8);
                storeIq1(dl, delta, tables::kIq1sGrid[index], dst);
            }
        }
    }
}

GGUF_AVX2_KERNEL void decodeIQ1_MAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ1_M>(src, i);
        const std::array<float, 16> groupScales = iq1mGroupScales(b);
        for (int ib = 0; ib < 8; ++ib) {
            const __m256 dl[2] = {_mm256_set1_ps(groupScales[2 * ib]), _mm256_set1_ps(groupScales[2 * ib + 1])};
            const uint8_t *qs = b + offsetof(BlockIQ1_M, qs) + 4 * ib;
            const uint8_t *qh = b + offsetof(BlockIQ1_M, qh) + 2 * ib;
            for (int l = 0; l < 4; ++l, dst += 8) {
                const unsigned nibble = (qh[l / 2] >> (4 * (l & 1))) & 0x0fu;
                const unsigned index = qs[l] | ((nibble & 7u) << 8);
                storeIq1(dl[l / 2], _mm256_set1_ps(iq1Delta(nibble & 8u)), tables::kIq1sGrid[index], dst);
            }
        }
    }
}

// The codebook lookups as pshufb; the portable loop below gathers.
GGUF_AVX2_KERNEL void decodeIQ4_XSAvx2(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m128i lut = avx2::lutOf(tables::kValuesIq4nl);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ4_XS>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ4_XS, d)));
        const unsigned scales_h = loadU16(b + offsetof(BlockIQ4_XS, scales_h));
        const uint8_t *scales_l = b + offsetof(BlockIQ4_XS, scales_l);
        for (int ib = 0; ib < 8; ++ib, dst += 32) {
            const int low = (scales_l[ib / 2] >> (4 * (ib & 1))) & 0x0f;
            const int high = (scales_h >> (2 * ib)) & 3;
            const float dl = d * static_cast<float>((low | (high << 4)) - 32);
            avx2::storeNibbleLut32(avx2::load16(b + offsetof(BlockIQ4_XS, qs) + 16 * ib), lut, _mm256_set1_ps(dl), dst);
        }
    }
}

} // namespace gguf::detail

#endif
