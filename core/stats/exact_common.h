// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/stats: what the exact passes of refineStatistics share (exact_stats.cpp, the F16
// and BF16 route in exact_patterns.cpp, the two-pass route of every other type in exact_keys.cpp;
// docs/FORMAT.md §9) — the value order of 16-bit keys, NumPy's percentile, the histogram's range,
// and the per-worker counters.

#include "core/stats/tensor_stats.h"
#include "key_counts.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

namespace gguf::detail::exact {

/// The 65536 keys in ascending order of the values they hold: negative keys by descending
/// magnitude (-0 last), then positive ones (+0 first). The same order serves F16 and BF16 patterns.
template <typename F> void forEachKeyInValueOrder(F f)
{
    for (uint32_t m = 0x8000; m-- > 0;)
        f(0x8000u | m);
    for (uint32_t m = 0; m < 0x8000; ++m)
        f(m);
}

/// NumPy's linear interpolation (`_lerp` of numpy/lib/_function_base_impl.py): from a towards b,
/// or back from b when t ≥ 0.5, which keeps the result monotonic and exact at both ends
/// (docs/FORMAT.md §9).
inline double lerp(double a, double b, double t)
{
    const double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/// Percentile `level` of `count` sorted values by NumPy's default (method "linear"; docs/FORMAT.md
/// §9): the value at the virtual index (count - 1) * level / 100, interpolated between its two
/// neighbours.
template <typename ValueAt> double numpyPercentile(uint64_t count, double level, const ValueAt &valueAtRank)
{
    const double h = static_cast<double>(count - 1) * (level / 100.0);
    const double below = std::floor(h);
    const auto rank = static_cast<uint64_t>(below);
    const double a = valueAtRank(rank);
    if (rank + 1 >= count)
        return a;
    return lerp(a, valueAtRank(rank + 1), h - below);
}

/// The histogram's range for the automatic case: [min, max], or for a constant tensor the one
/// unit around its value that NumPy gives it (docs/FORMAT.md §9).
struct BinRange {
    double lo = 0, hi = 0;
    uint32_t bins = 1;
    bool here = false; ///< the automatic range is binned here (else the first pass binned a chosen range)
    uint32_t of(double x) const { return histogramBin(x, lo, hi, bins); }
};

/// One worker's counts of `entries` things: 32-bit counters, `copies` interleaved per entry (runs
/// of equal values, zeros above all, alternate between them instead of each increment waiting for
/// the one before), added into 64-bit totals before they could overflow. The 32-bit table is half
/// the cache footprint of a 64-bit one.
class Counter32 {
public:
    Counter32(size_t entries, size_t copies)
        : m_entries(entries), m_copies(copies), m_counts(keys::zeroedArray<uint32_t>(entries * copies)),
          m_totals(entries, 0)
    {
    }
    /// The table, with room for `n` more increments.
    uint32_t *room(size_t n)
    {
        if (m_pending + n > UINT32_MAX)
            flush();
        m_pending += n;
        return m_counts.get();
    }
    void flush()
    {
        for (size_t e = 0; e < m_entries; ++e)
            for (size_t c = 0; c < m_copies; ++c) {
                m_totals[e] += m_counts[e * m_copies + c];
                m_counts[e * m_copies + c] = 0;
            }
        m_pending = 0;
    }
    /// Adds the workers' counts, flushed, into one total per entry.
    static std::vector<uint64_t> sum(std::vector<Counter32> &counters, size_t entries)
    {
        std::vector<uint64_t> out(entries, 0);
        for (Counter32 &c : counters) {
            c.flush();
            for (size_t e = 0; e < entries; ++e)
                out[e] += c.m_totals[e];
        }
        return out;
    }

private:
    size_t m_entries, m_copies;
    std::unique_ptr<uint32_t[], keys::FreeDeleter> m_counts;
    std::vector<uint64_t> m_totals;
    uint64_t m_pending = 0;
};

/// The route for F16 and BF16 tensors: one pass counting every bit pattern (exact_patterns.cpp).
StatsStatus refineByPatterns(const TensorData &data, const StatsOptions &options, uint64_t chunk, const BinRange &range,
                             TensorStatistics &stats);
/// The route for every other type: two passes over the decoded values (exact_keys.cpp).
StatsStatus refineByKeys(const TensorData &data, const StatsOptions &options, uint64_t chunk, const BinRange &range,
                         TensorStatistics &stats);

} // namespace gguf::detail::exact
