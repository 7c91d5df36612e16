// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to the statistics (tensor_stats.cpp): the per-piece scan of finite values — count,
// min, max, zeros, mean and M2 — in AVX-512, AVX2 and portable versions that give the same bits,
// reading floats, halves or bfloat16 halves, in place or from a decode buffer.

#include "core/util/byte_order.h"
#include "core/util/cpu_features.h"
#include "core/util/float_convert.h"
#include "core/util/prefetch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>

namespace gguf::detail::scan {

/// Elements decoded or scanned at a time: 64 KiB of floats stays in L2. Automatic statistics chunks
/// hold whole pieces.
inline constexpr uint64_t kPiece = 16384;

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

inline uint32_t bitsOf(float x)
{
    return std::bit_cast<uint32_t>(x);
}

// The per-piece scan reads 16 values at a time from one of three sources: floats (a decoded
// buffer, or an F32 tensor in place), or the halves of an F16 or BF16 tensor in place, converted
// in registers (exactly: both widen to float without rounding).
enum class Source : uint8_t { Floats, Halves, BrainHalves };

template <Source S> float valueAt(const void *v, size_t i)
{
    if constexpr (S == Source::Floats) {
        float x;
        std::memcpy(&x, static_cast<const uint8_t *>(v) + 4 * i, sizeof x);
        return x;
    } else {
        const uint16_t h = loadU16(static_cast<const uint8_t *>(v) + 2 * i);
        return S == Source::Halves ? fp16ToFp32(h) : bf16ToFp32(h);
    }
}

// It has AVX-512 and AVX2 versions (x86-64, chosen per piece) and a portable one written with
// GCC/Clang vector types, since GCC does not vectorize float min/max or double sums itself
// without -ffast-math. All use the same lanes and the same operations, so every machine gets the
// same results: element i of a piece goes to lane i % 16, and each square is added with one fused
// multiply-add (std::fma in the portable code; the x86 kernels need FMA3, which every AVX2 CPU has).
constexpr size_t kSumLanes = 16;

// 16-byte vectors: native on SSE2 and NEON (wider GCC vectors are split badly without AVX).
using F32x4 = float __attribute__((vector_size(16)));
using I32x4 = int32_t __attribute__((vector_size(16)));
using F32x2 = float __attribute__((vector_size(8)));
using F64x2 = double __attribute__((vector_size(16)));

// Per-lane sums of d = x − shift and of d², min, max and zero count of a piece. A NaN or an
// infinity anywhere makes the sum of d non-finite (no sum of 16,384 finite floats reaches the
// double range), which is how a piece needing the careful path is recognized.
struct Lanes {
    double sum[kSumLanes] = {};
    double sumSq[kSumLanes] = {};
    float min[kSumLanes];
    float max[kSumLanes];
    int32_t zeros[kSumLanes] = {};

    Lanes()
    {
        std::fill(std::begin(min), std::end(min), std::numeric_limits<float>::infinity());
        std::fill(std::begin(max), std::end(max), -std::numeric_limits<float>::infinity());
    }

    void add(size_t i, float x, double shift)
    {
        const size_t lane = i % kSumLanes;
        zeros[lane] += (bitsOf(x) & 0x7fffffffu) == 0;
        min[lane] = x < min[lane] ? x : min[lane];
        max[lane] = x > max[lane] ? x : max[lane];
        const double d = static_cast<double>(x) - shift;
        sum[lane] += d;
        sumSq[lane] = std::fma(d, d, sumSq[lane]);
    }
};

// Whole groups of 16 values into the lanes; returns how many values it took. Written out by hand
// so that the accumulators stay in registers.
// Values read in place (Ahead) are prefetched kPrefetchAhead bytes ahead, one line per group.
constexpr size_t widthOf(Source s)
{
    return s == Source::Floats ? 4 : 2;
}
template <Source S, bool Ahead> inline void prefetchGroup(const void *v, size_t i)
{
    if constexpr (Ahead)
        __builtin_prefetch(static_cast<const uint8_t *>(v) + widthOf(S) * i + kPrefetchAhead, 0, 3);
}

template <Source S, bool Ahead, bool Shifted> size_t scanGroups(const void *v, size_t n, double shift, Lanes &l)
{
    F64x2 sum[8], sumSq[8];
    F32x4 mn[4], mx[4];
    I32x4 z[4];
    std::memcpy(sum, l.sum, sizeof sum);
    std::memcpy(sumSq, l.sumSq, sizeof sumSq);
    std::memcpy(mn, l.min, sizeof mn);
    std::memcpy(mx, l.max, sizeof mx);
    std::memcpy(z, l.zeros, sizeof z);
    size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        prefetchGroup<S, Ahead>(v, i);
        float x[kSumLanes];
        if constexpr (S == Source::Floats) {
            std::memcpy(x, static_cast<const float *>(v) + i, sizeof x);
        } else {
            for (size_t k = 0; k < kSumLanes; ++k)
                x[k] = valueAt<S>(v, i + k);
        }
#pragma GCC unroll 4
        for (size_t q = 0; q < 4; ++q) {
            F32x4 xq;
            std::memcpy(&xq, x + 4 * q, sizeof xq);
            I32x4 bits;
            std::memcpy(&bits, &xq, sizeof bits);
            z[q] -= (bits & 0x7fffffff) == 0; // -1 where true
            mn[q] = xq < mn[q] ? xq : mn[q];
            mx[q] = xq > mx[q] ? xq : mx[q];
        }
#pragma GCC unroll 8
        for (size_t g = 0; g < 8; ++g) {
            F32x2 pair;
            std::memcpy(&pair, x + 2 * g, sizeof pair);
            F64x2 d = __builtin_convertvector(pair, F64x2);
            if constexpr (Shifted)
                d -= shift;
            sum[g] += d;
            sumSq[g] = F64x2{std::fma(d[0], d[0], sumSq[g][0]), std::fma(d[1], d[1], sumSq[g][1])};
        }
    }
    std::memcpy(l.sum, sum, sizeof sum);
    std::memcpy(l.sumSq, sumSq, sizeof sumSq);
    std::memcpy(l.min, mn, sizeof mn);
    std::memcpy(l.max, mx, sizeof mx);
    std::memcpy(l.zeros, z, sizeof z);
    return i;
}

#if GGUF_X86_KERNELS
GGUF_AVX2 inline __m256i zeroMaskAvx2(__m256 x, __m256 magnitudeMask)
{
    return _mm256_cmpeq_epi32(_mm256_castps_si256(_mm256_and_ps(x, magnitudeMask)), _mm256_setzero_si256());
}

// 8 values from element i (F16 needs F16C, which cpuHasAvx2 callers check)
template <Source S> __attribute__((target("avx2,f16c"))) inline __m256 load8Avx2(const void *v, size_t i)
{
    if constexpr (S == Source::Floats) {
        return _mm256_loadu_ps(static_cast<const float *>(v) + i);
    } else {
        const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(static_cast<const uint16_t *>(v) + i));
        if constexpr (S == Source::Halves)
            return _mm256_cvtph_ps(h);
        else
            return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    }
}

// The same loop with AVX2 intrinsics: GCC turns the portable float-to-double conversions into
// 2-lane pieces. Same lanes and the same operations, so the same results.
template <Source S, bool Ahead, bool Shifted>
GGUF_AVX2_FMA_KERNEL size_t scanGroupsAvx2(const void *v, size_t n, double shift, Lanes &l)
{
    __m256d s0 = _mm256_loadu_pd(l.sum), s1 = _mm256_loadu_pd(l.sum + 4);
    __m256d s2 = _mm256_loadu_pd(l.sum + 8), s3 = _mm256_loadu_pd(l.sum + 12);
    __m256d q0 = _mm256_loadu_pd(l.sumSq), q1 = _mm256_loadu_pd(l.sumSq + 4);
    __m256d q2 = _mm256_loadu_pd(l.sumSq + 8), q3 = _mm256_loadu_pd(l.sumSq + 12);
    __m256 mn0 = _mm256_loadu_ps(l.min), mn1 = _mm256_loadu_ps(l.min + 8);
    __m256 mx0 = _mm256_loadu_ps(l.max), mx1 = _mm256_loadu_ps(l.max + 8);
    __m256i z0 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(l.zeros));
    __m256i z1 = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(l.zeros + 8));
    const __m256 magnitudeMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    const __m256d center = _mm256_set1_pd(shift);
    size_t i = 0;
    for (; i + kSumLanes <= n; i += kSumLanes) {
        prefetchGroup<S, Ahead>(v, i);
        const __m256 x0 = load8Avx2<S>(v, i), x1 = load8Avx2<S>(v, i + 8);
        z0 = _mm256_sub_epi32(z0, zeroMaskAvx2(x0, magnitudeMask));
        z1 = _mm256_sub_epi32(z1, zeroMaskAvx2(x1, magnitudeMask));
        // _mm256_min_ps(a, b) is a < b ? a : b, as the portable loop
        mn0 = _mm256_min_ps(x0, mn0);
        mn1 = _mm256_min_ps(x1, mn1);
        mx0 = _mm256_max_ps(x0, mx0);
        mx1 = _mm256_max_ps(x1, mx1);
        __m256d d0 = _mm256_cvtps_pd(_mm256_castps256_ps128(x0)), d1 = _mm256_cvtps_pd(_mm256_extractf128_ps(x0, 1));
        __m256d d2 = _mm256_cvtps_pd(_mm256_castps256_ps128(x1)), d3 = _mm256_cvtps_pd(_mm256_extractf128_ps(x1, 1));
        if constexpr (Shifted) {
            d0 = _mm256_sub_pd(d0, center);
            d1 = _mm256_sub_pd(d1, center);
            d2 = _mm256_sub_pd(d2, center);
            d3 = _mm256_sub_pd(d3, center);
        }
        s0 = _mm256_add_pd(s0, d0);
        s1 = _mm256_add_pd(s1, d1);
        s2 = _mm256_add_pd(s2, d2);
        s3 = _mm256_add_pd(s3, d3);
        q0 = _mm256_fmadd_pd(d0, d0, q0);
        q1 = _mm256_fmadd_pd(d1, d1, q1);
        q2 = _mm256_fmadd_pd(d2, d2, q2);
        q3 = _mm256_fmadd_pd(d3, d3, q3);
    }
    _mm256_storeu_pd(l.sum, s0);
    _mm256_storeu_pd(l.sum + 4, s1);
    _mm256_storeu_pd(l.sum + 8, s2);
    _mm256_storeu_pd(l.sum + 12, s3);
    _mm256_storeu_pd(l.sumSq, q0);
    _mm256_storeu_pd(l.sumSq + 4, q1);
    _mm256_storeu_pd(l.sumSq + 8, q2);
    _mm256_storeu_pd(l.sumSq + 12, q3);
    _mm256_storeu_ps(l.min, mn0);
    _mm256_storeu_ps(l.min + 8, mn1);
    _mm256_storeu_ps(l.max, mx0);
    _mm256_storeu_ps(l.max + 8, mx1);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(l.zeros), z0);
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(l.zeros + 8), z1);
    return i;
}

template <Source S> GGUF_AVX512 inline __m512 load16Avx512(const void *v, size_t i)
{
    if constexpr (S == Source::Floats) {
        return _mm512_loadu_ps(static_cast<const float *>(v) + i);
    } else {
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(static_cast<const uint16_t *>(v) + i));
        if constexpr (S == Source::Halves)
            return _mm512_cvtph_ps(h);
        else
            return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
    }
}

// The same loop on 16-lane vectors: two ports' worth of work per group instead of three.
// The 16-lane accumulators of scanGroupsAvx512, but for the zeros.
template <bool Shifted> struct Avx512Moments {
    __m512d s0, s1, q0, q1, center;
    __m512 mn, mx;

    GGUF_AVX512 explicit Avx512Moments(const Lanes &l, double shift)
        : s0(_mm512_loadu_pd(l.sum)), s1(_mm512_loadu_pd(l.sum + 8)), q0(_mm512_loadu_pd(l.sumSq)),
          q1(_mm512_loadu_pd(l.sumSq + 8)), center(_mm512_set1_pd(shift)), mn(_mm512_loadu_ps(l.min)),
          mx(_mm512_loadu_ps(l.max))
    {
    }
    __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c,fma"), always_inline)) inline void add(__m512 x)
    {
        mn = _mm512_min_ps(x, mn); // x < mn ? x : mn, as the other versions
        mx = _mm512_max_ps(x, mx);
        const __m256 high = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(x), 1));
        __m512d d0 = _mm512_cvtps_pd(_mm512_castps512_ps256(x)), d1 = _mm512_cvtps_pd(high);
        if constexpr (Shifted) {
            d0 = _mm512_sub_pd(d0, center);
            d1 = _mm512_sub_pd(d1, center);
        }
        s0 = _mm512_add_pd(s0, d0);
        s1 = _mm512_add_pd(s1, d1);
        q0 = _mm512_fmadd_pd(d0, d0, q0);
        q1 = _mm512_fmadd_pd(d1, d1, q1);
    }
    GGUF_AVX512 void store(Lanes &l) const
    {
        _mm512_storeu_pd(l.sum, s0);
        _mm512_storeu_pd(l.sum + 8, s1);
        _mm512_storeu_pd(l.sumSq, q0);
        _mm512_storeu_pd(l.sumSq + 8, q1);
        _mm512_storeu_ps(l.min, mn);
        _mm512_storeu_ps(l.max, mx);
    }
};

template <Source S, bool Ahead, bool Shifted>
GGUF_AVX512_FMA_KERNEL size_t scanGroupsAvx512(const void *v, size_t n, double shift, Lanes &l)
{
    Avx512Moments<Shifted> acc(l, shift);
    __m512i z = _mm512_loadu_si512(l.zeros);
    const __m512i magnitudeMask = _mm512_set1_epi32(0x7fffffff), one = _mm512_set1_epi32(1);
    size_t i = 0;
    if constexpr (S != Source::Floats) {
        // halves 32 at a time: their zeros counted from their own bits, 32 lanes per test
        uint64_t zeros = 0;
        for (; i + 2 * kSumLanes <= n; i += 2 * kSumLanes) {
            prefetchGroup<S, Ahead>(v, i);
            const __m512i halves = _mm512_loadu_si512(static_cast<const uint16_t *>(v) + i);
            zeros += static_cast<uint64_t>(std::popcount(_mm512_testn_epi16_mask(halves, _mm512_set1_epi16(0x7fff))));
            for (size_t k = 0; k < 2; ++k) {
                acc.add(load16Avx512<S>(v, i + kSumLanes * k));
            }
        }
        // (lane 0 takes them: only the total counts)
        z = _mm512_add_epi32(z, _mm512_castsi128_si512(_mm_cvtsi32_si128(static_cast<int>(zeros))));
    }
    for (; i + kSumLanes <= n; i += kSumLanes) {
        prefetchGroup<S, Ahead>(v, i);
        const __m512 x = load16Avx512<S>(v, i);
        z = _mm512_mask_add_epi32(z, _mm512_testn_epi32_mask(_mm512_castps_si512(x), magnitudeMask), z, one);
        acc.add(x);
    }
    acc.store(l);
    _mm512_storeu_si512(l.zeros, z);
    return i;
}
#endif

template <Source S, bool Ahead, bool Shifted> size_t scanGroupsBest(const void *v, size_t n, double shift, Lanes &l)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512() && cpuHasFma())
        return scanGroupsAvx512<S, Ahead, Shifted>(v, n, shift, l);
    if (cpuHasAvx2() && cpuHasF16c() && cpuHasFma())
        return scanGroupsAvx2<S, Ahead, Shifted>(v, n, shift, l);
#endif
    return scanGroups<S, Ahead, Shifted>(v, n, shift, l);
}

// Count, mean and M2 (sum of squared deviations from the mean) of an all-finite piece, with its
// min, max and zeros; nullopt when the piece holds a NaN or an infinity. One pass, M2 = Σx² −
// (Σx)²/n, unless that cancels (Σx² > kRecenter · M2, a mean more than about 4 standard deviations
// from 0): then the piece's sums are taken again around its first value, so that Σd² − (Σd)²/n
// loses nothing unless the spread is below ~1e-8 of the distance from that value.
constexpr double kRecenter = 16;
// Values read in place (InPlace) are prefetched ahead, and scanned in batches of kBatch values,
// each followed by afterBatch(first, count) while it is still in the L1 cache. A piece that is
// being decoded (Decoding) has each batch decoded by beforeBatch(first, count) just before it is
// scanned, for the same reason; the whole piece is decoded when the scan returns.
constexpr size_t kBatch = 2048;
struct NoBatchWork {
    void operator()(size_t, size_t) const {}
};
template <Source S, bool InPlace = false, typename AfterBatch = NoBatchWork, typename BeforeBatch = NoBatchWork>
std::optional<Partial> scanFinitePiece(const void *v, size_t n, AfterBatch afterBatch = {},
                                       BeforeBatch beforeBatch = {})
{
    if (n == 0)
        return Partial{};
    constexpr bool decoding = !std::is_same_v<BeforeBatch, NoBatchWork>;
    Lanes l;
    size_t i = 0;
    if constexpr (InPlace || decoding) {
        const auto *bytes = static_cast<const uint8_t *>(v);
        size_t decoded = 0;
        while (n - i >= kSumLanes) {
            const size_t count = std::min(kBatch, n - i);
            beforeBatch(i, count);
            decoded = i + count;
            const size_t m = scanGroupsBest<S, InPlace, false>(bytes + widthOf(S) * i, count, 0.0, l);
            afterBatch(i, m);
            i += m;
        }
        if (decoded < n)
            beforeBatch(decoded, n - decoded);
    } else {
        i = scanGroupsBest<S, false, false>(v, n, 0.0, l);
    }
    for (; i < n; ++i)
        l.add(i, valueAt<S>(v, i), 0.0);
    Partial p;
    p.min = l.min[0];
    p.max = l.max[0];
    for (size_t lane = 0; lane < kSumLanes; ++lane) {
        p.min = std::min<double>(p.min, l.min[lane]);
        p.max = std::max<double>(p.max, l.max[lane]);
        p.zeros += static_cast<uint32_t>(l.zeros[lane]);
    }
    const auto moments = [](const Lanes &lanes, double count, double &sum, double &m2) {
        double sumSq = 0;
        sum = 0;
        for (size_t lane = 0; lane < kSumLanes; ++lane) {
            sum += lanes.sum[lane];
            sumSq += lanes.sumSq[lane];
        }
        m2 = std::max(0.0, sumSq - sum * (sum / count));
        return sumSq;
    };
    const double count = static_cast<double>(n);
    double sum = 0, m2 = 0;
    const double sumSq = moments(l, count, sum, m2);
    if (!std::isfinite(sum))
        return std::nullopt;
    p.finite = n;
    p.mean = sum / count;
    p.m2 = m2;
    if (!(sumSq <= kRecenter * m2)) {
        // the mean is large against the spread, and Σx² − (Σx)²/n would cancel: sum again around
        // the piece's first value
        const double shift = valueAt<S>(v, 0);
        Lanes around;
        size_t k = scanGroupsBest<S, false, true>(v, n, shift, around);
        for (; k < n; ++k)
            around.add(k, valueAt<S>(v, k), shift);
        moments(around, count, sum, m2);
        p.mean = shift + sum / count;
        p.m2 = m2;
    }
    return p;
}

} // namespace gguf::detail::scan
