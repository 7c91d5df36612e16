// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A GGUF against the Hugging Face checkpoint it was converted from (#43, docs/SAFETENSORS.md §7):
// each GGUF tensor paired with the checkpoint tensors llama.cpp's converter made it from, and what
// the converter did to them undone — names, rows regrouped for RoPE, experts stacked, norms stored
// with +1 — so the two compare value by value. A tensor the rules do not pair is left unpaired,
// never guessed.

#include "core/compare/composed_values.h"
#include "core/compare/tensor_diff.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {
class SplitModel;
namespace st {
class Checkpoint;
}

/// One GGUF tensor and where it comes from in the checkpoint; or a tensor of only one side.
struct CheckpointPair {
    int ggufTensor = -1;              ///< index into SplitModel::tensors(); -1: only in the checkpoint
    std::vector<int> sources;         ///< indices into Checkpoint::tensors(), stacked in this order
    std::string sourceName;           ///< "model.layers.0.mlp.experts.{0…7}.gate_proj.weight"
    std::vector<std::string> undone;  ///< what the converter did, in words ("+1 (gemma norm)")
    std::vector<uint64_t> sourceDims; ///< the composed tensor's dims, innermost first (GGUF order)
    uint64_t cols = 0, firstRow = 0, rowsPerSource = 0;
    uint64_t expertStride = 0; ///< a fused experts tensor: its rows per expert, of which rowsPerSource are taken
    uint32_t ropeHeads = 0;
    float shift = 0;
    std::string problem; ///< why the pair cannot be compared (shapes that do not fit)

    bool paired() const { return ggufTensor >= 0 && !sources.empty(); }
};

struct CheckpointPairing {
    std::string architecture;          ///< the GGUF's general.architecture
    bool known = false;                ///< an architecture the rules cover
    std::string problem;               ///< why nothing was paired
    std::vector<CheckpointPair> pairs; ///< the GGUF's tensors in its order, then the checkpoint's left over
};

/// The architectures whose conversion is undone: llama (also Mistral and Mixtral), qwen2,
/// qwen2moe, qwen3, qwen3moe, gemma, gemma2, gemma3, phi3.
const std::vector<std::string> &pairableArchitectures();

/// Pairs the tensors of `model` with those of `checkpoint` by llama.cpp's conversion rules for
/// the model's architecture (its general.architecture; head counts from its metadata).
CheckpointPairing pairWithCheckpoint(const SplitModel &model, const st::Checkpoint &checkpoint);

/// The data of checkpoint tensor `index` (Checkpoint::tensors()), read as its dtype's type id
/// (st::ggmlTypeOf) from its shard; nullopt when the shard is not open or the dtype has no decoder.
std::optional<TensorData> checkpointTensorData(const st::Checkpoint &checkpoint, size_t index);

/// The checkpoint side of a pair as the GGUF holds it. Empty pieces when a source cannot be read
/// as values (a dtype without a ggml counterpart).
ComposedValues composedValues(const CheckpointPair &pair, const st::Checkpoint &checkpoint);

/// What comparing one entry of a pairing found.
struct CheckpointPairOutcome {
    /// OnlyA/OnlyB (as the two are given), ShapeChanged (a problem with the shapes), NotCompared
    /// (values not asked for, or not comparable: `problem` says why), SameBytes (two checkpoints'
    /// tensors, not decoded), SameValues or Changed.
    TensorDiffStatus status = TensorDiffStatus::NotCompared;
    bool compared = false; ///< `values` holds the sums
    ValueDiff values;
    std::string problem;

    std::optional<DiffMeasures> measures() const { return outcomeMeasures(status, compared, values); }
    bool differs() const { return outcomeDiffers(status, problem); }
};

/// Compares the values of `pair` (when `values`; else only its status): the GGUF tensor against the
/// checkpoint's composed as the GGUF holds them, A and B as given (`checkpointIsA`: the checkpoint
/// is A). Cancelled through options.progress leaves the pair not compared, saying so.
CheckpointPairOutcome compareCheckpointPair(const SplitModel &model, const st::Checkpoint &checkpoint,
                                            const CheckpointPair &pair, bool checkpointIsA, bool values,
                                            const ValueDiffOptions &options = {});

} // namespace gguf
