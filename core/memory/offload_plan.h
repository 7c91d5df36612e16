// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Where llama.cpp puts each tensor, each layer's KV cache and the compute buffers when a model is
// spread over the CPU and several GPUs (#44; docs/MEMORY.md §9): the layer split of
// llama_model::load_tensors, the per-tensor overrides (-ot, --cpu-moe, --n-cpu-moe) and the split
// modes. The single-device estimate (MemoryModel::estimate) is unchanged; this builds on it.

#include "core/memory/memory_estimate.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

/// One GPU as `--device NAME=GIB` gives it: its name (llama.cpp's buffer name, e.g. CUDA0) and the
/// memory free on it.
struct GpuDevice {
    std::string name;
    uint64_t freeBytes = 0;
    bool operator==(const GpuDevice &) const = default;
};

enum class SplitMode : uint8_t { None, Layer, Row };
const char *splitModeName(SplitMode mode); ///< "none", "layer", "row"

/// `-ot REGEX=BUFFER`: the tensors whose name the regex finds (anywhere in it) go to BUFFER, "CPU"
/// or a device's name.
struct TensorOverride {
    std::string pattern;
    std::string buffer;
    bool operator==(const TensorOverride &) const = default;
};

/// The placement options of llama.cpp's model parameters.
struct OffloadInputs {
    std::vector<GpuDevice> devices;  ///< in order; empty: the single-device estimate
    std::vector<double> tensorSplit; ///< per device; empty or all zero: by free memory
    SplitMode splitMode = SplitMode::Layer;
    uint32_t mainGpu = 0;
    std::vector<TensorOverride> overrides; ///< the user's -ot rules, in order
    bool cpuMoe = false;                   ///< --cpu-moe: every layer's experts on the CPU
    uint32_t nCpuMoe = 0;                  ///< --n-cpu-moe N: the experts of layers 0 … N-1 on the CPU
    bool operator==(const OffloadInputs &) const = default;
};

std::optional<SplitMode> splitModeFromName(std::string_view name); ///< "none", "layer", "row"
/// llama.cpp's --tensor-split text: numbers separated by ',' or '/' (spaces around them allowed);
/// nullopt when one is not a non-negative number.
std::optional<std::vector<double>> parseTensorSplit(std::string_view text);
/// llama.cpp's -ot text: REGEX=BUFFER items separated by ','; nullopt, with `bad` the item, when one
/// is not that.
std::optional<std::vector<TensorOverride>> parseOverrides(std::string_view text, std::string &bad);

/// The override rules llama.cpp applies, in order: the user's, then --cpu-moe's, then one per
/// layer of --n-cpu-moe (common/arg.cpp appends them as the options come; this is their order
/// when -ot comes first).
std::vector<TensorOverride> effectiveOverrides(const OffloadInputs &inputs);
/// llama.cpp's pattern for the experts of layer `layer` (or every layer when negative).
std::string expertPattern(int64_t layer);

/// Where one tensor goes, and why.
struct TensorPlacement {
    std::string tensor;
    size_t device = 0; ///< index into OffloadPlan::devices (0: the CPU)
    uint64_t bytes = 0;
    int64_t layer = -1; ///< blk.N, or the output layer's n_layer, or -1 for the input layer
    std::string role;   ///< "attention", "experts", "feed-forward", "norm", "input", "output", "other"
    std::string why;
};

/// One device's share.
struct PlannedDevice {
    std::string name;       ///< "cpu" or the GPU's name
    uint64_t freeBytes = 0; ///< as given (0 for the CPU)
    DeviceMemory memory;
    uint64_t layers = 0; ///< repeating layers assigned (the output layer not counted)
    bool output = false; ///< holds the output layer
};

struct OffloadPlan {
    MemoryEstimate base;                    ///< the single-device estimate of the same inputs (KV sizes, compute parts)
    std::vector<PlannedDevice> devices;     ///< the CPU, then each GPU in order
    std::vector<size_t> layerDevice;        ///< per layer 0 … n_layer (n_layer: the output layer)
    std::vector<TensorPlacement> placement; ///< every tensor, in file order (a tied output twice)
    std::vector<TensorOverride> rules;      ///< the overrides applied, in order
    std::vector<uint64_t> ruleHits;         ///< tensors each rule placed
    std::vector<std::string> notes;         ///< the estimate's, for this plan, and the plan's own
    std::string error; ///< settings llama.cpp rejects (an unknown buffer, a bad regex…); then nothing else
    uint64_t total() const;
};

/// The plan of `inputs.devices` (non-empty) for the context settings `memory`.
OffloadPlan planOffload(const MemoryModel &model, const MemoryInputs &memory, const OffloadInputs &inputs);

} // namespace gguf
