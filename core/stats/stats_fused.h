// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace gguf::detail {

/// Statistics of a run of values computed from the integer codes of their blocks, in groups of 32
/// values (a Q8_0 block, a Q4_K sub-block) merged as LaneMoments does (fused_lanes.h).
struct FusedResult {
    uint64_t count = 0, zeros = 0;
    float min = 0, max = 0;
    double mean = 0, m2 = 0;
};

/// The block size of the types computeStatistics can reduce from their codes (Q8_0, Q4_0, Q5_0, Q4_K, Q6_K, Q3_K,
/// IQ4_XS), else 0.
uint32_t fusedBlockSize(uint32_t typeId);

/// Reduces whole blocks [0, nBlocks) of `blocks` (little-endian) without decoding every value into
/// a buffer: count, zeros, min, max, mean and M2 of the values the decoder would give, exactly as
/// the float path computes them (every value of these types is an exact product or difference of
/// the block's integers and scales, checked per block; a sub-block where the decoder would round
/// is decoded and summed as floats). Also fills sampledValues[i] with the value of element
/// sampled[i] (indices into these blocks), bit for bit the decoder's. Returns false when a block
/// has a non-finite scale: then the caller decodes the piece and classifies every value.
/// `tensor` holds the blocks (and those after them, which are prefetched). `seen` is [min, max] of
/// values already seen elsewhere in the tensor (empty: +inf, -inf), which out.min and out.max
/// include: with them the blocks that cannot hold a new extreme are known from their scales alone.
bool fusedScan(uint32_t typeId, const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
               std::span<const uint32_t> sampled, float *sampledValues, std::pair<float, float> seen, FusedResult &out);

} // namespace gguf::detail
