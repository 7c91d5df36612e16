// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/weight_jobs.h"

#include "core/format/gguf_file.h"
#include "core/util/parallel_chunks.h"

#include <vector>

namespace WeightJobs {

namespace {

Statistics fromCore(gguf::StatisticsResult &&r)
{
    return Statistics{r.status, std::move(r.stats), QString::fromStdString(r.error)};
}

std::vector<gguf::TensorSource> sourcesOf(const QVector<TensorHandle> &tensors)
{
    std::vector<gguf::TensorSource> sources;
    sources.reserve(static_cast<size_t>(tensors.size()));
    for (const TensorHandle &t : tensors)
        sources.push_back(t.source());
    return sources;
}

} // namespace

uint64_t sampleBytesFor(const TensorHandle &tensor)
{
    return gguf::sampleBytesFor(tensor.source());
}

Statistics statistics(const TensorHandle &tensor, uint32_t bins, std::optional<std::pair<double, double>> range,
                      const gguf::ProgressFn &progress, uint64_t sampleBytes)
{
    return fromCore(gguf::statisticsOf(tensor.source(), bins, range, progress, sampleBytes));
}

Statistics central(const TensorHandle &tensor, uint32_t bins, const gguf::TensorStatistics &stats, double share,
                   const gguf::ProgressFn &progress, uint64_t sampleBytes)
{
    // the passes that narrow the range (at most kPasses), then the histogram the user asked for
    constexpr int kPasses = 6;
    constexpr uint32_t kSearchBins = 256;
    uint64_t pass = 0;
    Statistics failed;
    const auto range = gguf::centralRange(
        stats.min, stats.max, stats.finite, share, kSearchBins,
        [&](double lo, double hi) -> std::optional<gguf::Histogram> {
            Statistics s = statistics(tensor, kSearchBins, std::pair{lo, hi},
                                      gguf::progressPart(progress, pass++, 1, kPasses + 1), sampleBytes);
            if (s.status != gguf::StatsStatus::Ok) {
                failed = s;
                return std::nullopt;
            }
            return s.stats.histogram;
        },
        kPasses);
    if (!range)
        return failed;
    return statistics(tensor, bins, *range, gguf::progressPart(progress, kPasses, 1, kPasses + 1), sampleBytes);
}

Statistics refined(const TensorHandle &tensor, uint32_t bins, const gguf::TensorStatistics &first,
                   const gguf::ProgressFn &progress)
{
    return fromCore(gguf::refinedStatisticsOf(tensor.source(), bins, first, progress));
}

Comparison compare(const QVector<TensorHandle> &tensors, uint32_t bins, const RangeChoice &choice,
                   const gguf::ProgressFn &progress)
{
    // the handles (and so the models) stay alive for the whole pass
    gguf::CommonRangeHistograms core = gguf::commonRangeHistograms(sourcesOf(tensors), bins, choice, progress);
    Comparison result;
    result.complete = core.complete;
    result.lo = core.lo;
    result.hi = core.hi;
    for (size_t i = 0; i < core.series.size(); ++i) {
        gguf::RangeSeries &s = core.series[i];
        result.series.append(Series{tensors[static_cast<qsizetype>(i)].name(), s.status, s.finite,
                                    std::move(s.histogram), QString::fromStdString(s.error)});
    }
    return result;
}

LayerSeries layerStatistics(const QVector<TensorHandle> &tensors, const gguf::ProgressFn &progress)
{
    gguf::SeriesStatistics core = gguf::seriesStatistics(sourcesOf(tensors), progress);
    LayerSeries result;
    result.complete = core.complete;
    for (size_t i = 0; i < core.points.size(); ++i) {
        const TensorHandle &t = tensors[static_cast<qsizetype>(i)];
        gguf::StatisticsResult &p = core.points[i];
        result.points.append(
            LayerPoint{t.info().layer, t.name(), p.status, std::move(p.stats), QString::fromStdString(p.error)});
    }
    return result;
}

} // namespace WeightJobs
