// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/stats/tensor_stats.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"
#include "core/util/byte_order.h"
#include "core/util/cpu_features.h"
#include "core/util/float_convert.h"
#include "key_counts.h"
#include "sampled_keys.h"
#include "stats_fused.h"
#include "stats_scan.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>

namespace gguf {
namespace {

using namespace detail::scan;
using namespace keys;

struct Worker {
    std::vector<float> storage; // the decode buffer, over-allocated so that it can start on a cache line
    float *buffer = nullptr;
    // kKeyCopies 32-bit counters per key (key-major), flushed into `flushed` before one could overflow
    std::unique_ptr<uint32_t[], FreeDeleter> keyCopies = zeroedArray<uint32_t>(kKeyCount * kKeyCopies);
    KeySpan counted;                                  // keys counted in keyCopies since the last flush
    uint64_t sinceFlush = 0;                          // elements counted in keyCopies since the last flush
    std::unique_ptr<uint64_t[], FreeDeleter> flushed; // only for more than 2^32 elements
    KeySpan flushedSpan;
    uint64_t keysCounted = 0;              // values whose key was counted (all, or the sampled ones)
    std::vector<uint32_t> samplePositions; // the fused path's sampled elements of a piece
    std::vector<float> sampleValues;
    std::vector<uint16_t> sampleKeys; // the in-place path's sampled keys of a piece
    // the extremes of the values this worker's code reductions have seen (they skip the blocks
    // that cannot reach past them)
    std::pair<float, float> seen{std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
    std::vector<uint64_t> bins; // chosen-range histogram
    uint64_t below = 0, above = 0;

    uint64_t countOf(uint32_t key) const
    {
        const uint32_t *c = keyCopies.get() + key * kKeyCopies;
        return uint64_t{c[0]} + c[1] + c[2] + c[3];
    }
    void flushKeys()
    {
        if (!flushed)
            flushed = zeroedArray<uint64_t>(kKeyCount);
        counted.forEachKey([&](uint32_t k) {
            flushed[k] += countOf(k);
            std::fill_n(keyCopies.get() + k * kKeyCopies, kKeyCopies, 0u);
        });
        flushedSpan.cover(counted);
        counted = {};
        sinceFlush = 0;
    }
};
static_assert(kKeyCopies == 4, "countOf adds four copies");

// Counts the 16-bit keys of a piece starting at element `first` of the tensor: every finite value
// when stride is 1, else the sample of forEachSample. Returns how many keys were counted.
uint64_t countKeys(const float *v, size_t n, uint64_t first, uint32_t stride, bool allFinite, uint32_t *keyCopies)
{
    uint64_t counted = 0;
    const auto count = [&](size_t i, size_t copy) {
        const uint32_t bits = bitsOf(v[i]);
        if (!allFinite && (bits & 0x7f800000u) == 0x7f800000u)
            return;
        ++keyCopies[(bits >> 16) * kKeyCopies + copy % kKeyCopies];
        ++counted;
    };
    if (stride == 1) {
        for (size_t i = 0; i < n; ++i)
            count(i, i);
    } else {
        forEachSample(first, n, stride, count);
    }
    return counted;
}

// The careful path for a piece holding NaN or infinities: classify every value.
Partial scanNonFinite(const float *v, size_t n)
{
    Partial p;
    float mn = std::numeric_limits<float>::infinity(), mx = -std::numeric_limits<float>::infinity();
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
        const float x = v[i];
        const uint32_t bits = bitsOf(x);
        if ((bits & 0x7f800000u) == 0x7f800000u) {
            if (bits & 0x007fffffu)
                ++p.nan;
            else if (bits >> 31)
                ++p.negInf;
            else
                ++p.posInf;
            continue;
        }
        ++p.finite;
        p.zeros += x == 0.0f;
        mn = std::min(mn, x);
        mx = std::max(mx, x);
        sum += x;
    }
    if (p.finite == 0)
        return p;
    p.min = mn;
    p.max = mx;
    p.mean = sum / static_cast<double>(p.finite);
    for (size_t i = 0; i < n; ++i) {
        if (std::isfinite(v[i])) {
            const double d = v[i] - p.mean;
            p.m2 += d * d;
        }
    }
    return p;
}

// The chosen-range histogram of the finite values of a piece (bins as histogramBin), without
// data-dependent branches.
void binRange(const float *v, size_t n, Worker &w, double lo, double hi)
{
    const auto nb = static_cast<uint32_t>(w.bins.size());
    uint64_t below = 0, above = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = v[i];
        const bool finite = std::isfinite(x);
        const bool isBelow = finite && x < lo;
        const bool isAbove = finite && x > hi;
        const bool inside = finite && !isBelow && !isAbove;
        below += isBelow;
        above += isAbove;
        // outside values add 0 to bin 0
        w.bins[histogramBin(inside ? x : lo, lo, hi, nb)] += inside;
    }
    w.below += below;
    w.above += above;
}

// Accumulates a piece of whole blocks of a fused type (see stats_fused.h) without decoding it;
// false when a block needs the float path.
bool scanFusedPiece(const TensorData &data, uint64_t first, size_t n, uint32_t stride, Worker &w, Partial &p)
{
    const TypeTraits &t = typeTraits(data.typeId);
    const uint64_t begin = first / t.blockSize * t.typeSize, size = n / t.blockSize * t.typeSize;
    if (begin > data.bytes.size() || size > data.bytes.size() - begin)
        return false; // the float path reports the missing data
    samplePositions(first, n, stride, w.samplePositions);
    w.sampleValues.resize(w.samplePositions.size());
    detail::FusedResult r;
    if (!detail::fusedScan(data.typeId, data.bytes.data() + begin, n / t.blockSize, data.bytes, w.samplePositions,
                           w.sampleValues.data(), w.seen, r))
        return false;
    if (w.sinceFlush + n > std::numeric_limits<uint32_t>::max())
        w.flushKeys();
    w.sinceFlush += n;
    // every value is finite: the scales are
    for (size_t s = 0; s < w.sampleValues.size(); ++s)
        ++w.keyCopies[(bitsOf(w.sampleValues[s]) >> 16) * kKeyCopies + s % kKeyCopies];
    w.keysCounted += w.sampleValues.size();
    p = Partial{};
    p.finite = r.count;
    p.zeros = r.zeros;
    if (r.count > 0) {
        p.min = r.min;
        p.max = r.max;
        p.mean = r.mean;
        p.m2 = r.m2;
        w.counted.coverValues(r.min, r.max);
        w.seen = {r.min, r.max};
    }
    return true;
}

// The source of a type whose values are scanned in place, without a decode buffer.
std::optional<Source> directSource(uint32_t typeId)
{
    switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::F32: return Source::Floats;
    case GgmlType::F16: return Source::Halves;
    case GgmlType::BF16: return Source::BrainHalves;
    default: return std::nullopt;
    }
}

// Accumulates a piece (elements [first, first + n)) of an F32, F16 or BF16 tensor read in place,
// with its sampled keys, exactly as scanPiece would from the decoded floats; false when the piece
// holds a NaN or an infinity, or is not inside the data (the float path handles both).
template <Source S>
bool scanDirectPiece(const TensorData &data, uint64_t first, size_t n, uint32_t stride, Worker &w, Partial &p)
{
    const uint64_t width = S == Source::Floats ? 4 : 2;
    const uint64_t available = data.bytes.size() / width;
    if (first > available || n > available - first)
        return false;
    const uint8_t *v = data.bytes.data() + first * width;
    SampledKeys<S> sample(v, first, n, static_cast<size_t>(available - first), stride, w.sampleKeys);
    const std::optional<Partial> finite =
        scanFinitePiece<S, true>(v, n, [&](size_t at, size_t count) { sample.collectKeys(at, count); });
    if (!finite)
        return false;
    p = *finite;
    if (w.sinceFlush + n > std::numeric_limits<uint32_t>::max())
        w.flushKeys();
    w.sinceFlush += n;
    w.keysCounted += sample.count(w.keyCopies.get());
    if (p.finite > 0)
        w.counted.coverValues(static_cast<float>(p.min), static_cast<float>(p.max));
    return true;
}

bool scanDirectPiece(Source source, const TensorData &data, uint64_t first, size_t n, uint32_t stride, Worker &w,
                     Partial &p)
{
    switch (source) {
    case Source::Floats: return scanDirectPiece<Source::Floats>(data, first, n, stride, w, p);
    case Source::Halves: return scanDirectPiece<Source::Halves>(data, first, n, stride, w, p);
    case Source::BrainHalves: return scanDirectPiece<Source::BrainHalves>(data, first, n, stride, w, p);
    }
    return false;
}

// `data` cut after element `last` (rounded up to whole blocks) when only that much is held (a
// remote tensor); `data` itself when every byte is readable.
TensorData heldPart(const TensorData &data, uint64_t last)
{
    TensorData part = data;
    if (data.chunked)
        part.bytes = data.bytes.first(static_cast<size_t>(bytesOfElements(data, 0, last).second));
    return part;
}

// Accumulates one decoded piece (elements [first, first + n) of the tensor): counts, min/max,
// mean/M2, the key histogram and the chosen-range histogram.
template <typename Decode>
Partial scanPiece(const float *v, size_t n, uint64_t first, Worker &w, const StatsOptions &opt, uint32_t stride,
                  double lo, Decode decode)
{
    if (w.sinceFlush + n > std::numeric_limits<uint32_t>::max())
        w.flushKeys();
    w.sinceFlush += n;
    const std::optional<Partial> finite = scanFinitePiece<Source::Floats>(v, n, NoBatchWork{}, decode);
    const Partial p = finite ? *finite : scanNonFinite(v, n);
    w.keysCounted += countKeys(v, n, first, stride, finite.has_value(), w.keyCopies.get());
    if (p.finite > 0)
        w.counted.coverValues(static_cast<float>(p.min), static_cast<float>(p.max));
    if (opt.range && p.finite > 0)
        binRange(v, n, w, lo, opt.range->second);
    return p;
}

} // namespace

uint64_t statsChunkElements(const TensorData &data, const StatsOptions &options)
{
    if (options.chunkElements > 0)
        return options.chunkElements;
    // whole pieces, so that chunks start where the sampled runs of 8 groups do (the fast sampling
    // paths need that) and a piece holds whole blocks
    const TypeTraits &t = typeTraits(data.typeId);
    const uint64_t fourMiB = t.typeSize > 0 ? (uint64_t(4) << 20) / t.typeSize * t.blockSize / kPiece * kPiece : 0;
    // and at least four chunks per worker, so that a mid-size tensor keeps every core busy
    const uint64_t workers = workerCount(options.threads, std::numeric_limits<uint64_t>::max());
    const uint64_t perWorker = (data.elements / (4 * workers) + kPiece - 1) / kPiece * kPiece;
    return std::max<uint64_t>(uint64_t(1) << 20, std::min(fourMiB, perWorker));
}

uint32_t keySampleStride(uint64_t elements, uint64_t exactKeyElements)
{
    uint32_t stride = 1;
    while (stride < kMaxKeySampleStride && elements > exactKeyElements * stride)
        stride *= 2;
    return stride;
}

StatsStatus computeStatistics(const TensorData &data, const StatsOptions &options, TensorStatistics &out)
{
    out = TensorStatistics{};
    if (!canDequantize(data.typeId))
        return StatsStatus::Unsupported;
    if (data.bytes.empty() && data.elements > 0)
        return StatsStatus::NoData;
    const uint32_t bins = std::clamp<uint32_t>(options.bins, 1, 65536);
    const uint64_t chunk = std::max<uint64_t>(256, statsChunkElements(data, options) / 256 * 256);
    // a sample of runs of blocks, each one work unit; or every chunk of the tensor
    const std::vector<ElementRange> sample = sampleRuns(data, options.sampleBytes);
    uint64_t read = data.elements;
    if (!sample.empty()) {
        read = 0;
        for (const ElementRange &r : sample)
            read += r.last - r.first;
    }
    const uint64_t chunkCount = sample.empty() ? (data.elements + chunk - 1) / chunk : sample.size();
    const auto rangeOf = [&](uint64_t c) {
        return sample.empty() ? ElementRange{c * chunk, std::min(data.elements, c * chunk + chunk)}
                              : sample[static_cast<size_t>(c)];
    };
    const unsigned nWorkers = workerCount(options.threads, chunkCount);
    const double lo = options.range ? options.range->first : 0.0;
    const uint32_t stride = keySampleStride(read, options.exactKeyElements);
    // Large tensors of some types are reduced from their integer codes (all keys are not needed,
    // and no chosen-range histogram asks for every value)
    const bool inPlace = stride > 1 && !options.range && !data.swapBytes && options.fused;
    const uint32_t fusedBlock = inPlace ? detail::fusedBlockSize(data.typeId) : 0;
    // F32, F16 and BF16 are scanned where they lie (same results, without the copy)
    const std::optional<Source> direct = inPlace ? directSource(data.typeId) : std::nullopt;

    std::vector<Worker> workers(nWorkers);
    for (Worker &w : workers) {
        const size_t pieceSize = static_cast<size_t>(std::min(kPiece, std::max<uint64_t>(data.elements, 1)));
        // aligned output lets the decoders' 32-byte stores stay within cache lines
        w.storage.resize(pieceSize + 16);
        w.buffer = w.storage.data();
        while (reinterpret_cast<uintptr_t>(w.buffer) % 64 != 0)
            ++w.buffer;
        if (options.range)
            w.bins.assign(bins, 0);
    }
    std::vector<Partial> partials(static_cast<size_t>(chunkCount));
    std::atomic<bool> decodeFailed{false};
    const bool finished = runChunks(
        chunkCount, options.threads,
        [&](uint64_t c, unsigned wi) {
            Worker &w = workers[wi];
            const auto [first, last] = rangeOf(c);
            const ElementHold hold(data, first, last); // a remote chunk is fetched here
            if (!hold)
                return;
            // the in-place scans may read a few bytes past a piece (32-bit gathers): within the
            // held chunk only, for a remote tensor
            const TensorData held = heldPart(data, last);
            Partial acc;
            for (uint64_t at = first; at < last; at += kPiece) {
                const size_t n = static_cast<size_t>(std::min(kPiece, last - at));
                if (fusedBlock && at % fusedBlock == 0 && n % fusedBlock == 0) {
                    Partial p;
                    if (scanFusedPiece(held, at, n, stride, w, p)) {
                        acc.merge(p);
                        continue;
                    }
                }
                if (direct) {
                    Partial p;
                    if (scanDirectPiece(*direct, held, at, n, stride, w, p)) {
                        acc.merge(p);
                        continue;
                    }
                }
                // decoded batch by batch as it is scanned
                bool decoded = true;
                const Partial p = scanPiece(w.buffer, n, at, w, options, stride, lo, [&](size_t from, size_t count) {
                    decoded = dequantizeRange(data.typeId, data.bytes, data.elements, at + from,
                                              std::span<float>(w.buffer + from, count), data.swapBytes) &&
                              decoded;
                });
                if (!decoded) {
                    decodeFailed = true;
                    return;
                }
                acc.merge(p);
            }
            partials[static_cast<size_t>(c)] = acc;
        },
        watchedProgress(data, options.progress));
    if (const std::optional<StatsStatus> fetch = fetchStatus(data))
        return *fetch;
    if (!finished)
        return StatsStatus::Cancelled;
    if (decodeFailed)
        return StatsStatus::NoData;

    Partial total;
    for (const Partial &p : partials)
        total.merge(p);
    KeyCounts keys;
    out.histogram.counts.assign(bins, 0);
    for (Worker &w : workers) {
        w.counted.forEachKey([&](uint32_t k) { keys.counts[k] += w.countOf(k); });
        keys.span.cover(w.counted);
        keys.total += w.keysCounted;
        if (w.flushed) {
            w.flushedSpan.forEachKey([&](uint32_t k) { keys.counts[k] += w.flushed[k]; });
            keys.span.cover(w.flushedSpan);
        }
        for (size_t b = 0; b < w.bins.size(); ++b)
            out.histogram.counts[b] += w.bins[b];
        out.histogram.below += w.below;
        out.histogram.above += w.above;
    }
    out.count = data.elements;
    out.sampledElements = sample.empty() ? 0 : read;
    out.keySampleStride = stride;
    out.keysCounted = keys.total;
    out.percentileRankError = stride > 1 ? 100.0 * sampledRankBound(keys.total) : 0.0;
    out.finite = total.finite;
    out.zeros = total.zeros;
    out.nan = total.nan;
    out.posInf = total.posInf;
    out.negInf = total.negInf;
    if (total.finite > 0) {
        // a zero extreme is +0: which zero is kept when both occur depends on the order of the
        // comparisons, which differs between the float path and the code reductions
        if (total.min == 0.0)
            total.min = 0.0;
        if (total.max == 0.0)
            total.max = 0.0;
        out.min = total.min;
        out.max = total.max;
        out.mean = total.mean;
        out.std = std::sqrt(total.m2 / static_cast<double>(total.finite));
        estimatePercentiles(keys, total.min, total.max, out);
    }
    if (options.range) {
        out.histogram.lo = options.range->first;
        out.histogram.hi = options.range->second;
        out.histogram.exact = true;
    } else if (total.finite > 0) {
        binKeys(keys, total.finite, total.min, total.max, out.histogram);
    }
    return StatsStatus::Ok;
}

} // namespace gguf
