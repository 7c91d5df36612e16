// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The error measures of a tensor comparison (#15) as the issue defines them, computed the plain
// way — the independent side of tst_compare and tst_inspect_diff.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace gguf::test {

// The definitions of the issue, summed the plain way: one loop, one accumulator each, in long
// double (x86's 64-bit mantissa), so that the order of the additions does not matter at the
// tolerances the tests use (1e-12 relative).
struct Plain {
    uint64_t finite = 0, nonFinite = 0, differing = 0;
    double rmse = 0, maxAbs = 0, meanAbsRel = 0, cosine = 0, snrDb = 0, relL2 = 0;
};

inline Plain plainMeasures(const std::vector<float> &a, const std::vector<float> &b)
{
    Plain p;
    long double sumSqDiff = 0, sumAbsDiff = 0, sumAbsA = 0, dot = 0, normA = 0, normB = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
            ++p.nonFinite;
            const bool same = a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i]));
            p.differing += same ? 0 : 1;
            continue;
        }
        ++p.finite;
        p.differing += a[i] != b[i] ? 1 : 0;
        const long double x = a[i], y = b[i];
        sumSqDiff += (x - y) * (x - y);
        sumAbsDiff += std::fabs(x - y);
        sumAbsA += std::fabs(x);
        dot += x * y;
        normA += x * x;
        normB += y * y;
        p.maxAbs = std::max(p.maxAbs, static_cast<double>(std::fabs(x - y)));
    }
    const auto n = static_cast<long double>(p.finite);
    p.rmse = static_cast<double>(std::sqrt(sumSqDiff / n));
    p.meanAbsRel = static_cast<double>((sumAbsDiff / n) / (sumAbsA / n));
    p.cosine = static_cast<double>(dot / std::sqrt(normA * normB));
    p.snrDb = static_cast<double>(10.0L * std::log10(normA / sumSqDiff));
    p.relL2 = static_cast<double>(std::sqrt(sumSqDiff) / std::sqrt(normA));
    return p;
}

} // namespace gguf::test
