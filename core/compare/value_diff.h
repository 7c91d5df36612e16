// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/heatmap.h"
#include "core/stats/tensor_stats.h"

#include <cstdint>
#include <limits>

namespace gguf {

/// The six error measures of a pair (docs/COMPARE.md §3).
struct DiffMeasures {
    double rmse = 0, maxAbs = 0, meanAbsRelative = 0, cosine = 1, snrDb = 0, relativeL2 = 0;
    /// Of two tensors with the same bytes: no error, cosine 1, an infinite SNR.
    static DiffMeasures identical() { return {0, 0, 0, 1, std::numeric_limits<double>::infinity(), 0}; }
};

/// Sums over the element pairs (a, b) of two tensors of the same element count, and the error
/// measures made from them. Every sum is taken in double precision from the float32 values
/// (d = a − b in double), over the pairs where both values are finite; a pair with a NaN or an
/// infinity is counted in nonFinitePairs instead (and in differing unless both sides hold the
/// same: the same infinity, or NaN and NaN).
struct ValueDiff {
    uint64_t elements = 0;
    uint64_t finitePairs = 0;
    uint64_t nonFinitePairs = 0;
    uint64_t differing = 0; ///< pairs with a ≠ b (so -0 and +0 are equal here)
    double sumSqDiff = 0;   ///< Σ (a − b)²
    double sumAbsDiff = 0;  ///< Σ |a − b|
    double sumAbsA = 0;     ///< Σ |a|
    double sumAB = 0;       ///< Σ a·b
    double sumSqA = 0;      ///< Σ a²
    double sumSqB = 0;      ///< Σ b²
    double maxAbsDiff = 0;  ///< max |a − b|

    // Every measure is NaN (undefined) when there is no finite pair.
    /// √(Σ(a − b)² / n).
    double rmse() const;
    /// Σ|a − b| / Σ|a| (= mean |a − b| / mean |a|); 0 when both sums are 0, +inf when only Σ|a| is.
    double meanAbsRelative() const;
    /// Σab / √(Σa² · Σb²) clamped to [-1, 1]; exactly 1 when every pair is equal (or both are all
    /// zeros), NaN when only one tensor is all zeros.
    double cosine() const;
    /// 10 · log10(Σa² / Σ(a − b)²); +inf when a = b everywhere, -inf when a is all zeros and b is not.
    double snrDb() const;
    /// ‖a − b‖ / ‖a‖ = √(Σ(a − b)² / Σa²); 0 when a = b everywhere, +inf when ‖a‖ = 0 < ‖a − b‖.
    double relativeL2() const;
    /// The six measures above, together.
    DiffMeasures measures() const { return {rmse(), maxAbsDiff, meanAbsRelative(), cosine(), snrDb(), relativeL2()}; }
    /// Every pair equal (a = b, or the same non-finite value).
    bool sameValues() const { return differing == 0; }
};

struct ValueDiffOptions {
    unsigned threads = 0; ///< 0: every core
    ProgressFn progress;  ///< (chunks done, chunks total); false cancels
};

/// Decodes `a` and `b` chunk by chunk on several threads into small per-thread buffers (memory
/// independent of the tensor size) and sums the pairs. Chunks are sized by the element count
/// alone and their partial sums merged in chunk order, so the result does not depend on the
/// thread count or the machine's SIMD level, bit for bit. Both must have the
/// same element count (NoData otherwise, and when either has no bytes); Unsupported when a type
/// cannot be decoded.
StatsStatus compareValues(const TensorData &a, const TensorData &b, const ValueDiffOptions &options, ValueDiff &out);

/// The histogram of d = a − b (in double, as the measures take it) over [lo, hi] split into `bins`
/// equal bins (histogramBin; hi > lo, 1 ≤ bins ≤ 65536); finite differences outside the range are
/// counted in below/above, pairs with a non-finite side are left out. Same element counts needed.
StatsStatus computeDiffHistogram(const TensorData &a, const TensorData &b, double lo, double hi, uint32_t bins,
                                 const ValueDiffOptions &options, Histogram &out);

/// A heatmap of a − b (tensorCols = ne[0] columns): per tile the mean of a − b, the mean and max
/// of |a − b| and the std of a − b (Heatmap's mean, meanAbs, maxAbs, std), pairs with a non-finite
/// side left out. The difference of each pair is rounded to float before it is reduced.
StatsStatus computeDiffHeatmap(const TensorData &a, const TensorData &b, uint64_t tensorCols,
                               const HeatmapOptions &options, Heatmap &out);

/// True when the two byte ranges are equal, compared chunk by chunk on several threads (stops at
/// the first difference). nullopt when cancelled, or when a remote chunk could not be fetched
/// (readError says why).
std::optional<bool> sameBytes(const TensorData &a, const TensorData &b, const ValueDiffOptions &options);

} // namespace gguf
