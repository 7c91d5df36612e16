// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/compare: the pair sums of value_diff.cpp in lanes, in portable, AVX2 and AVX-512
// forms that give the same bits (the same double operations, fused multiply-adds included, in the
// same order per lane).

#include <cstddef>
#include <cstdint>

namespace gguf::detail {

/// Sums of pairs, pair j of a run in lane j % kLanes.
struct DiffLanes {
    static constexpr size_t kLanes = 16;
    alignas(64) double sqDiff[kLanes]{};
    alignas(64) double absDiff[kLanes]{};
    alignas(64) double absA[kLanes]{};
    alignas(64) double ab[kLanes]{};
    alignas(64) double sqA[kLanes]{};
    alignas(64) double sqB[kLanes]{};
    alignas(64) double maxAbs[kLanes]{};
    uint64_t finite = 0, nonFinite = 0, differing = 0;

    /// Adds `other` lane by lane.
    void add(const DiffLanes &other);
};

/// Adds the pairs (a[j], b[j]), j < n, to `lanes`: a run's sums are formed in fresh lanes and then
/// added, so the result is the same whichever kernel formed them.
void accumulateDiff(const float *a, const float *b, size_t n, DiffLanes &lanes);

} // namespace gguf::detail
