// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics of Q6_K, Q3_K and IQ4_XS blocks from their codes (docs/FORMAT.md §4.3, §4.4, §4.5): element e of a
// block is (d·s)·c with d the f16 scale, s the integer scale of its 16-element sub-block e / 16
// (Q6_K: an int8; Q3_K: 6 bits − 32; IQ4_XS: 6 bits − 32, shared by the two halves of a 32-element sub-block) and
// c its signed code (Q6_K: q − 32 in −32…31; Q3_K: two low bits minus 4 where the hmask bit is clear, −4…3; IQ4_XS:
// the codebook level of its nibble, −127…113). d·s has at most 18 significant bits and |c| ≤ 127 has at most 7, so
// the decoder's float products are always exact, and every value is d times the integer s·c. A group of 32 values
// (sub-blocks 2j and 2j + 1) therefore has the exact sums d·A and d²·B with A = Σ s·c and B = Σ s²·c², its mean
// d·A/32 and its M2 d²·(32·B − A²)/32 with an exact integer factor (below 2^35), merged as the other code
// reductions' groups are (fused_lanes.h).
#include "fused_lanes.h"

#include "core/quant/quant_tables.h"

#include <cstring>

namespace gguf::detail {
namespace {

// ---- the layouts: the code c of element e (in [kCodeMin, kCodeMax]), the 16 sub-block scales, and (AVX-512) the
// signed codes as bytes in element order, 64 per vector (sub-blocks 4k … 4k + 3 in vector k)

struct Q6_KLayout {
    static constexpr size_t kBytes = sizeof(BlockQ6_K), kScaleAt = offsetof(BlockQ6_K, d);
    static constexpr int kBias = 32, kCodeMin = -kBias, kCodeMax = kBias - 1;

    // four 32-element quarters per 128-element half, each a nibble of ql and two bits of qh
    // (ggml's dequantize_row_q6_K)
    static int code(const uint8_t *b, size_t e)
    {
        const size_t half = e / 128, quarter = (e % 128) / 32, l = e % 32;
        const uint8_t low = b[offsetof(BlockQ6_K, ql) + 64 * half + l + 32 * (quarter & 1)];
        const uint8_t high = b[offsetof(BlockQ6_K, qh) + 32 * half + l];
        return (((low >> (4 * (quarter >> 1))) & 15) | (((high >> (2 * quarter)) & 3) << 4)) - kBias;
    }
    static std::array<int32_t, 16> scales(const uint8_t *b)
    {
        std::array<int32_t, 16> s{};
        for (size_t j = 0; j < 16; ++j)
            s[j] = static_cast<int8_t>(b[offsetof(BlockQ6_K, scales) + j]);
        return s;
    }
#if GGUF_X86_KERNELS
    GGUF_AVX512 static __m512i scalesAvx512(const uint8_t *b)
    {
        return _mm512_cvtepi8_epi32(
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + offsetof(BlockQ6_K, scales))));
    }
    // 64 bytes of ql hold quarters 0 and 1 (low nibbles) and 2 and 3 (high nibbles) of a half; the
    // 32 bytes of qh, in both 256-bit halves, give bits 4-5 of quarter k from their bits 2k, 2k + 1
    // (64-bit shifts: the 0x30 mask keeps only bits that stayed in their byte)
    GGUF_AVX512 static void signedCodes(const uint8_t *b, __m512i *u)
    {
        const __m512i lowNibble = _mm512_set1_epi8(0x0f), bits45 = _mm512_set1_epi8(0x30);
        const __m512i bias = _mm512_set1_epi8(kBias);
        const __m512i upQuarters01 = _mm512_setr_epi64(4, 4, 4, 4, 2, 2, 2, 2);
        const __m512i downQuarters23 = _mm512_setr_epi64(0, 0, 0, 0, 2, 2, 2, 2);
        for (int half = 0; half < 2; ++half) {
            const __m512i ql = _mm512_loadu_si512(b + offsetof(BlockQ6_K, ql) + 64 * half);
            const __m512i qh = _mm512_broadcast_i64x4(
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + offsetof(BlockQ6_K, qh) + 32 * half)));
            u[2 * half] =
                _mm512_sub_epi8(_mm512_or_si512(_mm512_and_si512(ql, lowNibble),
                                                _mm512_and_si512(_mm512_sllv_epi64(qh, upQuarters01), bits45)),
                                bias);
            u[2 * half + 1] =
                _mm512_sub_epi8(_mm512_or_si512(_mm512_and_si512(_mm512_srli_epi16(ql, 4), lowNibble),
                                                _mm512_and_si512(_mm512_srlv_epi64(qh, downQuarters23), bits45)),
                                bias);
        }
    }
#endif
};

struct Q3_KLayout {
    static constexpr size_t kBytes = sizeof(BlockQ3_K), kScaleAt = offsetof(BlockQ3_K, d);
    static constexpr int kBias = 4, kCodeMin = -kBias, kCodeMax = kBias - 1;

    // element 128n + 32j + l: bits 2j of qs[32n + l], minus 4 where bit 4n + j of hmask[l] is
    // clear (ggml's dequantize_row_q3_K)
    static int code(const uint8_t *b, size_t e)
    {
        const size_t half = e / 128, j = (e % 128) / 32, l = e % 32;
        const int low = (b[offsetof(BlockQ3_K, qs) + 32 * half + l] >> (2 * j)) & 3;
        const int high = (b[offsetof(BlockQ3_K, hmask) + l] >> (4 * half + j)) & 1;
        return low + 4 * high - kBias;
    }
    static std::array<int32_t, 16> scales(const uint8_t *b)
    {
        const std::array<int, 16> s = unpackQ3Scales(b + offsetof(BlockQ3_K, scales));
        std::array<int32_t, 16> out{};
        std::copy(s.begin(), s.end(), out.begin());
        return out;
    }
#if GGUF_X86_KERNELS
    // unpackQ3Scales on 16 lanes: lane j takes its low 4 bits from byte j (j < 8) or the high
    // nibble of byte j − 8, its high 2 bits from bits 2(j / 4) of byte 8 + j % 4
    GGUF_AVX512 static __m512i scalesAvx512(const uint8_t *b)
    {
        uint8_t packed[16] = {};
        std::memcpy(packed, b + offsetof(BlockQ3_K, scales), 12);
        const __m512i x = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(packed)));
        const __m512i lowAt = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7);
        const __m512i lowShift = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4);
        const __m512i highAt = _mm512_setr_epi32(8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11);
        const __m512i highShift = _mm512_setr_epi32(0, 0, 0, 0, 2, 2, 2, 2, 4, 4, 4, 4, 6, 6, 6, 6);
        const __m512i low =
            _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi32(lowAt, x), lowShift), _mm512_set1_epi32(15));
        const __m512i high =
            _mm512_and_si512(_mm512_srlv_epi32(_mm512_permutexvar_epi32(highAt, x), highShift), _mm512_set1_epi32(3));
        return _mm512_sub_epi32(_mm512_or_si512(low, _mm512_slli_epi32(high, 4)), _mm512_set1_epi32(32));
    }
    // vector 2n + t: the qs and hmask bytes of half n in both 256-bit halves, shifted for j = 2t
    // (low half) and 2t + 1 (high half); the masks keep bits that stayed in their byte
    GGUF_AVX512 static void signedCodes(const uint8_t *b, __m512i *u)
    {
        const __m512i three = _mm512_set1_epi8(3), one = _mm512_set1_epi8(1), bias = _mm512_set1_epi8(kBias);
        const __m512i hm = _mm512_broadcast_i64x4(
            _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + offsetof(BlockQ3_K, hmask))));
        for (int half = 0; half < 2; ++half) {
            const __m512i qs = _mm512_broadcast_i64x4(
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + offsetof(BlockQ3_K, qs) + 32 * half)));
            for (int t = 0; t < 2; ++t) {
                const long long j0 = 2 * t, j1 = 2 * t + 1;
                const __m512i low =
                    _mm512_and_si512(_mm512_srlv_epi64(qs, _mm512_setr_epi64(2 * j0, 2 * j0, 2 * j0, 2 * j0, 2 * j1,
                                                                             2 * j1, 2 * j1, 2 * j1)),
                                     three);
                const long long m0 = 4 * half + j0, m1 = 4 * half + j1;
                const __m512i high =
                    _mm512_and_si512(_mm512_srlv_epi64(hm, _mm512_setr_epi64(m0, m0, m0, m0, m1, m1, m1, m1)), one);
                u[2 * half + t] = _mm512_sub_epi8(_mm512_or_si512(low, _mm512_slli_epi64(high, 2)), bias);
            }
        }
    }
#endif
};

struct IQ4_XSLayout {
    static constexpr size_t kBytes = sizeof(BlockIQ4_XS), kScaleAt = offsetof(BlockIQ4_XS, d);
    static constexpr int kCodeMin = tables::kValuesIq4nl.front(), kCodeMax = tables::kValuesIq4nl.back();

    // 32-element sub-block j: elements 0-15 from the low nibbles of qs[16j … 16j + 15], 16-31 from
    // their high nibbles (ggml's dequantize_row_iq4_xs)
    static int code(const uint8_t *b, size_t e)
    {
        const uint8_t byte = b[offsetof(BlockIQ4_XS, qs) + 16 * (e / 32) + e % 16];
        return tables::kValuesIq4nl[(byte >> (4 * ((e / 16) % 2))) & 15];
    }
    // scale j of 8: low 4 bits from nibble j of scales_l, high 2 bits from bits 2j of scales_h, minus 32
    static std::array<int32_t, 16> scales(const uint8_t *b)
    {
        const unsigned high = loadU16(b + offsetof(BlockIQ4_XS, scales_h));
        std::array<int32_t, 16> s{};
        for (size_t j = 0; j < 8; ++j) {
            const unsigned low = (b[offsetof(BlockIQ4_XS, scales_l) + j / 2] >> (4 * (j % 2))) & 15;
            s[2 * j] = s[2 * j + 1] = static_cast<int32_t>(low | (((high >> (2 * j)) & 3) << 4)) - 32;
        }
        return s;
    }
#if GGUF_X86_KERNELS
    // lane j takes nibble j / 4 of scales_l and bits (j / 2 & ~1) … + 1 of scales_h
    GGUF_AVX512 static __m512i scalesAvx512(const uint8_t *b)
    {
        uint32_t low = 0;
        std::memcpy(&low, b + offsetof(BlockIQ4_XS, scales_l), 4);
        const __m512i lowBits =
            _mm512_srlv_epi32(_mm512_set1_epi32(static_cast<int>(low)),
                              _mm512_setr_epi32(0, 0, 4, 4, 8, 8, 12, 12, 16, 16, 20, 20, 24, 24, 28, 28));
        const __m512i highBits =
            _mm512_srlv_epi32(_mm512_set1_epi32(loadU16(b + offsetof(BlockIQ4_XS, scales_h))),
                              _mm512_setr_epi32(0, 0, 2, 2, 4, 4, 6, 6, 8, 8, 10, 10, 12, 12, 14, 14));
        const __m512i scale = _mm512_or_si512(_mm512_and_si512(lowBits, _mm512_set1_epi32(15)),
                                              _mm512_slli_epi32(_mm512_and_si512(highBits, _mm512_set1_epi32(3)), 4));
        return _mm512_sub_epi32(scale, _mm512_set1_epi32(32));
    }
    // vector k: bytes 32k … 32k + 31 of qs as 128-bit lanes {low nibbles of 0-15, high nibbles of
    // 0-15, low of 16-31, high of 16-31}, looked up in the codebook
    GGUF_AVX512 static void signedCodes(const uint8_t *b, __m512i *c)
    {
        const __m512i book =
            _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<const __m128i *>(tables::kValuesIq4nl.data())));
        const __m512i shift = _mm512_setr_epi64(0, 0, 4, 4, 0, 0, 4, 4);
        for (int k = 0; k < 4; ++k) {
            const __m512i x = _mm512_castsi256_si512(
                _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + offsetof(BlockIQ4_XS, qs) + 32 * k)));
            const __m512i spread = _mm512_shuffle_i64x2(x, x, _MM_SHUFFLE(1, 1, 0, 0));
            const __m512i nibbles = _mm512_and_si512(_mm512_srlv_epi64(spread, shift), _mm512_set1_epi8(0x0f));
            c[k] = _mm512_shuffle_epi8(book, nibbles);
        }
    }
#endif
};

// The block's f16 scale d as a float; false when it is not finite.
template <typename Layout> bool blockScale(const uint8_t *b, float &d)
{
    d = fp16ToFp32(loadU16(b + Layout::kScaleAt));
    return std::isfinite(d);
}

#if GGUF_X86_KERNELS
// The same by the F16C instruction.
template <typename Layout> GGUF_AVX512 inline bool blockScaleF16c(const uint8_t *b, float &d)
{
    const uint16_t h = loadU16(b + Layout::kScaleAt);
    d = _cvtsh_ss(h);
    return (h & 0x7c00) != 0x7c00;
}
#endif

// The value of element e of a block with scale d, computed as the decoder computes it.
template <typename Layout> float valueOf(const uint8_t *b, float d, int32_t scale, size_t e)
{
    return static_cast<float>(Layout::code(b, e)) * (d * static_cast<float>(scale));
}

// The 8 groups' mean and M2 from A and 32·B − A² (both code paths compute them so, hence the same
// bits).
inline void groupMomentsK16(double d, const int64_t *a, const int64_t *spread, double *mean, double *m2)
{
    for (int j = 0; j < 8; ++j) {
        mean[j] = d * static_cast<double>(a[j]) * 0.03125;
        m2[j] = (d * d) * static_cast<double>(spread[j]) * 0.03125;
    }
}

// Extremes of the values of sub-block s that could hold a new min or max.
template <typename Layout> void coverSubBlock(const uint8_t *b, float d, int32_t scale, size_t s, LaneMoments &g)
{
    const float ds = d * static_cast<float>(scale);
    const float bound0 = static_cast<float>(Layout::kCodeMin) * ds, bound1 = static_cast<float>(Layout::kCodeMax) * ds;
    if (std::min(bound0, bound1) >= g.min && std::max(bound0, bound1) <= g.max)
        return;
    int clo = Layout::kCodeMax, chi = Layout::kCodeMin;
    for (size_t e = 16 * s; e < 16 * s + 16; ++e) {
        clo = std::min(clo, Layout::code(b, e));
        chi = std::max(chi, Layout::code(b, e));
    }
    const float x = static_cast<float>(clo) * ds, y = static_cast<float>(chi) * ds;
    g.cover(std::min(x, y), std::max(x, y));
}

// One block into g (portable); d its finite scale.
template <typename Layout>
void scanBlockK16(const uint8_t *b, float d, const std::array<int32_t, 16> &scale, LaneMoments &g)
{
    int32_t sum[16] = {}, sumSq[16] = {}, zeroCodes[16] = {};
    for (size_t e = 0; e < 256; ++e) {
        const int32_t c = Layout::code(b, e);
        sum[e / 16] += c;
        sumSq[e / 16] += c * c;
        zeroCodes[e / 16] += c == 0;
    }
    int64_t a[8], spread[8];
    for (int j = 0; j < 8; ++j) {
        const int64_t s0 = scale[2 * j], s1 = scale[2 * j + 1];
        a[j] = s0 * sum[2 * j] + s1 * sum[2 * j + 1];
        spread[j] = 32 * (s0 * s0 * sumSq[2 * j] + s1 * s1 * sumSq[2 * j + 1]) - a[j] * a[j];
    }
    double mean[8], m2[8];
    groupMomentsK16(d, a, spread, mean, m2);
    g.addGroups(mean, m2, 8);
    for (size_t s = 0; s < 16; ++s) {
        // a value is zero when d, the sub-block's scale or the code is (the products are exact)
        g.zeros += d == 0.0f || scale[s] == 0 ? 16 : static_cast<uint64_t>(zeroCodes[s]);
        coverSubBlock<Layout>(b, d, scale[s], s, g);
    }
}

#if GGUF_X86_KERNELS
// One block into g with AVX-512 VNNI, as scanBlockK16 does it: the same integers (exact), the same
// double operations per group, the same sub-blocks covered. Also stores the sub-block scales.
template <typename Layout>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,f16c"))) inline void
scanBlockAvx512(const uint8_t *b, float d, std::array<int32_t, 16> &scales, LaneMoments &g)
{
    const __m512i scale = Layout::scalesAvx512(b);
    _mm512_storeu_si512(scales.data(), scale);
    __m512i codes[4];
    Layout::signedCodes(b, codes);
    static_assert(Layout::kCodeMin >= -127, "|c| must fit a signed byte for the squares");
    // Σc and Σc² per 4 bytes (|c| times |c| for the squares), then per sub-block: lane L of
    // quadSums(pairSums(v0, v1), pairSums(v2, v3)) holds the totals of 128-bit lane L of v0 … v3, i.e. sub-blocks
    // L, 4 + L, 8 + L, 12 + L
    const __m512i ones8 = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    __m512i sums[4], squares[4];
    uint64_t zeroCodes[4];
    for (int k = 0; k < 4; ++k) {
        const __m512i magnitude = _mm512_abs_epi8(codes[k]);
        sums[k] = _mm512_dpbusd_epi32(zero, ones8, codes[k]);
        squares[k] = _mm512_dpbusd_epi32(zero, magnitude, magnitude);
        zeroCodes[k] = _mm512_testn_epi8_mask(codes[k], codes[k]);
    }
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m512i sum =
        _mm512_permutexvar_epi32(order, quadSums(pairSums(sums[0], sums[1]), pairSums(sums[2], sums[3])));
    const __m512i sumSq =
        _mm512_permutexvar_epi32(order, quadSums(pairSums(squares[0], squares[1]), pairSums(squares[2], squares[3])));
    const __m512i weighted = _mm512_mullo_epi32(scale, sum);
    const __m512i weightedSq = _mm512_mullo_epi32(_mm512_mullo_epi32(scale, scale), sumSq);
    // groups: sub-blocks 2j and 2j + 1 (adjacent lanes) added (|A| ≤ 2^17, B < 2^30), then as
    // doubles, where 32·B − A² (below 2^35) is exact, as in the portable int64 arithmetic
    const __m512d a = _mm512_cvtepi32_pd(pairTotals(weighted));
    const __m512d spread = _mm512_sub_pd(
        _mm512_mul_pd(_mm512_set1_pd(32.0), _mm512_cvtepi32_pd(pairTotals(weightedSq))), _mm512_mul_pd(a, a));
    const __m512d dd = _mm512_set1_pd(static_cast<double>(d)), scaleBy = _mm512_set1_pd(0.03125);
    const __m512d mean = _mm512_mul_pd(_mm512_mul_pd(dd, a), scaleBy);
    const __m512d m2 = _mm512_mul_pd(_mm512_mul_pd(_mm512_mul_pd(dd, dd), spread), scaleBy);
    g.addGroups8(mean, m2);
    // zeros: a zero d or scale zeroes the whole sub-block, else the zero codes count
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
    const __m512 v0 = _mm512_mul_ps(_mm512_set1_ps(static_cast<float>(Layout::kCodeMin)), ds);
    const __m512 v1 = _mm512_mul_ps(_mm512_set1_ps(static_cast<float>(Layout::kCodeMax)), ds);
    const __mmask16 outside = _mm512_cmp_ps_mask(_mm512_min_ps(v0, v1), _mm512_set1_ps(g.min), _CMP_LT_OQ) |
                              _mm512_cmp_ps_mask(_mm512_max_ps(v0, v1), _mm512_set1_ps(g.max), _CMP_GT_OQ);
    for (unsigned m = outside; m != 0; m &= m - 1) {
        const auto s = static_cast<size_t>(std::countr_zero(m));
        coverSubBlock<Layout>(b, d, scales[s], s, g);
    }
}
#endif

// Blocks [0, nBlocks) into g and their samples into values; false at a block whose d is not
// finite. Vnni: each block by scanBlockAvx512, else by scanBlockK16. Always inlined into the two
// entry points below, so that the AVX-512 one compiles the whole loop for its target.
template <typename Layout, bool Vnni>
[[gnu::always_inline]] inline bool scanLoop(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                            std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * Layout::kBytes;
        if (i % 2 == 0) // two blocks' lines per call
            prefetchAhead(b, 2 * Layout::kBytes, tensor);
        float d = 0;
        std::array<int32_t, 16> scales;
#if GGUF_X86_KERNELS
        if constexpr (Vnni) {
            if (!blockScaleF16c<Layout>(b, d))
                return false;
            scanBlockAvx512<Layout>(b, d, scales, g);
        } else {
            if (!blockScale<Layout>(b, d))
                return false;
            scales = Layout::scales(b);
            scanBlockK16<Layout>(b, d, scales, g);
        }
#else
        if (!blockScale<Layout>(b, d))
            return false;
        scales = Layout::scales(b);
        scanBlockK16<Layout>(b, d, scales, g);
#endif
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256), [&](uint32_t e) {
            const size_t at = e - i * 256;
            return valueOf<Layout>(b, d, scales[at / 16], at);
        });
    }
    return true;
}

template <typename Layout>
bool scanPortableK16(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                     std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    return scanLoop<Layout, false>(blocks, nBlocks, tensor, sampled, values, g);
}

#if GGUF_X86_KERNELS
template <typename Layout>
GGUF_AVX512_VNNI_KERNEL bool scanAvx512K16(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                           std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    return scanLoop<Layout, true>(blocks, nBlocks, tensor, sampled, values, g);
}
#endif

template <typename Layout>
bool scanBlocksK16(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                   std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512Vnni())
        return scanAvx512K16<Layout>(blocks, nBlocks, tensor, sampled, values, g);
#endif
    return scanPortableK16<Layout>(blocks, nBlocks, tensor, sampled, values, g);
}

} // namespace

bool scanQ6_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    return scanBlocksK16<Q6_KLayout>(blocks, nBlocks, tensor, sampled, values, g);
}

bool scanQ3_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    return scanBlocksK16<Q3_KLayout>(blocks, nBlocks, tensor, sampled, values, g);
}

bool scanIQ4_XS(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    return scanBlocksK16<IQ4_XSLayout>(blocks, nBlocks, tensor, sampled, values, g);
}

} // namespace gguf::detail
