// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/compare/metadata_diff.h"
#include "core/compare/tensor_diff.h"
#include "core/compare/tokenizer_diff.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_series.h"
#include "ui/common/tensor_handle.h"

#include <QString>

#include <memory>
#include <vector>

namespace gguf {
class SplitModel;
}

/// The computations behind the Compare page, each run on a worker (JobTracker) with the core's
/// ProgressFn; they stop when it returns false.
namespace CompareJobs {

/// What the page shows first: the metadata, tokenizer and tensor-index differences.
struct Overview {
    gguf::MetadataDiff metadata;
    gguf::TokenizerDiff tokenizer;
    std::vector<gguf::TensorPair> tensors;
};
Overview overview(const gguf::SplitModel &a, const gguf::SplitModel &b);

/// The value comparison of some pairs, in order.
struct ValueBatch {
    bool complete = false; ///< false when cancelled (the job runner then drops the batch)
    std::vector<int> rows; ///< the rows of the pairs compared
    std::vector<gguf::TensorPair> pairs;
};
/// Compares `pairs` (rows `rows` of the page's table) one after the other; progress runs over the
/// bytes of every pair of the whole comparison: `before` of `total` were done before this batch.
ValueBatch compareValues(const std::shared_ptr<const gguf::SplitModel> &a,
                         const std::shared_ptr<const gguf::SplitModel> &b, std::vector<int> rows,
                         std::vector<gguf::TensorPair> pairs, uint64_t before, uint64_t total,
                         const gguf::ProgressFn &progress);
/// The bytes both sides of a pair hold (what comparing it reads).
uint64_t pairBytes(const gguf::TensorPair &pair);

/// One pair in detail: both tensors' histograms over one common range, the histogram of a − b and
/// a heatmap of |a − b| by tiles.
struct PairDetail {
    bool complete = false;
    gguf::CommonRangeHistograms histograms; ///< series 0: A, 1: B
    gguf::StatsStatus differenceStatus = gguf::StatsStatus::NoData;
    gguf::Histogram difference;
    gguf::StatsStatus heatmapStatus = gguf::StatsStatus::NoData;
    gguf::Heatmap heatmap;
    QString differenceError, heatmapError; ///< why a remote tensor's bytes could not be fetched
};
PairDetail pairDetail(const TensorHandle &a, const TensorHandle &b, double maxAbsDifference, uint32_t bins,
                      uint32_t gridCells, const gguf::ProgressFn &progress);

} // namespace CompareJobs
