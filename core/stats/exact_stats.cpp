// SPDX-License-Identifier: GPL-3.0-or-later
// refineStatistics: the exact histogram of the automatic range and the exact percentiles, in two
// passes after computeStatistics (docs/FORMAT.md §9). Every finite value is decoded by the same
// dequantizer as the first pass; its float32 bit pattern, split into a high and a low 16-bit half,
// places it exactly: the first pass here counts the high halves of every value (and bins the
// values), the second counts the low halves of the values whose high half holds a wanted rank.
#include "core/quant/dequantize.h"
#include "core/stats/tensor_stats.h"
#include "key_counts.h"
#include "stats_scan.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

namespace gguf {
namespace {

using keys::kKeyCount;
using keys::zeroedArray;

using detail::scan::kPiece; // decoded at a time

/// The 65536 keys in ascending order of the values they hold: negative keys by descending
/// magnitude (-0 last), then positive ones (+0 first). NaN and infinity keys are never counted.
template <typename F> void forEachKeyInValueOrder(F f)
{
    for (uint32_t m = 0x8000; m-- > 0;)
        f(0x8000u | m);
    for (uint32_t m = 0; m < 0x8000; ++m)
        f(m);
}

/// The low halves of one key's values in ascending order of value: descending for negative keys.
template <typename F> void forEachLowHalfInValueOrder(uint32_t key, F f)
{
    if (key & 0x8000u) {
        for (uint32_t l = 0x10000; l-- > 0;)
            f(l);
    } else {
        for (uint32_t l = 0; l < 0x10000; ++l)
            f(l);
    }
}

/// NumPy's linear interpolation (`_lerp` of numpy/lib/_function_base_impl.py): from a towards b,
/// or back from b when t ≥ 0.5, which keeps the result monotonic and exact at both ends
/// (docs/FORMAT.md §9).
double lerp(double a, double b, double t)
{
    const double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/// Runs `scan(values, count)` over every decoded value of `data`, on every core, one buffer of
/// kPiece floats per worker; false when cancelled or a piece does not decode.
template <typename Scan>
bool forEachPiece(const TensorData &data, const StatsOptions &options, uint64_t chunk, const ProgressFn &progress,
                  std::vector<std::vector<float>> &buffers, const Scan &scan)
{
    const uint64_t chunks = (data.elements + chunk - 1) / chunk;
    buffers.resize(workerCount(options.threads, chunks));
    for (std::vector<float> &b : buffers)
        b.resize(static_cast<size_t>(std::min(kPiece, std::max<uint64_t>(data.elements, 1))));
    std::atomic<bool> failed{false};
    const bool finished = runChunks(
        chunks, options.threads,
        [&](uint64_t c, unsigned worker) {
            std::vector<float> &buffer = buffers[worker];
            const uint64_t last = std::min(data.elements, (c + 1) * chunk);
            const ElementHold hold(data, c * chunk, last); // a remote chunk is fetched here
            if (!hold)
                return;
            for (uint64_t at = c * chunk; at < last && !failed; at += kPiece) {
                const size_t n = static_cast<size_t>(std::min(kPiece, last - at));
                const std::span<float> piece(buffer.data(), n);
                if (!dequantizeRange(data.typeId, data.bytes, data.elements, at, piece, data.swapBytes)) {
                    failed = true;
                    return;
                }
                scan(worker, piece);
            }
        },
        watchedProgress(data, progress));
    return finished && !failed && !readError(data);
}

/// Percentile `level` of `count` sorted values by NumPy's default (method "linear"; docs/FORMAT.md
/// §9): the value at the virtual index (count - 1) * level / 100, interpolated between its two
/// neighbours.
template <typename ValueAt> double numpyPercentile(uint64_t count, double level, const ValueAt &valueAtRank)
{
    const double h = static_cast<double>(count - 1) * (level / 100.0);
    const double below = std::floor(h);
    const auto rank = static_cast<uint64_t>(below);
    const double a = valueAtRank(rank);
    if (rank + 1 >= count)
        return a;
    return lerp(a, valueAtRank(rank + 1), h - below);
}

} // namespace

StatsStatus refineStatistics(const TensorData &data, const StatsOptions &options, TensorStatistics &stats)
{
    if (stats.sampledElements > 0)
        return StatsStatus::Unsupported; // exact figures of a sample are not what anyone asks for
    if (stats.finite == 0) {
        stats.percentilesExact = true;
        stats.histogram.exact = true;
        return StatsStatus::Ok;
    }
    const bool binHere = !options.range;
    const uint32_t bins = std::clamp<uint32_t>(options.bins, 1, 65536);
    // a constant tensor gets the range NumPy gives it: one unit around its value (docs/FORMAT.md §9)
    const double lo = stats.max > stats.min ? stats.min : stats.min - 0.5;
    const double hi = stats.max > stats.min ? stats.max : stats.max + 0.5;
    // each pass is half of the progress
    const auto half = [&options](uint64_t before) -> ProgressFn {
        if (!options.progress)
            return {};
        return [before, &options](uint64_t done, uint64_t total) {
            return options.progress(before * total + done, 2 * total);
        };
    };
    std::vector<std::vector<float>> buffers;

    // Pass 1: every finite value's high half, and the histogram over [min, max]
    const uint64_t chunk = std::max<uint64_t>(kPiece, statsChunkElements(data, options) / kPiece * kPiece);
    const unsigned workers = workerCount(options.threads, (data.elements + chunk - 1) / chunk);
    std::vector<std::unique_ptr<uint64_t[], keys::FreeDeleter>> highCounts;
    std::vector<std::vector<uint64_t>> binCounts(workers);
    for (unsigned w = 0; w < workers; ++w) {
        highCounts.push_back(zeroedArray<uint64_t>(kKeyCount));
        if (binHere)
            binCounts[w].assign(bins, 0);
    }
    if (!forEachPiece(data, options, chunk, half(0), buffers, [&](unsigned w, std::span<const float> values) {
            uint64_t *high = highCounts[w].get();
            for (const float x : values) {
                if (!std::isfinite(x))
                    continue;
                ++high[std::bit_cast<uint32_t>(x) >> 16];
                if (binHere)
                    ++binCounts[w][histogramBin(x, lo, hi, bins)];
            }
        }))
        return fetchStatus(data).value_or(StatsStatus::Cancelled);
    std::vector<uint64_t> high(kKeyCount, 0);
    for (unsigned w = 0; w < highCounts.size(); ++w)
        for (size_t k = 0; k < kKeyCount; ++k)
            high[k] += highCounts[w][k];
    highCounts.clear();

    // the ranks the percentiles need, and the high half that holds each
    std::vector<uint64_t> ranks;
    for (const double level : kPercentileLevels) {
        const auto rank = static_cast<uint64_t>(std::floor(static_cast<double>(stats.finite - 1) * (level / 100.0)));
        ranks.push_back(rank);
        ranks.push_back(std::min(rank + 1, stats.finite - 1));
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    struct Wanted {
        uint64_t rank = 0;
        uint32_t key = 0;
        uint64_t before = 0; ///< values of lower keys
    };
    std::vector<Wanted> wanted;
    {
        uint64_t before = 0;
        size_t next = 0;
        forEachKeyInValueOrder([&](uint32_t key) {
            const uint64_t n = high[key];
            while (next < ranks.size() && ranks[next] < before + n)
                wanted.push_back({ranks[next++], key, before});
            before += n;
        });
        if (wanted.size() != ranks.size())
            return StatsStatus::NoData; // the tensor changed between the passes
    }
    std::array<int, kKeyCount> slotOf{};
    slotOf.fill(-1);
    std::vector<uint32_t> slotKeys;
    for (const Wanted &w : wanted)
        if (slotOf[w.key] < 0) {
            slotOf[w.key] = static_cast<int>(slotKeys.size());
            slotKeys.push_back(w.key);
        }

    // Pass 2: the low halves of the values in those high halves
    std::vector<std::unique_ptr<uint64_t[], keys::FreeDeleter>> lowCounts;
    for (unsigned w = 0; w < workers; ++w)
        lowCounts.push_back(zeroedArray<uint64_t>(slotKeys.size() * 0x10000));
    if (!forEachPiece(data, options, chunk, half(1), buffers, [&](unsigned w, std::span<const float> values) {
            uint64_t *low = lowCounts[w].get();
            for (const float x : values) {
                const uint32_t bits = std::bit_cast<uint32_t>(x);
                const int slot = slotOf[bits >> 16];
                if (slot >= 0 && std::isfinite(x))
                    ++low[static_cast<size_t>(slot) * 0x10000 + (bits & 0xffffu)];
            }
        }))
        return fetchStatus(data).value_or(StatsStatus::Cancelled);
    const auto valueAtRank = [&](uint64_t rank) {
        const auto w = std::find_if(wanted.begin(), wanted.end(), [rank](const Wanted &x) { return x.rank == rank; });
        const size_t slot = static_cast<size_t>(slotOf[w->key]);
        uint64_t seen = w->before;
        uint32_t found = 0;
        bool done = false;
        forEachLowHalfInValueOrder(w->key, [&](uint32_t l) {
            if (done)
                return;
            for (const auto &counts : lowCounts)
                seen += counts[slot * 0x10000 + l];
            if (seen > rank) {
                found = l;
                done = true;
            }
        });
        return static_cast<double>(std::bit_cast<float>((w->key << 16) | found));
    };
    for (size_t i = 0; i < kPercentileLevels.size(); ++i) {
        stats.percentiles[i] = numpyPercentile(stats.finite, kPercentileLevels[i], valueAtRank);
        stats.percentileError[i] = 0;
    }
    stats.percentileRankError = 0;
    stats.percentilesExact = true;

    if (binHere) {
        stats.histogram.lo = lo;
        stats.histogram.hi = hi;
        stats.histogram.counts.assign(bins, 0);
        for (const std::vector<uint64_t> &counts : binCounts)
            for (uint32_t b = 0; b < bins; ++b)
                stats.histogram.counts[b] += counts[b];
        stats.histogram.below = stats.histogram.above = 0;
        stats.histogram.exact = true;
    }
    return StatsStatus::Ok;
}

} // namespace gguf
