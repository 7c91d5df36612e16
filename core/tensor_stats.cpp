// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor_stats.h"

#include "core/dequantize.h"
#include "core/ggml_types.h"
#include "core/gguf_file.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <limits>

namespace gguf {
namespace {

constexpr size_t kKeyCount = 65536;
constexpr uint64_t kPiece = 16384; // decoded at a time: 64 KiB of floats stays in L2

// Moments and counts of one chunk; merged in chunk order (Chan et al.'s parallel variance).
struct Partial {
    uint64_t finite = 0, zeros = 0, nan = 0, posInf = 0, negInf = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
    double mean = 0, m2 = 0;

    void merge(const Partial &o)
    {
        zeros += o.zeros;
        nan += o.nan;
        posInf += o.posInf;
        negInf += o.negInf;
        min = std::min(min, o.min);
        max = std::max(max, o.max);
        if (o.finite == 0)
            return;
        if (finite == 0) {
            finite = o.finite;
            mean = o.mean;
            m2 = o.m2;
            return;
        }
        const double n = static_cast<double>(finite) + static_cast<double>(o.finite);
        const double delta = o.mean - mean;
        mean += delta * static_cast<double>(o.finite) / n;
        m2 += o.m2 + delta * delta * static_cast<double>(finite) * static_cast<double>(o.finite) / n;
        finite += o.finite;
    }
};

struct Worker {
    std::vector<float> buffer;
    std::vector<uint64_t> keys;   // count per upper-16-bit pattern
    std::vector<uint64_t> bins;   // chosen-range histogram
    uint64_t below = 0, above = 0;
};

// Accumulates one decoded piece: counts, min/max and a two-pass mean/M2 over the cached buffer.
Partial scanPiece(const float *v, size_t n, Worker &w, const StatsOptions &opt, double lo, double scale)
{
    Partial p;
    float mn = std::numeric_limits<float>::infinity(), mx = -std::numeric_limits<float>::infinity();
    double sum = 0;
    uint64_t finite = 0, zeros = 0;
    uint64_t *keys = w.keys.data();
    for (size_t i = 0; i < n; ++i) {
        const float x = v[i];
        const uint32_t bits = std::bit_cast<uint32_t>(x);
        if ((bits & 0x7f800000u) == 0x7f800000u) {
            if (bits & 0x007fffffu)
                ++p.nan;
            else if (bits >> 31)
                ++p.negInf;
            else
                ++p.posInf;
            continue;
        }
        ++keys[bits >> 16];
        ++finite;
        zeros += x == 0.0f;
        mn = std::min(mn, x);
        mx = std::max(mx, x);
        sum += x;
    }
    p.finite = finite;
    p.zeros = zeros;
    if (finite == 0)
        return p;
    p.min = mn;
    p.max = mx;
    p.mean = sum / static_cast<double>(finite);
    double m2 = 0;
    for (size_t i = 0; i < n; ++i) {
        const float x = v[i];
        if (std::isfinite(x)) {
            const double d = x - p.mean;
            m2 += d * d;
        }
    }
    p.m2 = m2;
    if (opt.range) {
        const uint64_t nb = w.bins.size();
        const double hi = opt.range->second;
        for (size_t i = 0; i < n; ++i) {
            const double x = v[i];
            if (!std::isfinite(x))
                continue;
            if (x < lo) {
                ++w.below;
            } else if (x > hi) {
                ++w.above;
            } else {
                const auto b = static_cast<uint64_t>((x - lo) * scale);
                ++w.bins[std::min(b, nb - 1)];
            }
        }
    }
    return p;
}

// The float range [first, last] of values whose upper 16 bits are `key`.
std::pair<double, double> keyRange(uint32_t key)
{
    const float a = std::bit_cast<float>(key << 16);
    const float b = std::bit_cast<float>((key << 16) | 0xffffu);
    return {std::min<double>(a, b), std::max<double>(a, b)};
}

// Keys in ascending order of value: negatives by descending magnitude, then positives.
std::vector<uint32_t> keysInValueOrder(const std::vector<uint64_t> &keys)
{
    std::vector<uint32_t> order;
    for (uint32_t k = 0xffff; k >= 0x8000; --k)
        if (keys[k])
            order.push_back(k);
    for (uint32_t k = 0; k < 0x8000; ++k)
        if (keys[k])
            order.push_back(k);
    return order;
}

void estimatePercentiles(const std::vector<uint64_t> &keys, uint64_t finite, double mn, double mx,
                         TensorStatistics &out)
{
    const std::vector<uint32_t> order = keysInValueOrder(keys);
    for (size_t q = 0; q < kPercentileLevels.size(); ++q) {
        // rank of the percentile among the sorted finite values (nearest-rank, 0-based)
        const double target = kPercentileLevels[q] / 100.0 * static_cast<double>(finite - 1);
        uint64_t before = 0;
        for (uint32_t k : order) {
            const uint64_t c = keys[k];
            if (static_cast<double>(before + c) > target) {
                auto [a, b] = keyRange(k);
                a = std::max(a, mn);
                b = std::min(b, mx);
                // linear interpolation inside the bucket
                const double frac = c > 1 ? (target - static_cast<double>(before)) / static_cast<double>(c - 1) : 0.0;
                out.percentiles[q] = a + std::clamp(frac, 0.0, 1.0) * (b - a);
                out.percentileError[q] = b - a;
                break;
            }
            before += c;
        }
    }
}

// Automatic-range histogram from the key counts: each bucket goes to the bin of its lowest value.
void binKeys(const std::vector<uint64_t> &keys, double mn, double mx, Histogram &h)
{
    h.lo = mn;
    h.hi = mx;
    const uint64_t nb = h.counts.size();
    const double width = mx - mn;
    bool exact = true;
    for (uint32_t k = 0; k < kKeyCount; ++k) {
        if (!keys[k])
            continue;
        auto [a, b] = keyRange(k);
        a = std::max(a, mn);
        b = std::min(b, mx);
        const auto binOf = [&](double x) {
            return width > 0 ? std::min<uint64_t>(static_cast<uint64_t>((x - mn) / width * static_cast<double>(nb)), nb - 1) : 0;
        };
        if (binOf(a) != binOf(b))
            exact = false;
        h.counts[binOf((k >> 15) ? b : a)] += keys[k];
    }
    h.exact = exact;
}

} // namespace

void releaseElements(const TensorData &data, uint64_t first, uint64_t last)
{
    const TypeTraits &t = typeTraits(data.typeId);
    if (!data.mapping || t.blockSize == 0 || data.bytes.empty())
        return;
    const uint64_t begin = first / t.blockSize * t.typeSize;
    const uint64_t end = std::min<uint64_t>(data.bytes.size(), (last + t.blockSize - 1) / t.blockSize * t.typeSize);
    const uint64_t base = static_cast<uint64_t>(data.bytes.data() - data.mapping->data());
    if (end > begin)
        data.mapping->releasePages(base + begin, end - begin);
}

TensorData tensorData(const GgufFile &file, const TensorInfo &tensor)
{
    TensorData d;
    d.typeId = tensor.typeId;
    d.bytes = file.tensorBytes(tensor);
    d.elements = tensor.elements;
    d.swapBytes = file.byteSwapped();
    d.mapping = &file.mapped();
    return d;
}

StatsStatus computeStatistics(const TensorData &data, const StatsOptions &options, TensorStatistics &out)
{
    out = TensorStatistics{};
    if (!canDequantize(data.typeId))
        return StatsStatus::Unsupported;
    if (data.bytes.empty() && data.elements > 0)
        return StatsStatus::NoData;
    const uint32_t bins = std::clamp<uint32_t>(options.bins, 1, 65536);
    const uint64_t chunk = std::max<uint64_t>(256, options.chunkElements / 256 * 256);
    const uint64_t chunkCount = (data.elements + chunk - 1) / chunk;
    const unsigned nWorkers = workerCount(options.threads, chunkCount);
    const double lo = options.range ? options.range->first : 0.0;
    const double span = options.range ? options.range->second - options.range->first : 0.0;
    const double scale = span > 0 ? bins / span : 0.0;

    std::vector<Worker> workers(nWorkers);
    for (Worker &w : workers) {
        w.buffer.resize(static_cast<size_t>(std::min(kPiece, std::max<uint64_t>(data.elements, 1))));
        w.keys.assign(kKeyCount, 0);
        if (options.range)
            w.bins.assign(bins, 0);
    }
    std::vector<Partial> partials(static_cast<size_t>(chunkCount));
    std::atomic<bool> decodeFailed{false};
    const bool finished = runChunks(chunkCount, options.threads, [&](uint64_t c, unsigned wi) {
        Worker &w = workers[wi];
        const uint64_t first = c * chunk;
        const uint64_t last = std::min(data.elements, first + chunk);
        Partial acc;
        for (uint64_t at = first; at < last; at += kPiece) {
            const size_t n = static_cast<size_t>(std::min(kPiece, last - at));
            if (!dequantizeRange(data.typeId, data.bytes, data.elements, at, std::span<float>(w.buffer.data(), n),
                                 data.swapBytes)) {
                decodeFailed = true;
                return;
            }
            acc.merge(scanPiece(w.buffer.data(), n, w, options, lo, scale));
        }
        partials[static_cast<size_t>(c)] = acc;
        if (data.mapping)
            releaseElements(data, first, last);
    }, options.progress);
    if (!finished)
        return StatsStatus::Cancelled;
    if (decodeFailed)
        return StatsStatus::NoData;

    Partial total;
    for (const Partial &p : partials)
        total.merge(p);
    std::vector<uint64_t> keys(kKeyCount, 0);
    out.histogram.counts.assign(bins, 0);
    for (const Worker &w : workers) {
        for (size_t k = 0; k < kKeyCount; ++k)
            keys[k] += w.keys[k];
        for (size_t b = 0; b < w.bins.size(); ++b)
            out.histogram.counts[b] += w.bins[b];
        out.histogram.below += w.below;
        out.histogram.above += w.above;
    }
    out.count = data.elements;
    out.finite = total.finite;
    out.zeros = total.zeros;
    out.nan = total.nan;
    out.posInf = total.posInf;
    out.negInf = total.negInf;
    if (total.finite > 0) {
        out.min = total.min;
        out.max = total.max;
        out.mean = total.mean;
        out.std = std::sqrt(total.m2 / static_cast<double>(total.finite));
        estimatePercentiles(keys, total.finite, total.min, total.max, out);
    }
    if (options.range) {
        out.histogram.lo = options.range->first;
        out.histogram.hi = options.range->second;
        out.histogram.exact = true;
    } else if (total.finite > 0) {
        binKeys(keys, total.min, total.max, out.histogram);
    }
    return StatsStatus::Ok;
}

} // namespace gguf
