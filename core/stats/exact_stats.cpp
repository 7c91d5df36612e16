// SPDX-License-Identifier: GPL-3.0-or-later
// refineStatistics: the exact histogram of the automatic range and the exact percentiles, after
// computeStatistics (docs/FORMAT.md §9, "How the exact figures are found"): F16 and BF16 by their
// bit patterns (exact_patterns.cpp), every other type by 16-bit keys in two passes (exact_keys.cpp).
#include "core/format/ggml_types.h"
#include "core/stats/tensor_stats.h"
#include "exact_common.h"
#include "stats_scan.h"

#include <algorithm>
#include <utility>

namespace gguf {

StatsStatus refineStatistics(const TensorData &data, const StatsOptions &options, TensorStatistics &stats)
{
    if (stats.sampledElements > 0)
        return StatsStatus::Unsupported; // exact figures of a sample are not what anyone asks for
    if (stats.finite == 0) {
        stats.percentilesExact = true;
        stats.histogram.exact = true;
        return StatsStatus::Ok;
    }
    detail::exact::BinRange range;
    range.here = !options.range;
    range.bins = std::clamp<uint32_t>(options.bins, 1, 65536);
    range.lo = stats.max > stats.min ? stats.min : stats.min - 0.5;
    range.hi = stats.max > stats.min ? stats.max : stats.max + 0.5;
    TensorStatistics out = stats;
    const uint64_t chunk = std::max<uint64_t>(detail::scan::kPiece, statsChunkElements(data, options) /
                                                                        detail::scan::kPiece * detail::scan::kPiece);
    const bool halves =
        data.typeId == static_cast<uint32_t>(GgmlType::F16) || data.typeId == static_cast<uint32_t>(GgmlType::BF16);
    const StatsStatus status = halves ? detail::exact::refineByPatterns(data, options, chunk, range, out)
                                      : detail::exact::refineByKeys(data, options, chunk, range, out);
    if (status != StatsStatus::Ok)
        return status;
    out.percentileError.fill(0);
    out.percentileRankError = 0;
    out.percentilesExact = true;
    if (range.here) {
        out.histogram.lo = range.lo;
        out.histogram.hi = range.hi;
        out.histogram.below = out.histogram.above = 0;
        out.histogram.exact = true;
    }
    stats = std::move(out);
    return StatsStatus::Ok;
}

} // namespace gguf
