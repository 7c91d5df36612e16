// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/stats: the key sample of a piece of F32, F16 or BF16 values read where they lie
// (computeStatistics' in-place path): the keys of forEachSample's elements, gathered batch by batch
// while the piece is scanned, then counted.
#include "core/stats/tensor_stats.h"
#include "key_counts.h"
#include "stats_scan.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace gguf::detail::scan {

using keys::forEachSample;
using keys::kKeyCopies;
using keys::sampleBits;

// The 16-bit key (upper bits of the float32 pattern) of value i of a piece in place.
template <Source S> uint32_t keyAt(const uint8_t *v, size_t i)
{
    if constexpr (S == Source::Floats) {
        return bitsOf(valueAt<S>(v, i)) >> 16;
    } else {
        const uint32_t h = detail::loadU16(v + 2 * i);
        if constexpr (S == Source::BrainHalves)
            return h; // a bfloat16 is the upper half of its float
        // a normal half's float has the same sign and mantissa, its exponent rebased by 127 − 15
        const uint32_t magnitude = h & 0x7fffu;
        if (magnitude >= 0x400u && magnitude < 0x7c00u) [[likely]]
            return (h & 0x8000u) | ((magnitude + (112u << 10)) >> 3);
        return bitsOf(fp16ToFp32(static_cast<uint16_t>(h))) >> 16;
    }
}

// Keys of the sampled elements of `runs` runs of 8 groups of a piece read in place, the first run
// starting at element `at` with random word sampleBits(run): 8 keys per run into `out`.
template <Source S>
void collectRunKeys(const uint8_t *v, size_t at, uint64_t run, size_t runs, uint32_t stride, uint16_t *out)
{
    const uint32_t mask = stride - 1;
    for (size_t r = 0; r < runs; ++r, ++run) {
        uint64_t random = sampleBits(run);
        for (size_t k = 0; k < 8; ++k, random >>= 8, at += stride)
            *out++ = static_cast<uint16_t>(keyAt<S>(v, at + (static_cast<uint32_t>(random) & mask)));
    }
}

#if GGUF_X86_KERNELS
// The same with gathers, 16 groups at a time; a half is gathered as 32 bits, so the caller keeps
// one element after the last run readable.
template <Source S>
GGUF_AVX512_KERNEL void collectRunKeysAvx512(const uint8_t *v, size_t at, uint64_t run, size_t runs, uint32_t stride,
                                             uint16_t *out)
{
    const __m512i mask = _mm512_set1_epi32(static_cast<int>(stride - 1));
    const __m512i starts = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                              _mm512_set1_epi32(static_cast<int>(stride)));
    size_t r = 0;
    for (; r + 2 <= runs; r += 2, run += 2, at += 16 * size_t{stride}, out += 16) {
        const __m128i random =
            _mm_set_epi64x(static_cast<long long>(sampleBits(run + 1)), static_cast<long long>(sampleBits(run)));
        const __m512i index =
            _mm512_add_epi32(_mm512_add_epi32(_mm512_and_si512(_mm512_cvtepu8_epi32(random), mask), starts),
                             _mm512_set1_epi32(static_cast<int>(at)));
        __m512i key;
        if constexpr (S == Source::Floats) {
            key = _mm512_srli_epi32(_mm512_i32gather_epi32(index, v, 4), 16);
        } else {
            const __m512i halves = _mm512_i32gather_epi32(index, v, 2); // the element and the next
            if constexpr (S == Source::BrainHalves)
                key = halves;
            else
                key = _mm512_srli_epi32(_mm512_castps_si512(_mm512_cvtph_ps(_mm512_cvtepi32_epi16(halves))), 16);
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out), _mm512_cvtepi32_epi16(key)); // low 16 bits of each
    }
    if (r < runs)
        collectRunKeys<S>(v, at, run, runs - r, stride, out);
}

template <Source S>
GGUF_AVX2_F16C_KERNEL void collectRunKeysAvx2(const uint8_t *v, size_t at, uint64_t run, size_t runs, uint32_t stride,
                                              uint16_t *out)
{
    const __m256i mask = _mm256_set1_epi32(static_cast<int>(stride - 1)), low16 = _mm256_set1_epi32(0xffff);
    const __m256i starts =
        _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(static_cast<int>(stride)));
    for (size_t r = 0; r < runs; ++r, ++run, at += 8 * size_t{stride}, out += 8) {
        const __m128i random = _mm_cvtsi64_si128(static_cast<long long>(sampleBits(run)));
        const __m256i index =
            _mm256_add_epi32(_mm256_add_epi32(_mm256_and_si256(_mm256_cvtepu8_epi32(random), mask), starts),
                             _mm256_set1_epi32(static_cast<int>(at)));
        __m256i key;
        if constexpr (S == Source::Floats) {
            key = _mm256_srli_epi32(_mm256_i32gather_epi32(reinterpret_cast<const int *>(v), index, 4), 16);
        } else {
            key = _mm256_and_si256(_mm256_i32gather_epi32(reinterpret_cast<const int *>(v), index, 2), low16);
            if constexpr (S == Source::Halves) {
                const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(key), _mm256_extracti128_si256(key, 1));
                key = _mm256_srli_epi32(_mm256_castps_si256(_mm256_cvtph_ps(packed)), 16);
            }
        }
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out),
                         _mm_packus_epi32(_mm256_castsi256_si128(key), _mm256_extracti128_si256(key, 1)));
    }
}
#endif

// The sample of forEachSample in a piece read in place, in two steps: while the piece is scanned,
// collectKeys takes the keys of the groups that lie wholly inside each batch, 8 groups (which share
// one random word) at a time; once the piece is known to be finite, count() adds them, and those
// of the piece's last groups, to the counters.
template <Source S> class SampledKeys {
public:
    /// `readable`: elements that can be read from v (the rest of the tensor's data)
    SampledKeys(const uint8_t *v, uint64_t first, size_t n, size_t readable, uint32_t stride,
                std::vector<uint16_t> &keys)
        : m_v(v), m_first(first), m_n(n), m_readable(readable), m_stride(stride), m_keys(keys)
    {
        m_keys.resize(n / stride + 16);
        // batches start at multiples of kBatch, and pieces at multiples of kPiece
        static_assert(kBatch % (8 * kMaxKeySampleStride) == 0 && kPiece % kBatch == 0);
    }

    void collectKeys(size_t at, size_t count)
    {
        // (a short batch was seen, or the piece starts inside a run of 8 groups, which a chosen
        // chunk size can make: the rest, or all, goes to count())
        if (at != m_done || (m_first / m_stride) % 8 != 0)
            return;
        const size_t runLength = 8 * size_t{m_stride};
        size_t runs = count / runLength;
        const uint64_t run = (m_first / m_stride + at / m_stride) / 8;
        uint16_t *out = m_keys.data() + m_done / m_stride;
#if GGUF_X86_KERNELS
        // a gathered half reads the next element too
        const bool roomAfter = at + runs * runLength + (S == Source::Floats ? 0 : 1) <= m_readable;
        if (roomAfter && detail::cpuHasAvx512())
            collectRunKeysAvx512<S>(m_v, at, run, runs, m_stride, out);
        else if (roomAfter && detail::cpuHasAvx2() && detail::cpuHasF16c())
            collectRunKeysAvx2<S>(m_v, at, run, runs, m_stride, out);
        else
            collectRunKeys<S>(m_v, at, run, runs, m_stride, out);
#else
        collectRunKeys<S>(m_v, at, run, runs, m_stride, out);
#endif
        m_done += runs * runLength;
    }

    uint64_t count(uint32_t *keyCopies) const
    {
        const size_t collected = m_done / m_stride;
        size_t g = 0;
        for (; g + 4 <= collected; g += 4) { // four keys per load, one per copy
            uint64_t four;
            std::memcpy(&four, m_keys.data() + g, sizeof four);
            if constexpr (std::endian::native != std::endian::little)
                four =
                    (four >> 48) | ((four >> 16) & 0xffff0000ull) | ((four << 16) & 0xffff00000000ull) | (four << 48);
            ++keyCopies[(four & 0xffff) * kKeyCopies];
            ++keyCopies[((four >> 16) & 0xffff) * kKeyCopies + 1];
            ++keyCopies[((four >> 32) & 0xffff) * kKeyCopies + 2];
            ++keyCopies[(four >> 48) * kKeyCopies + 3];
        }
        for (; g < collected; ++g)
            ++keyCopies[size_t{m_keys[g]} * kKeyCopies + g % kKeyCopies];
        uint64_t counted = collected;
        forEachSample(
            m_first, m_n, m_stride,
            [&](size_t i, size_t sample) {
                ++keyCopies[keyAt<S>(m_v, i) * kKeyCopies + sample % kKeyCopies];
                ++counted;
            },
            m_done);
        return counted;
    }

private:
    const uint8_t *m_v;
    uint64_t m_first;
    size_t m_n, m_readable;
    uint32_t m_stride;
    std::vector<uint16_t> &m_keys;
    size_t m_done = 0; // elements whose groups' keys were collected
};

} // namespace gguf::detail::scan
