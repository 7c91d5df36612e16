// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;

/// What the estimate is for: llama.cpp's context parameters (docs/MEMORY.md §1).
struct MemoryInputs {
    uint64_t context = 0;  ///< 0: the model's `{arch}.context_length` (4096 when absent)
    uint32_t parallel = 1; ///< sequences (n_seq_max)
    uint32_t ubatch = 512; ///< physical batch
    uint32_t typeK = 1;    ///< ggml type id of the K cache (1: F16)
    uint32_t typeV = 1;
    bool flashAttention = false;
    int64_t gpuLayers = -1; ///< layers offloaded, the output layer counting as one; -1: all
    bool mmap = true;
    bool kvUnified = false; ///< llama.cpp's default: one stream per sequence
    bool swaFull = false;   ///< llama.cpp's common default: sliding-window layers keep only the window
    bool operator==(const MemoryInputs &) const = default;
};

/// The cache types llama.cpp accepts for K and V (`--cache-type-k/-v`), as ggml type ids.
const std::vector<uint32_t> &kvCacheTypes();
/// A cache type as llama.cpp names it on the command line and in its log ("f16", "q8_0").
std::string kvCacheTypeName(uint32_t type);

/// The hyperparameters the estimate reads, with llama.cpp's defaults filled in.
struct ModelShape {
    std::string arch;
    uint64_t layers = 0;            ///< `block_count`
    uint64_t embd = 0;              ///< `embedding_length`
    uint64_t heads = 0;             ///< `attention.head_count` (first layer when an array)
    uint64_t vocab = 0;             ///< `vocab_size` or the token list
    uint64_t feedForward = 0;       ///< the widest layer's `feed_forward_length`
    uint64_t expertFeedForward = 0; ///< `expert_feed_forward_length` × `expert_used_count`
    uint64_t trainedContext = 0;
    uint64_t nextnLayers = 0; ///< `nextn_predict_layers`: the last layers, kept without cache
    uint64_t kvLayers = 0;    ///< layers [0, kvLayers) may keep a cache (the rest share or predict)
    std::vector<uint64_t> headsKv;
    std::vector<uint64_t> headDimK, headDimV; ///< per layer (SWA layers may use `*_swa` sizes)
    std::vector<bool> swa;                    ///< sliding-window layers
    std::vector<bool> recurrent;              ///< layers with a recurrent state instead of K/V
    uint64_t window = 0;                      ///< `attention.sliding_window`
    bool noCache = false;                     ///< non-causal (embedding, diffusion) models
    std::string refusal;                      ///< why llama.cpp would not run it (then layers = 0)
    bool mla = false;                         ///< K holds the compressed latent, no V
    uint64_t stateR = 0, stateS = 0;          ///< recurrent state per layer and sequence, f32 values
    std::vector<std::string> notes;           ///< defaults and rules applied (one line each)
};

ModelShape readModelShape(const GgufFile &file);
/// ModelShape::refusal alone, from the layer counts llama.cpp's model loader checks first (a file
/// its reader accepts can still be refused there: block_count over 512, …); empty when none.
std::string layerCountRefusal(const GgufFile &file);

enum class KvLayerKind : uint8_t { Full, SlidingWindow, Recurrent, None };
const char *kvLayerKindName(KvLayerKind kind);

/// One layer's cache.
struct LayerKv {
    uint32_t layer = 0;
    KvLayerKind kind = KvLayerKind::Full;
    bool onGpu = false;
    uint64_t cells = 0; ///< per stream (recurrent: sequences)
    uint64_t headsKv = 0;
    uint64_t rowK = 0, rowV = 0;     ///< values per cell (recurrent: R and S values per sequence)
    uint64_t kBytes = 0, vBytes = 0; ///< all streams (recurrent: R and S)
    uint64_t bytes() const;          ///< K + V (saturating)
};

struct KvEstimate {
    uint64_t context = 0; ///< the context asked for, or the model's (4096 when it names none)
    uint64_t nCtx = 0;    ///< the context after llama.cpp's padding
    uint64_t nCtxSeq = 0; ///< cells of one stream
    uint64_t streams = 1;
    uint64_t ubatch = 0;   ///< the physical batch llama.cpp uses: min(ubatch, n_batch = min(n_ctx, 2048))
    uint64_t swaCells = 0; ///< cells of a sliding-window layer (0 without such layers)
    std::vector<LayerKv> layers;
    uint64_t kBytes = 0, vBytes = 0; ///< attention caches
    uint64_t stateBytes = 0;         ///< recurrent states (R + S)
    uint64_t gpuBytes = 0;           ///< the part on the GPU
    uint64_t total() const;          ///< K + V + state (saturating)
};

/// The padded context and streams llama.cpp makes of the inputs (llama_context's constructor).
void padContext(const ModelShape &shape, const MemoryInputs &inputs, KvEstimate &out);

/// The index of the first layer on the GPU (llama.cpp's `i_gpu_start`; `layers` when none is).
uint64_t firstGpuLayer(uint64_t layers, int64_t gpuLayers);

/// The KV cache and recurrent state llama.cpp allocates (docs/MEMORY.md §1–4).
KvEstimate estimateKv(const ModelShape &shape, const MemoryInputs &inputs);
KvEstimate estimateKv(const GgufFile &file, const MemoryInputs &inputs);

} // namespace gguf
