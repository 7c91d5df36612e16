// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/compare_jobs.h"

#include "core/compare/value_diff.h"
#include "core/format/split_model.h"

#include <cmath>

namespace CompareJobs {

Overview overview(const gguf::SplitModel &a, const gguf::SplitModel &b)
{
    Overview o;
    o.metadata = gguf::compareMetadata(a.primary(), b.primary());
    o.tokenizer = gguf::compareTokenizers(a.primary(), b.primary());
    o.tensors = gguf::matchTensors(a, b);
    return o;
}

uint64_t pairBytes(const gguf::TensorPair &pair)
{
    return (pair.a ? pair.a->byteSize : 0) + (pair.b ? pair.b->byteSize : 0);
}

ValueBatch compareValues(const std::shared_ptr<const gguf::SplitModel> &a,
                         const std::shared_ptr<const gguf::SplitModel> &b, std::vector<int> rows,
                         std::vector<gguf::TensorPair> pairs, uint64_t before, uint64_t total,
                         const gguf::ProgressFn &progress)
{
    ValueBatch batch;
    batch.rows = std::move(rows);
    uint64_t done = before;
    for (gguf::TensorPair &pair : pairs) {
        const uint64_t weight = std::max<uint64_t>(1, pairBytes(pair));
        gguf::ValueDiffOptions options;
        options.progress = gguf::progressPart(progress, done, weight, total);
        if (gguf::compareTensorData(*a, *b, pair, options) == gguf::StatsStatus::Cancelled)
            return batch;
        done += weight;
        if (progress && !progress(done, total))
            return batch;
    }
    batch.pairs = std::move(pairs);
    batch.complete = true;
    return batch;
}

namespace {

// Why a remote tensor of the pair could not be fetched (empty when nothing failed, or when the
// fetch was cancelled).
QString fetchError(const gguf::TensorData &a, const gguf::TensorData &b)
{
    const std::optional<gguf::Error> e = gguf::readError(a, b);
    return e && e->kind != gguf::ErrorKind::Cancelled ? QString::fromStdString(e->message) : QString();
}

} // namespace

PairDetail pairDetail(const TensorHandle &a, const TensorHandle &b, double maxAbsDifference, uint32_t bins,
                      uint32_t gridCells, const gguf::ProgressFn &progress)
{
    PairDetail detail;
    // three passes over both tensors (the histograms read each twice), weighted alike
    constexpr uint64_t kPart = 1000, kParts = 4 * kPart;
    const gguf::TensorSource both[] = {a.source(), b.source()};
    detail.histograms = gguf::commonRangeHistograms(both, bins, {}, gguf::progressPart(progress, 0, 2 * kPart, kParts));
    if (!detail.histograms.complete)
        return detail;
    gguf::ValueDiffOptions options;
    options.progress = gguf::progressPart(progress, 2 * kPart, kPart, kParts);
    // symmetric around 0, so that a bias of B shows as a shifted peak
    const double m = maxAbsDifference > 0 && std::isfinite(maxAbsDifference) ? maxAbsDifference : 0.5;
    {
        const gguf::TensorData da = a.data(), db = b.data();
        detail.differenceStatus = gguf::computeDiffHistogram(da, db, -m, m, bins, options, detail.difference);
        detail.differenceError = fetchError(da, db);
    }
    if (detail.differenceStatus == gguf::StatsStatus::Cancelled)
        return detail;
    gguf::HeatmapOptions heat;
    heat.rows = heat.cols = gridCells;
    heat.progress = gguf::progressPart(progress, 3 * kPart, kPart, kParts);
    {
        const gguf::TensorData da = a.data(), db = b.data();
        detail.heatmapStatus = gguf::computeDiffHeatmap(da, db, a.columns(), heat, detail.heatmap);
        detail.heatmapError = fetchError(da, db);
    }
    if (detail.heatmapStatus == gguf::StatsStatus::Cancelled)
        return detail;
    detail.complete = true;
    return detail;
}

} // namespace CompareJobs
