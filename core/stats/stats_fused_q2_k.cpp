// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics of Q2_K blocks from their codes (docs/FORMAT.md §4.3): element 16s + l of a block
// (sub-block s of 16) is q·a − b with q its 2-bit code, a = d·c and b = dmin·m (c, m the 4-bit scale
// and min of the sub-block), the decoder's float products; a·q is exact (at most 17 bits), and so is
// the subtraction unless d and dmin lie too many binades apart (checked per block as for Q4_K; such a
// block's inexact groups are summed from the decoder's floats). A group of 32 values (sub-blocks
// 2k and 2k + 1) then has, with integers A = c₀Σq₀ + c₁Σq₁, M = m₀ + m₁, U = c₀²(16Σq₀² − (Σq₀)²) +
// c₁²(16Σq₁² − (Σq₁)²), V = c₀Σq₀ − c₁Σq₁ and W = m₀ − m₁: mean (d·A − 16·dmin·M)/32 and M2 =
// d²·U/16 + 8·δ² with δ = (d·V − 16·dmin·W)/16 the difference of the two sub-blocks' means (Chan's
// merge of two exact sub-block M2s; no term cancels). Groups merge as the other code reductions'
// (fused_lanes.h).
#include "fused_lanes.h"

namespace gguf::detail {
namespace {

constexpr size_t kBytes = sizeof(BlockQ2_K), kCodes = offsetof(BlockQ2_K, qs);
constexpr size_t kSub = 16; // elements per sub-block
constexpr float kMaxCode = 3.0f;

// Code l of sub-block s = 8n + 2j + h: bits 2j of qs[32n + 16h + l] (ggml's dequantize_row_q2_K).
int code(const uint8_t *b, size_t s, size_t l)
{
    const size_t n = s / 8, j = (s % 8) / 2, h = s % 2;
    return (b[kCodes + 32 * n + 16 * h + l] >> (2 * j)) & 3;
}

// Sub-block s's a and b, as the decoder computes them.
float scaleOf(const uint8_t *b, float d, size_t s)
{
    return d * static_cast<float>(b[offsetof(BlockQ2_K, scales) + s] & 15);
}
float minOf(const uint8_t *b, float dmin, size_t s)
{
    return dmin * static_cast<float>(b[offsetof(BlockQ2_K, scales) + s] >> 4);
}

// Whether every value of a block is exact (see differencesExact; scales and mins are ≤ 15).
bool blockExactQ2K(float d, float dmin)
{
    return differencesExact(d, dmin, 45.0 * std::fabs(d) + 15.0 * std::fabs(dmin));
}

// A group's mean and M2 from its integers (see the top): both code paths do these operations in
// this order, hence the same bits.
inline void groupMomentsQ2K(double d, double dmin16, int32_t a, int32_t m, int32_t u, int32_t v, int32_t w,
                            double &mean, double &m2)
{
    mean = (d * static_cast<double>(a) - dmin16 * static_cast<double>(m)) * 0.03125;
    const double delta = (d * static_cast<double>(v) - dmin16 * static_cast<double>(w)) * 0.0625;
    m2 = (d * d) * static_cast<double>(u) * 0.0625 + (8.0 * delta) * delta;
}

// The values of sub-block s's lowest and highest code, as the decoder gives them.
std::pair<float, float> subBlockRange(const uint8_t *b, size_t s, float a, float m)
{
    int qlo = 3, qhi = 0;
    for (size_t l = 0; l < kSub; ++l) {
        qlo = std::min(qlo, code(b, s, l));
        qhi = std::max(qhi, code(b, s, l));
    }
    const float x = static_cast<float>(qlo) * a - m, y = static_cast<float>(qhi) * a - m;
    return {std::min(x, y), std::max(x, y)};
}

// One block into g (finite d and dmin), portably; every block whose values are not all exact
// comes here on every SIMD level.
void scanBlockQ2K(const uint8_t *b, float d, float dmin, LaneMoments &g)
{
    std::array<float, 16> a{}, m{};
    std::array<int32_t, 16> sum{}, spread{};
    for (size_t s = 0; s < 16; ++s) {
        a[s] = scaleOf(b, d, s);
        m[s] = minOf(b, dmin, s);
        int32_t s1 = 0, s2 = 0;
        for (size_t l = 0; l < kSub; ++l) {
            const int32_t q = code(b, s, l);
            s1 += q;
            s2 += q * q;
        }
        sum[s] = s1;
        spread[s] = 16 * s2 - s1 * s1;
    }
    const bool exact = blockExactQ2K(d, dmin);
    const auto subExact = [&](size_t s) {
        return differencesExact(a[s], m[s], 3.0 * std::fabs(a[s]) + std::fabs(m[s]));
    };
    const uint8_t *packed = b + offsetof(BlockQ2_K, scales);
    std::array<double, 8> mean{}, m2{};
    unsigned done = 0; // sub-blocks counted from their floats
    for (size_t k = 0; k < 8; ++k) {
        const size_t s = 2 * k;
        if (exact || (subExact(s) && subExact(s + 1))) {
            const int32_t c0 = packed[s] & 15, c1 = packed[s + 1] & 15, m0 = packed[s] >> 4, m1 = packed[s + 1] >> 4;
            groupMomentsQ2K(d, 16.0 * static_cast<double>(dmin), c0 * sum[s] + c1 * sum[s + 1], m0 + m1,
                            c0 * c0 * spread[s] + c1 * c1 * spread[s + 1], c0 * sum[s] - c1 * sum[s + 1], m0 - m1,
                            mean[k], m2[k]);
            continue;
        }
        // the decoder rounds some of these values: take them as it gives them
        std::array<float, kGroup> v;
        for (size_t l = 0; l < kGroup; ++l)
            v[l] = static_cast<float>(code(b, s + l / kSub, l % kSub)) * a[s + l / kSub] - m[s + l / kSub];
        g.decodedGroup(v.data(), mean[k], m2[k]);
        done |= 3u << s;
    }
    g.addGroups(mean.data(), m2.data(), 8);
    for (size_t s = 0; s < 16; ++s) {
        if ((done >> s) & 1)
            continue;
        const int32_t zero = zeroCodeOf(a[s], m[s], kMaxCode);
        if (zero == kEveryCode)
            g.zeros += kSub;
        else if (zero >= 0)
            for (size_t l = 0; l < kSub; ++l)
                g.zeros += code(b, s, l) == zero;
        const float v0 = 0.0f * a[s] - m[s], v1 = kMaxCode * a[s] - m[s];
        if (std::min(v0, v1) < g.min || std::max(v0, v1) > g.max) {
            const auto [lo, hi] = subBlockRange(b, s, a[s], m[s]);
            g.cover(lo, hi);
        }
    }
}

#if GGUF_X86_KERNELS
// The 16 sub-block totals of byte sums v[j] (two 64-bit sums per 128-bit lane; lane L of v[j] is
// sub-block 8·(L / 2) + 2j + L % 2), in sub-block order: per lane L the totals of vectors 0, 2, 1, 3
// as 32-bit lanes 4L … 4L + 3, then permuted.
GGUF_AVX512 inline __m512i subBlockTotals(const __m512i *v)
{
    const __m512i order = _mm512_setr_epi32(0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15);
    const __m512i t01 = _mm512_add_epi64(_mm512_unpacklo_epi64(v[0], v[1]), _mm512_unpackhi_epi64(v[0], v[1]));
    const __m512i t23 = _mm512_add_epi64(_mm512_unpacklo_epi64(v[2], v[3]), _mm512_unpackhi_epi64(v[2], v[3]));
    return _mm512_permutexvar_epi32(order, _mm512_or_si512(t01, _mm512_slli_epi64(t23, 32)));
}

// zeroCodeOf(a, b, 3) of 16 sub-blocks: with a·q exact, b / a is the integer q in 0…3 exactly when
// q·a = b, so comparing b with 0, a, 2a and 3a finds the same code without a division.
GGUF_AVX512 inline __m512i zeroCodes(__m512 a, __m512 b)
{
    const __m512 zero = _mm512_setzero_ps();
    __m512i code = _mm512_set1_epi32(-1);
    for (int q = 3; q >= 1; --q)
        code = _mm512_mask_mov_epi32(
            code, _mm512_cmp_ps_mask(_mm512_mul_ps(_mm512_set1_ps(static_cast<float>(q)), a), b, _CMP_EQ_OQ),
            _mm512_set1_epi32(q));
    const __mmask16 zeroA = _mm512_cmp_ps_mask(a, zero, _CMP_EQ_OQ);
    return _mm512_mask_mov_epi32(code, _mm512_cmp_ps_mask(b, zero, _CMP_EQ_OQ),
                                 _mm512_maskz_mov_epi32(zeroA, _mm512_set1_epi32(kEveryCode)));
}

// One block whose values are all exact into g, as scanBlockQ2K does it: the code sums by byte sums
// (128-bit lane L of the codes at shift 2j is sub-block 8·(L / 2) + 2j + L % 2), the same double
// operations per sub-block and group, the same zeros and extremes.
[[gnu::always_inline]] GGUF_AVX512 inline void scanBlockAvx512(const uint8_t *b, float d, float dmin, LaneMoments &g)
{
    const __m512i qs = _mm512_loadu_si512(b + kCodes);
    const __m512i three = _mm512_set1_epi8(3), zero = _mm512_setzero_si512();
    // one byte sum gives Σq and Σq² of a sub-block: code q is looked up as q + 64·q(q − 1)/2
    // (at most 195), so Σq (at most 48) is the total's low 6 bits and Σq(q − 1)/2 the rest, and
    // Σq² = Σq + 2·Σq(q − 1)/2
    const __m512i packedTerms = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 64 + 2, static_cast<char>(192 + 3), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0));
    __m512i codes[4], terms[4];
    for (int j = 0; j < 4; ++j) {
        codes[j] = _mm512_and_si512(_mm512_srl_epi16(qs, _mm_cvtsi32_si128(2 * j)), three);
        terms[j] = _mm512_sad_epu8(_mm512_shuffle_epi8(packedTerms, codes[j]), zero); // per 8 bytes
    }
    const __m512i total = subBlockTotals(terms);
    const __m512i sum = _mm512_and_si512(total, _mm512_set1_epi32(63));
    const __m512i sumSq = _mm512_add_epi32(sum, _mm512_slli_epi32(_mm512_srli_epi32(total, 6), 1));
    const __m512i spread = _mm512_sub_epi32(_mm512_slli_epi32(sumSq, 4), _mm512_mullo_epi32(sum, sum));
    const __m512i packed = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b)));
    const __m512i c = _mm512_and_si512(packed, _mm512_set1_epi32(15)), mins = _mm512_srli_epi32(packed, 4);
    const __m512 a = _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(c));
    const __m512 m = _mm512_mul_ps(_mm512_set1_ps(dmin), _mm512_cvtepi32_ps(mins));
    // groupMomentsQ2K on 8 groups: the integers of sub-blocks 2k and 2k + 1 (adjacent lanes) added or
    // subtracted, the even lanes kept
    const __m512i weighted = _mm512_mullo_epi32(c, sum);
    const __m512i spreadWeighted = _mm512_mullo_epi32(_mm512_mullo_epi32(c, c), spread);
    const __m512d dd = _mm512_set1_pd(d), dmin16 = _mm512_set1_pd(16.0 * static_cast<double>(dmin));
    const __m512d mean = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(dd, _mm512_cvtepi32_pd(pairTotals(weighted))),
                                                     _mm512_mul_pd(dmin16, _mm512_cvtepi32_pd(pairTotals(mins)))),
                                       _mm512_set1_pd(0.03125));
    const __m512d delta = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(dd, _mm512_cvtepi32_pd(pairDifferences(weighted))),
                                                      _mm512_mul_pd(dmin16, _mm512_cvtepi32_pd(pairDifferences(mins)))),
                                        _mm512_set1_pd(0.0625));
    const __m512d m2 = _mm512_add_pd(
        _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(dd, dd), _mm512_cvtepi32_pd(pairTotals(spreadWeighted))),
                      _mm512_set1_pd(0.0625)),
        _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(8.0), delta), delta));
    g.addGroups8(mean, m2);
    // zeros: sub-blocks of zeros, and the codes equal to a sub-block's zero code (-1 is byte 0xff and
    // kEveryCode is 64, never a code); counted whether or not a sub-block has a zero code, as a
    // branch on that mispredicts on about a third of the blocks where zero mins are common (25 % of
    // the time on random scales)
    const __m512i zeroCode = zeroCodes(a, m);
    {
        uint64_t zeros = kSub * static_cast<uint64_t>(std::popcount(static_cast<unsigned>(
                                    _mm512_cmpeq_epi32_mask(zeroCode, _mm512_set1_epi32(kEveryCode)))));
        // 32-bit lane j of 128-bit lane L: the zero code of the sub-block in lane L of codes[j]
        const __m512i byLane =
            _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15), zeroCode);
        for (int j = 0; j < 4; ++j) {
            const __m512i wanted = _mm512_shuffle_epi8(byLane, _mm512_set1_epi8(static_cast<char>(4 * j)));
            zeros += static_cast<uint64_t>(std::popcount(_mm512_cmpeq_epi8_mask(codes[j], wanted)));
        }
        g.zeros += zeros;
    }
    // the sub-blocks that could hold a new min or max
    const __m512 v0 = _mm512_sub_ps(_mm512_mul_ps(_mm512_setzero_ps(), a), m);
    const __m512 v1 = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(kMaxCode), a), m);
    const __m512 lo = _mm512_min_ps(v1, v0), hi = _mm512_max_ps(v1, v0);
    unsigned outside = _mm512_cmp_ps_mask(lo, _mm512_set1_ps(g.min), _CMP_LT_OQ) |
                       _mm512_cmp_ps_mask(hi, _mm512_set1_ps(g.max), _CMP_GT_OQ);
    if (outside == 0)
        return;
    alignas(64) float as[16], ms[16], los[16], his[16];
    _mm512_store_ps(as, a);
    _mm512_store_ps(ms, m);
    _mm512_store_ps(los, lo);
    _mm512_store_ps(his, hi);
    for (; outside != 0; outside &= outside - 1) {
        const auto s = static_cast<size_t>(std::countr_zero(outside));
        if (los[s] < g.min || his[s] > g.max) {
            const auto [x, y] = subBlockRange(b, s, as[s], ms[s]);
            g.cover(x, y);
        }
    }
}
#endif

// The value of element `at` of a block, as the decoder computes it.
float valueAt(const uint8_t *b, float d, float dmin, size_t at)
{
    const size_t s = at / kSub;
    return static_cast<float>(code(b, s, at % kSub)) * scaleOf(b, d, s) - minOf(b, dmin, s);
}

// Blocks [0, nBlocks) into g and their samples into values; false at a block whose d or dmin is
// not finite.
bool scanPortableQ2K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                     std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * kBytes;
        if (i % 2 == 0) // two blocks' lines per call
            prefetchAhead(b, 2 * kBytes, tensor);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ2_K, d)));
        const float dmin = fp16ToFp32(loadU16(b + offsetof(BlockQ2_K, dmin)));
        if (!std::isfinite(d) || !std::isfinite(dmin))
            return false;
        scanBlockQ2K(b, d, dmin, g);
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256),
                    [&](uint32_t e) { return valueAt(b, d, dmin, e - i * 256); });
    }
    return true;
}

#if GGUF_X86_KERNELS
// The same, with the exact blocks by scanBlockAvx512 and the scales by F16C (the same values).
GGUF_AVX512_KERNEL bool scanAvx512Q2K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                      std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * kBytes;
        if (i % 2 == 0)
            prefetchAhead(b, 2 * kBytes, tensor);
        const uint16_t hd = loadU16(b + offsetof(BlockQ2_K, d)), hm = loadU16(b + offsetof(BlockQ2_K, dmin));
        if ((hd & 0x7c00) == 0x7c00 || (hm & 0x7c00) == 0x7c00)
            return false;
        const float d = _cvtsh_ss(hd), dmin = _cvtsh_ss(hm);
        if (blockExactQ2K(d, dmin))
            scanBlockAvx512(b, d, dmin, g);
        else
            scanBlockQ2K(b, d, dmin, g);
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256),
                    [&](uint32_t e) { return valueAt(b, d, dmin, e - i * 256); });
    }
    return true;
}
#endif

} // namespace

bool scanQ2_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512())
        return scanAvx512Q2K(blocks, nBlocks, tensor, sampled, values, g);
#endif
    return scanPortableQ2K(blocks, nBlocks, tensor, sampled, values, g);
}

} // namespace gguf::detail
