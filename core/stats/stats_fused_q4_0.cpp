// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics of Q4_0 and Q5_0 blocks from their codes: a value is (q − o)·d = q·d − o·d with o = 8
// or 16 (docs/FORMAT.md §4.2), both terms exact in float (d an f16, q a 4- or 5-bit code), so a
// block's sums follow from Σq and Σq² of its 32 codes, its zeros from the codes equal to o (or a zero
// scale), its extremes from its lowest and highest code (fused_lanes.h).
#include "fused_lanes.h"

namespace gguf::detail {
namespace {

// The 32 codes of a block, element order (split halves, docs/FORMAT.md §4.1).
struct Q4_0Codes {
    static constexpr size_t kBytes = kQ4_0Bytes;
    static constexpr int32_t kOffset = 8, kMaxCode = 15;
    static int32_t code(const uint8_t *block, size_t l)
    {
        const uint8_t byte = block[kQ4_0Codes + l % 16];
        return l < 16 ? byte & 15 : byte >> 4;
    }
};

// Q5_0: the same nibbles after the 32-bit word qh, whose bit l is the fifth bit of element l.
struct Q5_0Codes {
    static constexpr size_t kBytes = sizeof(BlockQ5_0);
    static constexpr int32_t kOffset = 16, kMaxCode = 31;
    static int32_t code(const uint8_t *block, size_t l)
    {
        const uint8_t byte = block[offsetof(BlockQ5_0, qs) + l % 16];
        const uint8_t high = block[offsetof(BlockQ5_0, qh) + l / 8] >> (l % 8) & 1;
        return (l < 16 ? byte & 15 : byte >> 4) | high << 4;
    }
};

// Σq, Σq² and the number of codes equal to the offset (value zero) of 8 consecutive blocks.
template <typename Codes> void codeSums8(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeroCodes)
{
    for (size_t j = 0; j < 8; ++j) {
        const uint8_t *block = blocks + j * Codes::kBytes;
        int32_t s = 0, sq = 0, z = 0;
        for (size_t l = 0; l < kGroup; ++l) {
            const int32_t q = Codes::code(block, l);
            s += q;
            sq += q * q;
            z += q == Codes::kOffset;
        }
        sum[j] = s;
        sumSq[j] = sq;
        zeroCodes[j] = z;
    }
}

#if GGUF_X86_KERNELS
// The 32 codes of a block as bytes, element order.
GGUF_AVX2 inline __m256i codesAvx2(const uint8_t *block, Q4_0Codes)
{
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(block + kQ4_0Codes));
    const __m128i lowNibble = _mm_set1_epi8(0x0f);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(x, 4), lowNibble), _mm_and_si128(x, lowNibble));
}

GGUF_AVX2 inline __m256i codesAvx2(const uint8_t *block, Q5_0Codes)
{
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i *>(block + offsetof(BlockQ5_0, qs)));
    const __m128i lowNibble = _mm_set1_epi8(0x0f);
    const __m256i nibbles =
        _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(x, 4), lowNibble), _mm_and_si128(x, lowNibble));
    // byte l takes byte l / 8 of qh and keeps bit l % 8, then becomes 0x10 where it was set
    int32_t qh = 0;
    std::memcpy(&qh, block + offsetof(BlockQ5_0, qh), 4);
    const __m256i spread =
        _mm256_shuffle_epi8(_mm256_set1_epi32(qh), _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2,
                                                                    2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    const __m256i high =
        _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit), _mm256_set1_epi8(0x10));
    return _mm256_or_si256(nibbles, high);
}

template <typename Codes>
GGUF_AVX2_KERNEL void codeSums8Avx2(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeroCodes)
{
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    const __m256i offset = _mm256_set1_epi8(static_cast<char>(Codes::kOffset));
    __m256i s[8], sq[8];
    for (size_t j = 0; j < 8; ++j) {
        const __m256i codes = codesAvx2(blocks + j * Codes::kBytes, Codes{});
        // codes ≤ 31: the byte products and their pair sums fit the 16-bit lanes
        s[j] = _mm256_madd_epi16(_mm256_maddubs_epi16(codes, ones8), ones16);
        sq[j] = _mm256_madd_epi16(_mm256_maddubs_epi16(codes, codes), ones16);
        zeroCodes[j] = std::popcount(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(codes, offset))));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sum), reduce8(s));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(sumSq), reduce8(sq));
}
#endif

// The lowest and highest code of a block.
template <typename Codes> void codeRange(const uint8_t *block, int32_t &qlo, int32_t &qhi)
{
    qlo = Codes::kMaxCode;
    qhi = 0;
    for (size_t l = 0; l < kGroup; ++l) {
        qlo = std::min(qlo, Codes::code(block, l));
        qhi = std::max(qhi, Codes::code(block, l));
    }
}

#if GGUF_X86_KERNELS
// scanSymmetric's work for runs of 16 blocks (nBlocks a multiple of 16): the code sums with VNNI
// dot products, the scales gathered, and the per-group arithmetic of laneMath and addGroups on
// vectors with the same operations in the same order, so the results are those of the 8-block loop
// (as scanQ8_0Avx512 does for Q8_0); each run's samples by valueAt while its blocks are in cache.
// False when a scale is not finite.
template <typename Codes, typename ValueAt>
GGUF_AVX512_VNNI_KERNEL bool scanSymmetricAvx512(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                                                 std::span<const uint32_t> &sampled, float *&values, ValueAt valueAt,
                                                 LaneMoments &g)
{
    const __m512i ones8 = _mm512_set1_epi8(1), zero = _mm512_setzero_si512();
    const __m512i offsetCode = _mm512_set1_epi8(static_cast<char>(Codes::kOffset));
    const __m512i scaleOffsets =
        _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                           _mm512_set1_epi32(static_cast<int>(Codes::kBytes)));
    const __m512 offsetScale = _mm512_set1_ps(static_cast<float>(Codes::kOffset));
    const __m512 highCode = _mm512_set1_ps(static_cast<float>(Codes::kMaxCode));
    for (size_t first = 0; first < nBlocks; first += 16) {
        const uint8_t *base = blocks + first * Codes::kBytes;
        prefetchAhead(base, 16 * Codes::kBytes, tensor);
        // the scales: each gathered as 32 bits from the block's start
        const __m256i halves = _mm512_cvtepi32_epi16(_mm512_i32gather_epi32(scaleOffsets, base, 1));
        if (_mm256_cmpeq_epi16_mask(_mm256_and_si256(halves, _mm256_set1_epi16(0x7c00)), _mm256_set1_epi16(0x7c00)))
            return false;
        const __m512 d = _mm512_cvtph_ps(halves);
        // vector i holds blocks i and i + 4 (i < 4) or i + 4 and i + 8 (i ≥ 4): blockTotals16's order
        __m512i sums[8], squares[8];
        __mmask64 zeroCodes[8];
        for (int i = 0; i < 8; ++i) {
            const int lo = i < 4 ? i : i + 4, hi = lo + 4;
            const __m512i x = _mm512_inserti64x4(_mm512_castsi256_si512(codesAvx2(base + lo * Codes::kBytes, Codes{})),
                                                 codesAvx2(base + hi * Codes::kBytes, Codes{}), 1);
            sums[i] = _mm512_dpbusd_epi32(zero, x, ones8);
            squares[i] = _mm512_dpbusd_epi32(zero, x, x); // codes ≤ 31 are signed bytes too
            zeroCodes[i] = _mm512_cmpeq_epi8_mask(x, offsetCode);
        }
        // zeros: the codes equal to the offset, or all 32 values of a block with a zero scale
        const __mmask16 zeroScales = _mm512_cmp_ps_mask(d, _mm512_setzero_ps(), _CMP_EQ_OQ);
        uint64_t zeros = 0;
        for (int j = 0; j < 16; ++j) {
            const int i = j < 8 ? (j < 4 ? j : j - 4) : (j < 12 ? j - 4 : j - 8);
            const bool upper = (j % 8) >= 4;
            zeros +=
                (zeroScales >> j) & 1
                    ? kGroup
                    : static_cast<uint64_t>(std::popcount(upper ? zeroCodes[i] >> 32 : zeroCodes[i] & 0xffffffffu));
        }
        g.zeros += zeros;
        const __m512i s = blockTotals16(sums), q = blockTotals16(squares);
        const __m512i spread = _mm512_sub_epi32(_mm512_slli_epi32(q, 5), _mm512_mullo_epi32(s, s));
        const __m512 b = _mm512_mul_ps(offsetScale, d); // exact, as in the 8-block loop
        addGroups16(g, d, b, s, spread);
        // the blocks that could hold a new min or max (as laneMath: codeLow·a − b, codeHigh·a − b)
        const __m512 v0 = _mm512_sub_ps(_mm512_mul_ps(_mm512_setzero_ps(), d), b);
        const __m512 v1 = _mm512_sub_ps(_mm512_mul_ps(highCode, d), b);
        coverOutside16(g, _mm512_min_ps(v1, v0), _mm512_max_ps(v1, v0), d, [base](int j, float dj) {
            int32_t qlo = 0, qhi = 0;
            codeRange<Codes>(base + j * Codes::kBytes, qlo, qhi);
            return std::pair(static_cast<float>(qlo - Codes::kOffset) * dj,
                             static_cast<float>(qhi - Codes::kOffset) * dj);
        });
        takeSamples(sampled, values, static_cast<uint32_t>((first + 16) * kGroup), valueAt);
    }
    return true;
}
#endif

template <typename Codes> void sums8(const uint8_t *blocks, int32_t *sum, int32_t *sumSq, int32_t *zeroCodes)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        codeSums8Avx2<Codes>(blocks, sum, sumSq, zeroCodes);
        return;
    }
#endif
    codeSums8<Codes>(blocks, sum, sumSq, zeroCodes);
}

template <typename Codes>
bool scanSymmetric(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
                   std::span<const uint32_t> sampled, float *values, LaneMoments &g)
{
    int32_t sum[8], sumSq[8], zeroCodes[8];
    std::array<float, 8> d{}, offset{};
    size_t first = 0;
    // the value of element e of `blocks`, as the decoder gives it: (q − o) · d
    const auto valueAt = [blocks](uint32_t e) {
        const uint8_t *block = blocks + e / kGroup * Codes::kBytes;
        return static_cast<float>(Codes::code(block, e % kGroup) - Codes::kOffset) * fp16ToFp32(loadU16(block));
    };
#if GGUF_X86_KERNELS
    if (cpuHasAvx512Vnni() && nBlocks >= 16) {
        first = nBlocks / 16 * 16;
        if (!scanSymmetricAvx512<Codes>(blocks, first, tensor, sampled, values, valueAt, g))
            return false;
    }
#endif
    for (; first < nBlocks; first += 8) {
        const size_t count = std::min<size_t>(8, nBlocks - first);
        const uint8_t *base = blocks + first * Codes::kBytes;
        prefetchAhead(base, count * Codes::kBytes, tensor);
        if (count == 8) {
            sums8<Codes>(base, sum, sumSq, zeroCodes);
        } else {
            // the last few blocks, through a copy padded with zero blocks
            std::array<uint8_t, 8 * Codes::kBytes> padded{};
            std::memcpy(padded.data(), base, count * Codes::kBytes);
            sums8<Codes>(padded.data(), sum, sumSq, zeroCodes);
        }
        if (!leadingScales8(base, count, Codes::kBytes, zeroCodes, d, g.zeros)) // d opens the block
            return false;
        for (size_t j = 0; j < count; ++j)
            offset[j] = static_cast<float>(Codes::kOffset) * d[j]; // exact: a power of two times d
        Lanes8 l8;
        lanes(d.data(), offset.data(), sum, sumSq, 0.0f, static_cast<float>(Codes::kMaxCode), g.min, g.max, l8);
        // the codes' extremes, only of the blocks that could hold a new min or max
        for (unsigned outside = l8.outside & ((1u << count) - 1); outside != 0; outside &= outside - 1) {
            const size_t j = static_cast<size_t>(std::countr_zero(outside));
            if (l8.lo[j] < g.min || l8.hi[j] > g.max) {
                int32_t qlo = 0, qhi = 0;
                codeRange<Codes>(base + j * Codes::kBytes, qlo, qhi);
                // as the decoder: (q − o) · d
                const float x = static_cast<float>(qlo - Codes::kOffset) * d[j];
                const float y = static_cast<float>(qhi - Codes::kOffset) * d[j];
                g.cover(std::min(x, y), std::max(x, y));
            }
        }
        g.addGroups(l8.mean.data(), l8.m2.data(), count);
        takeSamples(sampled, values, static_cast<uint32_t>((first + count) * kGroup), valueAt);
    }
    return true;
}

} // namespace

bool scanQ4_0(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    return scanSymmetric<Q4_0Codes>(blocks, nBlocks, tensor, sampled, values, g);
}

bool scanQ5_0(const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor, std::span<const uint32_t> sampled,
              float *values, LaneMoments &g)
{
    return scanSymmetric<Q5_0Codes>(blocks, nBlocks, tensor, sampled, values, g);
}

} // namespace gguf::detail
