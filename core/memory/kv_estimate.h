// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;

/// What the estimate is for: llama.cpp's context parameters (docs/MEMORY.md).
struct MemoryInputs {
    uint64_t context = 0; ///< 0: the model's `{arch}.context_length`
    uint32_t parallel = 1;
    uint32_t ubatch = 512;
    uint32_t typeK = 1; ///< ggml type id of the K cache (1: F16)
    uint32_t typeV = 1;
    bool flashAttention = false;
    bool kvUnified = false;
    bool swaFull = false;
};

enum class KvLayerKind : uint8_t { Full, SlidingWindow, Recurrent, None };

/// One layer's cache.
struct LayerKv {
    uint32_t layer = 0;
    KvLayerKind kind = KvLayerKind::Full;
    uint64_t cells = 0; ///< per stream
    uint64_t headsKv = 0;
    uint64_t headDimK = 0, headDimV = 0;
    uint64_t kBytes = 0, vBytes = 0; ///< all streams
};

struct KvEstimate {
    uint64_t nCtx = 0;    ///< the context after llama.cpp's padding
    uint64_t nCtxSeq = 0; ///< cells of one stream
    uint64_t streams = 1;
    std::vector<LayerKv> layers;
    uint64_t kBytes = 0, vBytes = 0;
    std::vector<std::string> notes; ///< what the estimate assumed (one line each)
};

/// The KV cache llama.cpp allocates for `file` (docs/MEMORY.md §1–3).
KvEstimate estimateKv(const GgufFile &file, const MemoryInputs &inputs);

} // namespace gguf
