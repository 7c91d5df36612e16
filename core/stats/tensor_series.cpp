// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/stats/tensor_series.h"

#include "core/format/gguf_file.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gguf {

std::pair<double, double> RangeChoice::rangeFor(const TensorStatistics &stats) const
{
    switch (mode) {
    case RangeMode::Automatic: return {stats.min, stats.max};
    case RangeMode::Percentiles: {
        const size_t last = stats.percentiles.size() - 1;
        const double a = stats.percentiles[std::min(lowLevel, last)];
        const double b = stats.percentiles[std::min(highLevel, last)];
        return {std::min(a, b), std::max(a, b)};
    }
    case RangeMode::Custom: return {std::min(lo, hi), std::max(lo, hi)};
    }
    return {stats.min, stats.max};
}

namespace {

// A pass's status, with the message when a remote tensor's bytes could not be fetched.
void setOutcome(const TensorData &data, StatsStatus status, StatisticsResult &result)
{
    result.status = fetchStatus(data).value_or(status);
    if (const std::optional<Error> e = readError(data); e && e->kind != ErrorKind::Cancelled)
        result.error = e->message;
}

StatsOptions seriesOptions(uint32_t bins, const ProgressFn &progress)
{
    StatsOptions options;
    options.bins = bins;
    options.progress = progress;
    return options;
}

uint64_t elementWeight(const TensorSource &tensor)
{
    return std::max<uint64_t>(1, tensor.info ? tensor.info->elements : 0);
}

} // namespace

uint64_t sampleBytesFor(const TensorSource &tensor)
{
    return tensor.file && tensor.info && tensor.file->isRemote() && tensor.info->byteSize > kRemoteWholeLimit
               ? kRemoteSampleBytes
               : 0;
}

StatisticsResult statisticsOf(const TensorSource &tensor, uint32_t bins, std::optional<std::pair<double, double>> range,
                              const ProgressFn &progress, uint64_t sampleBytes)
{
    StatisticsResult result;
    if (!tensor.file || !tensor.info)
        return result;
    StatsOptions options = seriesOptions(bins, progress);
    if (range && !(range->second > range->first))
        range = std::pair{range->first - 0.5, range->first + 0.5};
    options.range = range;
    options.sampleBytes = sampleBytes;
    const TensorData data = tensorData(*tensor.file, *tensor.info);
    setOutcome(data, computeStatistics(data, options, result.stats), result);
    return result;
}

StatisticsResult refinedStatisticsOf(const TensorSource &tensor, uint32_t bins, const TensorStatistics &first,
                                     const ProgressFn &progress)
{
    StatisticsResult result;
    if (!tensor.file || !tensor.info)
        return result;
    result.stats = first;
    const TensorData data = tensorData(*tensor.file, *tensor.info);
    setOutcome(data, refineStatistics(data, seriesOptions(bins, progress), result.stats), result);
    return result;
}

CommonRangeHistograms commonRangeHistograms(std::span<const TensorSource> tensors, uint32_t bins,
                                            const RangeChoice &choice, const ProgressFn &progress)
{
    CommonRangeHistograms result;
    // each tensor is read twice, weighted by its size so the bar moves evenly
    uint64_t sum = 0;
    for (const TensorSource &t : tensors)
        sum += 2 * elementWeight(t);
    uint64_t done = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    std::vector<StatisticsResult> first;
    first.reserve(tensors.size());
    for (const TensorSource &t : tensors) {
        StatisticsResult s = statisticsOf(t, 1, std::nullopt, progressPart(progress, done, elementWeight(t), sum));
        done += elementWeight(t);
        if (s.status == StatsStatus::Cancelled)
            return result;
        if (s.status == StatsStatus::Ok && s.stats.finite > 0) {
            const auto [a, b] = choice.rangeFor(s.stats);
            lo = std::min(lo, a);
            hi = std::max(hi, b);
        }
        first.push_back(std::move(s));
    }
    if (choice.mode == RangeMode::Custom)
        std::tie(lo, hi) = choice.rangeFor({});
    if (!(lo <= hi))
        lo = hi = 0;
    if (!(hi > lo)) {
        lo -= 0.5;
        hi += 0.5;
    }
    result.lo = lo;
    result.hi = hi;
    for (size_t i = 0; i < tensors.size(); ++i) {
        RangeSeries series;
        series.status = first[i].status;
        series.error = first[i].error;
        series.finite = first[i].stats.finite;
        if (first[i].status == StatsStatus::Ok) {
            StatisticsResult s = statisticsOf(tensors[i], bins, std::pair{lo, hi},
                                              progressPart(progress, done, elementWeight(tensors[i]), sum));
            if (s.status == StatsStatus::Cancelled)
                return result;
            series.status = s.status;
            series.error = std::move(s.error);
            series.histogram = std::move(s.stats.histogram);
        }
        done += elementWeight(tensors[i]);
        result.series.push_back(std::move(series));
    }
    result.complete = true;
    return result;
}

SeriesStatistics seriesStatistics(std::span<const TensorSource> tensors, const ProgressFn &progress)
{
    SeriesStatistics result;
    uint64_t sum = 0;
    for (const TensorSource &t : tensors)
        sum += elementWeight(t);
    uint64_t done = 0;
    for (const TensorSource &t : tensors) {
        StatisticsResult s =
            statisticsOf(t, 1, std::nullopt, progressPart(progress, done, elementWeight(t), sum), sampleBytesFor(t));
        done += elementWeight(t);
        if (s.status == StatsStatus::Cancelled)
            return result;
        result.points.push_back(std::move(s));
    }
    result.complete = true;
    return result;
}

std::optional<std::pair<double, double>> centralRange(double min, double max, uint64_t finite, double share,
                                                      uint32_t bins, const HistogramPass &pass, int maxPasses)
{
    double lo = min, hi = max;
    if (finite == 0 || !(hi > lo) || bins < 4)
        return std::pair{lo, hi};
    const auto tail = static_cast<uint64_t>(std::floor((1.0 - share) / 2.0 * static_cast<double>(finite)));
    for (int p = 0; p < maxPasses; ++p) {
        const std::optional<Histogram> h = pass(lo, hi);
        if (!h || h->counts.size() != bins)
            return std::nullopt;
        // the bins wholly in the lower tail (with what lies below the range), then in the upper
        uint64_t cut = h->below;
        uint32_t first = 0;
        while (first < bins && cut + h->counts[first] <= tail)
            cut += h->counts[first++];
        cut = h->above;
        uint32_t last = bins; // one past the last bin kept
        while (last > first && cut + h->counts[last - 1] <= tail)
            cut += h->counts[--last];
        // a value just below a bin's edge may have been counted in that bin (histogramBin rounds),
        // so keep one more bin on each side: every value below the new lower end is in the cut
        // bins, whatever the rounding
        const uint32_t from = first > 0 ? first - 1 : 0, to = std::min(last + 1, bins);
        const double width = hi - lo;
        const double newLo = from == 0 ? lo : lo + width * from / bins;
        const double newHi = to == bins ? hi : lo + width * to / bins;
        const bool little = newHi - newLo > 0.5 * width;
        lo = newLo;
        hi = newHi;
        if (little || !(hi > lo))
            break;
    }
    return std::pair{lo, hi};
}

} // namespace gguf
