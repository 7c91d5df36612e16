// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/tensor_series.h"
#include "ui/common/tensor_handle.h"

#include <QString>
#include <QVector>

#include <optional>
#include <utility>

/// The computations behind the weight views, on the core's (gguf::statisticsOf and friends in
/// core/stats/tensor_series.h) with the tensors as the page holds them and the results as it shows
/// them. Each runs on a worker thread (see JobTracker), reports progress through the core's
/// ProgressFn and stops when it returns false.
namespace WeightJobs {

/// How a histogram's range is chosen (the core's; see gguf::commonRangeHistograms).
using RangeMode = gguf::RangeMode;
using RangeChoice = gguf::RangeChoice;

/// An entry of a range menu: its untranslated label (QT_TRANSLATE_NOOP), mode and the percentile
/// levels (indexes into gguf::kPercentileLevels) it clips at.
struct RangePreset {
    const char *label;
    RangeMode mode;
    size_t low, high;

    RangeChoice choice() const { return {mode, low, high, 0, 1}; }
    /// Whether `c` is this preset (any automatic choice is the automatic preset).
    bool matches(const RangeChoice &c) const
    {
        return mode == c.mode && (mode == RangeMode::Automatic || (low == c.lowLevel && high == c.highLevel));
    }
};

struct Statistics {
    gguf::StatsStatus status = gguf::StatsStatus::NoData;
    gguf::TensorStatistics stats;
    QString error; ///< why a remote file's bytes could not be fetched (status NoData)
};

/// One pass of computeStatistics over `tensor` with `bins` bins over `range` (automatic when unset);
/// of a sample of about `sampleBytes` of its blocks when that is set (StatsOptions::sampleBytes).
Statistics statistics(const TensorHandle &tensor, uint32_t bins, std::optional<std::pair<double, double>> range,
                      const gguf::ProgressFn &progress, uint64_t sampleBytes = 0);

/// gguf::sampleBytesFor of the tensor: how much of a large remote tensor a first pass samples.
uint64_t sampleBytesFor(const TensorHandle &tensor);

/// `first` (what statistics() gave with `bins` and no range) made exact by refineStatistics: the
/// percentiles, and the histogram over [min, max]; the same passes as `gguf-inspect stats`.
Statistics refined(const TensorHandle &tensor, uint32_t bins, const gguf::TensorStatistics &first,
                   const gguf::ProgressFn &progress);

/// The histogram over the central `share` of `tensor`'s finite values (gguf::centralRange, found in
/// passes over the tensor, or over the same sample as `stats` when `sampleBytes` is set), binned in
/// `bins`: its [lo, hi] is the range found, its below/above what lies outside.
Statistics central(const TensorHandle &tensor, uint32_t bins, const gguf::TensorStatistics &stats, double share,
                   const gguf::ProgressFn &progress, uint64_t sampleBytes);

/// The histogram of one tensor of a comparison.
struct Series {
    QString name;
    gguf::StatsStatus status = gguf::StatsStatus::NoData;
    uint64_t finite = 0; ///< finite values of the whole tensor (the normalisation)
    gguf::Histogram histogram;
    QString error; ///< why a remote tensor's bytes could not be fetched
};

struct Comparison {
    bool complete = false; ///< false when cancelled
    double lo = 0, hi = 0; ///< the common range of every series
    QVector<Series> series;
};

/// Histograms of several tensors over one common range so their bins align: a first pass finds
/// each tensor's range (by `choice`), the union of those is binned in a second pass.
Comparison compare(const QVector<TensorHandle> &tensors, uint32_t bins, const RangeChoice &choice,
                   const gguf::ProgressFn &progress);

struct LayerPoint {
    int layer = -1;
    QString name;
    gguf::StatsStatus status = gguf::StatsStatus::NoData;
    gguf::TensorStatistics stats;
    QString error; ///< why a remote tensor's bytes could not be fetched
};

struct LayerSeries {
    bool complete = false;
    QVector<LayerPoint> points; ///< in layer order
};

/// Statistics of each tensor of one role across the layers.
LayerSeries layerStatistics(const QVector<TensorHandle> &tensors, const gguf::ProgressFn &progress);

} // namespace WeightJobs
