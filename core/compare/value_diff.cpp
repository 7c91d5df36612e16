// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/value_diff.h"

#include "diff_kernels.h"

#include "core/format/mapped_file.h"
#include "core/quant/dequantize.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace gguf {
namespace {

constexpr uint64_t kRun = 4096;                   // pairs decoded at a time (two 16 KiB buffers per worker)
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

uint64_t chunkPairs(uint64_t elements, unsigned threads)
{
    // at least four chunks per worker, so that a mid-size tensor keeps every core busy
    const uint64_t workers = workerCount(threads, std::numeric_limits<uint64_t>::max());
    const uint64_t perWorker = (elements / (4 * workers) + kRun - 1) / kRun * kRun;
    return std::clamp<uint64_t>(perWorker, kRun, kMaxChunk);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

double ValueDiff::rmse() const
{
    return finitePairs == 0 ? 0.0 : std::sqrt(sumSqDiff / static_cast<double>(finitePairs));
}

double ValueDiff::meanAbsRelative() const
{
    if (sumAbsA == 0)
        return sumAbsDiff == 0 ? 0.0 : kInf;
    return sumAbsDiff / sumAbsA;
}

double ValueDiff::cosine() const
{
    if (sumSqA == 0 && sumSqB == 0)
        return 1.0;
    if (sumSqA == 0 || sumSqB == 0)
        return std::numeric_limits<double>::quiet_NaN();
    // the norms apart: Σa²·Σb² can overflow where each root does not
    return sumAB / (std::sqrt(sumSqA) * std::sqrt(sumSqB));
}

double ValueDiff::snrDb() const
{
    if (sumSqDiff == 0)
        return kInf;
    if (sumSqA == 0)
        return -kInf;
    return 10.0 * std::log10(sumSqA / sumSqDiff);
}

double ValueDiff::relativeL2() const
{
    if (sumSqDiff == 0)
        return 0.0;
    if (sumSqA == 0)
        return kInf;
    return std::sqrt(sumSqDiff / sumSqA);
}

StatsStatus compareValues(const TensorData &a, const TensorData &b, const ValueDiffOptions &options, ValueDiff &out)
{
    out = ValueDiff{};
    if (!canDequantize(a.typeId) || !canDequantize(b.typeId))
        return StatsStatus::Unsupported;
    if (a.elements != b.elements || a.bytes.empty() || b.bytes.empty())
        return StatsStatus::NoData;
    out.elements = a.elements;
    const uint64_t chunk = chunkPairs(a.elements, options.threads);
    const uint64_t chunkCount = (a.elements + chunk - 1) / chunk;
    const unsigned workers = workerCount(options.threads, chunkCount);
    std::vector<std::vector<float>> buffers(2 * size_t(workers));
    std::vector<Partial> partials(static_cast<size_t>(chunkCount));
    std::atomic<bool> failed{false};
    const bool finished = runChunks(
        chunkCount, options.threads,
        [&](uint64_t c, unsigned worker) {
            std::vector<float> &bufA = buffers[2 * size_t(worker)], &bufB = buffers[2 * size_t(worker) + 1];
            bufA.resize(kRun);
            bufB.resize(kRun);
            const uint64_t first = c * chunk, last = std::min(a.elements, first + chunk);
            detail::DiffLanes lanes;
            for (uint64_t at = first; at < last && !failed; at += kRun) {
                const size_t n = static_cast<size_t>(std::min(kRun, last - at));
                if (!dequantizeRange(a.typeId, a.bytes, a.elements, at, std::span(bufA.data(), n), a.swapBytes) ||
                    !dequantizeRange(b.typeId, b.bytes, b.elements, at, std::span(bufB.data(), n), b.swapBytes)) {
                    failed = true;
                    return;
                }
                detail::accumulateDiff(bufA.data(), bufB.data(), n, lanes);
            }
            partials[static_cast<size_t>(c)] = Partial::fold(lanes);
            releaseElements(a, first, last);
            releaseElements(b, first, last);
        },
        options.progress);
    if (!finished)
        return StatsStatus::Cancelled;
    if (failed)
        return StatsStatus::NoData;
    for (const Partial &p : partials)
        p.mergeInto(out);
    return StatsStatus::Ok;
}

std::optional<bool> sameBytes(const TensorData &a, const TensorData &b, const ValueDiffOptions &options)
{
    if (a.bytes.size() != b.bytes.size())
        return false;
    if (a.bytes.data() == b.bytes.data())
        return true;
    const uint64_t size = a.bytes.size();
    const uint64_t chunkCount = (size + kByteChunk - 1) / kByteChunk;
    std::atomic<bool> differ{false};
    const bool finished = runChunks(
        chunkCount, options.threads,
        [&](uint64_t c, unsigned) {
            if (differ.load(std::memory_order_relaxed))
                return;
            const uint64_t at = c * kByteChunk, n = std::min(kByteChunk, size - at);
            if (std::memcmp(a.bytes.data() + at, b.bytes.data() + at, static_cast<size_t>(n)) != 0)
                differ = true;
            for (const TensorData *t : {&a, &b})
                if (t->mapping) {
                    const uint64_t base = static_cast<uint64_t>(t->bytes.data() - t->mapping->data());
                    t->mapping->releasePages(base + at, n);
                }
        },
        [&](uint64_t done, uint64_t total) {
            if (differ)
                return false; // decided: no need to read on
            return !options.progress || options.progress(done, total);
        });
    if (differ)
        return false;
    if (!finished)
        return std::nullopt;
    return true;
}

} // namespace gguf
