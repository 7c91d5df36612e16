// SPDX-License-Identifier: GPL-3.0-or-later
#include "diff_kernels.h"

#include "core/util/cpu_features.h"

#include <bit>
#include <cmath>

namespace gguf::detail {
namespace {

constexpr size_t kLanes = DiffLanes::kLanes;

// One pair into lane l, leaving out non-finite pairs: the operations every kernel performs.
inline void addPair(float fa, float fb, size_t l, DiffLanes &s)
{
    if (!std::isfinite(fa) || !std::isfinite(fb)) {
        ++s.nonFinite;
        s.differing += !(fa == fb || (std::isnan(fa) && std::isnan(fb)));
        return;
    }
    ++s.finite;
    s.differing += fa != fb;
    const double a = fa, b = fb, d = a - b, ad = std::fabs(d);
    s.sqDiff[l] = std::fma(d, d, s.sqDiff[l]);
    s.absDiff[l] += ad;
    s.maxAbs[l] = s.maxAbs[l] > ad ? s.maxAbs[l] : ad;
    s.absA[l] += std::fabs(a);
    s.ab[l] = std::fma(a, b, s.ab[l]);
    s.sqA[l] = std::fma(a, a, s.sqA[l]);
    s.sqB[l] = std::fma(b, b, s.sqB[l]);
}

// Pairs [0, n - n % 16) of a run of finite values (the caller checks afterwards): addPair's
// operations without its tests, 16 lanes at a time.
void portableRun(const float *a, const float *b, size_t n, DiffLanes &s)
{
    for (size_t i = 0; i + kLanes <= n; i += kLanes)
        for (size_t l = 0; l < kLanes; ++l) {
            s.differing += a[i + l] != b[i + l];
            const double x = a[i + l], y = b[i + l], d = x - y, ad = std::fabs(d);
            s.sqDiff[l] = std::fma(d, d, s.sqDiff[l]);
            s.absDiff[l] += ad;
            s.maxAbs[l] = s.maxAbs[l] > ad ? s.maxAbs[l] : ad;
            s.absA[l] += std::fabs(x);
            s.ab[l] = std::fma(x, y, s.ab[l]);
            s.sqA[l] = std::fma(x, x, s.sqA[l]);
            s.sqB[l] = std::fma(y, y, s.sqB[l]);
        }
    s.finite += n / kLanes * kLanes;
}

// A run whose squares are all finite had only finite values (a float squared cannot overflow a double).
bool allFinite(const DiffLanes &s)
{
    for (size_t l = 0; l < kLanes; ++l)
        if (!std::isfinite(s.sqA[l]) || !std::isfinite(s.sqB[l]))
            return false;
    return true;
}

#if GGUF_X86_KERNELS
// Pairs [0, n - n % 16) of a run of finite values (the caller checks afterwards).
GGUF_AVX512_FMA_KERNEL void avx512Run(const float *a, const float *b, size_t n, DiffLanes &s)
{
    const __m512d signless = _mm512_castsi512_pd(_mm512_set1_epi64(0x7fffffffffffffffLL));
    __m512d sq[2], ad[2], aa[2], ab[2], a2[2], b2[2], mx[2];
    for (int h = 0; h < 2; ++h) {
        sq[h] = _mm512_load_pd(s.sqDiff + 8 * h);
        ad[h] = _mm512_load_pd(s.absDiff + 8 * h);
        aa[h] = _mm512_load_pd(s.absA + 8 * h);
        ab[h] = _mm512_load_pd(s.ab + 8 * h);
        a2[h] = _mm512_load_pd(s.sqA + 8 * h);
        b2[h] = _mm512_load_pd(s.sqB + 8 * h);
        mx[h] = _mm512_load_pd(s.maxAbs + 8 * h);
    }
    uint64_t differing = 0;
    for (size_t i = 0; i + 16 <= n; i += 16) {
        const __m512 fa = _mm512_loadu_ps(a + i), fb = _mm512_loadu_ps(b + i);
        differing +=
            static_cast<uint64_t>(std::popcount(static_cast<unsigned>(_mm512_cmp_ps_mask(fa, fb, _CMP_NEQ_UQ))));
        const __m512d va[2] = {_mm512_cvtps_pd(_mm512_castps512_ps256(fa)),
                               _mm512_cvtps_pd(_mm512_extractf32x8_ps(fa, 1))};
        const __m512d vb[2] = {_mm512_cvtps_pd(_mm512_castps512_ps256(fb)),
                               _mm512_cvtps_pd(_mm512_extractf32x8_ps(fb, 1))};
        for (int h = 0; h < 2; ++h) {
            const __m512d d = _mm512_sub_pd(va[h], vb[h]);
            const __m512d absd = _mm512_and_pd(d, signless);
            sq[h] = _mm512_fmadd_pd(d, d, sq[h]);
            ad[h] = _mm512_add_pd(ad[h], absd);
            mx[h] = _mm512_max_pd(mx[h], absd);
            aa[h] = _mm512_add_pd(aa[h], _mm512_and_pd(va[h], signless));
            ab[h] = _mm512_fmadd_pd(va[h], vb[h], ab[h]);
            a2[h] = _mm512_fmadd_pd(va[h], va[h], a2[h]);
            b2[h] = _mm512_fmadd_pd(vb[h], vb[h], b2[h]);
        }
    }
    for (int h = 0; h < 2; ++h) {
        _mm512_store_pd(s.sqDiff + 8 * h, sq[h]);
        _mm512_store_pd(s.absDiff + 8 * h, ad[h]);
        _mm512_store_pd(s.absA + 8 * h, aa[h]);
        _mm512_store_pd(s.ab + 8 * h, ab[h]);
        _mm512_store_pd(s.sqA + 8 * h, a2[h]);
        _mm512_store_pd(s.sqB + 8 * h, b2[h]);
        _mm512_store_pd(s.maxAbs + 8 * h, mx[h]);
    }
    s.differing += differing;
    s.finite += n / 16 * 16;
}

GGUF_AVX2_FMA_KERNEL void avx2Run(const float *a, const float *b, size_t n, DiffLanes &s)
{
    const __m256d signless = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    __m256d sq[4], ad[4], aa[4], ab[4], a2[4], b2[4], mx[4];
    for (int q = 0; q < 4; ++q) {
        sq[q] = _mm256_load_pd(s.sqDiff + 4 * q);
        ad[q] = _mm256_load_pd(s.absDiff + 4 * q);
        aa[q] = _mm256_load_pd(s.absA + 4 * q);
        ab[q] = _mm256_load_pd(s.ab + 4 * q);
        a2[q] = _mm256_load_pd(s.sqA + 4 * q);
        b2[q] = _mm256_load_pd(s.sqB + 4 * q);
        mx[q] = _mm256_load_pd(s.maxAbs + 4 * q);
    }
    uint64_t differing = 0;
    for (size_t i = 0; i + 16 <= n; i += 16) {
        __m256d va[4], vb[4];
        for (int h = 0; h < 2; ++h) {
            const __m256 fa = _mm256_loadu_ps(a + i + 8 * h), fb = _mm256_loadu_ps(b + i + 8 * h);
            differing += static_cast<uint64_t>(
                std::popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_cmp_ps(fa, fb, _CMP_NEQ_UQ)))));
            va[2 * h] = _mm256_cvtps_pd(_mm256_castps256_ps128(fa));
            va[2 * h + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(fa, 1));
            vb[2 * h] = _mm256_cvtps_pd(_mm256_castps256_ps128(fb));
            vb[2 * h + 1] = _mm256_cvtps_pd(_mm256_extractf128_ps(fb, 1));
        }
        for (int q = 0; q < 4; ++q) {
            const __m256d d = _mm256_sub_pd(va[q], vb[q]);
            const __m256d absd = _mm256_and_pd(d, signless);
            sq[q] = _mm256_fmadd_pd(d, d, sq[q]);
            ad[q] = _mm256_add_pd(ad[q], absd);
            mx[q] = _mm256_max_pd(mx[q], absd);
            aa[q] = _mm256_add_pd(aa[q], _mm256_and_pd(va[q], signless));
            ab[q] = _mm256_fmadd_pd(va[q], vb[q], ab[q]);
            a2[q] = _mm256_fmadd_pd(va[q], va[q], a2[q]);
            b2[q] = _mm256_fmadd_pd(vb[q], vb[q], b2[q]);
        }
    }
    for (int q = 0; q < 4; ++q) {
        _mm256_store_pd(s.sqDiff + 4 * q, sq[q]);
        _mm256_store_pd(s.absDiff + 4 * q, ad[q]);
        _mm256_store_pd(s.absA + 4 * q, aa[q]);
        _mm256_store_pd(s.ab + 4 * q, ab[q]);
        _mm256_store_pd(s.sqA + 4 * q, a2[q]);
        _mm256_store_pd(s.sqB + 4 * q, b2[q]);
        _mm256_store_pd(s.maxAbs + 4 * q, mx[q]);
    }
    s.differing += differing;
    s.finite += n / 16 * 16;
}
#endif

} // namespace

void DiffLanes::add(const DiffLanes &o)
{
    for (size_t l = 0; l < kLanes; ++l) {
        sqDiff[l] += o.sqDiff[l];
        absDiff[l] += o.absDiff[l];
        absA[l] += o.absA[l];
        ab[l] += o.ab[l];
        sqA[l] += o.sqA[l];
        sqB[l] += o.sqB[l];
        maxAbs[l] = maxAbs[l] > o.maxAbs[l] ? maxAbs[l] : o.maxAbs[l];
    }
    finite += o.finite;
    nonFinite += o.nonFinite;
    differing += o.differing;
}

void accumulateDiff(const float *a, const float *b, size_t n, DiffLanes &lanes)
{
    DiffLanes run;
#if GGUF_X86_KERNELS
    if (cpuHasAvx512())
        avx512Run(a, b, n, run);
    else if (cpuHasAvx2() && cpuHasFma())
        avx2Run(a, b, n, run);
    else
#endif
        portableRun(a, b, n, run);
    size_t done = n / kLanes * kLanes;
    if (done > 0 && !allFinite(run)) {
        run = DiffLanes{}; // a NaN or an infinity: the pairs one by one, leaving those out
        done = 0;
    }
    for (size_t j = done; j < n; ++j)
        addPair(a[j], b[j], j % kLanes, run);
    lanes.add(run);
}

} // namespace gguf::detail
