// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics straight from the integer codes of Q8_0 and Q4_K blocks (layouts: ggml
// src/ggml-common.h). A Q8_0 value is q·d; a Q4_K value is q·d1 − m1 with d1 = d·scale and
// m1 = dmin·min. With d an f16, every product here fits in a float's 24 bits, so the decoder's
// float arithmetic is exact, and the sums of a group of 32 values follow exactly from Σq and Σq²
// of its codes — except for a Q4_K subtraction whose terms lie too many binades apart, which the
// code checks for and then sums that group's decoded floats instead.
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
#include <cstring>
#include <limits>
#include <vector>

namespace gguf::detail {
namespace {

constexpr size_t kGroup = 32;
constexpr size_t kQ8_0Bytes = sizeof(BlockQ8_0), kQ8_0Codes = offsetof(BlockQ8_0, qs);
constexpr size_t kQ4_KBytes = sizeof(BlockQ4_K);
constexpr size_t kQ4_KScales = offsetof(BlockQ4_K, scales), kQ4_KCodes = offsetof(BlockQ4_K, qs);

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
int lowestBitExponent(float x)
{
    const uint32_t bits = std::bit_cast<uint32_t>(x);
    const uint32_t exponent = (bits >> 23) & 0xff;
    const uint32_t mantissa = bits & 0x7fffff;
    if (exponent == 0)
        return -149 + std::countr_zero(mantissa);
    return static_cast<int>(exponent) - 150 + std::countr_zero(mantissa | 0x800000u);
}

double powerOfTwo(int e)
{
    return std::bit_cast<double>(static_cast<uint64_t>(1023 + e) << 52);
}

// Whether every a·q − b (q a small non-negative integer, a·q exact) is a float: all of them are
// multiples of 2^L, L the smaller of the lowest set bits of a and b, and at most `magnitude`
// (maxCode·|a| + |b|) in size; a multiple of 2^L under 2^(L + 24) is a float.
bool differencesExact(float a, float b, double magnitude)
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

// Σq and Σq² of the 8 Q4_K sub-blocks of one block (sub-block 2c: low nibbles of bytes
// 32c … 32c + 31; 2c + 1: their high nibbles).
void q4kCodeSums(const uint8_t *qs, int32_t *sum, int32_t *sumSq)
{
    for (int j = 0; j < 8; ++j) {
        const uint8_t *bytes = qs + 32 * (j / 2);
        const int shift = 4 * (j % 2);
        int32_t s = 0, sq = 0;
        for (size_t l = 0; l < kGroup; ++l) {
            const int32_t q = (bytes[l] >> shift) & 15;
            s += q;
            sq += q * q;
        }
        sum[j] = s;
        sumSq[j] = sq;
    }
}

// Σq, Σq² and the number of zero codes of 8 consecutive Q8_0 blocks.
void q8CodeSums8(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeros)
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

GGUF_AVX2_KERNEL void q4kCodeSumsAvx2(const uint8_t *qs, int32_t *sum, int32_t *sumSq)
{
    const __m256i lowNibble = _mm256_set1_epi8(0x0f), ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i s[8], sq[8];
    for (int c = 0; c < 4; ++c) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(qs + 32 * c));
        const __m256i lo = _mm256_and_si256(x, lowNibble);
        const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), lowNibble);
        s[2 * c] = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, ones8), ones16);
        s[2 * c + 1] = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, ones8), ones16);
        sq[2 * c] = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, lo), ones16);
        sq[2 * c + 1] = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, hi), ones16);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sum), reduce8(s));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sumSq), reduce8(sq));
}

GGUF_AVX2_KERNEL void q8CodeSums8Avx2(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeros)
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

void q4kSums(const uint8_t *qs, int32_t *sum, int32_t *sumSq)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        q4kCodeSumsAvx2(qs, sum, sumSq);
        return;
    }
#endif
    q4kCodeSums(qs, sum, sumSq);
}

void q8Sums8(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeros)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        q8CodeSums8Avx2(blocks, sum, sumSq, zeros);
        return;
    }
#endif
    q8CodeSums8(blocks, sum, sumSq, zeros);
}

// ---- per-group arithmetic of 8 groups of values a[j]·q − b[j] (codes q in [codeLow, codeHigh]
// with sums sum[j], sumSq[j]): the group's mean and M2, the values bounding it, and the code whose
// value is zero (16: every code; -1: none; only meaningful for codes 0..15). The AVX2 version does
// the same IEEE operations in the same order, so both give the same bits.
struct Lanes8 {
    std::array<double, 8> mean, m2;
    std::array<float, 8> lo, hi;
    std::array<int32_t, 8> zeroCode;
    /// bit j: group j could hold a value below runMin or above runMax
    unsigned outside = 0;
    /// bit j: that, or group j has a zero code
    unsigned rare = 0;
};

void laneMath(const float *a, const float *b, const int32_t *sum, const int32_t *sumSq, float codeLow, float codeHigh,
              float runMin, float runMax, Lanes8 &out)
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
        // a·q = b with q an integer in 0..15: as a·q is exact, q = b / a (correctly rounded, so
        // exact when it is an integer) is checked
        const float ratio = b[j] / a[j];
        const int32_t q = ratio >= 0.0f && ratio <= 15.0f ? static_cast<int32_t>(ratio) : 0;
        const bool hit = a[j] != 0.0f && static_cast<float>(q) * a[j] == b[j];
        out.zeroCode[j] = b[j] == 0.0f ? (a[j] == 0.0f ? 16 : 0) : hit ? q : -1;
        const bool outside = out.lo[j] < runMin || out.hi[j] > runMax;
        out.outside |= static_cast<unsigned>(outside) << j;
        out.rare |= static_cast<unsigned>(outside || out.zeroCode[j] >= 0) << j;
    }
}

#if GGUF_X86_KERNELS
GGUF_AVX2_KERNEL void laneMathAvx2(const float *a, const float *b, const int32_t *sum, const int32_t *sumSq,
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
    const __m256 inRange =
        _mm256_and_ps(_mm256_cmp_ps(ratio, zero, _CMP_GE_OQ), _mm256_cmp_ps(ratio, _mm256_set1_ps(15.0f), _CMP_LE_OQ));
    const __m256i q = _mm256_and_si256(_mm256_cvttps_epi32(ratio), _mm256_castps_si256(inRange));
    const __m256 hit = _mm256_and_ps(_mm256_cmp_ps(va, zero, _CMP_NEQ_UQ),
                                     _mm256_cmp_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q), va), vb, _CMP_EQ_OQ));
    const __m256i none = _mm256_set1_epi32(-1);
    const __m256i whenHit = _mm256_blendv_epi8(none, q, _mm256_castps_si256(hit));
    const __m256i whenZeroB = _mm256_blendv_epi8(_mm256_setzero_si256(), _mm256_set1_epi32(16),
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

void lanes(const float *a, const float *b, const int32_t *sum, const int32_t *sumSq, float codeLow, float codeHigh,
           float runMin, float runMax, Lanes8 &out)
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
void takeSamples(std::span<const uint32_t> &sampled, float *&values, uint32_t end, ValueAt valueAt)
{
    while (!sampled.empty() && sampled.front() < end) {
        *values++ = valueAt(sampled.front());
        sampled = sampled.subspan(1);
    }
}

// Eight f16 values as floats (exactly: F16C gives fp16ToFp32's results).
void halvesToFloatsPortable(const uint16_t *h, float *out)
{
    for (int j = 0; j < 8; ++j)
        out[j] = fp16ToFp32(h[j]);
}

#if GGUF_X86_KERNELS
GGUF_F16C_KERNEL void halvesToFloatsF16c(const uint16_t *h, float *out)
{
    _mm256_storeu_ps(out, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i *>(h))));
}
#endif

void halvesToFloats(const uint16_t *h, float *out)
{
#if GGUF_X86_KERNELS
    if (cpuHasF16c()) {
        halvesToFloatsF16c(h, out);
        return;
    }
#endif
    halvesToFloatsPortable(h, out);
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
    const __m512d oneThirtySecond = _mm512_set1_pd(0.03125);
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
        for (int h = 0; h < 2; ++h) {
            const __m512d x = _mm512_cvtps_pd(h ? _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(d), 1))
                                                : _mm512_castps512_ps256(d));
            const __m512d sd = _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(s, 1) : _mm512_castsi512_si256(s));
            const __m512d spd =
                _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(spread, 1) : _mm512_castsi512_si256(spread));
            // as laneMath: (x·Σq − 32·0)/32 and (x·x)·spread/32
            const __m512d mean = _mm512_mul_pd(_mm512_mul_pd(x, sd), oneThirtySecond);
            const __m512d m2 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(x, x), spd), oneThirtySecond);
            g.addGroups8(mean, m2);
        }
        // the blocks that could hold a new min or max: their codes' extremes
        const __m512 v0 = _mm512_mul_ps(_mm512_set1_ps(-128.0f), d), v1 = _mm512_mul_ps(_mm512_set1_ps(127.0f), d);
        const __m512 lo = _mm512_min_ps(v1, v0), hi = _mm512_max_ps(v1, v0);
        unsigned outside = _mm512_cmp_ps_mask(lo, _mm512_set1_ps(g.min), _CMP_LT_OQ) |
                           _mm512_cmp_ps_mask(hi, _mm512_set1_ps(g.max), _CMP_GT_OQ);
        if (outside != 0) {
            alignas(64) float los[16], his[16], ds[16];
            _mm512_store_ps(los, lo);
            _mm512_store_ps(his, hi);
            _mm512_store_ps(ds, d);
            for (; outside != 0; outside &= outside - 1) {
                const int j = std::countr_zero(outside);
                if (los[j] < g.min || his[j] > g.max) {
                    const auto *codes = reinterpret_cast<const int8_t *>(base + j * kQ8_0Bytes + kQ8_0Codes);
                    int qlo = 127, qhi = -128;
                    for (size_t l = 0; l < kGroup; ++l) {
                        qlo = std::min<int>(qlo, codes[l]);
                        qhi = std::max<int>(qhi, codes[l]);
                    }
                    const float a = static_cast<float>(qlo) * ds[j], b = static_cast<float>(qhi) * ds[j];
                    g.cover(std::min(a, b), std::max(a, b));
                }
            }
        }
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
        std::array<uint16_t, 8> halves{};
        for (size_t j = 0; j < count; ++j)
            halves[j] = loadU16(base + j * kQ8_0Bytes + offsetof(BlockQ8_0, d));
        halvesToFloats(halves.data(), d.data());
        bool finite = true;
        uint64_t zeroCount = 0;
        for (size_t j = 0; j < count; ++j) {
            finite = finite && std::isfinite(d[j]);
            zeroCount += d[j] == 0.0f ? kGroup : static_cast<uint64_t>(zeros[j]);
        }
        if (!finite)
            return false;
        g.zeros += zeroCount;
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

// d1[j] = d · scale j and m1[j] = dmin · min j, from the unpacked bytes (scales, then mins).
void scaleProductsPortable(const uint8_t *scaleMin, float d, float dmin, float *d1, float *m1)
{
    for (int j = 0; j < 8; ++j) {
        d1[j] = d * static_cast<float>(scaleMin[j]);
        m1[j] = dmin * static_cast<float>(scaleMin[8 + j]);
    }
}

#if GGUF_X86_KERNELS
GGUF_AVX2_KERNEL void scaleProductsAvx2(const uint8_t *scaleMin, float d, float dmin, float *d1, float *m1)
{
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(scaleMin));
    _mm256_storeu_ps(d1, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(bytes))));
    _mm256_storeu_ps(
        m1, _mm256_mul_ps(_mm256_set1_ps(dmin), _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_srli_si128(bytes, 8)))));
}
#endif

void scaleProducts(const uint8_t *scaleMin, float d, float dmin, float *d1, float *m1)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        scaleProductsAvx2(scaleMin, d, dmin, d1, m1);
        return;
    }
#endif
    scaleProductsPortable(scaleMin, d, dmin, d1, m1);
}

// The sub-blocks of one Q4_K block (codes qs, scales d1 and m1) flagged in `rare`: their zero
// values (zeroCode, see laneMath) and their codes' extremes when they could hold a new min or max.
void q4kRareSubBlocks(const uint8_t *qs, const float *d1, const float *m1, const float *lo, const float *hi,
                      const int32_t *zeroCode, unsigned rare, LaneMoments &g)
{
    const auto code = [&](int j, size_t l) { return (qs[32 * (j / 2) + l] >> (4 * (j % 2))) & 15; };
    const auto value = [&](int j, int q) { return static_cast<float>(q) * d1[j] - m1[j]; };
    for (; rare != 0; rare &= rare - 1) {
        const int j = std::countr_zero(rare);
        if (zeroCode[j] == 16)
            g.zeros += kGroup;
        else if (zeroCode[j] >= 0)
            for (size_t l = 0; l < kGroup; ++l)
                g.zeros += code(j, l) == zeroCode[j];
        // the codes' extremes
        if (lo[j] < g.min || hi[j] > g.max) {
            int qlo = 15, qhi = 0;
            for (size_t l = 0; l < kGroup; ++l) {
                qlo = std::min(qlo, code(j, l));
                qhi = std::max(qhi, code(j, l));
            }
            const float x = value(j, qlo), y = value(j, qhi);
            g.cover(std::min(x, y), std::max(x, y));
        }
    }
}

// d·scale and dmin·min are multiples of d's and dmin's lowest bits: whether every value of the
// block is exact (else some sub-blocks need the decoder's floats).
bool q4kBlockExact(float d, float dmin)
{
    return differencesExact(d, dmin, 945.0 * std::fabs(d) + 63.0 * std::fabs(dmin));
}

// One Q4_K block into g; its sub-block scales d1 and mins m1 into d1m1[0..7] and d1m1[8..15].
// False when d or dmin is not finite.
bool scanQ4_KBlock(const uint8_t *b, float *d1m1, LaneMoments &g)
{
    const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ4_K, d)));
    const float dmin = fp16ToFp32(loadU16(b + offsetof(BlockQ4_K, dmin)));
    if (!std::isfinite(d) || !std::isfinite(dmin))
        return false;
    const uint8_t *qs = b + kQ4_KCodes;
    uint8_t scaleMin[16];
    unpackQ4KScaleMins(b + kQ4_KScales, scaleMin);
    float *d1 = d1m1, *m1 = d1m1 + 8;
    scaleProducts(scaleMin, d, dmin, d1, m1);
    int32_t sum[8], sumSq[8];
    q4kSums(qs, sum, sumSq);
    Lanes8 l8;
    lanes(d1, m1, sum, sumSq, 0.0f, 15.0f, g.min, g.max, l8);
    if (!q4kBlockExact(d, dmin)) {
        for (int j = 0; j < 8; ++j) {
            if (differencesExact(d1[j], m1[j], 15.0 * std::fabs(d1[j]) + std::fabs(m1[j])))
                continue;
            // the decoder rounds some of these values: take them as it gives them
            std::array<float, kGroup> v;
            for (size_t l = 0; l < kGroup; ++l)
                v[l] = static_cast<float>((qs[32 * (j / 2) + l] >> (4 * (j % 2))) & 15) * d1[j] - m1[j];
            LaneMoments::floatGroup(v.data(), l8.mean[j], l8.m2[j]);
            float vlo = v[0], vhi = v[0];
            for (const float x : v) {
                vlo = std::min(vlo, x);
                vhi = std::max(vhi, x);
                g.zeros += x == 0.0f;
            }
            g.cover(vlo, vhi);
            l8.lo[j] = l8.hi[j] = std::numeric_limits<float>::quiet_NaN(); // covered
            l8.zeroCode[j] = -1;                                           // counted
            l8.rare &= ~(1u << j);
        }
    }
    g.addGroups(l8.mean.data(), l8.m2.data(), 8);
    // the sub-blocks with a zero value, or that could hold a new min or max (rare after the
    // first few blocks): one bit each
    q4kRareSubBlocks(qs, d1, m1, l8.lo.data(), l8.hi.data(), l8.zeroCode.data(), l8.rare, g);
    return true;
}

// The value of element e (index into `blocks`) from its block's d1m1 (see scanQ4_KBlock).
float q4kSampleValue(const uint8_t *blocks, const float *d1m1, uint32_t e)
{
    const uint32_t block = e / 256, at = e % 256, chunk = at / 64, half = (at % 64) / 32;
    const uint32_t j = 2 * chunk + half;
    const uint8_t byte = blocks[block * kQ4_KBytes + kQ4_KCodes + 32 * chunk + at % 32];
    const float *s = d1m1 + 16 * block;
    return static_cast<float>((byte >> (4 * half)) & 15) * s[j] - s[8 + j];
}

#if GGUF_X86_KERNELS
// The smallest and largest byte of each 32-byte half of v.
GGUF_AVX512 inline void nibbleExtremes(__m512i v, uint8_t &low0, uint8_t &high0, uint8_t &low1, uint8_t &high1)
{
    // fold 128-bit lanes within each half, then 64- and 32-bit parts: each 32-bit element of
    // 128-bit lanes 0 and 2 then holds four candidates
    __m512i mn = _mm512_min_epu8(v, _mm512_shuffle_i64x2(v, v, 0xb1));
    __m512i mx = _mm512_max_epu8(v, _mm512_shuffle_i64x2(v, v, 0xb1));
    mn = _mm512_min_epu8(mn, _mm512_shuffle_epi32(mn, _MM_PERM_BADC));
    mx = _mm512_max_epu8(mx, _mm512_shuffle_epi32(mx, _MM_PERM_BADC));
    mn = _mm512_min_epu8(mn, _mm512_shuffle_epi32(mn, _MM_PERM_CDAB));
    mx = _mm512_max_epu8(mx, _mm512_shuffle_epi32(mx, _MM_PERM_CDAB));
    const auto low = [](uint32_t w) {
        return static_cast<uint8_t>(std::min(std::min(w & 0xff, (w >> 8) & 0xff), std::min((w >> 16) & 0xff, w >> 24)));
    };
    const auto high = [](uint32_t w) {
        return static_cast<uint8_t>(std::max(std::max(w & 0xff, (w >> 8) & 0xff), std::max((w >> 16) & 0xff, w >> 24)));
    };
    low0 = low(static_cast<uint32_t>(_mm_cvtsi128_si32(_mm512_castsi512_si128(mn))));
    high0 = high(static_cast<uint32_t>(_mm_cvtsi128_si32(_mm512_castsi512_si128(mx))));
    low1 = low(static_cast<uint32_t>(_mm_cvtsi128_si32(_mm512_extracti32x4_epi32(mn, 2))));
    high1 = high(static_cast<uint32_t>(_mm_cvtsi128_si32(_mm512_extracti32x4_epi32(mx, 2))));
}

// Two consecutive Q4_K blocks (both with finite d and dmin and exact values, see q4kBlockExact)
// into g, as two calls of scanQ4_KBlock would: the 16 sub-blocks' code sums with VNNI dot products,
// laneMath and addGroups on vectors with the same operations. d1m1 as scanQ4_KBlock's, for both.
GGUF_AVX512_VNNI_KERNEL void scanQ4_KPairAvx512(const uint8_t *blocks, const float *scales, float *d1m1, LaneMoments &g)
{
    const uint8_t *a = blocks, *b = blocks + kQ4_KBytes;
    uint8_t unpacked[2][16];
    unpackQ4KScaleMins(a + kQ4_KScales, unpacked[0]);
    unpackQ4KScaleMins(b + kQ4_KScales, unpacked[1]);
    const __m128i packedA = _mm_loadu_si128(reinterpret_cast<const __m128i *>(unpacked[0]));
    const __m128i packedB = _mm_loadu_si128(reinterpret_cast<const __m128i *>(unpacked[1]));
    // lanes 0-7: block a's sub-blocks; 8-15: block b's (scales = {d_a, dmin_a, d_b, dmin_b})
    const __m512 d = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(scales[0]), _mm512_set1_ps(scales[2]));
    const __m512 dmin = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(scales[1]), _mm512_set1_ps(scales[3]));
    const __m512 d1 = _mm512_mul_ps(d, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(packedA, packedB))));
    const __m512 m1 =
        _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpackhi_epi64(packedA, packedB))));
    const __m256 d1a = _mm512_castps512_ps256(d1), m1a = _mm512_castps512_ps256(m1);
    const __m256 d1b = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(d1), 1));
    const __m256 m1b = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(m1), 1));
    _mm256_storeu_ps(d1m1, d1a);
    _mm256_storeu_ps(d1m1 + 8, m1a);
    _mm256_storeu_ps(d1m1 + 16, d1b);
    _mm256_storeu_ps(d1m1 + 24, m1b);

    // sub-block 2c holds the low nibbles of bytes 32c … 32c + 31 of the codes, 2c + 1 the high
    // ones; vectors in blockTotals16's order: {a0|a4}, {a1|a5}, {a2|a6}, {a3|a7}, then b's
    const __m512i lowNibble = _mm512_set1_epi8(0x0f), ones8 = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    __m512i sums[8], squares[8], nibbles[8];
    for (int k = 0; k < 4; ++k) {
        const uint8_t *qs = (k < 2 ? a : b) + kQ4_KCodes + 32 * (k % 2);
        const __m512i x =
            _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(qs))),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i *>(qs + 64)), 1);
        const __m512i low = _mm512_and_si512(x, lowNibble);
        const __m512i high = _mm512_and_si512(_mm512_srli_epi16(x, 4), lowNibble);
        nibbles[2 * k] = low;
        nibbles[2 * k + 1] = high;
        sums[2 * k] = _mm512_dpbusd_epi32(zero, low, ones8);
        sums[2 * k + 1] = _mm512_dpbusd_epi32(zero, high, ones8);
        squares[2 * k] = _mm512_dpbusd_epi32(zero, low, low);
        squares[2 * k + 1] = _mm512_dpbusd_epi32(zero, high, high);
    }
    const __m512i s = blockTotals16(sums), q = blockTotals16(squares);
    const __m512i spread = _mm512_sub_epi32(_mm512_slli_epi32(q, 5), _mm512_mullo_epi32(s, s));
    const __m512d thirtyTwo = _mm512_set1_pd(32.0), oneThirtySecond = _mm512_set1_pd(0.03125);
    for (int h = 0; h < 2; ++h) {
        const __m512d x = _mm512_cvtps_pd(h ? d1b : d1a);
        const __m512d y = _mm512_cvtps_pd(h ? m1b : m1a);
        const __m512d sd = _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(s, 1) : _mm512_castsi512_si256(s));
        const __m512d spd =
            _mm512_cvtepi32_pd(h ? _mm512_extracti64x4_epi64(spread, 1) : _mm512_castsi512_si256(spread));
        // as laneMath: (x·Σq − 32·y)/32 and (x·x)·spread/32
        const __m512d mean =
            _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(x, sd), _mm512_mul_pd(thirtyTwo, y)), oneThirtySecond);
        const __m512d m2 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(x, x), spd), oneThirtySecond);
        g.addGroups8(mean, m2);
    }
    // laneMath's bounds and zero codes
    const __m512 v0 = _mm512_sub_ps(_mm512_mul_ps(_mm512_setzero_ps(), d1), m1);
    const __m512 v1 = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(15.0f), d1), m1);
    const __m512 lo = _mm512_min_ps(v1, v0), hi = _mm512_max_ps(v1, v0);
    const __m512 ratio = _mm512_div_ps(m1, d1);
    const __mmask16 inRange = _mm512_cmp_ps_mask(ratio, _mm512_setzero_ps(), _CMP_GE_OQ) &
                              _mm512_cmp_ps_mask(ratio, _mm512_set1_ps(15.0f), _CMP_LE_OQ);
    const __m512i codeOfZero = _mm512_maskz_mov_epi32(inRange, _mm512_cvttps_epi32(ratio));
    const __mmask16 hit = _mm512_cmp_ps_mask(d1, _mm512_setzero_ps(), _CMP_NEQ_UQ) &
                          _mm512_cmp_ps_mask(_mm512_mul_ps(_mm512_cvtepi32_ps(codeOfZero), d1), m1, _CMP_EQ_OQ);
    const __mmask16 zeroMin = _mm512_cmp_ps_mask(m1, _mm512_setzero_ps(), _CMP_EQ_OQ);
    const __mmask16 zeroScale = _mm512_cmp_ps_mask(d1, _mm512_setzero_ps(), _CMP_EQ_OQ);
    __m512i code = _mm512_mask_mov_epi32(_mm512_set1_epi32(-1), hit, codeOfZero);
    code = _mm512_mask_mov_epi32(code, zeroMin, _mm512_maskz_mov_epi32(zeroScale, _mm512_set1_epi32(16)));
    // the zero values: sub-blocks whose zero code is 16 are all zeros; others count their codes
    // equal to it (a code of -1 is byte 0xff, never a nibble)
    if (_mm512_cmpgt_epi32_mask(code, _mm512_set1_epi32(-1)) != 0) {
        const __m512i zeroCodes = _mm512_broadcast_i32x4(_mm512_cvtepi32_epi8(code)); // sub-block j in byte j
        uint64_t zeros = kGroup * static_cast<uint64_t>(std::popcount(
                                      static_cast<unsigned>(_mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32(16)))));
        for (int i = 0; i < 8; ++i) {
            // the sub-blocks of nibbles[i] (blockTotals16's order): bytes 0-31 and 32-63
            const int lower = i < 4 ? i : i + 4, upper = lower + 4;
            const __m512i index =
                _mm512_mask_blend_epi8(0xffffffff00000000ull, _mm512_set1_epi8(static_cast<char>(lower)),
                                       _mm512_set1_epi8(static_cast<char>(upper)));
            zeros += static_cast<uint64_t>(
                std::popcount(_mm512_cmpeq_epi8_mask(nibbles[i], _mm512_shuffle_epi8(zeroCodes, index))));
        }
        g.zeros += zeros;
    }
    // the sub-blocks that could hold a new min or max
    const unsigned outside = _mm512_cmp_ps_mask(lo, _mm512_set1_ps(g.min), _CMP_LT_OQ) |
                             _mm512_cmp_ps_mask(hi, _mm512_set1_ps(g.max), _CMP_GT_OQ);
    if (outside != 0) {
        alignas(64) float los[16], his[16];
        _mm512_store_ps(los, lo);
        _mm512_store_ps(his, hi);
        // the codes' extremes of the flagged sub-blocks, in sub-block order (as scanQ4_KBlock)
        std::array<uint8_t, 16> codeLow{}, codeHigh{};
        for (int i = 0; i < 8; ++i) {
            const int lower = i < 4 ? i : i + 4, upper = lower + 4;
            if (((outside >> lower) | (outside >> upper)) & 1)
                nibbleExtremes(nibbles[i], codeLow[lower], codeHigh[lower], codeLow[upper], codeHigh[upper]);
        }
        for (unsigned m = outside; m != 0; m &= m - 1) {
            const int j = std::countr_zero(m);
            if (los[j] < g.min || his[j] > g.max) {
                const float *pair = d1m1 + 16 * (j / 8);
                const float x = static_cast<float>(codeLow[j]) * pair[j % 8] - pair[8 + j % 8];
                const float y = static_cast<float>(codeHigh[j]) * pair[j % 8] - pair[8 + j % 8];
                g.cover(std::min(x, y), std::max(x, y));
            }
        }
    }
}

// d and dmin of two consecutive Q4_K blocks as floats; false when one is not finite.
GGUF_AVX512 bool q4kPairScales(const uint8_t *b, float *scales)
{
    uint32_t a, c;
    std::memcpy(&a, b, 4);
    std::memcpy(&c, b + kQ4_KBytes, 4);
    const __m128i halves = _mm_set_epi32(0, 0, static_cast<int>(c), static_cast<int>(a));
    _mm_storeu_ps(scales, _mm_cvtph_ps(halves));
    return _mm_cmpeq_epi16_mask(_mm_and_si128(halves, _mm_set1_epi16(0x7c00)), _mm_set1_epi16(0x7c00)) == 0;
}

// The values of the sampled elements (indices into `blocks`), 16 at a time with gathers from the
// blocks' d1m1; the code byte is gathered as 32 bits, so `readable` (bytes readable from
// `blocks`) must leave room for the 3 bytes after it, else the rest are done one by one.
GGUF_AVX512_KERNEL void sampleQ4_KAvx512(const uint8_t *blocks, size_t readable, const float *d1m1,
                                         std::span<const uint32_t> sampled, float *values)
{
    size_t i = 0;
    for (; i + 16 <= sampled.size(); i += 16) {
        const __m512i e = _mm512_loadu_si512(sampled.data() + i);
        const __m512i block = _mm512_srli_epi32(e, 8), at = _mm512_and_si512(e, _mm512_set1_epi32(255));
        const __m512i chunk = _mm512_srli_epi32(at, 6),
                      half = _mm512_and_si512(_mm512_srli_epi32(at, 5), _mm512_set1_epi32(1));
        const __m512i byteAt = _mm512_add_epi32(
            _mm512_add_epi32(_mm512_mullo_epi32(block, _mm512_set1_epi32(static_cast<int>(kQ4_KBytes))),
                             _mm512_set1_epi32(static_cast<int>(kQ4_KCodes))),
            _mm512_add_epi32(_mm512_slli_epi32(chunk, 5), _mm512_and_si512(at, _mm512_set1_epi32(31))));
        if (static_cast<size_t>(_mm512_reduce_max_epu32(byteAt)) + 4 > readable)
            break;
        const __m512i bytes = _mm512_i32gather_epi32(byteAt, blocks, 1);
        const __m512i codes =
            _mm512_and_si512(_mm512_srlv_epi32(bytes, _mm512_slli_epi32(half, 2)), _mm512_set1_epi32(15));
        const __m512i scaleAt =
            _mm512_add_epi32(_mm512_slli_epi32(block, 4), _mm512_add_epi32(_mm512_slli_epi32(chunk, 1), half));
        const __m512 d1 = _mm512_i32gather_ps(scaleAt, d1m1, 4);
        const __m512 m1 = _mm512_i32gather_ps(_mm512_add_epi32(scaleAt, _mm512_set1_epi32(8)), d1m1, 4);
        _mm512_storeu_ps(values + i, _mm512_sub_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(codes), d1), m1));
    }
    for (; i < sampled.size(); ++i)
        values[i] = q4kSampleValue(blocks, d1m1, sampled[i]);
}
#endif

bool scanQ4_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    // d1 and m1 of every block, for the sampled values
    thread_local std::vector<float> d1m1;
    d1m1.resize(16 * nBlocks);
    size_t i = 0;
#if GGUF_X86_KERNELS
    if (cpuHasAvx512Vnni()) {
        for (; i + 2 <= nBlocks; i += 2) {
            const uint8_t *b = blocks + i * kQ4_KBytes;
            prefetchAhead(b, 2 * kQ4_KBytes, tensor);
            float scales[4];
            if (q4kPairScales(b, scales) && q4kBlockExact(scales[0], scales[1]) &&
                q4kBlockExact(scales[2], scales[3])) {
                scanQ4_KPairAvx512(b, scales, d1m1.data() + 16 * i, g);
            } else if (!scanQ4_KBlock(b, d1m1.data() + 16 * i, g) ||
                       !scanQ4_KBlock(b + kQ4_KBytes, d1m1.data() + 16 * (i + 1), g)) {
                return false;
            }
        }
        const size_t taken = static_cast<size_t>(
            std::lower_bound(sampled.begin(), sampled.end(), static_cast<uint32_t>(i * 256)) - sampled.begin());
        sampleQ4_KAvx512(blocks, static_cast<size_t>(tensor.data() + tensor.size() - blocks), d1m1.data(),
                         sampled.first(taken), values);
        sampled = sampled.subspan(taken);
        values += taken;
    }
#endif
    for (; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * kQ4_KBytes;
        prefetchAhead(b, kQ4_KBytes, tensor);
        if (!scanQ4_KBlock(b, d1m1.data() + 16 * i, g))
            return false;
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256),
                    [&](uint32_t e) { return q4kSampleValue(blocks, d1m1.data(), e); });
    }
    return true;
}

} // namespace

uint32_t fusedBlockSize(uint32_t typeId)
{
    switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::Q8_0: return 32;
    case GgmlType::Q4_K: return 256;
    default: return 0;
    }
}

bool fusedScan(uint32_t typeId, const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
               std::span<const uint32_t> sampled, float *sampledValues, FusedResult &out)
{
    LaneMoments g;
    bool ok = false;
    switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::Q8_0: ok = scanQ8_0(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q4_K: ok = scanQ4_K(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    default: break;
    }
    if (ok)
        g.finish(out);
    return ok;
}

} // namespace gguf::detail
