// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/tensor_data.h"
#include "core/util/parallel_chunks.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace gguf {

struct StatsOptions {
    uint32_t bins = 64;                             ///< histogram bins (1–65536)
    std::optional<std::pair<double, double>> range; ///< histogram range; automatic [min, max] when unset
    unsigned threads = 0;                           ///< 0: every core
    /// Work unit in elements (rounded to 256); 0: automatic (statsChunkElements)
    uint64_t chunkElements = 0;
    ProgressFn progress; ///< (chunks done, chunks total); false cancels
    /// Tensors up to this many elements have every value's key counted (percentiles within one key
    /// bucket); larger ones count a random sample of one value in keySampleStride() consecutive ones.
    uint64_t exactKeyElements = uint64_t(1) << 24;
    /// Sampled tensors of Q8_0, Q4_0, Q5_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and IQ4_XS are reduced from their integer
    /// codes, without decoding every value, and those of F32, F16 and BF16 are scanned in place, without a decode
    /// buffer (same results; off only to compare with the float path).
    bool fused = true;
    /// 0: read every value. Else, when the tensor's data is larger, read only evenly spaced runs of
    /// whole blocks, about this many bytes in all (sampleRuns: for a remote file, whole blocks of its
    /// cache, so only those are fetched); every figure is then of the values read.
    uint64_t sampleBytes = 0;
};

/// The chunk size the statistics passes use for `data`: options.chunkElements when set, else 4 MiB
/// of the tensor's data in whole pieces of 16,384 elements, or less to give each worker at least
/// four chunks, but never under 2^20 elements. Each chunk's mapped
/// pages are released in one call, which interrupts the other workers to flush their TLBs; 4 MiB chunks keep that cost
/// small (for Q4_K, 256 calls per GiB instead of 1,820 with chunks of 2^20 elements) while a worker holds at most 4 MiB
/// of the mapping, as an F32 tensor did before.
uint64_t statsChunkElements(const TensorData &data, const StatsOptions &options);

/// The largest sampling stride of the key histogram (see StatsOptions::exactKeyElements).
inline constexpr uint32_t kMaxKeySampleStride = 256;

/// The power of two s ≤ kMaxKeySampleStride, smallest with elements ≤ exactKeyElements · s; so a
/// sampled tensor has at least exactKeyElements / 2 sampled values (tensors of up to 2^32 elements
/// with the default), or elements / 256.
uint32_t keySampleStride(uint64_t elements, uint64_t exactKeyElements);

/// The percentiles reported, in percent.
inline constexpr std::array<double, 7> kPercentileLevels{1, 5, 25, 50, 75, 95, 99};

struct Histogram {
    double lo = 0, hi = 0; ///< bins split [lo, hi] evenly; the last bin includes hi
    std::vector<uint64_t> counts;
    uint64_t below = 0, above = 0; ///< finite values outside [lo, hi] (chosen range only)
    bool exact = true;             ///< false: binned from the 16-bit key histogram (see README)
};

/// Statistics of one tensor. NaN and ±Inf are counted and left out of min/max/mean/std,
/// percentiles and the histogram.
struct TensorStatistics {
    uint64_t count = 0; ///< all elements
    /// 0: every value was read. Else the values read (StatsOptions::sampleBytes): finite, zeros, NaN,
    /// ±Inf, min, max, mean, std, percentiles and histogram are of these, so all are estimates.
    uint64_t sampledElements = 0;
    uint64_t finite = 0;
    double min = 0, max = 0, mean = 0, std = 0; ///< of the finite values (population std)
    uint64_t zeros = 0, nan = 0, posInf = 0, negInf = 0;
    std::array<double, kPercentileLevels.size()> percentiles{};
    /// Bound on |estimate − true percentile| from the key bucketing: the width of the 16-bit key
    /// bucket that held it. When keys were sampled, add percentileRankError.
    std::array<double, kPercentileLevels.size()> percentileError{};
    uint32_t keySampleStride = 1; ///< 1: every finite value's key was counted; s: one in s values
    uint64_t keysCounted = 0;     ///< keys counted (the finite values, or the sample)
    /// When sampled (keySampleStride > 1): with probability ≥ 1 − 10⁻⁶, the estimate of percentile p
    /// lies between the true percentiles p − e and p + e (e in percentage points), widened by
    /// percentileError. 0 when every key was counted.
    double percentileRankError = 0;
    /// True after refineStatistics: the percentiles are exact (NumPy's default definition,
    /// docs/FORMAT.md §9).
    bool percentilesExact = false;
    Histogram histogram;
};

/// Computes the statistics in one streaming pass: the tensor is decoded chunk by chunk on several
/// threads into small per-thread buffers (memory independent of the tensor size), and per-chunk
/// partial results are merged in chunk order, so the result does not depend on the thread count.
/// Exact: count, min, max, mean, std (per-chunk two-pass, Chan's merge), zeros, NaN, ±Inf, and the
/// histogram when a range is given. Estimated: percentiles (and the automatic-range histogram)
/// from a count of each value's upper 16 bits (sign, exponent, 7 mantissa bits) — of every finite
/// value, or of a random sample of one in keySampleStride() values for large tensors.
StatsStatus computeStatistics(const TensorData &data, const StatsOptions &options, TensorStatistics &out);

/// Makes the estimates of computeStatistics exact (the window and `gguf-inspect stats` call it
/// after the first pass; `stats` must be what computeStatistics gave for the same data and options).
/// Without options.range, the histogram is counted again over [min, max] of the finite values (a
/// constant tensor: [v - 0.5, v + 0.5], as NumPy does) by histogramBin's rule. The percentiles
/// become exact by NumPy's default definition (np.percentile, method "linear": between the two
/// closest ranks of the sorted finite values; docs/FORMAT.md §9). F16 and BF16 take one more pass,
/// counting every bit pattern; other types two, over the decoded values: every value counted by
/// its upper 16 bits, split where its key straddles a bin edge, then the lower 16 bits of the
/// values whose key holds a wanted rank (docs/FORMAT.md §9, "How the exact figures are found").
/// Progress runs over the passes; memory stays bounded (a few 64 Ki-entry count tables per thread).
/// Unsupported for statistics of a sample (sampledElements > 0).
StatsStatus refineStatistics(const TensorData &data, const StatsOptions &options, TensorStatistics &stats);

/// The bin of a finite x in a histogram of `bins` bins over [lo, hi]: floor((x - lo) / (hi - lo) *
/// bins), the last bin closed (x = hi falls in bin bins - 1). x must lie in [lo, hi], hi > lo.
inline uint32_t histogramBin(double x, double lo, double hi, uint32_t bins)
{
    const double t = std::floor((x - lo) / (hi - lo) * static_cast<double>(bins));
    return t >= 1.0 ? static_cast<uint32_t>(std::min(t, static_cast<double>(bins - 1))) : 0; // NaN: bin 0
}

} // namespace gguf
