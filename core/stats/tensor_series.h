// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/tensor_data.h"
#include "core/stats/tensor_stats.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

/// Statistics over several tensors at once, as the Weights and Compare pages show them: histograms
/// of tensors binned over one common range (so their bins align), and one tensor's statistics per
/// layer. Each pass reads its tensor through tensorData(), so a remote tensor is fetched chunk by
/// chunk; each stops when its progress returns false.
namespace gguf {

class GgufFile;
struct TensorInfo;

/// A tensor to read: its info record in its file. The caller keeps both alive during a pass.
struct TensorSource {
    const GgufFile *file = nullptr;
    const TensorInfo *info = nullptr;
};

/// How a histogram's range is chosen.
enum class RangeMode : uint8_t {
    Automatic,   ///< [min, max] of the finite values
    Percentiles, ///< clip outliers: [p_low, p_high] from a first pass's (estimated) percentiles
    Custom,      ///< [lo, hi] as given
};

struct RangeChoice {
    RangeMode mode = RangeMode::Automatic;
    size_t lowLevel = 0;                             ///< index into kPercentileLevels (p1)
    size_t highLevel = kPercentileLevels.size() - 1; ///< (p99)
    double lo = 0, hi = 1;                           ///< Custom

    /// The range to bin the tensor of `stats` over: [min, max] for Automatic, the two percentiles
    /// (in order) for Percentiles, [lo, hi] (in order) for Custom.
    std::pair<double, double> rangeFor(const TensorStatistics &stats) const;
};

/// One statistics pass over one tensor.
struct StatisticsResult {
    StatsStatus status = StatsStatus::NoData;
    TensorStatistics stats;
    std::string error; ///< why a remote tensor's bytes could not be fetched (status NoData)
};

/// One computeStatistics pass over `tensor` with `bins` bins over `range` (automatic when unset; a
/// range of zero width is widened by ±0.5 so a constant tensor's value falls in a bin); of a sample
/// of about `sampleBytes` of its blocks when that is set (StatsOptions::sampleBytes).
StatisticsResult statisticsOf(const TensorSource &tensor, uint32_t bins, std::optional<std::pair<double, double>> range,
                              const ProgressFn &progress, uint64_t sampleBytes = 0);

/// `first` (what statisticsOf gave with `bins` and no range) made exact by refineStatistics: the
/// percentiles, and the histogram over [min, max]; the same passes as `gguf-inspect stats`.
StatisticsResult refinedStatisticsOf(const TensorSource &tensor, uint32_t bins, const TensorStatistics &first,
                                     const ProgressFn &progress);

/// One histogram pass over [lo, hi] (the counts, and the finite values below and above); nullopt
/// when it did not finish (cancelled, the data could not be read).
using HistogramPass = std::function<std::optional<Histogram>(double lo, double hi)>;

/// The range holding the central `share` (0 < share < 1, e.g. 0.999) of the `finite` values whose
/// [min, max] is given: at most floor((1 − share) / 2 · finite) of them lie below its lower end and
/// at most as many above its upper end. Found bin by bin: each pass histograms the current range
/// and keeps the bins holding the central share, with one bin of margin on each side (so a value on
/// a bin's edge is never lost); passes stop when one narrows the range by less than half, or after
/// `maxPasses`. Tight to within about two bins of the last pass. Nullopt when a pass did not finish;
/// [min, max] when nothing can be cut (no values, or min = max).
std::optional<std::pair<double, double>> centralRange(double min, double max, uint64_t finite, double share,
                                                      uint32_t bins, const HistogramPass &pass, int maxPasses = 6);

/// Remote tensors larger than this have their statistics computed from a sample first.
inline constexpr uint64_t kRemoteWholeLimit = uint64_t(64) << 20;
/// How much of such a tensor the sample reads (fetches).
inline constexpr uint64_t kRemoteSampleBytes = uint64_t(16) << 20;
/// kRemoteSampleBytes for a remote tensor over kRemoteWholeLimit, else 0 (read it whole).
uint64_t sampleBytesFor(const TensorSource &tensor);

/// The histogram of one tensor of several binned over a common range.
struct RangeSeries {
    StatsStatus status = StatsStatus::NoData;
    uint64_t finite = 0; ///< finite values of the whole tensor (the normalisation)
    Histogram histogram;
    std::string error; ///< why a remote tensor's bytes could not be fetched
};

struct CommonRangeHistograms {
    bool complete = false; ///< false when cancelled
    double lo = 0, hi = 0; ///< the common range of every series (never of zero width)
    std::vector<RangeSeries> series;
};

/// Histograms of `tensors` over one common range so their bins align: a first pass finds each
/// tensor's range (by `choice`), and the union of those (or the custom range) is binned in a second
/// pass. Progress is weighted by each tensor's element count.
CommonRangeHistograms commonRangeHistograms(std::span<const TensorSource> tensors, uint32_t bins,
                                            const RangeChoice &choice, const ProgressFn &progress);

struct SeriesStatistics {
    bool complete = false;                ///< false when cancelled
    std::vector<StatisticsResult> points; ///< one per tensor, in order
};

/// The statistics of each of `tensors` (one role across the layers); a large remote tensor is
/// sampled (sampleBytesFor), so a chart over the layers of a remote model does not download them all.
SeriesStatistics seriesStatistics(std::span<const TensorSource> tensors, const ProgressFn &progress);

} // namespace gguf
