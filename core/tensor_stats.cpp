// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor_stats.h"

#include "core/dequantize.h"
#include "core/dequantize_blocks.h"
#include "core/ggml_types.h"
#include "core/gguf_file.h"

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

namespace gguf {
namespace {

constexpr size_t kKeyCount = 65536;
constexpr uint64_t kPiece = 16384; // decoded at a time: 64 KiB of floats stays in L2
// Each key has this many interleaved counters, element i counting in copy i % kKeyCopies: runs of
// equal keys (zeros, constant rows) then increment different words instead of waiting on
// store-to-load forwarding of one counter.
constexpr size_t kKeyCopies = 4;

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

uint32_t bitsOf(float x)
{
    return std::bit_cast<uint32_t>(x);
}

// The keys that can have a count: per sign, a run [low, high] of magnitude keys (key & 0x7fff),
// known from the values' min and max. Only these are read, added and zeroed, so the tables are
// calloc'd and a small tensor touches a few of their pages, not 1.5 MiB per call.
struct KeySpan {
    std::array<uint32_t, 2> low{0x8000, 0x8000}; // [0] positive, [1] negative; empty while low > high
    std::array<uint32_t, 2> high{0, 0};

    static uint32_t magnitudeKey(float x) { return (bitsOf(x) & 0x7fffffffu) >> 16; }

    void cover(size_t sign, uint32_t from, uint32_t to)
    {
        low[sign] = std::min(low[sign], from);
        high[sign] = std::max(high[sign], to);
    }
    // Finite values in [min, max]; zeros of either sign included when the range reaches 0.
    void coverValues(float min, float max)
    {
        if (max >= 0.0f)
            cover(0, min > 0.0f ? magnitudeKey(min) : 0, magnitudeKey(max));
        if (min <= 0.0f)
            cover(1, max < 0.0f ? magnitudeKey(max) : 0, magnitudeKey(min));
    }
    void cover(const KeySpan &o)
    {
        for (size_t sign = 0; sign < 2; ++sign)
            if (o.low[sign] <= o.high[sign])
                cover(sign, o.low[sign], o.high[sign]);
    }
    // Calls f(key) for every key of the span in ascending order of value: negatives by descending
    // magnitude, then positives.
    template <typename F> void forEachKey(F f) const
    {
        if (low[1] <= high[1])
            for (uint32_t m = high[1] + 1; m-- > low[1];)
                f(0x8000u | m);
        for (uint32_t m = low[0]; m <= high[0]; ++m)
            f(m);
    }
};

// Zero-initialized tables from calloc: untouched pages are never faulted in.
struct FreeDeleter {
    void operator()(void *p) const { std::free(p); }
};
template <typename T> std::unique_ptr<T[], FreeDeleter> zeroedArray(size_t n)
{
    void *p = std::calloc(n, sizeof(T));
    if (!p)
        throw std::bad_alloc();
    return std::unique_ptr<T[], FreeDeleter>(static_cast<T *>(p));
}

struct Worker {
    std::vector<float> storage; // the decode buffer, over-allocated so that it can start on a cache line
    float *buffer = nullptr;
    // kKeyCopies 32-bit counters per key (key-major), flushed into `flushed` before one could overflow
    std::unique_ptr<uint32_t[], FreeDeleter> keyCopies = zeroedArray<uint32_t>(kKeyCount * kKeyCopies);
    KeySpan counted;     // keys counted in keyCopies since the last flush
    uint64_t sinceFlush = 0; // elements counted in keyCopies since the last flush
    std::unique_ptr<uint64_t[], FreeDeleter> flushed; // only for more than 2^32 elements
    KeySpan flushedSpan;
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

// The two per-piece scans have an AVX2 version (x86-64, chosen per piece) and a portable one
// written with GCC/Clang vector types, since GCC does not vectorize float min/max or double sums
// itself without -ffast-math. Both use the same lanes, so every machine gets the same sums:
// element i of a piece goes to lane i % kSumLanes.
constexpr size_t kSumLanes = 16; // 4 independent double accumulators; more would not fit in 16 registers

// 16-byte vectors: native on SSE2 and NEON (wider GCC vectors are split badly without AVX).
using F32x4 = float __attribute__((vector_size(16)));
using I32x4 = int32_t __attribute__((vector_size(16)));
using F32x2 = float __attribute__((vector_size(8)));
using F64x2 = double __attribute__((vector_size(16)));

// Per-lane sum, min, max, zero count and largest magnitude (as bits: 0x7f800000 and above is an
// infinity or a NaN) of a piece.
struct Lanes {
    double sum[kSumLanes] = {};
    float min[kSumLanes];
    float max[kSumLanes];
    int32_t zeros[kSumLanes] = {};
    int32_t maxMagnitude[kSumLanes] = {};

    Lanes()
    {
        std::fill(std::begin(min), std::end(min), std::numeric_limits<float>::infinity());
        std::fill(std::begin(max), std::end(max), -std::numeric_limits<float>::infinity());
    }

    void add(size_t lane, float x)
    {
        const int32_t magnitude = static_cast<int32_t>(bitsOf(x) & 0x7fffffffu);
        zeros[lane] += magnitude == 0;
        maxMagnitude[lane] = std::max(maxMagnitude[lane], magnitude);
        min[lane] = x < min[lane] ? x : min[lane];
        max[lane] = x > max[lane] ? x : max[lane];
        sum[lane] += static_cast<double>(x);
    }
};

// Whole groups of kSumLanes values into the lanes; returns how many values it took.
size_t scanGroups(const float *v, size_t n, Lanes &l)
{
    F64x2 sum[kSumLanes / 2];
    F32x4 mn[kSumLanes / 4], mx[kSumLanes / 4];
    I32x4 zeros[kSumLanes / 4], maxMagnitude[kSumLanes / 4];
    std::memcpy(sum, l.sum, sizeof sum);
    std::memcpy(mn, l.min, sizeof mn);
    std::memcpy(mx, l.max, sizeof mx);
    std::memcpy(zeros, l.zeros, sizeof zeros);
    std::memcpy(maxMagnitude, l.maxMagnitude, sizeof maxMagnitude);
    size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        for (size_t g = 0; g < kSumLanes / 4; ++g) {
            F32x4 x;
            I32x4 bits;
            F32x2 low, high;
            std::memcpy(&x, v + i + 4 * g, sizeof x);
            std::memcpy(&bits, v + i + 4 * g, sizeof bits);
            std::memcpy(&low, v + i + 4 * g, sizeof low);
            std::memcpy(&high, v + i + 4 * g + 2, sizeof high);
            const I32x4 magnitude = bits & 0x7fffffff;
            zeros[g] -= magnitude == 0; // comparisons give -1 where true
            maxMagnitude[g] = magnitude > maxMagnitude[g] ? magnitude : maxMagnitude[g];
            mn[g] = x < mn[g] ? x : mn[g];
            mx[g] = x > mx[g] ? x : mx[g];
            sum[2 * g] += __builtin_convertvector(low, F64x2);
            sum[2 * g + 1] += __builtin_convertvector(high, F64x2);
        }
    }
    std::memcpy(l.sum, sum, sizeof sum);
    std::memcpy(l.min, mn, sizeof mn);
    std::memcpy(l.max, mx, sizeof mx);
    std::memcpy(l.zeros, zeros, sizeof zeros);
    std::memcpy(l.maxMagnitude, maxMagnitude, sizeof maxMagnitude);
    return i;
}

// The key histogram and the sum of squared deviations from `mean` of whole groups of 8 values
// (lanes i % 8); returns how many values it took. The vector arithmetic overlaps the counting.
size_t countKeyGroups(const float *v, size_t n, double mean, uint32_t *keyCopies, double *m2)
{
    F64x2 acc[4];
    std::memcpy(acc, m2, sizeof acc);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        for (size_t g = 0; g < 4; ++g) {
            F32x2 x;
            std::memcpy(&x, v + i + 2 * g, sizeof x);
            const F64x2 d = __builtin_convertvector(x, F64x2) - mean;
            acc[g] += d * d;
        }
        for (size_t j = 0; j < 8; ++j)
            ++keyCopies[(bitsOf(v[i + j]) >> 16) * kKeyCopies + j % kKeyCopies];
    }
    std::memcpy(m2, acc, sizeof acc);
    return i;
}

#if GGUF_X86_KERNELS
// The same two loops with AVX2 intrinsics: GCC turns the portable float-to-double conversions
// into 2-lane pieces. Same lanes and the same operations, so the same results.
GGUF_AVX2_KERNEL size_t scanGroupsAvx2(const float *v, size_t n, Lanes &l)
{
    __m256d sum[kSumLanes / 4];
    __m256 mn[kSumLanes / 8], mx[kSumLanes / 8];
    __m256i zeros[kSumLanes / 8], maxMagnitude[kSumLanes / 8];
    for (size_t g = 0; g < kSumLanes / 8; ++g) {
        sum[2 * g] = _mm256_loadu_pd(l.sum + 8 * g);
        sum[2 * g + 1] = _mm256_loadu_pd(l.sum + 8 * g + 4);
        mn[g] = _mm256_loadu_ps(l.min + 8 * g);
        mx[g] = _mm256_loadu_ps(l.max + 8 * g);
        zeros[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(l.zeros + 8 * g));
        maxMagnitude[g] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(l.maxMagnitude + 8 * g));
    }
    const __m256i magnitudeMask = _mm256_set1_epi32(0x7fffffff);
    size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        for (size_t g = 0; g < kSumLanes / 8; ++g) {
            const __m256 x = _mm256_loadu_ps(v + i + 8 * g);
            const __m256i magnitude = _mm256_and_si256(_mm256_castps_si256(x), magnitudeMask);
            zeros[g] = _mm256_sub_epi32(zeros[g], _mm256_cmpeq_epi32(magnitude, _mm256_setzero_si256()));
            maxMagnitude[g] = _mm256_max_epi32(maxMagnitude[g], magnitude);
            mn[g] = _mm256_min_ps(x, mn[g]); // x < mn ? x : mn, as the portable loop
            mx[g] = _mm256_max_ps(x, mx[g]);
            sum[2 * g] = _mm256_add_pd(sum[2 * g], _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
            sum[2 * g + 1] = _mm256_add_pd(sum[2 * g + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
        }
    }
    for (size_t g = 0; g < kSumLanes / 8; ++g) {
        _mm256_storeu_pd(l.sum + 8 * g, sum[2 * g]);
        _mm256_storeu_pd(l.sum + 8 * g + 4, sum[2 * g + 1]);
        _mm256_storeu_ps(l.min + 8 * g, mn[g]);
        _mm256_storeu_ps(l.max + 8 * g, mx[g]);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(l.zeros + 8 * g), zeros[g]);
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(l.maxMagnitude + 8 * g), maxMagnitude[g]);
    }
    return i;
}

GGUF_AVX2_KERNEL size_t countKeyGroupsAvx2(const float *v, size_t n, double mean, uint32_t *keyCopies, double *m2)
{
    __m256d m2Low = _mm256_loadu_pd(m2), m2High = _mm256_loadu_pd(m2 + 4);
    const __m256d center = _mm256_set1_pd(mean);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        const __m256 x = _mm256_loadu_ps(v + i);
        const __m256d dLow = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x)), center);
        const __m256d dHigh = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)), center);
        m2Low = _mm256_add_pd(m2Low, _mm256_mul_pd(dLow, dLow));
        m2High = _mm256_add_pd(m2High, _mm256_mul_pd(dHigh, dHigh));
        for (size_t j = 0; j < 8; ++j)
            ++keyCopies[(bitsOf(v[i + j]) >> 16) * kKeyCopies + j % kKeyCopies];
    }
    _mm256_storeu_pd(m2, m2Low);
    _mm256_storeu_pd(m2 + 4, m2High);
    return i;
}
#endif

// Sum, min, max and zero count of a piece, and whether it holds any NaN or infinity (then min
// and max are meaningless and the careful path runs).
struct LaneScan {
    double sum = 0;
    float min = 0, max = 0;
    uint64_t zeros = 0;
    bool allFinite = true;
};

LaneScan scanLanes(const float *v, size_t n)
{
    Lanes l;
#if GGUF_X86_KERNELS
    size_t i = detail::cpuHasAvx2() ? scanGroupsAvx2(v, n, l) : scanGroups(v, n, l);
#else
    size_t i = scanGroups(v, n, l);
#endif
    for (size_t lane = 0; i < n; ++i, ++lane)
        l.add(lane, v[i]);
    LaneScan r;
    r.min = l.min[0];
    r.max = l.max[0];
    for (size_t lane = 0; lane < kSumLanes; ++lane) {
        r.sum += l.sum[lane];
        r.min = std::min(r.min, l.min[lane]);
        r.max = std::max(r.max, l.max[lane]);
        r.zeros += static_cast<uint32_t>(l.zeros[lane]);
        r.allFinite = r.allFinite && l.maxMagnitude[lane] < 0x7f800000;
    }
    return r;
}

// The key histogram and the sum of squared deviations from `mean` of an all-finite piece.
double countKeysAndM2(const float *v, size_t n, double mean, uint32_t *keyCopies)
{
    double m2[8] = {};
#if GGUF_X86_KERNELS
    size_t i = detail::cpuHasAvx2() ? countKeyGroupsAvx2(v, n, mean, keyCopies, m2)
                                    : countKeyGroups(v, n, mean, keyCopies, m2);
#else
    size_t i = countKeyGroups(v, n, mean, keyCopies, m2);
#endif
    for (size_t j = 0; i < n; ++i, ++j) {
        const double d = static_cast<double>(v[i]) - mean;
        m2[j] += d * d;
        ++keyCopies[(bitsOf(v[i]) >> 16) * kKeyCopies + j % kKeyCopies];
    }
    double total = 0;
    for (double lane : m2)
        total += lane;
    return total;
}

// The careful path for a piece holding NaN or infinities: classify every value.
Partial scanNonFinite(const float *v, size_t n, uint32_t *keyCopies)
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
        ++keyCopies[(bits >> 16) * kKeyCopies + i % kKeyCopies];
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

// The chosen-range histogram of the finite values of a piece, without data-dependent branches.
void binRange(const float *v, size_t n, Worker &w, double lo, double hi, double scale)
{
    const uint64_t nb = w.bins.size();
    const double last = static_cast<double>(nb - 1);
    uint64_t below = 0, above = 0;
    for (size_t i = 0; i < n; ++i) {
        const double x = v[i];
        const bool finite = std::isfinite(x);
        const bool isBelow = finite && x < lo;
        const bool isAbove = finite && x > hi;
        const bool inside = finite && !isBelow && !isAbove;
        below += isBelow;
        above += isAbove;
        // clamped before the conversion, which is undefined out of range; outside values add 0 to bin 0
        const double t = inside ? std::min((x - lo) * scale, last) : 0.0;
        w.bins[static_cast<uint64_t>(t)] += inside;
    }
    w.below += below;
    w.above += above;
}

// Accumulates one decoded piece: counts, min/max, a two-pass mean/M2 over the cached buffer, the
// key histogram and the chosen-range histogram.
Partial scanPiece(const float *v, size_t n, Worker &w, const StatsOptions &opt, double lo, double scale)
{
    if (w.sinceFlush + n > std::numeric_limits<uint32_t>::max())
        w.flushKeys();
    w.sinceFlush += n;
    Partial p;
    const LaneScan lanes = scanLanes(v, n);
    if (lanes.allFinite) {
        p.finite = n;
        p.zeros = lanes.zeros;
        if (n > 0) {
            p.min = lanes.min;
            p.max = lanes.max;
            p.mean = lanes.sum / static_cast<double>(n);
            p.m2 = countKeysAndM2(v, n, p.mean, w.keyCopies.get());
        }
    } else {
        p = scanNonFinite(v, n, w.keyCopies.get());
    }
    if (p.finite > 0)
        w.counted.coverValues(static_cast<float>(p.min), static_cast<float>(p.max));
    if (opt.range && p.finite > 0)
        binRange(v, n, w, lo, opt.range->second, scale);
    return p;
}

// The float range [first, last] of values whose upper 16 bits are `key`.
std::pair<double, double> keyRange(uint32_t key)
{
    const float a = std::bit_cast<float>(key << 16);
    const float b = std::bit_cast<float>((key << 16) | 0xffffu);
    return {std::min<double>(a, b), std::max<double>(a, b)};
}

// The key counts of the whole tensor, over the keys of `span` (others are zero).
struct KeyCounts {
    KeySpan span;
    std::unique_ptr<uint64_t[], FreeDeleter> counts = zeroedArray<uint64_t>(kKeyCount);
};

void estimatePercentiles(const KeyCounts &keys, uint64_t finite, double mn, double mx, TensorStatistics &out)
{
    std::vector<uint32_t> order; // the keys with a count, in ascending order of value
    keys.span.forEachKey([&](uint32_t k) {
        if (keys.counts[k])
            order.push_back(k);
    });
    for (size_t q = 0; q < kPercentileLevels.size(); ++q) {
        // rank of the percentile among the sorted finite values (nearest-rank, 0-based)
        const double target = kPercentileLevels[q] / 100.0 * static_cast<double>(finite - 1);
        uint64_t before = 0;
        for (uint32_t k : order) {
            const uint64_t c = keys.counts[k];
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
void binKeys(const KeyCounts &keys, double mn, double mx, Histogram &h)
{
    h.lo = mn;
    h.hi = mx;
    const uint64_t nb = h.counts.size();
    const double width = mx - mn;
    bool exact = true;
    keys.span.forEachKey([&](uint32_t k) {
        if (!keys.counts[k])
            return;
        auto [a, b] = keyRange(k);
        a = std::max(a, mn);
        b = std::min(b, mx);
        const auto binOf = [&](double x) {
            return width > 0 ? std::min<uint64_t>(static_cast<uint64_t>((x - mn) / width * static_cast<double>(nb)), nb - 1) : 0;
        };
        if (binOf(a) != binOf(b))
            exact = false;
        h.counts[binOf((k >> 15) ? b : a)] += keys.counts[k];
    });
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
    const bool finished = runChunks(chunkCount, options.threads, [&](uint64_t c, unsigned wi) {
        Worker &w = workers[wi];
        const uint64_t first = c * chunk;
        const uint64_t last = std::min(data.elements, first + chunk);
        Partial acc;
        for (uint64_t at = first; at < last; at += kPiece) {
            const size_t n = static_cast<size_t>(std::min(kPiece, last - at));
            if (!dequantizeRange(data.typeId, data.bytes, data.elements, at, std::span<float>(w.buffer, n),
                                 data.swapBytes)) {
                decodeFailed = true;
                return;
            }
            acc.merge(scanPiece(w.buffer, n, w, options, lo, scale));
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
    KeyCounts keys;
    out.histogram.counts.assign(bins, 0);
    for (Worker &w : workers) {
        w.counted.forEachKey([&](uint32_t k) { keys.counts[k] += w.countOf(k); });
        keys.span.cover(w.counted);
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
