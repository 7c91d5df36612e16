// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/weight_jobs.h"

#include "core/format/gguf_file.h"

#include <QCoreApplication>

#include <algorithm>
#include <limits>

namespace WeightJobs {

std::pair<double, double> RangeChoice::rangeFor(const gguf::TensorStatistics &stats) const
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
void setOutcome(const gguf::TensorData &data, gguf::StatsStatus status, Statistics &result)
{
    result.status = gguf::fetchStatus(data).value_or(status);
    if (const std::optional<gguf::Error> e = gguf::readError(data); e && e->kind != gguf::ErrorKind::Cancelled)
        result.error = QString::fromStdString(e->message);
}

gguf::StatsOptions optionsFor(uint32_t bins, const gguf::ProgressFn &progress)
{
    gguf::StatsOptions options;
    options.bins = bins;
    options.progress = progress;
    return options;
}

} // namespace

uint64_t sampleBytesFor(const TensorHandle &tensor)
{
    return tensor.isValid() && tensor.file().isRemote() && tensor.info().byteSize > kRemoteWholeLimit
               ? kRemoteSampleBytes
               : 0;
}

Statistics statistics(const TensorHandle &tensor, uint32_t bins, std::optional<std::pair<double, double>> range,
                      const gguf::ProgressFn &progress, uint64_t sampleBytes)
{
    Statistics result;
    if (!tensor.isValid())
        return result;
    gguf::StatsOptions options = optionsFor(bins, progress);
    // A range of zero width (a constant tensor) is widened so its one value falls in a bin.
    if (range && !(range->second > range->first))
        range = std::pair{range->first - 0.5, range->first + 0.5};
    options.range = range;
    options.sampleBytes = sampleBytes;
    // a remote tensor is fetched chunk by chunk as the pass reads it
    const gguf::TensorData data = tensor.data();
    setOutcome(data, gguf::computeStatistics(data, options, result.stats), result);
    return result;
}

Statistics refined(const TensorHandle &tensor, uint32_t bins, const gguf::TensorStatistics &first,
                   const gguf::ProgressFn &progress)
{
    Statistics result;
    if (!tensor.isValid())
        return result;
    result.stats = first;
    const gguf::TensorData data = tensor.data();
    setOutcome(data, gguf::refineStatistics(data, optionsFor(bins, progress), result.stats), result);
    return result;
}

gguf::ProgressFn partOf(const gguf::ProgressFn &outer, uint64_t before, uint64_t weight, uint64_t sum)
{
    return [outer, before, weight, sum](uint64_t done, uint64_t total) {
        const double share = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
        return !outer || outer(before + static_cast<uint64_t>(share * static_cast<double>(weight)), sum);
    };
}

Comparison compare(const QVector<TensorHandle> &tensors, uint32_t bins, const RangeChoice &choice,
                   const gguf::ProgressFn &progress)
{
    Comparison result;
    // Weight each tensor by its size so the bar moves evenly; two passes over each.
    uint64_t sum = 0;
    for (const TensorHandle &t : tensors)
        sum += 2 * std::max<uint64_t>(1, t.info().elements);
    uint64_t done = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    QVector<Statistics> first;
    for (const TensorHandle &t : tensors) {
        const uint64_t weight = std::max<uint64_t>(1, t.info().elements);
        Statistics s = statistics(t, 1, std::nullopt, partOf(progress, done, weight, sum));
        done += weight;
        if (s.status == gguf::StatsStatus::Cancelled)
            return result;
        if (s.status == gguf::StatsStatus::Ok && s.stats.finite > 0) {
            const auto [a, b] = choice.rangeFor(s.stats);
            lo = std::min(lo, a);
            hi = std::max(hi, b);
        }
        first.append(std::move(s));
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
    for (qsizetype i = 0; i < tensors.size(); ++i) {
        const uint64_t weight = std::max<uint64_t>(1, tensors[i].info().elements);
        Series series;
        series.name = tensors[i].name();
        series.status = first[i].status;
        series.error = first[i].error;
        series.finite = first[i].stats.finite;
        if (first[i].status == gguf::StatsStatus::Ok) {
            Statistics s = statistics(tensors[i], bins, std::pair{lo, hi}, partOf(progress, done, weight, sum));
            if (s.status == gguf::StatsStatus::Cancelled)
                return result;
            series.status = s.status;
            series.error = s.error;
            series.histogram = std::move(s.stats.histogram);
        }
        done += weight;
        result.series.append(std::move(series));
    }
    result.complete = true;
    return result;
}

LayerSeries layerStatistics(const QVector<TensorHandle> &tensors, const gguf::ProgressFn &progress)
{
    LayerSeries result;
    uint64_t sum = 0;
    for (const TensorHandle &t : tensors)
        sum += std::max<uint64_t>(1, t.info().elements);
    uint64_t done = 0;
    for (const TensorHandle &t : tensors) {
        const uint64_t weight = std::max<uint64_t>(1, t.info().elements);
        // a large remote tensor is sampled: a chart over the layers of a remote model must not
        // download all of them
        Statistics s = statistics(t, 1, std::nullopt, partOf(progress, done, weight, sum), sampleBytesFor(t));
        done += weight;
        if (s.status == gguf::StatsStatus::Cancelled)
            return result;
        result.points.append(LayerPoint{t.info().layer, t.name(), s.status, std::move(s.stats), s.error});
    }
    result.complete = true;
    return result;
}

QString statusText(gguf::StatsStatus status)
{
    switch (status) {
    case gguf::StatsStatus::Ok: return QCoreApplication::translate("WeightJobs", "ok");
    case gguf::StatsStatus::Cancelled: return QCoreApplication::translate("WeightJobs", "cancelled");
    case gguf::StatsStatus::Unsupported:
        return QCoreApplication::translate("WeightJobs", "values of this type cannot be decoded");
    case gguf::StatsStatus::NoData:
        return QCoreApplication::translate("WeightJobs", "the tensor's data is not inside the file (the file is cut "
                                                         "short, or damaged before the end of its tensor infos)");
    }
    return {};
}

} // namespace WeightJobs
