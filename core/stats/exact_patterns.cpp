// SPDX-License-Identifier: GPL-3.0-or-later
// The exact figures of an F16 or BF16 tensor (docs/FORMAT.md §9): one pass counts every 16-bit
// pattern in place, without decoding; each pattern is one value, so the sorted values, hence the
// percentiles and every value's bin, follow from the 65,536 counts.
#include "core/format/ggml_types.h"
#include "core/util/byte_order.h"
#include "core/util/float_convert.h"
#include "exact_common.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace gguf::detail::exact {
namespace {

/// Counts every 16-bit pattern of an F16 or BF16 tensor, read in place; nullopt when cancelled or
/// unreadable.
std::optional<std::vector<uint64_t>> countPatterns(const TensorData &data, const StatsOptions &options, uint64_t chunk)
{
    const uint64_t chunks = (data.elements + chunk - 1) / chunk;
    constexpr size_t kCopies = 2; // see Counter32
    std::vector<Counter32> counters;
    for (unsigned w = workerCount(options.threads, chunks); w > 0; --w)
        counters.emplace_back(keys::kKeyCount, kCopies);
    const bool finished = runChunks(
        chunks, options.threads,
        [&](uint64_t c, unsigned worker) {
            const uint64_t first = c * chunk, last = std::min(data.elements, (c + 1) * chunk);
            const ElementHold hold(data, first, last);
            if (!hold)
                return;
            const uint8_t *p = data.bytes.data() + 2 * first;
            const auto n = static_cast<size_t>(last - first);
            uint32_t *t = counters[worker].room(n);
            const auto pattern = [p, swap = data.swapBytes](size_t i) {
                const uint16_t h = loadU16(p + 2 * i);
                return size_t{swap ? __builtin_bswap16(h) : h} * kCopies;
            };
            size_t i = 0;
            for (; i + 4 <= n; i += 4) {
                ++t[pattern(i)];
                ++t[pattern(i + 1) + 1];
                ++t[pattern(i + 2)];
                ++t[pattern(i + 3) + 1];
            }
            for (; i < n; ++i)
                ++t[pattern(i)];
        },
        watchedProgress(data, options.progress));
    if (!finished || readError(data))
        return std::nullopt;
    return Counter32::sum(counters, keys::kKeyCount);
}

/// The exact percentiles and automatic histogram from the counts of every F16 or BF16 pattern;
/// false when they do not add up to the finite values of the first pass (the tensor changed).
bool exactFromPatterns(const std::vector<uint64_t> &patterns, uint32_t typeId, const BinRange &range,
                       TensorStatistics &stats)
{
    const auto valueOf = [typeId](uint32_t p) {
        const auto h = static_cast<uint16_t>(p);
        return typeId == static_cast<uint32_t>(GgmlType::F16) ? fp16ToFp32(h) : bf16ToFp32(h);
    };
    // the distinct finite values in ascending order, with the number of values up to each
    std::vector<std::pair<float, uint64_t>> upTo;
    uint64_t seen = 0;
    forEachKeyInValueOrder([&](uint32_t p) {
        const float v = valueOf(p);
        if (patterns[p] == 0 || !std::isfinite(v))
            return;
        seen += patterns[p];
        upTo.emplace_back(v, seen);
    });
    if (seen != stats.finite)
        return false;
    const auto valueAtRank = [&](uint64_t rank) {
        const auto it = std::upper_bound(upTo.begin(), upTo.end(), rank,
                                         [](uint64_t r, const std::pair<float, uint64_t> &e) { return r < e.second; });
        return static_cast<double>(it->first);
    };
    for (size_t i = 0; i < kPercentileLevels.size(); ++i)
        stats.percentiles[i] = numpyPercentile(stats.finite, kPercentileLevels[i], valueAtRank);
    if (range.here) {
        stats.histogram.counts.assign(range.bins, 0);
        uint64_t before = 0;
        for (const auto &[v, through] : upTo) {
            stats.histogram.counts[range.of(v)] += through - before;
            before = through;
        }
    }
    return true;
}

} // namespace

StatsStatus refineByPatterns(const TensorData &data, const StatsOptions &options, uint64_t chunk, const BinRange &range,
                             TensorStatistics &stats)
{
    const auto patterns = countPatterns(data, options, chunk);
    if (!patterns)
        return fetchStatus(data).value_or(StatsStatus::Cancelled);
    return exactFromPatterns(*patterns, data.typeId, range, stats) ? StatsStatus::Ok : StatsStatus::NoData;
}

} // namespace gguf::detail::exact
