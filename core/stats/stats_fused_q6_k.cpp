// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics of Q6_K blocks from their codes (docs/FORMAT.md §4.4): element e of a block is
// (d·s)·c with d the f16 scale, s the int8 scale of its 16-element sub-block e / 16 and c = q − 32
// its 6-bit code. d·s has at most 18 significant bits and |c| ≤ 32, so the decoder's float products
// are always exact, and every value is d times the integer s·c. A group of 32 values (sub-blocks
// 2j and 2j + 1) therefore has the exact sums d·A and d²·B with A = Σ s·c and B = Σ s²·c², its mean
// d·A/32 and its M2 d²·(32·B − A²)/32 with an exact integer factor (below 2^35), merged as the other
// code reductions' groups are (fused_lanes.h).
#include "fused_lanes.h"

namespace gguf::detail {
namespace {

constexpr size_t kQ6_KBytes = sizeof(BlockQ6_K);

// The code q (0-63) of element e (0-255) of a block: four 32-element quarters per 128-element
// half, each taking a nibble of ql and two bits of qh (ggml's dequantize_row_q6_K).
inline int q6kCode(const uint8_t *b, size_t e)
{
    const size_t half = e / 128, quarter = (e % 128) / 32, l = e % 32;
    const uint8_t low = b[offsetof(BlockQ6_K, ql) + 64 * half + l + 32 * (quarter & 1)];
    const uint8_t high = b[offsetof(BlockQ6_K, qh) + 32 * half + l];
    return ((low >> (4 * (quarter >> 1))) & 15) | (((high >> (2 * quarter)) & 3) << 4);
}

inline int8_t q6kScale(const uint8_t *b, size_t subBlock)
{
    return static_cast<int8_t>(b[offsetof(BlockQ6_K, scales) + subBlock]);
}

// The value of element e of a block with scale d, computed as the decoder computes it.
inline float q6kValue(const uint8_t *b, float d, size_t e)
{
    const float ds = d * static_cast<float>(q6kScale(b, e / 16));
    return static_cast<float>(q6kCode(b, e) - 32) * ds;
}

// The 8 groups' mean and M2 from A and 32·B − A² (both code paths compute them so, hence the same
// bits).
inline void q6kGroupMoments(double d, const int64_t *a, const int64_t *spread, double *mean, double *m2)
{
    for (int j = 0; j < 8; ++j) {
        mean[j] = d * static_cast<double>(a[j]) * 0.03125;
        m2[j] = (d * d) * static_cast<double>(spread[j]) * 0.03125;
    }
}

// Extremes of the values of sub-block s that could hold a new min or max.
inline void q6kCoverSubBlock(const uint8_t *b, float d, size_t s, LaneMoments &g)
{
    const float ds = d * static_cast<float>(q6kScale(b, s));
    const float bound0 = -32.0f * ds, bound1 = 31.0f * ds;
    if (std::min(bound0, bound1) >= g.min && std::max(bound0, bound1) <= g.max)
        return;
    int qlo = 63, qhi = 0;
    for (size_t e = 16 * s; e < 16 * s + 16; ++e) {
        qlo = std::min(qlo, q6kCode(b, e));
        qhi = std::max(qhi, q6kCode(b, e));
    }
    const float x = static_cast<float>(qlo - 32) * ds, y = static_cast<float>(qhi - 32) * ds;
    g.cover(std::min(x, y), std::max(x, y));
}

// One block into g (portable). False when d is not finite.
bool scanQ6_KBlock(const uint8_t *b, LaneMoments &g)
{
    const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ6_K, d)));
    if (!std::isfinite(d))
        return false;
    int32_t sum[16] = {}, sumSq[16] = {}, zeroCodes[16] = {};
    for (size_t e = 0; e < 256; ++e) {
        const int32_t c = q6kCode(b, e) - 32;
        sum[e / 16] += c;
        sumSq[e / 16] += c * c;
        zeroCodes[e / 16] += c == 0;
    }
    int64_t a[8], spread[8];
    for (int j = 0; j < 8; ++j) {
        const int64_t s0 = q6kScale(b, 2 * j), s1 = q6kScale(b, 2 * j + 1);
        a[j] = s0 * sum[2 * j] + s1 * sum[2 * j + 1];
        spread[j] = 32 * (s0 * s0 * sumSq[2 * j] + s1 * s1 * sumSq[2 * j + 1]) - a[j] * a[j];
    }
    double mean[8], m2[8];
    q6kGroupMoments(d, a, spread, mean, m2);
    g.addGroups(mean, m2, 8);
    for (size_t s = 0; s < 16; ++s) {
        // a value is zero when d, the sub-block's scale or the code is (the products are exact)
        g.zeros += d == 0.0f || q6kScale(b, s) == 0 ? 16 : static_cast<uint64_t>(zeroCodes[s]);
        q6kCoverSubBlock(b, d, s, g);
    }
    return true;
}

#if GGUF_X86_KERNELS
// The sums of 32-bit lanes 2j and 2j + 1 as lane j of 8 (none overflows here).
GGUF_AVX512 inline __m256i pairTotals(__m512i v)
{
    return _mm512_cvtepi64_epi32(_mm512_add_epi32(v, _mm512_shuffle_epi32(v, _MM_PERM_CDAB)));
}

// One block into g with AVX-512 VNNI, as scanQ6_KBlock does it: the same integers (exact), the
// same double operations per group, the same sub-blocks covered. d is the block's scale, finite.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,f16c"))) inline void
scanQ6_KBlockAvx512(const uint8_t *b, float d, LaneMoments &g)
{
    // the 256 codes in element order, 64 per vector (sub-blocks 4k … 4k + 3 in vector k)
    // 64 bytes of ql hold quarters 0 and 1 (low nibbles) and 2 and 3 (high nibbles) of a half;
    // the 32 bytes of qh, in both 256-bit halves, give bits 4-5 of quarter k from their bits 2k,
    // 2k + 1 (16-bit shifts: the 0x30 mask keeps only bits that stayed in their byte)
    const __m512i lowNibble = _mm512_set1_epi8(0x0f), bits45 = _mm512_set1_epi8(0x30);
    const __m512i upQuarters01 = _mm512_setr_epi64(4, 4, 4, 4, 2, 2, 2, 2);
    const __m512i downQuarters23 = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2);
    __m512i codes[4];
    for (int half = 0; half < 2; ++half) {
        const __m512i ql = _mm512_loadu_si512(b + offsetof(BlockQ6_K, ql) + 64 * half);
        const __m512i qh = _mm512_broadcast_i64x4(
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + offsetof(BlockQ6_K, qh) + 32 * half)));
        codes[2 * half] = _mm512_or_si512(_mm512_and_si512(ql, lowNibble),
                                          _mm512_and_si512(_mm512_sllv_epi64(qh, upQuarters01), bits45));
        codes[2 * half + 1] = _mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), lowNibble),
                                              _mm512_and_si512(_mm512_srlv_epi64(qh, downQuarters23), bits45));
    }
    // Σq and Σq² per 4 bytes, then per sub-block: lane L of quadSums(pairSums(v0, v1), pairSums(v2,
    // v3)) holds the totals of 128-bit lane L of v0 … v3, i.e. sub-blocks L, 4 + L, 8 + L, 12 + L
    const __m512i ones8 = _mm512_set1_epi8(1), zero = _mm512_setzero_si512(), thirtyTwo = _mm512_set1_epi8(32);
    __m512i sums[4], squares[4];
    uint64_t zeroCodes[4];
    for (int k = 0; k < 4; ++k) {
        sums[k] = _mm512_dpbusd_epi32(zero, codes[k], ones8);
        squares[k] = _mm512_dpbusd_epi32(zero, codes[k], codes[k]);
        zeroCodes[k] = _mm512_cmpeq_epi8_mask(codes[k], thirtyTwo);
    }
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i q = _mm512_permutexvar_epi32(order, quadSums(pairSums(sums[0], sums[1]), pairSums(sums[2], sums[3])));
    const __m512i q2 =
        _mm512_permutexvar_epi32(order, quadSums(pairSums(squares[0], squares[1]), pairSums(squares[2], squares[3])));
    // Σc = Σq − 16·32 and Σc² = Σq² − 64·Σq + 16·32² per sub-block; times s and s²
    const __m512i sum = _mm512_sub_epi32(q, _mm512_set1_epi32(512));
    const __m512i sumSq = _mm512_add_epi32(_mm512_sub_epi32(q2, _mm512_slli_epi32(q, 6)), _mm512_set1_epi32(16384));
    const __m512i scale =
        _mm512_cvtepi8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b + offsetof(BlockQ6_K, scales))));
    const __m512i weighted = _mm512_mullo_epi32(scale, sum);
    const __m512i weightedSq = _mm512_mullo_epi32(_mm512_mullo_epi32(scale, scale), sumSq);
    // groups: sub-blocks 2j and 2j + 1 (adjacent lanes) added (|A| < 2^17, B < 2^30), then as
    // doubles, where 32·B − A² (below 2^35) is exact, as in the portable int64 arithmetic
    const __m512d a = _mm512_cvtepi32_pd(pairTotals(weighted));
    const __m512d spread = _mm512_sub_pd(
        _mm512_mul_pd(_mm512_set1_pd(32.0), _mm512_cvtepi32_pd(pairTotals(weightedSq))), _mm512_mul_pd(a, a));
    const __m512d dd = _mm512_set1_pd(static_cast<double>(d)), scaleBy = _mm512_set1_pd(0.03125);
    const __m512d mean = _mm512_mul_pd(_mm512_mul_pd(dd, a), scaleBy);
    const __m512d m2 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(dd, dd), spread), scaleBy);
    g.addGroups8(mean, m2);
    // zeros: a zero d or scale zeroes the whole sub-block, else the codes equal to 32 count
    if (d == 0.0f) {
        g.zeros += 256;
    } else {
        for (int k = 0; k < 4; ++k)
            g.zeros += static_cast<uint64_t>(std::popcount(zeroCodes[k]));
        for (unsigned m = _mm512_cmpeq_epi32_mask(scale, _mm512_setzero_si512()); m != 0; m &= m - 1) {
            const int s = std::countr_zero(m);
            g.zeros += 16 - static_cast<uint64_t>(std::popcount((zeroCodes[s / 4] >> (16 * (s % 4))) & 0xffff));
        }
    }
    // the sub-blocks that could hold a new min or max
    const __m512 ds = _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(scale));
    const __m512 v0 = _mm512_mul_ps(_mm512_set1_ps(-32.0f), ds), v1 = _mm512_mul_ps(_mm512_set1_ps(31.0f), ds);
    const __mmask16 outside = _mm512_cmp_ps_mask(_mm512_min_ps(v0, v1), _mm512_set1_ps(g.min), _CMP_LT_OQ) |
                              _mm512_cmp_ps_mask(_mm512_max_ps(v0, v1), _mm512_set1_ps(g.max), _CMP_GT_OQ);
    for (unsigned m = outside; m != 0; m &= m - 1)
        q6kCoverSubBlock(b, d, static_cast<size_t>(std::countr_zero(m)), g);
}

// Blocks [0, nBlocks) into g and their samples into values, as the portable loop of scanQ6_K.
GGUF_AVX512_VNNI_KERNEL bool scanQ6_KAvx512(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                            std::span<const uint32_t> &sampled, float *&values, LaneMoments &g)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * kQ6_KBytes;
        if (i % 2 == 0) // two blocks' lines per call: about 7 instead of 2 × 4
            prefetchAhead(b, 2 * kQ6_KBytes, tensor);
        const uint16_t dBits = loadU16(b + offsetof(BlockQ6_K, d));
        if ((dBits & 0x7c00) == 0x7c00)
            return false;
        const float d = _cvtsh_ss(dBits);
        scanQ6_KBlockAvx512(b, d, g);
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256),
                    [&](uint32_t e) { return q6kValue(b, d, e - static_cast<uint32_t>(i * 256)); });
    }
    return true;
}
#endif

} // namespace

bool scanQ6_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512Vnni())
        return scanQ6_KAvx512(blocks, nBlocks, tensor, sampled, values, g);
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * kQ6_KBytes;
        prefetchAhead(b, kQ6_KBytes, tensor);
        if (!scanQ6_KBlock(b, g))
            return false;
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ6_K, d)));
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256),
                    [&](uint32_t e) { return q6kValue(b, d, e - static_cast<uint32_t>(i * 256)); });
    }
    return true;
}

} // namespace gguf::detail
