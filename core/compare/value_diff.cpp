// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/value_diff.h"

#include "diff_kernels.h"

#include "core/compare/composed_values.h"

#include "core/format/mapped_file.h"
#include "core/quant/dequantize.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace gguf {
namespace {

// Pairs decoded at a time: two 8 KiB buffers per worker stay in L1 beside the data streaming in
// (gguf-bench diff on this VM, 2026-12-07: 4096 pairs 1.83× one decode of both, 2048 1.18–1.30×,
// 1024 1.44–1.46×, 512 1.74–1.82×; docs/COMPARE.md §3).
constexpr uint64_t kRun = 2048;
constexpr uint64_t kMaxChunk = uint64_t(1) << 20; // pairs per work unit
constexpr uint64_t kByteChunk = uint64_t(4) << 20;

// A chunk's lanes folded in lane order: what is merged, in chunk order.
struct Partial {
    uint64_t finite = 0, nonFinite = 0, differing = 0;
    double sqDiff = 0, absDiff = 0, absA = 0, ab = 0, sqA = 0, sqB = 0, maxAbs = 0;

    static Partial fold(const detail::DiffLanes &s)
    {
        Partial p;
        p.finite = s.finite;
        p.nonFinite = s.nonFinite;
        p.differing = s.differing;
        for (size_t l = 0; l < detail::DiffLanes::kLanes; ++l) {
            p.sqDiff += s.sqDiff[l];
            p.absDiff += s.absDiff[l];
            p.absA += s.absA[l];
            p.ab += s.ab[l];
            p.sqA += s.sqA[l];
            p.sqB += s.sqB[l];
            p.maxAbs = std::max(p.maxAbs, s.maxAbs[l]);
        }
        return p;
    }
    void mergeInto(ValueDiff &out) const
    {
        out.finitePairs += finite;
        out.nonFinitePairs += nonFinite;
        out.differing += differing;
        out.sumSqDiff += sqDiff;
        out.sumAbsDiff += absDiff;
        out.sumAbsA += absA;
        out.sumAB += ab;
        out.sumSqA += sqA;
        out.sumSqB += sqB;
        out.maxAbsDiff = std::max(out.maxAbsDiff, maxAbs);
    }
};

// The chunk size follows from the element count alone, so that the grouping of the additions (and
// so the sums' last bits) is the same on every machine: at least 64 chunks (four per worker of a
// 16-core machine) until chunks reach 2^20 pairs.
uint64_t chunkPairs(uint64_t elements)
{
    const uint64_t sixtyFourth = (elements / 64 + kRun - 1) / kRun * kRun;
    return std::clamp<uint64_t>(sixtyFourth, kRun, kMaxChunk);
}

uint64_t chunkCount(uint64_t elements)
{
    return (elements + chunkPairs(elements) - 1) / chunkPairs(elements);
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Both tensors decodable and of the same, non-zero element count.
StatsStatus checkPair(const TensorData &a, const TensorData &b)
{
    if (!canDequantize(a.typeId) || !canDequantize(b.typeId))
        return StatsStatus::Unsupported;
    if (a.elements != b.elements || a.elements == 0 || a.bytes.empty() || b.bytes.empty())
        return StatsStatus::NoData;
    return StatsStatus::Ok;
}

} // namespace

double ValueDiff::rmse() const
{
    return finitePairs == 0 ? kNaN : std::sqrt(sumSqDiff / static_cast<double>(finitePairs));
}

double ValueDiff::meanAbsRelative() const
{
    if (finitePairs == 0)
        return kNaN;
    if (sumAbsA == 0)
        return sumAbsDiff == 0 ? 0.0 : kInf;
    return sumAbsDiff / sumAbsA;
}

double ValueDiff::cosine() const
{
    if (finitePairs == 0)
        return kNaN;
    if (differing == 0 || (sumSqA == 0 && sumSqB == 0))
        return 1.0; // exactly, where the rounding of the formula could give 1 ± 2⁻⁵²
    if (sumSqA == 0 || sumSqB == 0)
        return kNaN;
    // the norms apart: Σa²·Σb² can overflow where each root does not
    return std::clamp(sumAB / (std::sqrt(sumSqA) * std::sqrt(sumSqB)), -1.0, 1.0);
}

double ValueDiff::snrDb() const
{
    if (finitePairs == 0)
        return kNaN;
    if (sumSqDiff == 0)
        return kInf;
    if (sumSqA == 0)
        return -kInf;
    return 10.0 * std::log10(sumSqA / sumSqDiff);
}

double ValueDiff::relativeL2() const
{
    if (finitePairs == 0)
        return kNaN;
    if (sumSqDiff == 0)
        return 0.0;
    if (sumSqA == 0)
        return kInf;
    return std::sqrt(sumSqDiff / sumSqA);
}

namespace {

// What a pass holds, watches and reports of one side: every piece's data (a plain tensor is a
// composed tensor of one piece, ComposedValues::of).
bool holdSide(const ComposedValues &c, uint64_t first, uint64_t last, std::vector<ElementHold> &holds)
{
    for (size_t i = 0; i < c.pieces.size(); ++i)
        for (const auto &[lo, hi] : c.sourceRanges(i, first, last)) {
            holds.emplace_back(c.pieces[i].data, lo, hi);
            if (!holds.back())
                return false;
        }
    return true;
}

ProgressFn watchSide(const ComposedValues &c, ProgressFn outer)
{
    for (const ComposedPiece &p : c.pieces)
        outer = watchedProgress(p.data, outer);
    return outer;
}

std::optional<StatsStatus> fetchSide(const ComposedValues &c)
{
    for (const ComposedPiece &p : c.pieces)
        if (const std::optional<StatsStatus> s = fetchStatus(p.data))
            return s;
    return std::nullopt;
}

// A pass over both tensors: chunk by chunk on the worker pool, each chunk decoded run by run into
// the worker's two buffers and handed to `run(chunk, worker, a, b, n)`, then `chunkDone(chunk,
// worker)`; the mapped pages of a chunk are released after it.
using RunFn = std::function<void(uint64_t chunk, unsigned worker, const float *a, const float *b, size_t n)>;
using ChunkDoneFn = std::function<void(uint64_t chunk, unsigned worker)>;

StatsStatus forEachRun(const ComposedValues &a, const ComposedValues &b, const ValueDiffOptions &options,
                       const RunFn &run, const ChunkDoneFn &chunkDone)
{
    const uint64_t elements = a.elements();
    const uint64_t chunk = chunkPairs(elements), chunks = chunkCount(elements);
    std::vector<std::vector<float>> buffers(2 * size_t(workerCount(options.threads, chunks)));
    std::atomic<bool> failed{false};
    const bool finished = runChunks(
        chunks, options.threads,
        [&](uint64_t c, unsigned worker) {
            std::vector<float> &bufA = buffers[2 * size_t(worker)], &bufB = buffers[2 * size_t(worker) + 1];
            bufA.resize(kRun);
            bufB.resize(kRun);
            const uint64_t first = c * chunk, last = std::min(elements, first + chunk);
            std::vector<ElementHold> holds; // remote chunks are fetched here
            if (!holdSide(a, first, last, holds) || !holdSide(b, first, last, holds))
                return;
            for (uint64_t at = first; at < last && !failed; at += kRun) {
                const size_t n = static_cast<size_t>(std::min(kRun, last - at));
                if (!a.decode(at, std::span(bufA.data(), n)) || !b.decode(at, std::span(bufB.data(), n))) {
                    failed = true;
                    return;
                }
                run(c, worker, bufA.data(), bufB.data(), n);
            }
            if (chunkDone)
                chunkDone(c, worker);
        },
        watchSide(b, watchSide(a, options.progress)));
    if (const std::optional<StatsStatus> fetch = fetchSide(a))
        return *fetch;
    if (const std::optional<StatsStatus> fetch = fetchSide(b))
        return *fetch;
    if (!finished)
        return StatsStatus::Cancelled;
    return failed ? StatsStatus::NoData : StatsStatus::Ok;
}

StatsStatus sumPairs(const ComposedValues &a, const ComposedValues &b, const ValueDiffOptions &options, ValueDiff &out)
{
    const uint64_t elements = a.elements();
    const uint64_t chunks = chunkCount(elements);
    std::vector<detail::DiffLanes> lanes(workerCount(options.threads, chunks)); // of the chunk a worker is on
    std::vector<Partial> partials(static_cast<size_t>(chunks));
    const StatsStatus status = forEachRun(
        a, b, options,
        [&](uint64_t, unsigned worker, const float *x, const float *y, size_t n) {
            detail::accumulateDiff(x, y, n, lanes[worker]);
        },
        [&](uint64_t c, unsigned worker) {
            partials[static_cast<size_t>(c)] = Partial::fold(lanes[worker]);
            lanes[worker] = detail::DiffLanes{};
        });
    if (status != StatsStatus::Ok)
        return status;
    for (const Partial &p : partials)
        p.mergeInto(out);
    out.elements = elements;
    return StatsStatus::Ok;
}

bool decodable(const ComposedValues &c)
{
    return !c.pieces.empty() && std::all_of(c.pieces.begin(), c.pieces.end(), [](const ComposedPiece &p) {
        return canDequantize(p.data.typeId) && !p.data.bytes.empty();
    });
}

} // namespace

StatsStatus compareValues(const TensorData &a, const TensorData &b, const ValueDiffOptions &options, ValueDiff &out)
{
    out = ValueDiff{};
    if (const StatsStatus s = checkPair(a, b); s != StatsStatus::Ok)
        return s;
    return sumPairs(ComposedValues::of(a), ComposedValues::of(b), options, out);
}

StatsStatus compareValues(const ComposedValues &a, const ComposedValues &b, const ValueDiffOptions &options,
                          ValueDiff &out)
{
    out = ValueDiff{};
    if (!decodable(a) || !decodable(b))
        return StatsStatus::Unsupported;
    if (a.elements() != b.elements() || a.elements() == 0)
        return StatsStatus::NoData;
    return sumPairs(a, b, options, out);
}

StatsStatus computeDiffHistogram(const TensorData &a, const TensorData &b, double lo, double hi, uint32_t bins,
                                 const ValueDiffOptions &options, Histogram &out)
{
    out = Histogram{};
    if (const StatsStatus s = checkPair(a, b); s != StatsStatus::Ok)
        return s;
    return computeDiffHistogram(ComposedValues::of(a), ComposedValues::of(b), lo, hi, bins, options, out);
}

StatsStatus computeDiffHistogram(const ComposedValues &a, const ComposedValues &b, double lo, double hi, uint32_t bins,
                                 const ValueDiffOptions &options, Histogram &out)
{
    out = Histogram{};
    if (!decodable(a) || !decodable(b))
        return StatsStatus::Unsupported;
    if (a.elements() != b.elements() || a.elements() == 0)
        return StatsStatus::NoData;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi) || bins == 0 || bins > 65536)
        return StatsStatus::NoData;
    struct Counts {
        std::vector<uint64_t> bins;
        uint64_t below = 0, above = 0;
    };
    std::vector<Counts> perWorker(workerCount(options.threads, chunkCount(a.elements())));
    const StatsStatus status = forEachRun(a, b, options,
                                          [&](uint64_t, unsigned worker, const float *x, const float *y, size_t n) {
                                              Counts &w = perWorker[worker];
                                              w.bins.resize(bins);
                                              for (size_t j = 0; j < n; ++j) {
                                                  if (!std::isfinite(x[j]) || !std::isfinite(y[j]))
                                                      continue;
                                                  const double d = double(x[j]) - double(y[j]);
                                                  if (d < lo)
                                                      ++w.below;
                                                  else if (d > hi)
                                                      ++w.above;
                                                  else
                                                      ++w.bins[histogramBin(d, lo, hi, bins)];
                                              }
                                          },
                                          {});
    if (status != StatsStatus::Ok)
        return status;
    out.lo = lo;
    out.hi = hi;
    out.counts.assign(bins, 0);
    for (const Counts &w : perWorker) {
        for (size_t i = 0; i < w.bins.size(); ++i)
            out.counts[i] += w.bins[i];
        out.below += w.below;
        out.above += w.above;
    }
    return StatsStatus::Ok;
}

StatsStatus computeDiffHeatmap(const TensorData &a, const TensorData &b, uint64_t tensorCols,
                               const HeatmapOptions &options, Heatmap &out)
{
    out = Heatmap{};
    if (const StatsStatus s = checkPair(a, b); s != StatsStatus::Ok)
        return s;
    return computeDiffHeatmap(ComposedValues::of(a), ComposedValues::of(b), tensorCols, options, out);
}

StatsStatus computeDiffHeatmap(const ComposedValues &a, const ComposedValues &b, uint64_t cols,
                               const HeatmapOptions &options, Heatmap &out)
{
    out = Heatmap{};
    if (!decodable(a) || !decodable(b))
        return StatsStatus::Unsupported;
    const uint64_t elements = a.elements();
    if (elements != b.elements() || elements == 0 || cols == 0 || elements % cols != 0)
        return StatsStatus::NoData;
    HeatmapOptions watched = options;
    watched.progress = watchSide(b, watchSide(a, options.progress));
    const StatsStatus status = reduceToHeatmap(
        elements / cols, cols,
        [&](uint64_t y, std::span<float> row) {
            thread_local std::vector<float> other;
            other.resize(row.size());
            if (!a.decode(y * cols, row) || !b.decode(y * cols, other))
                return false;
            for (size_t x = 0; x < row.size(); ++x) // a non-finite side gives a non-finite difference
                row[x] = static_cast<float>(double(row[x]) - double(other[x]));
            return true;
        },
        watched, out,
        [&](uint64_t first, uint64_t last) {
            std::vector<ElementHold> holds;
            if (!holdSide(a, first * cols, last * cols, holds) || !holdSide(b, first * cols, last * cols, holds))
                holds.clear();
            return holds;
        });
    if (const std::optional<StatsStatus> fetch = fetchSide(a))
        return *fetch;
    if (const std::optional<StatsStatus> fetch = fetchSide(b))
        return *fetch;
    return status;
}

StatsStatus commonRangeHistograms(const ComposedValues &a, const ComposedValues &b, uint32_t bins,
                                  const ValueDiffOptions &options, Histogram &outA, Histogram &outB)
{
    outA = outB = Histogram{};
    if (!decodable(a) || !decodable(b))
        return StatsStatus::Unsupported;
    if (a.elements() != b.elements() || a.elements() == 0 || bins == 0 || bins > 65536)
        return StatsStatus::NoData;
    // pass 1: the range of both sides' finite values; pass 2: each side's counts over it
    const unsigned workers = workerCount(options.threads, chunkCount(a.elements()));
    std::vector<std::pair<float, float>> ranges(
        workers, {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()});
    ValueDiffOptions first = options, second = options;
    first.progress = progressPart(options.progress, 0, 1, 2);
    second.progress = progressPart(options.progress, 1, 1, 2);
    StatsStatus status = forEachRun(a, b, first,
                                    [&](uint64_t, unsigned worker, const float *x, const float *y, size_t n) {
                                        auto &[lo, hi] = ranges[worker];
                                        for (const float *side : {x, y})
                                            for (size_t j = 0; j < n; ++j)
                                                if (std::isfinite(side[j])) {
                                                    lo = std::min(lo, side[j]);
                                                    hi = std::max(hi, side[j]);
                                                }
                                    },
                                    {});
    if (status != StatsStatus::Ok)
        return status;
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const auto &[l, h] : ranges) {
        lo = std::min(lo, l);
        hi = std::max(hi, h);
    }
    if (!(lo <= hi))
        return StatsStatus::NoData; // no finite value on either side
    // a constant: the one unit around it, as NumPy bins it
    const double rangeLo = lo < hi ? double(lo) : double(lo) - 0.5, rangeHi = lo < hi ? double(hi) : double(hi) + 0.5;
    std::vector<std::vector<uint64_t>> counts(2 * size_t(workers), std::vector<uint64_t>(bins, 0));
    status = forEachRun(a, b, second,
                        [&](uint64_t, unsigned worker, const float *x, const float *y, size_t n) {
                            for (int side = 0; side < 2; ++side) {
                                std::vector<uint64_t> &c = counts[2 * size_t(worker) + size_t(side)];
                                const float *v = side == 0 ? x : y;
                                for (size_t j = 0; j < n; ++j)
                                    if (std::isfinite(v[j]))
                                        ++c[histogramBin(v[j], rangeLo, rangeHi, bins)];
                            }
                        },
                        {});
    if (status != StatsStatus::Ok)
        return status;
    for (Histogram *h : {&outA, &outB}) {
        h->lo = rangeLo;
        h->hi = rangeHi;
        h->counts.assign(bins, 0);
    }
    for (unsigned w = 0; w < workers; ++w)
        for (uint32_t i = 0; i < bins; ++i) {
            outA.counts[i] += counts[2 * size_t(w)][i];
            outB.counts[i] += counts[2 * size_t(w) + 1][i];
        }
    return StatsStatus::Ok;
}

std::optional<bool> sameBytes(const TensorData &a, const TensorData &b, const ValueDiffOptions &options)
{
    if (a.bytes.size() != b.bytes.size())
        return false;
    if (a.bytes.data() == b.bytes.data())
        return true;
    const uint64_t size = a.bytes.size();
    const uint64_t byteChunks = (size + kByteChunk - 1) / kByteChunk;
    std::atomic<bool> differ{false};
    const bool finished = runChunks(
        byteChunks, options.threads,
        [&](uint64_t c, unsigned) {
            if (differ.load(std::memory_order_relaxed))
                return;
            const uint64_t at = c * kByteChunk, n = std::min(kByteChunk, size - at);
            const ElementHold holdA = ElementHold::ofBytes(a, at, at + n), holdB = ElementHold::ofBytes(b, at, at + n);
            if (holdA && holdB && std::memcmp(a.bytes.data() + at, b.bytes.data() + at, static_cast<size_t>(n)) != 0)
                differ = true;
        },
        [&, watched = watchedProgress(b, watchedProgress(a, options.progress))](uint64_t done, uint64_t total) {
            // decided: no need to read on (and no cancel of the data: compareValues reads it next)
            return !differ && (!watched || watched(done, total));
        });
    if (differ)
        return false;
    if (!finished || readError(a, b))
        return std::nullopt;
    return true;
}

} // namespace gguf
