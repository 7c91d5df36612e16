// SPDX-License-Identifier: GPL-3.0-or-later
// Percentiles and the automatic-range histogram estimated from the counts of 16-bit keys.
#include "key_counts.h"

#include <bit>
#include <cmath>

namespace gguf::keys {

// The float range [first, last] of values whose upper 16 bits are `key`.
std::pair<double, double> keyRange(uint32_t key)
{
    const float a = std::bit_cast<float>(key << 16);
    const float b = std::bit_cast<float>((key << 16) | 0xffffu);
    return {std::min<double>(a, b), std::max<double>(a, b)};
}

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
        // rank h of the percentile among the sorted counted values (0-based; docs/FORMAT.md §9)
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
                    const double frac =
                        c > 1 ? (target - static_cast<double>(before)) / static_cast<double>(c - 1) : 0.0;
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
            return width > 0
                       ? std::min<uint64_t>(static_cast<uint64_t>((x - mn) / width * static_cast<double>(nb)), nb - 1)
                       : 0;
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

} // namespace gguf::keys
