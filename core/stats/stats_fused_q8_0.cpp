// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics of Q8_0 blocks from their codes: a value is q·d (docs/FORMAT.md §4.2), so a block's
// sums follow from Σq and Σq² (VNNI dot products on AVX-512), its zeros and extremes from its codes
// (fused_lanes.h).
#include "fused_lanes.h"

namespace gguf::detail {
namespace {

#if GGUF_X86_KERNELS
// scanQ8_0's work for runs of 16 blocks (nBlocks a multiple of 16), without the samples: the
// code sums with VNNI dot products (Σq² as Σ|q|·(|q| − 1) + Σ|q|, since |q| = 128 is no signed
// byte), the block scales gathered, and the per-group arithmetic of laneMath and addGroups on
// vectors with the same operations, so the results are those of the 8-block loop. False when a
// scale is not finite.
GGUF_AVX512_VNNI_KERNEL bool scanQ8_0Avx512(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                            LaneMoments &g)
{
    const __m512i ones8 = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    const __m512i scaleOffsets =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(static_cast<int>(kQ8_0Bytes)));
    for (size_t first = 0; first < nBlocks; first += 16) {
        const uint8_t *base = blocks + first * kQ8_0Bytes;
        prefetchAhead(base, 16 * kQ8_0Bytes, tensor);
        // the scales: each gathered as 32 bits from the block's start
        const __m256i halves = _mm512_cvtepi32_epi16(_mm512_i32gather_epi32(scaleOffsets, base, 1));
        if (_mm256_cmpeq_epi16_mask(_mm256_and_si256(halves, _mm256_set1_epi16(0x7c00)), _mm256_set1_epi16(0x7c00)))
            return false;
        const __m512 d = _mm512_cvtph_ps(halves);
        __m512i sums[8], squares[8];
        uint64_t zeros = 0;
        __mmask64 zeroCodes[8];
        for (int i = 0; i < 8; ++i) {
            const int lo = i < 4 ? i : i + 4, hi = lo + 4;
            const __m512i x = _mm512_inserti64x4(
                _mm512_castsi256_si512(
                    _mm256_loadu_si256(reinterpret_cast<const __m256i *>(base + lo * kQ8_0Bytes + kQ8_0Codes))),
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(base + hi * kQ8_0Bytes + kQ8_0Codes)), 1);
            sums[i] = _mm512_dpbusd_epi32(zero, ones8, x);
            const __m512i magnitude = _mm512_abs_epi8(x);
            squares[i] = _mm512_dpbusd_epi32(_mm512_dpbusd_epi32(zero, magnitude, _mm512_sub_epi8(magnitude, ones8)),
                                             magnitude, ones8);
            zeroCodes[i] = _mm512_cmpeq_epi8_mask(x, zero);
            zeros += static_cast<uint64_t>(std::popcount(zeroCodes[i]));
        }
        // a block with a zero scale has 32 zeros, whatever its codes
        const __mmask16 zeroScales = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_EQ_OQ);
        for (unsigned m = zeroScales; m != 0; m &= m - 1) {
            const int j = std::countr_zero(m);
            const int i = j < 8 ? (j < 4 ? j : j - 4) : (j < 12 ? j - 4 : j - 8);
            const bool upper = (j % 8) >= 4;
            zeros +=
                kGroup - static_cast<uint64_t>(std::popcount(upper ? zeroCodes[i] >> 32 : zeroCodes[i] & 0xffffffffu));
        }
        g.zeros += zeros;
        const __m512i s = blockTotals16(sums), q = blockTotals16(squares);
        const __m512i spread = _mm512_sub_epi32(_mm512_slli_epi32(q, 5), _mm512_mullo_epi32(s, s));
        // laneMath with b = 0: x·Σq − 32·0 is x·Σq exactly, so the same bits as the 8-block loop
        addGroups16(g, d, _mm512_setzero_ps(), s, spread);
        // the blocks that could hold a new min or max: their codes' extremes
        const __m512 v0 = _mm512_mul_ps(_mm512_set1_ps(-128.0f), d), v1 = _mm512_mul_ps(_mm512_set1_ps(127.0f), d);
        coverOutside16(g, _mm512_min_ps(v1, v0), _mm512_max_ps(v1, v0), d, [base](int j, float dj) {
            const auto *codes = reinterpret_cast<const int8_t *>(base + j * kQ8_0Bytes + kQ8_0Codes);
            int qlo = 127, qhi = -128;
            for (size_t l = 0; l < kGroup; ++l) {
                qlo = std::min<int>(qlo, codes[l]);
                qhi = std::max<int>(qhi, codes[l]);
            }
            return std::pair(static_cast<float>(qlo) * dj, static_cast<float>(qhi) * dj);
        });
    }
    return true;
}

// The values of the sampled elements `sampled` (indices into `blocks`), 16 at a time with
// gathers: the code is gathered as 32 bits, so `readable` (the bytes readable from `blocks`)
// must leave room for the 3 bytes after it, else the rest are done one by one.
GGUF_AVX512_KERNEL void sampleQ8_0Avx512(const uint8_t *blocks, size_t readable, std::span<const uint32_t> sampled,
                                         float *values)
{
    const __m512i blockBytes = _mm512_set1_epi32(static_cast<int>(kQ8_0Bytes));
    size_t i = 0;
    for (; i + 16 <= sampled.size(); i += 16) {
        const __m512i at = _mm512_loadu_si512(sampled.data() + i);
        const __m512i start = _mm512_mullo_epi32(_mm512_srli_epi32(at, 5), blockBytes);
        const __m512i codeAt =
            _mm512_add_epi32(_mm512_add_epi32(start, _mm512_set1_epi32(static_cast<int>(kQ8_0Codes))),
                             _mm512_and_si512(at, _mm512_set1_epi32(31)));
        if (static_cast<size_t>(_mm512_reduce_max_epu32(codeAt)) + 4 > readable)
            break;
        const __m512 d = _mm512_cvtph_ps(_mm512_cvtepi32_epi16(_mm512_i32gather_epi32(start, blocks, 1)));
        const __m512i code = _mm512_srai_epi32(_mm512_slli_epi32(_mm512_i32gather_epi32(codeAt, blocks, 1), 24), 24);
        _mm512_storeu_ps(values + i, _mm512_mul_ps(_mm512_cvtepi32_ps(code), d));
    }
    for (; i < sampled.size(); ++i) {
        const uint8_t *b = blocks + sampled[i] / kGroup * kQ8_0Bytes;
        values[i] = static_cast<float>(static_cast<int8_t>(b[kQ8_0Codes + sampled[i] % kGroup])) *
                    fp16ToFp32(loadU16(b + offsetof(BlockQ8_0, d)));
    }
}
#endif

} // namespace

bool scanQ8_0(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    int32_t sum[8], sumSq[8], zeros[8];
    std::array<float, 8> d{}, none{};
    size_t first = 0;
#if GGUF_X86_KERNELS
    if (cpuHasAvx512Vnni() && nBlocks >= 16) {
        first = nBlocks / 16 * 16;
        if (!scanQ8_0Avx512(blocks, first, tensor, g))
            return false;
        const size_t taken = static_cast<size_t>(
            std::lower_bound(sampled.begin(), sampled.end(), static_cast<uint32_t>(first * kGroup)) - sampled.begin());
        const size_t readable = static_cast<size_t>(tensor.data() + tensor.size() - blocks);
        sampleQ8_0Avx512(blocks, readable, sampled.first(taken), values);
        sampled = sampled.subspan(taken);
        values += taken;
    }
#endif
    for (; first < nBlocks; first += 8) {
        const size_t count = std::min<size_t>(8, nBlocks - first);
        const uint8_t *base = blocks + first * kQ8_0Bytes;
        prefetchAhead(base, count * kQ8_0Bytes, tensor);
        if (count == 8) {
            q8Sums8(base, sum, sumSq, zeros);
        } else {
            // the last few blocks, through a copy padded with zero blocks
            std::array<uint8_t, 8 * kQ8_0Bytes> padded{};
            std::memcpy(padded.data(), base, count * kQ8_0Bytes);
            q8Sums8(padded.data(), sum, sumSq, zeros);
        }
        static_assert(offsetof(BlockQ8_0, d) == 0);
        if (!leadingScales8(base, count, kQ8_0Bytes, zeros, d, g.zeros))
            return false;
        Lanes8 l8;
        lanes(d.data(), none.data(), sum, sumSq, -128.0f, 127.0f, g.min, g.max, l8);
        // the codes' extremes, only of the blocks that could hold a new min or max
        for (unsigned outside = l8.outside & ((1u << count) - 1); outside != 0; outside &= outside - 1) {
            const size_t j = static_cast<size_t>(std::countr_zero(outside));
            if (l8.lo[j] < g.min || l8.hi[j] > g.max) {
                const auto *q = reinterpret_cast<const int8_t *>(base + j * kQ8_0Bytes + kQ8_0Codes);
                int qlo = 127, qhi = -128; // a loop the compiler vectorizes, unlike minmax_element
                for (size_t l = 0; l < kGroup; ++l) {
                    qlo = std::min<int>(qlo, q[l]);
                    qhi = std::max<int>(qhi, q[l]);
                }
                const float x = static_cast<float>(qlo) * d[j], y = static_cast<float>(qhi) * d[j];
                g.cover(std::min(x, y), std::max(x, y));
            }
        }
        g.addGroups(l8.mean.data(), l8.m2.data(), count);
        const uint32_t start = static_cast<uint32_t>(first * kGroup);
        takeSamples(sampled, values, start + static_cast<uint32_t>(count * kGroup), [&](uint32_t e) {
            const size_t j = (e - start) / kGroup;
            const auto *q = reinterpret_cast<const int8_t *>(base + j * kQ8_0Bytes + kQ8_0Codes);
            return static_cast<float>(q[(e - start) % kGroup]) * d[j];
        });
    }
    return true;
}

} // namespace gguf::detail
