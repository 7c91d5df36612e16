// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/stats: the 16-bit keys (the upper bits of a float32 pattern) that the
// statistics count for percentiles and the automatic histogram — which elements are sampled,
// the tables that count them, and the estimates made from the counts (key_counts.cpp).

#include "core/stats/tensor_stats.h"
#include "core/util/float_convert.h"
#include "stats_scan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace gguf::keys {

using detail::scan::bitsOf;

constexpr size_t kKeyCount = 65536;
// Each key has this many interleaved counters, element i counting in copy i % kKeyCopies: runs of
// equal keys (zeros, constant rows) then increment different words instead of waiting on
// store-to-load forwarding of one counter.
constexpr size_t kKeyCopies = 4;

// The keys that can have a count: per sign, a run [low, high] of magnitude keys (key & 0x7fff),
// known from the values' min and max. Only these are read, added and zeroed, so the tables are
// calloc'd and a small tensor touches a few of their pages, not 1.5 MiB per call.
struct KeySpan {
    std::array<uint32_t, 2> low{0x8000, 0x8000}; // [0] positive, [1] negative; empty while low > high
    std::array<uint32_t, 2> high{0, 0};

    static uint32_t magnitudeKey(float x) { return (bitsOf(x) & 0x7fffffffu) >> 16; }

    void cover(size_t sign, uint32_t from, uint32_t to)
    {
        low[sign] = std::min(low[sign], from);
        high[sign] = std::max(high[sign], to);
    }
    // Finite values in [min, max]; zeros of either sign included when the range reaches 0.
    void coverValues(float min, float max)
    {
        if (max >= 0.0f)
            cover(0, min > 0.0f ? magnitudeKey(min) : 0, magnitudeKey(max));
        if (min <= 0.0f)
            cover(1, max < 0.0f ? magnitudeKey(max) : 0, magnitudeKey(min));
    }
    void cover(const KeySpan &o)
    {
        for (size_t sign = 0; sign < 2; ++sign)
            if (o.low[sign] <= o.high[sign])
                cover(sign, o.low[sign], o.high[sign]);
    }
    // Calls f(key) for every key of the span in ascending order of value: negatives by descending
    // magnitude, then positives.
    template <typename F> void forEachKey(F f) const
    {
        if (low[1] <= high[1])
            for (uint32_t m = high[1] + 1; m-- > low[1];)
                f(0x8000u | m);
        for (uint32_t m = low[0]; m <= high[0]; ++m)
            f(m);
    }
};

// Zero-initialized tables from calloc: untouched pages are never faulted in.
struct FreeDeleter {
    void operator()(void *p) const { std::free(p); }
};
template <typename T> inline std::unique_ptr<T[], FreeDeleter> zeroedArray(size_t n)
{
    void *p = std::calloc(n, sizeof(T));
    if (!p)
        throw std::bad_alloc();
    return std::unique_ptr<T[], FreeDeleter>(static_cast<T *>(p));
}

// The key counts of the whole tensor, over the keys of `span` (others are zero).
struct KeyCounts {
    KeySpan span;
    std::unique_ptr<uint64_t[], FreeDeleter> counts = zeroedArray<uint64_t>(kKeyCount);
    uint64_t total = 0; // the values counted: all finite ones, or the sample
};

// Random bits for the sampled element of key groups 8·block … 8·block + 7 (8 bits each): a fixed
// hash of the block index, so the result does not depend on the chunking or the threads.
inline uint64_t sampleBits(uint64_t block)
{
    uint64_t z = (block + 1) * 0x9e3779b97f4a7c15ull;
    z ^= z >> 31;
    z *= 0xbf58476d1ce4e5b9ull;
    return z ^ (z >> 29);
}

// Calls f(i, g) for the element i (index into the piece) sampled from each run g of `stride`
// elements of a piece starting at element `first` of the tensor: one chosen at random per run;
// runs before element `from` (a multiple of stride) are skipped.
template <typename F> inline void forEachSample(uint64_t first, size_t n, uint32_t stride, F f, size_t from = 0)
{
    // `first` is a multiple of the piece size, itself a multiple of every stride
    static_assert(kMaxKeySampleStride <= 256, "8 random bits per group");
    const uint64_t group0 = first / stride;
    size_t g = from / stride;
    uint64_t random = sampleBits((group0 + g) / 8);
    for (size_t at = from; at < n; at += stride, ++g) {
        const uint64_t group = group0 + g;
        if (group % 8 == 0)
            random = sampleBits(group / 8);
        const size_t length = std::min<size_t>(stride, n - at);
        uint32_t offset = static_cast<uint32_t>(random >> (8 * (group % 8))) & (stride - 1);
        if (offset >= length)
            offset %= static_cast<uint32_t>(length);
        f(at + offset, g);
    }
}

// The elements forEachSample chooses in a piece, in ascending order; whole runs of 8 groups,
// which share one random word, take a short loop.
inline void samplePositions(uint64_t first, size_t n, uint32_t stride, std::vector<uint32_t> &out)
{
    out.resize(n / stride + 1);
    size_t count = 0, done = 0;
    const uint64_t group0 = first / stride;
    if (group0 % 8 == 0) {
        const uint32_t mask = stride - 1;
        const size_t runs = n / (8 * size_t{stride});
        for (size_t r = 0; r < runs; ++r) {
            uint64_t random = sampleBits(group0 / 8 + r);
            for (size_t k = 0; k < 8; ++k, random >>= 8, done += stride)
                out[count++] = static_cast<uint32_t>(done + (static_cast<uint32_t>(random) & mask));
        }
    }
    forEachSample(
        first, n, stride, [&](size_t i, size_t) { out[count++] = static_cast<uint32_t>(i); }, done);
    out.resize(count);
}

/// The float range [first, last] of values whose upper 16 bits are `key`.
std::pair<double, double> keyRange(uint32_t key);
/// Percentiles interpolated inside their keys' ranges (docs/FORMAT.md §9 for what is promised).
void estimatePercentiles(const KeyCounts &keys, double mn, double mx, TensorStatistics &out);
/// The automatic-range histogram over [mn, mx] from the key counts.
void binKeys(const KeyCounts &keys, uint64_t finite, double mn, double mx, Histogram &h);
/// The rank error bound (in percentile points) of percentiles from `samples` sampled keys.
double sampledRankBound(uint64_t samples);

} // namespace gguf::keys
