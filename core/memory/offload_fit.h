// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The settings that fit the devices (#44; docs/MEMORY.md §10): the most layers on the GPUs, then
// the fewest layers whose experts stay on the CPU (--n-cpu-moe), then the largest context (or the
// one given), each GPU keeping a margin free — the order of llama.cpp's own fit
// (common/fit.cpp), computed here with the plan of offload_plan.h instead of trial loads.

#include "core/memory/offload_plan.h"
#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gguf {

struct FitOptions {
    uint64_t marginBytes = uint64_t(1024) << 20; ///< left free on each GPU (llama.cpp's --fit-target: 1024 MiB)
    bool maxContext = false;    ///< find the largest context (else the one in MemoryInputs, 0: the model's)
    uint64_t minContext = 4096; ///< the context the layers are fitted at with maxContext (llama.cpp's --fit-ctx)
    ProgressFn progress;        ///< called after each plan tried (done, an upper bound of the total); false cancels
};

struct FitResult {
    OffloadPlan plan;      ///< the chosen settings' plan (its error set when none could be made)
    int64_t gpuLayers = 0; ///< 0 … n_layer + 1
    uint32_t nCpuMoe = 0;  ///< layers whose experts stay on the CPU (0 for a model without experts)
    uint64_t context = 0;  ///< the context of the plan
    bool experts = false;  ///< the model has expert tensors
    std::vector<std::string>
        whyNotMore; ///< why one more layer, one fewer CPU expert layer, a longer context would not fit
    /// llama.cpp's arguments for these settings: --gpu-layers, --n-cpu-moe, --ctx-size and the
    /// options given (tensor split, split mode, overrides, cache types, flash attention…).
    std::vector<std::string> args;
    bool cancelled = false; ///< progress returned false: nothing else is set
};

/// The free memory a device must keep: its free bytes less the margin (0 when that is negative).
uint64_t usableBytes(const PlannedDevice &device, uint64_t margin);
/// The first device of `plan` (after the CPU) that does not fit, with by how much, or "".
std::string overflowOf(const OffloadPlan &plan, uint64_t margin);

/// llama.cpp's arguments for these settings (memory.gpuLayers −1: every layer, written as the
/// count; offload.nCpuMoe; memory.context, 0 left out): --gpu-layers, --n-cpu-moe, --ctx-size, the
/// split, overrides, cache types, flash attention, sequences, batch and mmap.
std::vector<std::string> llamaArgs(const MemoryModel &model, const MemoryInputs &memory, const OffloadInputs &offload);
/// `llama-server -m MODEL ARGS…` as a POSIX shell reads it back (each word quoted where needed).
std::string llamaServerCommand(const std::string &model, const std::vector<std::string> &args);

FitResult fitOffload(const MemoryModel &model, MemoryInputs memory, const OffloadInputs &offload,
                     const FitOptions &options);

} // namespace gguf
