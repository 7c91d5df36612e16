// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics of Q4_K and Q5_K blocks from their codes: a value is q·d1 − m1 (docs/FORMAT.md §4.3,
// §4.4) with q a 4- or 5-bit code, exact unless the subtraction rounds (checked per block, then that
// sub-block is summed as floats); see fused_lanes.h.
#include "fused_lanes.h"

namespace gguf::detail {
namespace {

// Code l of sub-block j (0-7) of a block: sub-block 2c holds the low nibbles of bytes 32c … 32c + 31
// of qs, 2c + 1 their high nibbles (ggml's dequantize_row_q4_K); Q5_K adds bit j of qh[l] as the
// fifth bit (dequantize_row_q5_K).
struct Q4_KLayout {
    static constexpr size_t kBytes = sizeof(BlockQ4_K), kScales = offsetof(BlockQ4_K, scales);
    static constexpr size_t kCodes = offsetof(BlockQ4_K, qs);
    static constexpr int kMaxCode = 15;
    static int code(const uint8_t *b, int j, size_t l) { return (b[kCodes + 32 * (j / 2) + l] >> (4 * (j % 2))) & 15; }
};

struct Q5_KLayout {
    static constexpr size_t kBytes = sizeof(BlockQ5_K), kScales = offsetof(BlockQ5_K, scales);
    static constexpr size_t kCodes = offsetof(BlockQ5_K, qs), kHigh = offsetof(BlockQ5_K, qh);
    static constexpr int kMaxCode = 31;
    static int code(const uint8_t *b, int j, size_t l)
    {
        return ((b[kCodes + 32 * (j / 2) + l] >> (4 * (j % 2))) & 15) | ((b[kHigh + l] >> j) & 1) << 4;
    }
};

// Σq and Σq² of the 8 sub-blocks of one block.
template <typename Layout> void codeSums(const uint8_t *b, int32_t *sum, int32_t *sumSq)
{
    for (int j = 0; j < 8; ++j) {
        int32_t s = 0, sq = 0;
        for (size_t l = 0; l < kGroup; ++l) {
            const int32_t q = Layout::code(b, j, l);
            s += q;
            sq += q * q;
        }
        sum[j] = s;
        sumSq[j] = sq;
    }
}

#if GGUF_X86_KERNELS
// The same with AVX2 (exact integers, so the same result).
template <typename Layout> GGUF_AVX2_KERNEL void codeSumsAvx2(const uint8_t *b, int32_t *sum, int32_t *sumSq)
{
    const __m256i lowNibble = _mm256_set1_epi8(0x0f), ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    __m256i s[8], sq[8];
    for (int c = 0; c < 4; ++c) {
        const __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + Layout::kCodes + 32 * c));
        __m256i lo = _mm256_and_si256(x, lowNibble);
        __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), lowNibble);
        if constexpr (Layout::kMaxCode > 15) {
            // bits 2c and 2c + 1 of each qh byte, moved to bit 4 (the masks keep bits that stayed in their byte)
            const __m256i qh = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(b + Layout::kHigh));
            lo = _mm256_or_si256(lo, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c), ones8), 4));
            hi = _mm256_or_si256(hi, _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(qh, 2 * c + 1), ones8), 4));
        }
        // codes ≤ 31: the byte products and their pair sums fit the 16-bit lanes
        s[2 * c] = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, ones8), ones16);
        s[2 * c + 1] = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, ones8), ones16);
        sq[2 * c] = _mm256_madd_epi16(_mm256_maddubs_epi16(lo, lo), ones16);
        sq[2 * c + 1] = _mm256_madd_epi16(_mm256_maddubs_epi16(hi, hi), ones16);
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sum), reduce8(s));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sumSq), reduce8(sq));
}
#endif

template <typename Layout> void sums(const uint8_t *b, int32_t *sum, int32_t *sumSq)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        codeSumsAvx2<Layout>(b, sum, sumSq);
        return;
    }
#endif
    codeSums<Layout>(b, sum, sumSq);
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

// The sub-blocks of one block b (scales d1 and m1) flagged in `rare`: their zero values (zeroCode,
// see laneMath) and their codes' extremes when they could hold a new min or max.
template <typename Layout>
void rareSubBlocks(const uint8_t *b, const float *d1, const float *m1, const float *lo, const float *hi,
                   const int32_t *zeroCode, unsigned rare, LaneMoments &g)
{
    const auto value = [&](int j, int q) { return static_cast<float>(q) * d1[j] - m1[j]; };
    for (; rare != 0; rare &= rare - 1) {
        const int j = std::countr_zero(rare);
        if (zeroCode[j] == kEveryCode)
            g.zeros += kGroup;
        else if (zeroCode[j] >= 0)
            for (size_t l = 0; l < kGroup; ++l)
                g.zeros += Layout::code(b, j, l) == zeroCode[j];
        // the codes' extremes
        if (lo[j] < g.min || hi[j] > g.max) {
            int qlo = Layout::kMaxCode, qhi = 0;
            for (size_t l = 0; l < kGroup; ++l) {
                qlo = std::min(qlo, Layout::code(b, j, l));
                qhi = std::max(qhi, Layout::code(b, j, l));
            }
            const float x = value(j, qlo), y = value(j, qhi);
            g.cover(std::min(x, y), std::max(x, y));
        }
    }
}

// d·scale and dmin·min are multiples of d's and dmin's lowest bits: whether every value of the
// block is exact (else some sub-blocks need the decoder's floats). Scales and mins are ≤ 63.
template <typename Layout> bool blockExactQ4K(float d, float dmin)
{
    return differencesExact(d, dmin, 63.0 * Layout::kMaxCode * std::fabs(d) + 63.0 * std::fabs(dmin));
}

// One block into g; its sub-block scales d1 and mins m1 into d1m1[0..7] and d1m1[8..15]. False
// when d or dmin is not finite.
template <typename Layout> bool scanBlockQ4K(const uint8_t *b, float *d1m1, LaneMoments &g)
{
    const float d = fp16ToFp32(loadU16(b));        // d opens both block types,
    const float dmin = fp16ToFp32(loadU16(b + 2)); // dmin follows
    if (!std::isfinite(d) || !std::isfinite(dmin))
        return false;
    uint8_t scaleMin[16];
    unpackQ4KScaleMins(b + Layout::kScales, scaleMin);
    float *d1 = d1m1, *m1 = d1m1 + 8;
    scaleProducts(scaleMin, d, dmin, d1, m1);
    int32_t sum[8], sumSq[8];
    sums<Layout>(b, sum, sumSq);
    constexpr auto kHighest = static_cast<float>(Layout::kMaxCode);
    Lanes8 l8;
    lanes(d1, m1, sum, sumSq, 0.0f, kHighest, g.min, g.max, l8);
    if (!blockExactQ4K<Layout>(d, dmin)) {
        for (int j = 0; j < 8; ++j) {
            if (differencesExact(d1[j], m1[j], kHighest * std::fabs(d1[j]) + std::fabs(m1[j])))
                continue;
            // the decoder rounds some of these values: take them as it gives them
            std::array<float, kGroup> v;
            for (size_t l = 0; l < kGroup; ++l)
                v[l] = static_cast<float>(Layout::code(b, j, l)) * d1[j] - m1[j];
            g.decodedGroup(v.data(), l8.mean[j], l8.m2[j]);
            l8.lo[j] = l8.hi[j] = std::numeric_limits<float>::quiet_NaN(); // covered
            l8.zeroCode[j] = -1;                                           // counted
            l8.rare &= ~(1u << j);
        }
    }
    g.addGroups(l8.mean.data(), l8.m2.data(), 8);
    // the sub-blocks with a zero value, or that could hold a new min or max (rare after the
    // first few blocks): one bit each
    rareSubBlocks<Layout>(b, d1, m1, l8.lo.data(), l8.hi.data(), l8.zeroCode.data(), l8.rare, g);
    return true;
}

// The value of element e (index into `blocks`) from its block's d1m1 (see scanBlockQ4K).
template <typename Layout> float sampleValue(const uint8_t *blocks, const float *d1m1, uint32_t e)
{
    const uint32_t block = e / 256, at = e % 256;
    const auto j = static_cast<int>(at / 32);
    const float *s = d1m1 + 16 * block;
    return static_cast<float>(Layout::code(blocks + block * Layout::kBytes, j, at % 32)) * s[j] - s[8 + j];
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

// Two consecutive blocks (both with finite d and dmin and exact values, see blockExactQ4K) into g, as
// two calls of scanBlockQ4K would: the 16 sub-blocks' code sums with VNNI dot products, laneMath and
// addGroups on vectors with the same operations. d1m1 as scanBlockQ4K's, for both.
template <typename Layout>
[[gnu::always_inline]] GGUF_AVX512_VNNI_KERNEL inline void scanPairAvx512(const uint8_t *blocks, const float *scales,
                                                                          float *d1m1, LaneMoments &g)
{
    const uint8_t *a = blocks, *b = blocks + Layout::kBytes;
    // unpackQ4KScaleMins of both blocks on 16 lanes (a's sub-blocks, then b's): with s the 12
    // packed bytes, scale j is s[j] & 63 (j < 4) or (s[j + 4] & 15) | (s[j - 4] >> 6) << 4, min j is
    // s[j + 4] & 63 (j < 4) or s[j + 4] >> 4 | (s[j] >> 6) << 4 (16 bytes are read: the scales and 4
    // code bytes after them)
    const __m512i bytesA =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(a + Layout::kScales)));
    const __m512i bytesB =
        _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(b + Layout::kScales)));
    const __m512i lowMask = _mm512_setr_epi32(63, 63, 63, 63, 15, 15, 15, 15, 63, 63, 63, 63, 15, 15, 15, 15);
    const __m512i highMask = _mm512_setr_epi32(0, 0, 0, 0, 48, 48, 48, 48, 0, 0, 0, 0, 48, 48, 48, 48);
    const __m512i scaleLow = _mm512_permutex2var_epi32(
        bytesA, _mm512_setr_epi32(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27), bytesB);
    const __m512i scaleHigh = _mm512_permutex2var_epi32(
        bytesA, _mm512_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 16, 17, 18, 19), bytesB);
    const __m512i minLow = _mm512_permutex2var_epi32(
        bytesA, _mm512_setr_epi32(4, 5, 6, 7, 8, 9, 10, 11, 20, 21, 22, 23, 24, 25, 26, 27), bytesB);
    const __m512i minHigh = _mm512_permutex2var_epi32(
        bytesA, _mm512_setr_epi32(0, 0, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0, 20, 21, 22, 23), bytesB);
    const __m512i scaleMin = _mm512_or_si512(_mm512_and_si512(scaleLow, lowMask),
                                             _mm512_and_si512(_mm512_srli_epi32(scaleHigh, 2), highMask));
    const __m512i minOnly = _mm512_or_si512(
        _mm512_and_si512(_mm512_srlv_epi32(minLow, _mm512_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4, 0, 0, 0, 0, 4, 4, 4, 4)),
                         lowMask),
        _mm512_and_si512(_mm512_srli_epi32(minHigh, 2), highMask));
    // lanes 0-7: block a's sub-blocks; 8-15: block b's (scales = {d_a, dmin_a, d_b, dmin_b})
    const __m512 d = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(scales[0]), _mm512_set1_ps(scales[2]));
    const __m512 dmin = _mm512_mask_blend_ps(0xff00, _mm512_set1_ps(scales[1]), _mm512_set1_ps(scales[3]));
    const __m512 d1 = _mm512_mul_ps(d, _mm512_cvtepi32_ps(scaleMin));
    const __m512 m1 = _mm512_mul_ps(dmin, _mm512_cvtepi32_ps(minOnly));
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
    __m512i sums[8], squares[8], nibbles[8]; // (the codes, of 5 bits for Q5_K)
    for (int k = 0; k < 4; ++k) {
        const uint8_t *block = k < 2 ? a : b;
        const uint8_t *qs = block + Layout::kCodes + 32 * (k % 2);
        const __m512i x =
            _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(qs))),
                               _mm256_loadu_si256(reinterpret_cast<const __m256i *>(qs + 64)), 1);
        __m512i low = _mm512_and_si512(x, lowNibble);
        __m512i high = _mm512_and_si512(_mm512_srli_epi16(x, 4), lowNibble);
        if constexpr (Layout::kMaxCode > 15) {
            // the fifth bits: bit j of qh[l] for sub-block j, in both halves (sub-blocks j and j + 4),
            // moved to bit 4 (the masks keep bits that stayed in their byte)
            const __m512i qh =
                _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(block + Layout::kHigh)));
            const long long j = 2 * (k % 2);
            const __m512i lowShift = _mm512_setr_epi64(j, j, j, j, j + 4, j + 4, j + 4, j + 4);
            const __m512i fifth = _mm512_and_si512(_mm512_srlv_epi64(qh, lowShift), ones8);
            const __m512i fifthHigh =
                _mm512_and_si512(_mm512_srlv_epi64(qh, _mm512_add_epi64(lowShift, _mm512_set1_epi64(1))), ones8);
            low = _mm512_or_si512(low, _mm512_slli_epi16(fifth, 4));
            high = _mm512_or_si512(high, _mm512_slli_epi16(fifthHigh, 4));
        }
        nibbles[2 * k] = low;
        nibbles[2 * k + 1] = high;
        sums[2 * k] = _mm512_dpbusd_epi32(zero, low, ones8);
        sums[2 * k + 1] = _mm512_dpbusd_epi32(zero, high, ones8);
        squares[2 * k] = _mm512_dpbusd_epi32(zero, low, low);
        squares[2 * k + 1] = _mm512_dpbusd_epi32(zero, high, high);
    }
    const __m512i s = blockTotals16(sums), q = blockTotals16(squares);
    const __m512i spread = _mm512_sub_epi32(_mm512_slli_epi32(q, 5), _mm512_mullo_epi32(s, s));
    addGroups16(g, d1, m1, s, spread);
    // laneMath's bounds and zero codes
    const __m512 v0 = _mm512_sub_ps(_mm512_mul_ps(_mm512_setzero_ps(), d1), m1);
    const __m512 v1 = _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(Layout::kMaxCode), d1), m1);
    const __m512 lo = _mm512_min_ps(v1, v0), hi = _mm512_max_ps(v1, v0);
    const __m512i code = zeroCodes16(d1, m1, Layout::kMaxCode);
    // the zero values: sub-blocks whose zero code is kEveryCode are all zeros; others count their
    // codes equal to it (a code of -1 is byte 0xff, never a code; nor is kEveryCode)
    if (_mm512_cmpgt_epi32_mask(code, _mm512_set1_epi32(-1)) != 0) {
        const __m512i zeroCodes = _mm512_broadcast_i32x4(_mm512_cvtepi32_epi8(code)); // sub-block j in byte j
        uint64_t zeros = kGroup * static_cast<uint64_t>(std::popcount(static_cast<unsigned>(
                                      _mm512_cmpeq_epi32_mask(code, _mm512_set1_epi32(kEveryCode)))));
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
        // the codes' extremes of the flagged sub-blocks, in sub-block order (as scanBlockQ4K)
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

// d and dmin of two consecutive blocks of `bytes` as floats; false when one is not finite.
[[gnu::always_inline]] GGUF_AVX512 inline bool pairScales(const uint8_t *b, size_t bytes, float *scales)
{
    uint32_t a, c;
    std::memcpy(&a, b, 4);
    std::memcpy(&c, b + bytes, 4);
    const __m128i halves = _mm_set_epi32(0, 0, static_cast<int>(c), static_cast<int>(a));
    _mm_storeu_ps(scales, _mm_cvtph_ps(halves));
    return _mm_cmpeq_epi16_mask(_mm_and_si128(halves, _mm_set1_epi16(0x7c00)), _mm_set1_epi16(0x7c00)) == 0;
}

// The values of the sampled elements (indices into `blocks`), 16 at a time with gathers from the
// blocks' d1m1; the code byte (and Q5_K's qh byte, which comes before it) is gathered as 32 bits, so
// `readable` (bytes readable from `blocks`) must leave room for the 3 bytes after it, else the rest
// are done one by one.
template <typename Layout>
GGUF_AVX512_KERNEL void sampleAvx512(const uint8_t *blocks, size_t readable, const float *d1m1,
                                     std::span<const uint32_t> sampled, float *values)
{
    size_t i = 0;
    for (; i + 16 <= sampled.size(); i += 16) {
        const __m512i e = _mm512_loadu_si512(sampled.data() + i);
        const __m512i block = _mm512_srli_epi32(e, 8), at = _mm512_and_si512(e, _mm512_set1_epi32(255));
        const __m512i chunk = _mm512_srli_epi32(at, 6),
                      half = _mm512_and_si512(_mm512_srli_epi32(at, 5), _mm512_set1_epi32(1));
        const __m512i blockAt = _mm512_mullo_epi32(block, _mm512_set1_epi32(static_cast<int>(Layout::kBytes)));
        const __m512i l = _mm512_and_si512(at, _mm512_set1_epi32(31));
        const __m512i byteAt =
            _mm512_add_epi32(_mm512_add_epi32(blockAt, _mm512_set1_epi32(static_cast<int>(Layout::kCodes))),
                             _mm512_add_epi32(_mm512_slli_epi32(chunk, 5), l));
        if (static_cast<size_t>(_mm512_reduce_max_epu32(byteAt)) + 4 > readable)
            break;
        const __m512i bytes = _mm512_i32gather_epi32(byteAt, blocks, 1);
        const __m512i subBlock = _mm512_add_epi32(_mm512_slli_epi32(chunk, 1), half);
        __m512i codes = _mm512_and_si512(_mm512_srlv_epi32(bytes, _mm512_slli_epi32(half, 2)), _mm512_set1_epi32(15));
        if constexpr (Layout::kMaxCode > 15) {
            const __m512i highAt =
                _mm512_add_epi32(_mm512_add_epi32(blockAt, _mm512_set1_epi32(static_cast<int>(Layout::kHigh))), l);
            const __m512i high = _mm512_i32gather_epi32(highAt, blocks, 1);
            codes = _mm512_or_si512(
                codes, _mm512_slli_epi32(_mm512_and_si512(_mm512_srlv_epi32(high, subBlock), _mm512_set1_epi32(1)), 4));
        }
        const __m512i scaleAt = _mm512_add_epi32(_mm512_slli_epi32(block, 4), subBlock);
        const __m512 d1 = _mm512_i32gather_ps(scaleAt, d1m1, 4);
        const __m512 m1 = _mm512_i32gather_ps(_mm512_add_epi32(scaleAt, _mm512_set1_epi32(8)), d1m1, 4);
        _mm512_storeu_ps(values + i, _mm512_sub_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(codes), d1), m1));
    }
    for (; i < sampled.size(); ++i)
        values[i] = sampleValue<Layout>(blocks, d1m1, sampled[i]);
}

// The pairs of blocks [0, nBlocks) into g, each by scanPairAvx512 when both blocks' values are
// exact, else by scanBlockQ4K; d1m1 as scanBlockQ4K's. `done`: the blocks taken (an odd last one is
// left). False at a block whose d or dmin is not finite.
template <typename Layout>
GGUF_AVX512_VNNI_KERNEL bool scanPairsAvx512(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                             float *d1m1, LaneMoments &g, size_t &done)
{
    size_t i = 0;
    for (; i + 2 <= nBlocks; i += 2) {
        const uint8_t *b = blocks + i * Layout::kBytes;
        prefetchAhead(b, 2 * Layout::kBytes, tensor);
        float scales[4];
        if (pairScales(b, Layout::kBytes, scales) && blockExactQ4K<Layout>(scales[0], scales[1]) &&
            blockExactQ4K<Layout>(scales[2], scales[3])) {
            scanPairAvx512<Layout>(b, scales, d1m1 + 16 * i, g);
        } else if (!scanBlockQ4K<Layout>(b, d1m1 + 16 * i, g) ||
                   !scanBlockQ4K<Layout>(b + Layout::kBytes, d1m1 + 16 * (i + 1), g)) {
            return false;
        }
    }
    done = i;
    return true;
}
#endif

template <typename Layout>
bool scanBlocksQ4(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                  std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    // d1 and m1 of every block, for the sampled values
    thread_local std::vector<float> d1m1;
    d1m1.resize(16 * nBlocks);
    size_t i = 0;
#if GGUF_X86_KERNELS
    if (cpuHasAvx512Vnni()) {
        if (!scanPairsAvx512<Layout>(blocks, nBlocks, tensor, d1m1.data(), g, i))
            return false;
        const size_t taken = static_cast<size_t>(
            std::lower_bound(sampled.begin(), sampled.end(), static_cast<uint32_t>(i * 256)) - sampled.begin());
        sampleAvx512<Layout>(blocks, static_cast<size_t>(tensor.data() + tensor.size() - blocks), d1m1.data(),
                             sampled.first(taken), values);
        sampled = sampled.subspan(taken);
        values += taken;
    }
#endif
    for (; i < nBlocks; ++i) {
        const uint8_t *b = blocks + i * Layout::kBytes;
        prefetchAhead(b, Layout::kBytes, tensor);
        if (!scanBlockQ4K<Layout>(b, d1m1.data() + 16 * i, g))
            return false;
        takeSamples(sampled, values, static_cast<uint32_t>((i + 1) * 256),
                    [&](uint32_t e) { return sampleValue<Layout>(blocks, d1m1.data(), e); });
    }
    return true;
}

} // namespace

bool scanQ4_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    return scanBlocksQ4<Q4_KLayout>(blocks, nBlocks, tensor, sampled, values, g);
}

bool scanQ5_K(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    return scanBlocksQ4<Q5_KLayout>(blocks, nBlocks, tensor, sampled, values, g);
}

} // namespace gguf::detail
