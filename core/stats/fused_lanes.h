// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/stats: what the code-level reductions of Q8_0 (stats_fused_q8_0.cpp), Q4_0 and Q5_0
// (stats_fused_q4_0.cpp), Q2_K (stats_fused_q2_k.cpp), Q4_K and Q5_K (stats_fused_q4_k.cpp), Q6_K, Q3_K and IQ4_XS
// (stats_fused_k16.cpp) share — the block constants, the exact merging of groups of 32 values (LaneMoments), the
// exactness checks, the code sums and the lane arithmetic, each in portable, AVX2 and AVX-512 forms that give the same
// bits.
#include "stats_fused.h"

#include "core/format/ggml_blocks.h"
#include "core/format/ggml_types.h"
#include "core/util/byte_order.h"
#include "core/util/cpu_features.h"
#include "core/util/float_convert.h"
#include "core/util/prefetch.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

namespace gguf::detail {

constexpr size_t kGroup = 32;
constexpr size_t kQ8_0Bytes = sizeof(BlockQ8_0), kQ8_0Codes = offsetof(BlockQ8_0, qs);
constexpr size_t kQ4_0Bytes = sizeof(BlockQ4_0), kQ4_0Codes = offsetof(BlockQ4_0, qs);

// Sums of groups of 32 values around a fixed shift K (the piece's first group mean), in 8 lanes
// (group i in lane i % 8), each group given by its mean μ and its M2: Σ(v − K) = 32·(μ − K) and
// Σ(v − K)² = M2 + 32·(μ − K)². M2 of a group of affine codes is a·a·(32·Σq² − (Σq)²)/32 with
// an exact integer factor, so nothing cancels there; the shift keeps the final
// Σ(v − K)² − (Σ(v − K))²/n well conditioned, as the float path's shift does.
class LaneMoments {
public:
    static constexpr size_t kLanes = 8;

    void addGroups(const double *mean, const double *m2, size_t count)
    {
        if (m_groups == 0 && count > 0)
            m_shift = mean[0];
        for (size_t j = 0; j < count; ++j) {
            const double dev = mean[j] - m_shift;
            m_dev[j] += dev;
            m_sq[j] += m2[j] + 32.0 * dev * dev;
        }
        m_groups += count;
    }

    // The mean and M2 of 32 decoded floats (a group whose values the decoder rounds).
    static void floatGroup(const float *v, double &mean, double &m2)
    {
        double sum = 0;
        for (size_t l = 0; l < kGroup; ++l)
            sum += v[l];
        mean = sum / static_cast<double>(kGroup);
        m2 = 0;
        for (size_t l = 0; l < kGroup; ++l) {
            const double d = v[l] - mean;
            m2 += d * d;
        }
    }

    /// floatGroup of 32 decoded floats, also counting their zeros and covering their extremes.
    void decodedGroup(const float *v, double &mean, double &m2)
    {
        floatGroup(v, mean, m2);
        float lo = v[0], hi = v[0];
        for (size_t l = 0; l < kGroup; ++l) {
            lo = std::min(lo, v[l]);
            hi = std::max(hi, v[l]);
            zeros += v[l] == 0.0f;
        }
        cover(lo, hi);
    }

#if GGUF_X86_KERNELS
    /// addGroups of 8 groups held in vectors, with the same operations per lane.
    GGUF_AVX512 void addGroups8(__m512d mean, __m512d m2)
    {
        if (m_groups == 0)
            m_shift = _mm512_cvtsd_f64(mean);
        const __m512d dev = _mm512_sub_pd(mean, _mm512_set1_pd(m_shift));
        _mm512_storeu_pd(m_dev.data(), _mm512_add_pd(_mm512_loadu_pd(m_dev.data()), dev));
        const __m512d spread = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(32.0), dev), dev);
        _mm512_storeu_pd(m_sq.data(), _mm512_add_pd(_mm512_loadu_pd(m_sq.data()), _mm512_add_pd(m2, spread)));
        m_groups += kLanes;
    }
#endif

    void cover(float lo, float hi)
    {
        min = lo < min ? lo : min;
        max = hi > max ? hi : max;
    }

    void finish(FusedResult &out) const
    {
        out.count = m_groups * kGroup;
        out.zeros = zeros;
        out.min = min;
        out.max = max;
        if (m_groups == 0)
            return;
        double dev = 0, sq = 0;
        for (size_t j = 0; j < kLanes; ++j) {
            dev += m_dev[j];
            sq += m_sq[j];
        }
        const double n = static_cast<double>(out.count);
        const double sum = 32.0 * dev; // Σ(v − K)
        out.mean = m_shift + sum / n;
        out.m2 = std::max(0.0, sq - sum * (sum / n));
    }

    uint64_t zeros = 0;
    float min = std::numeric_limits<float>::infinity();
    float max = -std::numeric_limits<float>::infinity();

private:
    double m_shift = 0;
    uint64_t m_groups = 0;
    std::array<double, kLanes> m_dev{}, m_sq{};
};

// Exponent of the lowest set bit of a finite non-zero float: x is an odd multiple of 2^result.
inline int lowestBitExponent(float x)
{
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint32_t exponent = (bits >> 23) & 0xff;
    const uint32_t mantissa = bits & 0x7fffff;
    if (exponent == 0)
        return -149 + std::countr_zero(mantissa);
    return static_cast<int>(exponent) - 150 + std::countr_zero(mantissa | 0x800000u);
}

inline double powerOfTwo(int e)
{
    return std::bit_cast<double>(static_cast<uint64_t>(1023 + e) << 52);
}

// Whether every a·q − b (q a small non-negative integer, a·q exact) is a float: all of them are
// multiples of 2^L, L the smaller of the lowest set bits of a and b, and at most `magnitude`
// (maxCode·|a| + |b|) in size; a multiple of 2^L under 2^(L + 24) is a float.
inline bool differencesExact(float a, float b, double magnitude)
{
    if (a == 0.0f && b == 0.0f)
        return true;
    int lowest = std::numeric_limits<int>::max();
    if (a != 0.0f)
        lowest = lowestBitExponent(a);
    if (b != 0.0f)
        lowest = std::min(lowest, lowestBitExponent(b));
    return magnitude < powerOfTwo(lowest + 24);
}

// ---- integer sums of the codes: portable and AVX2, both exact, so both give the same result

// Σq, Σq² and the number of zero codes of 8 consecutive Q8_0 blocks.
inline void q8CodeSums8(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeros)
{
    for (int j = 0; j < 8; ++j) {
        const auto *q = reinterpret_cast<const int8_t *>(blocks + j * kQ8_0Bytes + kQ8_0Codes);
        int32_t s = 0, sq = 0, z = 0;
        for (size_t l = 0; l < kGroup; ++l) {
            s += q[l];
            sq += q[l] * q[l];
            z += q[l] == 0;
        }
        sum[j] = s;
        sumSq[j] = sq;
        zeros[j] = z;
    }
}

#if GGUF_X86_KERNELS
// The eight 8-lane sums of v[0..7] as one vector of 8.
GGUF_AVX2 inline __m256i reduce8(const __m256i *v)
{
    const __m256i t0 = _mm256_hadd_epi32(v[0], v[1]), t1 = _mm256_hadd_epi32(v[2], v[3]);
    const __m256i t2 = _mm256_hadd_epi32(v[4], v[5]), t3 = _mm256_hadd_epi32(v[6], v[7]);
    const __m256i u0 = _mm256_hadd_epi32(t0, t1), u1 = _mm256_hadd_epi32(t2, t3);
    return _mm256_add_epi32(_mm256_permute2x128_si256(u0, u1, 0x20), _mm256_permute2x128_si256(u0, u1, 0x31));
}

GGUF_AVX2_KERNEL inline void q8CodeSums8Avx2(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeros)
{
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i s[8], sq[8];
    for (int j = 0; j < 8; ++j) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(blocks + j * kQ8_0Bytes + kQ8_0Codes));
        s[j] = _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, x), ones16);
        const __m256i lo = _mm256_cvtepi8_epi16(_mm256_castsi256_si128(x));
        const __m256i hi = _mm256_cvtepi8_epi16(_mm256_extracti128_si256(x, 1));
        sq[j] = _mm256_add_epi32(_mm256_madd_epi16(lo, lo), _mm256_madd_epi16(hi, hi));
        zeros[j] =
            std::popcount(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_setzero_si256()))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sum), reduce8(s));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sumSq), reduce8(sq));
}
#endif

inline void q8Sums8(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeros)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        q8CodeSums8Avx2(blocks, sum, sumSq, zeros);
        return;
    }
#endif
    q8CodeSums8(blocks, sum, sumSq, zeros);
}

/// Lanes8::zeroCode of a group whose every value is zero (a and b zero): above every code.
constexpr int32_t kEveryCode = 64;

/// The code q in 0..codeHigh whose value a·q − b is zero (a·q exact), kEveryCode when a and b are
/// zero, -1 when there is none: as a·q is exact, q = b / a (correctly rounded, so exact when it is
/// an integer) is checked. The AVX2 and AVX-512 kernels do the same operations on vectors.
inline int32_t zeroCodeOf(float a, float b, float codeHigh)
{
    const float ratio = b / a;
    const int32_t q = ratio >= 0.0f && ratio <= codeHigh ? static_cast<int32_t>(ratio) : 0;
    const bool hit = a != 0.0f && static_cast<float>(q) * a == b;
    return b == 0.0f ? (a == 0.0f ? kEveryCode : 0) : hit ? q : -1;
}

// ---- per-group arithmetic of 8 groups of values a[j]·q − b[j] (codes q in [codeLow, codeHigh]
// with sums sum[j], sumSq[j]): the group's mean and M2, the values bounding it, and the code whose
// value is zero (kEveryCode: every code; -1: none; only meaningful for codes 0..codeHigh ≤ 63). The
// AVX2 version does the same IEEE operations in the same order, so both give the same bits.
struct Lanes8 {
    std::array<double, 8> mean, m2;
    std::array<float, 8> lo, hi;
    std::array<int32_t, 8> zeroCode;
    /// bit j: group j could hold a value below runMin or above runMax
    unsigned outside = 0;
    /// bit j: that, or group j has a zero code
    unsigned rare = 0;
};

inline void laneMath(const float *a, const float *b, const int32_t *sum, const int32_t *sumSq, float codeLow,
                     float codeHigh, float runMin, float runMax, Lanes8 &out)
{
    out.rare = out.outside = 0;
    for (size_t j = 0; j < 8; ++j) {
        const double x = a[j], y = b[j];
        out.mean[j] = (x * static_cast<double>(sum[j]) - 32.0 * y) * 0.03125;
        // 32·Σq² − (Σq)² is exact in integers and never negative
        out.m2[j] = (x * x) * static_cast<double>(32 * sumSq[j] - sum[j] * sum[j]) * 0.03125;
        const float v0 = codeLow * a[j] - b[j], v1 = codeHigh * a[j] - b[j];
        out.lo[j] = v1 < v0 ? v1 : v0;
        out.hi[j] = v1 > v0 ? v1 : v0;
        out.zeroCode[j] = zeroCodeOf(a[j], b[j], codeHigh);
        const bool outside = out.lo[j] < runMin || out.hi[j] > runMax;
        out.outside |= static_cast<unsigned>(outside) << j;
        out.rare |= static_cast<unsigned>(outside || out.zeroCode[j] >= 0) << j;
    }
}

#if GGUF_X86_KERNELS
GGUF_AVX2_KERNEL inline void laneMathAvx2(const float *a, const float *b, const int32_t *sum, const int32_t *sumSq,
                                          float codeLow, float codeHigh, float runMin, float runMax, Lanes8 &out)
{
    const __m256 va = _mm256_loadu_ps(a), vb = _mm256_loadu_ps(b);
    const __m256i s = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(sum));
    const __m256i sq = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(sumSq));
    const __m256i spread = _mm256_sub_epi32(_mm256_slli_epi32(sq, 5), _mm256_mullo_epi32(s, s));
    const __m256d thirtyTwo = _mm256_set1_pd(32.0), oneThirtySecond = _mm256_set1_pd(0.03125);
    for (int h = 0; h < 2; ++h) {
        const __m256d x = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(va, 1) : _mm256_castps256_ps128(va));
        const __m256d y = _mm256_cvtps_pd(h ? _mm256_extractf128_ps(vb, 1) : _mm256_castps256_ps128(vb));
        const __m256d sd = _mm256_cvtepi32_pd(h ? _mm256_extracti128_si256(s, 1) : _mm256_castsi256_si128(s));
        const __m256d spd =
            _mm256_cvtepi32_pd(h ? _mm256_extracti128_si256(spread, 1) : _mm256_castsi256_si128(spread));
        _mm256_storeu_pd(
            out.mean.data() + 4 * h,
            _mm256_mul_pd(_mm256_sub_pd(_mm256_mul_pd(x, sd), _mm256_mul_pd(thirtyTwo, y)), oneThirtySecond));
        _mm256_storeu_pd(out.m2.data() + 4 * h,
                         _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(x, x), spd), oneThirtySecond));
    }
    const __m256 v0 = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(codeLow), va), vb);
    const __m256 v1 = _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(codeHigh), va), vb);
    const __m256 lo = _mm256_min_ps(v1, v0), hi = _mm256_max_ps(v1, v0); // v1 < v0 ? v1 : v0
    _mm256_storeu_ps(out.lo.data(), lo);
    _mm256_storeu_ps(out.hi.data(), hi);
    const __m256 zero = _mm256_setzero_ps();
    const __m256 ratio = _mm256_div_ps(vb, va);
    const __m256 inRange = _mm256_and_ps(_mm256_cmp_ps(ratio, zero, _CMP_GE_OQ),
                                         _mm256_cmp_ps(ratio, _mm256_set1_ps(codeHigh), _CMP_LE_OQ));
    const __m256i q = _mm256_and_si256(_mm256_cvttps_epi32(ratio), _mm256_castps_si256(inRange));
    const __m256 hit = _mm256_and_ps(_mm256_cmp_ps(va, zero, _CMP_NEQ_UQ),
                                     _mm256_cmp_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q), va), vb, _CMP_EQ_OQ));
    const __m256i none = _mm256_set1_epi32(-1);
    const __m256i whenHit = _mm256_blendv_epi8(none, q, _mm256_castps_si256(hit));
    const __m256i whenZeroB = _mm256_blendv_epi8(_mm256_setzero_si256(), _mm256_set1_epi32(kEveryCode),
                                                 _mm256_castps_si256(_mm256_cmp_ps(va, zero, _CMP_EQ_OQ)));
    const __m256i code =
        _mm256_blendv_epi8(whenHit, whenZeroB, _mm256_castps_si256(_mm256_cmp_ps(vb, zero, _CMP_EQ_OQ)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(out.zeroCode.data()), code);
    const __m256 outside = _mm256_or_ps(_mm256_cmp_ps(lo, _mm256_set1_ps(runMin), _CMP_LT_OQ),
                                        _mm256_cmp_ps(hi, _mm256_set1_ps(runMax), _CMP_GT_OQ));
    const __m256 hasZero = _mm256_castsi256_ps(_mm256_cmpgt_epi32(code, none));
    out.outside = static_cast<unsigned>(_mm256_movemask_ps(outside));
    out.rare = static_cast<unsigned>(_mm256_movemask_ps(_mm256_or_ps(outside, hasZero)));
}
#endif

inline void lanes(const float *a, const float *b, const int32_t *sum, const int32_t *sumSq, float codeLow,
                  float codeHigh, float runMin, float runMax, Lanes8 &out)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        laneMathAvx2(a, b, sum, sumSq, codeLow, codeHigh, runMin, runMax, out);
        return;
    }
#endif
    laneMath(a, b, sum, sumSq, codeLow, codeHigh, runMin, runMax, out);
}

// ---- the scans

// Takes the sampled elements in [begin, end) from the front of `sampled` (ascending).
template <typename ValueAt>
inline void takeSamples(std::span<const uint32_t> &sampled, float *&values, uint32_t end, ValueAt valueAt)
{
    while (!sampled.empty() && sampled.front() < end) {
        *values++ = valueAt(sampled.front());
        sampled = sampled.subspan(1);
    }
}

// Eight f16 values as floats (exactly: F16C gives fp16ToFp32's results).
inline void halvesToFloatsPortable(const uint16_t *h, float *out)
{
    for (int j = 0; j < 8; ++j)
        out[j] = fp16ToFp32(h[j]);
}

#if GGUF_X86_KERNELS
GGUF_F16C_KERNEL inline void halvesToFloatsF16c(const uint16_t *h, float *out)
{
    _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h))));
}
#endif

inline void halvesToFloats(const uint16_t *h, float *out)
{
#if GGUF_X86_KERNELS
    if (cpuHasF16c()) {
        halvesToFloatsF16c(h, out);
        return;
    }
#endif
    halvesToFloatsPortable(h, out);
}

// The f16 scales d of `count` (≤ 8) blocks of `blockBytes` that open with their scale, as floats,
// and into `zeros` the values that are zero: a block's 32 where d is zero, else its zero codes.
// False when a scale is not finite (then nothing is counted).
inline bool leadingScales8(const uint8_t *base, size_t count, size_t blockBytes, const int32_t *zeroCodes,
                           std::array<float, 8> &d, uint64_t &zeros)
{
    std::array<uint16_t, 8> halves{};
    for (size_t j = 0; j < count; ++j)
        halves[j] = loadU16(base + j * blockBytes);
    halvesToFloats(halves.data(), d.data());
    bool finite = true;
    uint64_t zeroCount = 0;
    for (size_t j = 0; j < count; ++j) {
        finite = finite && std::isfinite(d[j]);
        zeroCount += d[j] == 0.0f ? kGroup : static_cast<uint64_t>(zeroCodes[j]);
    }
    if (finite)
        zeros += zeroCount;
    return finite;
}

#if GGUF_X86_KERNELS
// The 16 block totals of eight vectors v[i] that each hold 8 partial sums (32-bit lanes 0-7) of
// one block and 8 of another (lanes 8-15): blocks i and i + 4 for i < 4, blocks i + 4 and i + 8
// for i ≥ 4, so that the totals come out in block order.
GGUF_AVX512 inline __m512i pairSums(__m512i a, __m512i b)
{
    return _mm512_add_epi32(_mm512_unpacklo_epi32(a, b), _mm512_unpackhi_epi32(a, b));
}
GGUF_AVX512 inline __m512i quadSums(__m512i a, __m512i b)
{
    return _mm512_add_epi32(_mm512_unpacklo_epi64(a, b), _mm512_unpackhi_epi64(a, b));
}
GGUF_AVX512 inline __m512i blockTotals16(const __m512i *v)
{
    // each 128-bit lane k of u0 holds the sums of elements 4k … 4k + 3 of v[0..3]; of u1, v[4..7]
    const __m512i u0 = quadSums(pairSums(v[0], v[1]), pairSums(v[2], v[3]));
    const __m512i u1 = quadSums(pairSums(v[4], v[5]), pairSums(v[6], v[7]));
    return _mm512_add_epi32(_mm512_shuffle_i32x4(u0, u1, 0x88), _mm512_shuffle_i32x4(u0, u1, 0xdd));
}
#endif

#if GGUF_X86_KERNELS
/// Floats 0–7 (h = 0) or 8–15 (h = 1) of v.
GGUF_AVX512 inline __m256 halfOf(__m512 v, int h)
{
    return h ? _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)) : _mm512_castps512_ps256(v);
}

/// Lane 2j + 1 added to (pairTotals) or subtracted from (pairDifferences) lane 2j, as lane j of 8
/// (none overflows in the reductions here).
GGUF_AVX512 inline __m256i pairTotals(__m512i v)
{
    return _mm512_cvtepi64_epi32(_mm512_add_epi32(v, _mm512_shuffle_epi32(v, _MM_PERM_CDAB)));
}
GGUF_AVX512 inline __m256i pairDifferences(__m512i v)
{
    return _mm512_cvtepi64_epi32(_mm512_sub_epi32(v, _mm512_shuffle_epi32(v, _MM_PERM_CDAB)));
}

/// zeroCodeOf of 16 lanes, the same codes without a division: where b / a is an integer q in
/// 0…codeHigh, b times the reciprocal estimate of a (relative error below 2^-14) rounds to q, and
/// q·a = b (exact) confirms it; where it is not, no integer passes that check, as in zeroCodeOf.
GGUF_AVX512 inline __m512i zeroCodes16(__m512 a, __m512 b, float codeHigh)
{
    const __m512 estimate = _mm512_roundscale_ps(_mm512_mul_ps(b, _mm512_rcp14_ps(a)), _MM_FROUND_TO_NEAREST_INT);
    const __m512i q = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(estimate, _mm512_setzero_ps()),
                                                        _mm512_set1_ps(codeHigh))); // NaN (a = 0): 0
    const __mmask16 hit = _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_NEQ_UQ) &
                          _mm512_cmp_ps_mask(_mm512_mul_ps(_mm512_cvtepi32_ps(q), a), b, _CMP_EQ_OQ);
    const __mmask16 zeroB = _mm512_cmp_ps_mask(b, _mm512_setzero_ps(), _CMP_EQ_OQ);
    const __mmask16 zeroA = _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_EQ_OQ);
    const __m512i code = _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), hit, q);
    return _mm512_mask_mov_epi32(code, zeroB, _mm512_maskz_mov_epi32(zeroA, _mm512_set1_epi32(kEveryCode)));
}

/// laneMath's mean and M2 of 16 groups of values a·q − b (code totals s, spread = 32·Σq² − (Σq)²),
/// added with addGroups in two runs of 8: the operations of the 8-group loop, so the same bits.
GGUF_AVX512 inline void addGroups16(LaneMoments &g, __m512 a, __m512 b, __m512i s, __m512i spread)
{
    const __m512d thirtyTwo = _mm512_set1_pd(32.0), oneThirtySecond = _mm512_set1_pd(0.03125);
    for (int h = 0; h < 2; ++h) {
        const __m512d x = _mm512_cvtps_pd(halfOf(a, h)), y = _mm512_cvtps_pd(halfOf(b, h));
        const __m512d sd = _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(s, 1) : _mm512_castsi512_si256(s));
        const __m512d spd =
            _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(spread, 1) : _mm512_castsi512_si256(spread));
        // as laneMath: (x·Σq − 32·y)/32 and (x·x)·spread/32
        const __m512d mean =
            _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(x, sd), _mm512_mul_pd(thirtyTwo, y)), oneThirtySecond);
        const __m512d m2 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(x, x), spd), oneThirtySecond);
        g.addGroups8(mean, m2);
    }
}

/// For each of 16 blocks whose value bounds [lo, hi] reach past the run's extremes, the block's
/// actual extremes: blockRange(j, ds[j]) returns the values of its lowest and highest code.
template <typename BlockRange>
GGUF_AVX512 inline void coverOutside16(LaneMoments &g, __m512 lo, __m512 hi, __m512 d, BlockRange blockRange)
{
    unsigned outside = _mm512_cmp_ps_mask(lo, _mm512_set1_ps(g.min), _CMP_LT_OQ) |
                       _mm512_cmp_ps_mask(hi, _mm512_set1_ps(g.max), _CMP_GT_OQ);
    if (outside == 0)
        return;
    alignas(64) float los[16], his[16], ds[16];
    _mm512_store_ps(los, lo);
    _mm512_store_ps(his, hi);
    _mm512_store_ps(ds, d);
    for (; outside != 0; outside &= outside - 1) {
        const int j = std::countr_zero(outside);
        if (los[j] < g.min || his[j] > g.max) {
            const auto [x, y] = blockRange(j, ds[j]);
            g.cover(std::min(x, y), std::max(x, y));
        }
    }
}
#endif

/// The Q8_0, Q4_0, Q5_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and IQ4_XS reductions behind fusedScan (same contract).
bool scanQ8_0(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ4_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ4_0(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ5_0(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ5_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ6_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ2_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanQ3_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g);
bool scanIQ4_XS(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                std::span<const uint32_t> sampled, float *values, LaneMoments &g);

} // namespace gguf::detail
