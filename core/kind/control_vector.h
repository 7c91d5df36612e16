// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;
struct ControlVectorFacts;

/// How strongly a control vector pushes one layer: the size of its direction (docs/KINDS.md).
/// llama.cpp adds strength · direction.N to the output of layer N (common/common.cpp,
/// common_control_vector_load_one), so the L2 norm is how far the layer's hidden state moves at
/// strength 1.
struct DirectionNorm {
    uint64_t layer = 0;
    std::string tensor; ///< "direction.N"
    double norm = 0;    ///< L2 norm of the direction
    double maxAbs = 0;  ///< the largest |element|
    bool ok = false;    ///< false when its data could not be decoded
    std::string error;  ///< why a remote file's bytes could not be fetched
};

/// The norm of every direction of `facts` (from describeKind of `file`), decoding each tensor;
/// `progress` runs over the directions, false cancels (then nullopt).
std::optional<std::vector<DirectionNorm>> directionNorms(const GgufFile &file, const ControlVectorFacts &facts,
                                                         const ProgressFn &progress = {});

} // namespace gguf
