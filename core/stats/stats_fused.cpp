// SPDX-License-Identifier: GPL-3.0-or-later
// Statistics straight from the integer codes of Q8_0, Q4_0, Q5_0, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K and IQ4_XS blocks
// (layouts: ggml src/ggml-common.h; docs/FORMAT.md §4.2-§4.5). A Q8_0 value is q·d; a Q4_K or Q5_K value is q·d1 − m1
// with d1 = d·scale and m1 = dmin·min. With d an f16, every product here fits in a float's 24 bits, so the decoder's
// float arithmetic is exact, and the sums of a group of 32 values follow exactly from Σq and Σq² of its codes — except
// for a Q4_K or Q5_K subtraction whose terms lie too many binades apart, which the code checks for and then sums that
// group's decoded floats instead.
#include "fused_lanes.h"

namespace gguf::detail {

uint32_t fusedBlockSize(uint32_t typeId)
{
    switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q5_0: return 32;
    case GgmlType::Q2_K:
    case GgmlType::Q3_K:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
    case GgmlType::IQ4_XS: return 256;
    default: return 0;
    }
}

bool fusedScan(uint32_t typeId, const uint8_t *blocks, size_t nBlocks, std::span<const uint8_t> tensor,
               std::span<const uint32_t> sampled, float *sampledValues, std::pair<float, float> seen, FusedResult &out)
{
    LaneMoments g;
    g.min = seen.first;
    g.max = seen.second;
    bool ok = false;
    switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::Q8_0: ok = scanQ8_0(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q4_K: ok = scanQ4_K(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q5_K: ok = scanQ5_K(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q4_0: ok = scanQ4_0(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q5_0: ok = scanQ5_0(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q6_K: ok = scanQ6_K(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q2_K: ok = scanQ2_K(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::Q3_K: ok = scanQ3_K(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    case GgmlType::IQ4_XS: ok = scanIQ4_XS(blocks, nBlocks, tensor, sampled, sampledValues, g); break;
    default: break;
    }
    if (ok)
        g.finish(out);
    return ok;
}

} // namespace gguf::detail
