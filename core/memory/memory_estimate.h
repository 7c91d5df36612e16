// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/memory/kv_estimate.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;
class SplitModel;
struct TensorInfo;

enum class MemoryDevice : uint8_t { Cpu, Gpu };
const char *memoryDeviceName(MemoryDevice device); ///< "cpu", "gpu"

enum class MemoryPart : uint8_t { Weights, Kv, Compute, Output };
const char *memoryPartName(MemoryPart part); ///< "weights", "kv", "compute", "output"

/// What one device holds.
struct DeviceMemory {
    uint64_t weights = 0, kv = 0, compute = 0, output = 0;
    uint64_t total() const; ///< saturating
    uint64_t &operator[](MemoryPart part);
};

/// One figure of the estimate, with the formula and inputs that give it (docs/MEMORY.md).
struct MemoryTerm {
    MemoryPart part = MemoryPart::Weights;
    MemoryDevice device = MemoryDevice::Cpu;
    std::string what; ///< e.g. "layers 0–31"
    std::string formula;
    uint64_t bytes = 0;
};

/// The parts of the compute-buffer estimate (docs/MEMORY.md §8), kept for the multi-device plan.
struct ComputeParts {
    uint64_t layerPeak = 0; ///< max(attention, FFN) of one layer
    uint64_t hidden = 0;    ///< four hidden-state rows
    uint64_t logits = 0;
    uint64_t inputRows = 0; ///< n_embd × T × 4: the CPU's share when every layer is offloaded
};

/// Where llama.cpp loads a tensor from: with the input layer (always the CPU), a repeating layer,
/// the output layer, or (outside any of them) with the first layer.
enum class TensorClass : uint8_t { Input, Layer, Output, Other };

/// One tensor of the model as the estimate sees it.
struct ModelTensor {
    std::string name;
    int64_t layer = -1; ///< N of blk.N (may lie past block_count), else -1
    uint64_t bytes = 0;
    uint64_t rows = 1; ///< product of the dims after the first (a row-split matrix splits these)
    uint32_t nDims = 0;
    TensorClass cls = TensorClass::Other;
};

struct MemoryEstimate {
    MemoryInputs inputs;       ///< as given, with the context resolved
    uint64_t gpuLayers = 0;    ///< layers offloaded, output counted (0 … layers + 1)
    uint64_t maxGpuLayers = 0; ///< layers + 1
    bool outputOnGpu = false;
    bool tiedOutput = false; ///< no output.weight: the token embedding is used again
    KvEstimate kv;
    std::array<DeviceMemory, 2> devices{}; ///< by MemoryDevice
    std::vector<MemoryTerm> terms;
    std::vector<std::string> notes;
    std::vector<std::string> refusals; ///< why llama.cpp would refuse these settings (empty: it accepts them)
    ComputeParts compute;
    const DeviceMemory &cpu() const { return devices[0]; }
    const DeviceMemory &gpu() const { return devices[1]; }
    uint64_t total() const; ///< both devices, saturating
};

/// The memory llama.cpp needs to run one model. The tensors are read once; each estimate is then
/// arithmetic on the metadata (cheap enough for the GUI thread).
class MemoryModel {
public:
    explicit MemoryModel(const SplitModel &model);
    explicit MemoryModel(const GgufFile &file);

    const ModelShape &shape() const { return m_shape; }
    /// Why there is no estimate to give, empty when there is: what llama.cpp refuses in the shape,
    /// else the file is no model it runs (another general.type, no architecture, no tensors to
    /// load, no block_count). The estimates can still be computed from the metadata.
    const std::string &whyNoEstimate() const { return m_whyNoEstimate; }
    uint64_t weightBytes() const;
    const std::vector<ModelTensor> &tensors() const { return m_tensors; }
    bool hasOutput() const { return m_hasOutput; }
    MemoryEstimate estimate(const MemoryInputs &inputs) const;
    /// The device a budget applies to: the GPU when any layer is offloaded, else the CPU (RAM).
    static MemoryDevice budgetDevice(const MemoryEstimate &estimate);
    /// The largest context (a multiple of 256 × sequences, at most the trained context, or 2^22
    /// when the model names none) whose budget device needs at most `budget` bytes; 0 when even
    /// the smallest does not fit.
    uint64_t maxContextForBudget(MemoryInputs inputs, uint64_t budget) const;

private:
    void addTensor(const TensorInfo &tensor);
    void findWhyNotRunnable(const GgufFile &primary, size_t tensorCount);

    ModelShape m_shape;
    std::string m_whyNoEstimate;
    uint64_t m_inputBytes = 0;  ///< token embedding and the other input tensors (always on the CPU)
    uint64_t m_outputBytes = 0; ///< output, output_norm, classifier heads
    uint64_t m_otherBytes = 0;  ///< outside any layer: with the first layer
    uint64_t m_tokenEmbdBytes = 0;
    bool m_hasOutput = false;
    std::vector<uint64_t> m_layerBytes;
    std::vector<ModelTensor> m_tensors;
    uint64_t m_strayLayerBytes = 0; ///< "blk.N" past block_count
};

/// "4.00 MiB" (two decimals, as llama.cpp prints its buffers).
std::string mibText(uint64_t bytes);
/// The note on where the CPU weights live: pages of the file (mmap), or allocated memory.
std::string mmapNote(bool mmap, uint64_t cpuWeights);

} // namespace gguf
