// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/tensor_stats.h"

#include "core/dequantize.h"
#include "core/dequantize_blocks.h"
#include "core/ggml_types.h"
#include "core/gguf_file.h"
#include "core/stats_fused.h"

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
    uint64_t keysCounted = 0; // values whose key was counted (all, or the sampled ones)
    std::vector<uint32_t> samplePositions; // the fused path's sampled elements of a piece
    std::vector<float> sampleValues;
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

// The per-piece scan has an AVX2 version (x86-64, chosen per piece) and a portable one written
// with GCC/Clang vector types, since GCC does not vectorize float min/max or double sums itself
// without -ffast-math. Both use the same lanes and the same operations (no fused multiply-add), so
// every machine gets the same sums: element i of a piece goes to lane i % kSumLanes.
constexpr size_t kSumLanes = 16;

// 16-byte vectors: native on SSE2 and NEON (wider GCC vectors are split badly without AVX).
using F32x4 = float __attribute__((vector_size(16)));
using I32x4 = int32_t __attribute__((vector_size(16)));
using F32x2 = float __attribute__((vector_size(8)));
using F64x2 = double __attribute__((vector_size(16)));

// Per-lane sums of d = x − shift and of d² (16 lanes: element i of a piece in lane i % 16), and
// min, max and zero count (8 lanes: i % 8) of a piece. A NaN or an infinity anywhere makes the sum
// of d non-finite (no sum of 16,384 finite floats reaches the double range), which is how a piece
// needing the careful path is recognized.
constexpr size_t kMinLanes = 8;
struct Lanes {
    double sum[kSumLanes] = {};
    double sumSq[kSumLanes] = {};
    float min[kMinLanes];
    float max[kMinLanes];
    int32_t zeros[kMinLanes] = {};

    Lanes()
    {
        std::fill(std::begin(min), std::end(min), std::numeric_limits<float>::infinity());
        std::fill(std::begin(max), std::end(max), -std::numeric_limits<float>::infinity());
    }

    void add(size_t i, float x, double shift)
    {
        const size_t lane = i % kMinLanes;
        zeros[lane] += (bitsOf(x) & 0x7fffffffu) == 0;
        min[lane] = x < min[lane] ? x : min[lane];
        max[lane] = x > max[lane] ? x : max[lane];
        const double d = static_cast<double>(x) - shift;
        sum[i % kSumLanes] += d;
        sumSq[i % kSumLanes] += d * d;
    }
};

// Whole groups of 16 values into the lanes; returns how many values it took. Written out by hand
// so that the 11 accumulators stay in registers: per group, the two halves of 8 are first reduced
// with each other (the min of elements j and j + 8 is taken before the running min), as the AVX2
// version does.
size_t scanGroups(const float *v, size_t n, double shift, Lanes &l)
{
    F64x2 sum[8], sumSq[8];
    F32x4 mnA, mnB, mxA, mxB;
    I32x4 zA, zB;
    std::memcpy(sum, l.sum, sizeof sum);
    std::memcpy(sumSq, l.sumSq, sizeof sumSq);
    std::memcpy(&mnA, l.min, sizeof mnA);
    std::memcpy(&mnB, l.min + 4, sizeof mnB);
    std::memcpy(&mxA, l.max, sizeof mxA);
    std::memcpy(&mxB, l.max + 4, sizeof mxB);
    std::memcpy(&zA, l.zeros, sizeof zA);
    std::memcpy(&zB, l.zeros + 4, sizeof zB);
    const auto load4 = [](const float *p) {
        F32x4 x;
        std::memcpy(&x, p, sizeof x);
        return x;
    };
    const auto isZero = [](F32x4 x) {
        I32x4 bits;
        std::memcpy(&bits, &x, sizeof bits);
        return (bits & 0x7fffffff) == 0; // -1 where true
    };
    size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        const F32x4 x0 = load4(v + i), x1 = load4(v + i + 4), x2 = load4(v + i + 8), x3 = load4(v + i + 12);
        zA -= isZero(x0);
        zA -= isZero(x2);
        zB -= isZero(x1);
        zB -= isZero(x3);
        const F32x4 lowA = x2 < x0 ? x2 : x0, lowB = x3 < x1 ? x3 : x1;
        const F32x4 highA = x2 > x0 ? x2 : x0, highB = x3 > x1 ? x3 : x1;
        mnA = lowA < mnA ? lowA : mnA;
        mnB = lowB < mnB ? lowB : mnB;
        mxA = highA > mxA ? highA : mxA;
        mxB = highB > mxB ? highB : mxB;
#pragma GCC unroll 8
        for (size_t g = 0; g < 8; ++g) {
            F32x2 pair;
            std::memcpy(&pair, v + i + 2 * g, sizeof pair);
            const F64x2 d = __builtin_convertvector(pair, F64x2) - shift;
            sum[g] += d;
            sumSq[g] += d * d;
        }
    }
    std::memcpy(l.sum, sum, sizeof sum);
    std::memcpy(l.sumSq, sumSq, sizeof sumSq);
    std::memcpy(l.min, &mnA, sizeof mnA);
    std::memcpy(l.min + 4, &mnB, sizeof mnB);
    std::memcpy(l.max, &mxA, sizeof mxA);
    std::memcpy(l.max + 4, &mxB, sizeof mxB);
    std::memcpy(l.zeros, &zA, sizeof zA);
    std::memcpy(l.zeros + 4, &zB, sizeof zB);
    return i;
}

#if GGUF_X86_KERNELS
GGUF_AVX2 inline __m256i zeroMaskAvx2(__m256 x, __m256 magnitudeMask)
{
    return _mm256_cmpeq_epi32(_mm256_castps_si256(_mm256_and_ps(x, magnitudeMask)), _mm256_setzero_si256());
}

// The same loop with AVX2 intrinsics: GCC turns the portable float-to-double conversions into
// 2-lane pieces. Same lanes and the same operations, so the same results.
GGUF_AVX2_KERNEL size_t scanGroupsAvx2(const float *v, size_t n, double shift, Lanes &l)
{
    __m256d s0 = _mm256_loadu_pd(l.sum), s1 = _mm256_loadu_pd(l.sum + 4);
    __m256d s2 = _mm256_loadu_pd(l.sum + 8), s3 = _mm256_loadu_pd(l.sum + 12);
    __m256d q0 = _mm256_loadu_pd(l.sumSq), q1 = _mm256_loadu_pd(l.sumSq + 4);
    __m256d q2 = _mm256_loadu_pd(l.sumSq + 8), q3 = _mm256_loadu_pd(l.sumSq + 12);
    __m256 mn = _mm256_loadu_ps(l.min), mx = _mm256_loadu_ps(l.max);
    __m256i zeros = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(l.zeros));
    const __m256 magnitudeMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256d center = _mm256_set1_pd(shift);
    size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        const __m256 x0 = _mm256_loadu_ps(v + i), x1 = _mm256_loadu_ps(v + i + 8);
        zeros = _mm256_sub_epi32(_mm256_sub_epi32(zeros, zeroMaskAvx2(x0, magnitudeMask)), zeroMaskAvx2(x1, magnitudeMask));
        // _mm256_min_ps(a, b) is a < b ? a : b, as the portable loop
        mn = _mm256_min_ps(_mm256_min_ps(x1, x0), mn);
        mx = _mm256_max_ps(_mm256_max_ps(x1, x0), mx);
        const __m256d d0 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x0)), center);
        const __m256d d1 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x0, 1)), center);
        const __m256d d2 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(x1)), center);
        const __m256d d3 = _mm256_sub_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(x1, 1)), center);
        s0 = _mm256_add_pd(s0, d0);
        s1 = _mm256_add_pd(s1, d1);
        s2 = _mm256_add_pd(s2, d2);
        s3 = _mm256_add_pd(s3, d3);
        q0 = _mm256_add_pd(q0, _mm256_mul_pd(d0, d0));
        q1 = _mm256_add_pd(q1, _mm256_mul_pd(d1, d1));
        q2 = _mm256_add_pd(q2, _mm256_mul_pd(d2, d2));
        q3 = _mm256_add_pd(q3, _mm256_mul_pd(d3, d3));
    }
    _mm256_storeu_pd(l.sum, s0);
    _mm256_storeu_pd(l.sum + 4, s1);
    _mm256_storeu_pd(l.sum + 8, s2);
    _mm256_storeu_pd(l.sum + 12, s3);
    _mm256_storeu_pd(l.sumSq, q0);
    _mm256_storeu_pd(l.sumSq + 4, q1);
    _mm256_storeu_pd(l.sumSq + 8, q2);
    _mm256_storeu_pd(l.sumSq + 12, q3);
    _mm256_storeu_ps(l.min, mn);
    _mm256_storeu_ps(l.max, mx);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(l.zeros), zeros);
    return i;
}
#endif

// Count, mean and M2 (sum of squared deviations from the mean) of an all-finite piece, with its
// min, max and zeros; nullopt when the piece holds a NaN or an infinity. One pass: the sums are
// taken around the piece's first value, so M2 = Σd² − (Σd)²/n loses nothing to cancellation unless
// the piece's spread is below ~1e-8 of its distance from that value.
std::optional<Partial> scanFinitePiece(const float *v, size_t n)
{
    if (n == 0)
        return Partial{};
    const double shift = v[0];
    Lanes l;
#if GGUF_X86_KERNELS
    size_t i = detail::cpuHasAvx2() ? scanGroupsAvx2(v, n, shift, l) : scanGroups(v, n, shift, l);
#else
    size_t i = scanGroups(v, n, shift, l);
#endif
    for (; i < n; ++i)
        l.add(i, v[i], shift);
    double sum = 0, sumSq = 0;
    for (size_t lane = 0; lane < kSumLanes; ++lane) {
        sum += l.sum[lane];
        sumSq += l.sumSq[lane];
    }
    Partial p;
    p.min = l.min[0];
    p.max = l.max[0];
    for (size_t lane = 0; lane < kMinLanes; ++lane) {
        p.min = std::min<double>(p.min, l.min[lane]);
        p.max = std::max<double>(p.max, l.max[lane]);
        p.zeros += static_cast<uint32_t>(l.zeros[lane]);
    }
    if (!std::isfinite(sum) || !std::isfinite(shift))
        return std::nullopt;
    const double count = static_cast<double>(n);
    p.finite = n;
    p.mean = shift + sum / count;
    p.m2 = std::max(0.0, sumSq - sum * (sum / count));
    return p;
}

// Random bits for the sampled element of key groups 8·block … 8·block + 7 (8 bits each): a fixed
// hash of the block index, so the result does not depend on the chunking or the threads.
uint64_t sampleBits(uint64_t block)
{
    uint64_t z = (block + 1) * 0x9e3779b97f4a7c15ull;
    z ^= z >> 31;
    z *= 0xbf58476d1ce4e5b9ull;
    return z ^ (z >> 29);
}

// Calls f(i, g) for the element i (index into the piece) sampled from each run g of `stride`
// elements of a piece starting at element `first` of the tensor: one chosen at random per run.
template <typename F> void forEachSample(uint64_t first, size_t n, uint32_t stride, F f)
{
    // `first` is a multiple of the piece size, itself a multiple of every stride
    static_assert(kMaxKeySampleStride <= 256, "8 random bits per group");
    const uint64_t group0 = first / stride;
    uint64_t random = sampleBits(group0 / 8);
    for (size_t at = 0, g = 0; at < n; at += stride, ++g) {
        const uint64_t group = group0 + g;
        if (group % 8 == 0)
            random = sampleBits(group / 8);
        const size_t length = std::min<size_t>(stride, n - at);
        uint32_t offset = static_cast<uint32_t>(random >> (8 * (group % 8))) & (stride - 1);
        if (offset >= length)
            offset %= static_cast<uint32_t>(length);
        f(at + offset, g);
    }
}

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

// Accumulates a piece of whole blocks of a fused type (see stats_fused.h) without decoding it;
// false when a block needs the float path.
bool scanFusedPiece(const TensorData &data, uint64_t first, size_t n, uint32_t stride, Worker &w, Partial &p)
{
    const TypeTraits &t = typeTraits(data.typeId);
    const uint64_t begin = first / t.blockSize * t.typeSize, size = n / t.blockSize * t.typeSize;
    if (begin > data.bytes.size() || size > data.bytes.size() - begin)
        return false; // the float path reports the missing data
    w.samplePositions.clear();
    forEachSample(first, n, stride, [&](size_t i, size_t) { w.samplePositions.push_back(static_cast<uint32_t>(i)); });
    w.sampleValues.resize(w.samplePositions.size());
    detail::FusedResult r;
    if (!detail::fusedScan(data.typeId, data.bytes.data() + begin, n / t.blockSize,
                           w.samplePositions, w.sampleValues.data(), r))
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
    }
    return true;
}

// Accumulates one decoded piece (elements [first, first + n) of the tensor): counts, min/max,
// mean/M2, the key histogram and the chosen-range histogram.
Partial scanPiece(const float *v, size_t n, uint64_t first, Worker &w, const StatsOptions &opt, uint32_t stride,
                  double lo, double scale)
{
    if (w.sinceFlush + n > std::numeric_limits<uint32_t>::max())
        w.flushKeys();
    w.sinceFlush += n;
    const std::optional<Partial> finite = scanFinitePiece(v, n);
    const Partial p = finite ? *finite : scanNonFinite(v, n);
    w.keysCounted += countKeys(v, n, first, stride, finite.has_value(), w.keyCopies.get());
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
    uint64_t total = 0; // the values counted: all finite ones, or the sample
};

void estimatePercentiles(const KeyCounts &keys, double mn, double mx, TensorStatistics &out)
{
    if (keys.total == 0)
        return;
    std::vector<uint32_t> order; // the keys with a count, in ascending order of value
    keys.span.forEachKey([&](uint32_t k) {
        if (keys.counts[k])
            order.push_back(k);
    });
    for (size_t q = 0; q < kPercentileLevels.size(); ++q) {
        // rank of the percentile among the sorted counted values (nearest-rank, 0-based)
        const double target = kPercentileLevels[q] / 100.0 * static_cast<double>(keys.total - 1);
        uint64_t before = 0;
        for (uint32_t k : order) {
            const uint64_t c = keys.counts[k];
            if (static_cast<double>(before + c) > target) {
                auto [a, b] = keyRange(k);
                a = std::max(a, mn);
                b = std::min(b, mx);
                if ((k & 0x7fffu) == 0) {
                    // the bucket of ±0 (and of subnormals below 2^-133): its values are zeros in
                    // practice, so the estimate is 0 rather than a point inside the bucket
                    out.percentiles[q] = std::clamp(0.0, a, b);
                } else {
                    // linear interpolation inside the bucket
                    const double frac = c > 1 ? (target - static_cast<double>(before)) / static_cast<double>(c - 1) : 0.0;
                    out.percentiles[q] = a + std::clamp(frac, 0.0, 1.0) * (b - a);
                }
                out.percentileError[q] = b - a;
                break;
            }
            before += c;
        }
    }
}

// Automatic-range histogram from the key counts: each bucket goes to the bin of its lowest value.
// Sampled counts are scaled to the number of finite values (largest remainders rounded up).
void binKeys(const KeyCounts &keys, uint64_t finite, double mn, double mx, Histogram &h)
{
    h.lo = mn;
    h.hi = mx;
    const uint64_t nb = h.counts.size();
    const double width = mx - mn;
    bool exact = keys.total == finite;
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
    if (keys.total == finite || keys.total == 0)
        return;
    const double scale = static_cast<double>(finite) / static_cast<double>(keys.total);
    std::vector<std::pair<double, size_t>> remainders;
    uint64_t assigned = 0;
    for (size_t b = 0; b < nb; ++b) {
        const double scaled = static_cast<double>(h.counts[b]) * scale;
        h.counts[b] = static_cast<uint64_t>(scaled);
        assigned += h.counts[b];
        if (scaled > static_cast<double>(h.counts[b]))
            remainders.emplace_back(scaled - static_cast<double>(h.counts[b]), b);
    }
    std::sort(remainders.begin(), remainders.end(), std::greater<>());
    for (size_t i = 0; i < remainders.size() && assigned < finite; ++i, ++assigned)
        ++h.counts[remainders[i].second];
}

// The one-sided rank bound ε (as a fraction) such that, with probability at least 1 − 10⁻⁶, each
// percentile estimated from `samples` values drawn one per group (independent, one per stratum)
// lies between the true percentiles at p − ε and p + ε: by Hoeffding's inequality at the two
// points, P(miss) ≤ 4·exp(−2·samples·ε²).
double sampledRankBound(uint64_t samples)
{
    constexpr double kDelta = 1e-6;
    return samples ? std::sqrt(std::log(4.0 / kDelta) / (2.0 * static_cast<double>(samples))) : 1.0;
}

} // namespace

uint32_t keySampleStride(uint64_t elements, uint64_t exactKeyElements)
{
    uint32_t stride = 1;
    while (stride < kMaxKeySampleStride && elements > exactKeyElements * stride)
        stride *= 2;
    return stride;
}

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
    const uint32_t stride = keySampleStride(data.elements, options.exactKeyElements);
    // Large tensors of some types are reduced from their integer codes (all keys are not needed,
    // and no chosen-range histogram asks for every value)
    const uint32_t fusedBlock =
        stride > 1 && !options.range && !data.swapBytes && options.fused ? detail::fusedBlockSize(data.typeId) : 0;

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
            if (fusedBlock && at % fusedBlock == 0 && n % fusedBlock == 0) {
                Partial p;
                if (scanFusedPiece(data, at, n, stride, w, p)) {
                    acc.merge(p);
                    continue;
                }
            }
            if (!dequantizeRange(data.typeId, data.bytes, data.elements, at, std::span<float>(w.buffer, n),
                                 data.swapBytes)) {
                decodeFailed = true;
                return;
            }
            acc.merge(scanPiece(w.buffer, n, at, w, options, stride, lo, scale));
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
    out.keySampleStride = stride;
    out.keysCounted = keys.total;
    out.percentileRankError = stride > 1 ? 100.0 * sampledRankBound(keys.total) : 0.0;
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
