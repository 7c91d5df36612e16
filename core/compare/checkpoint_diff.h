// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Two Hugging Face checkpoints side by side (docs/SAFETENSORS.md §7): tensors paired by name — a
// fine-tune against its base, a BF16 checkpoint against its F32 original — each pair with the
// measures `diff` has (value_diff.h), and config.json and `__metadata__` key by key.

#include "core/compare/checkpoint_pairing.h"

#include <optional>
#include <string>
#include <vector>

namespace gguf {

/// A tensor of either checkpoint, by name: indices into Checkpoint::tensors(), -1 on the side
/// that lacks it.
struct NamedTensorPair {
    int a = -1, b = -1;
};

/// A's tensors in its order, each with B's of the same name; then B's left over (a name used more
/// than once: its k-th use in A with its k-th in B, as matchTensors pairs a GGUF's).
std::vector<NamedTensorPair> pairCheckpointsByName(const st::Checkpoint &a, const st::Checkpoint &b);

/// What one pair holds: OnlyA/OnlyB; ShapeChanged (other shapes: `problem`); with the same dtype,
/// SameBytes when the bytes are equal, else (with `values`) SameValues or Changed; with another
/// dtype TypeChanged, and the measures with `values`. Without `values` a same-dtype pair whose
/// bytes differ is NotCompared. A dtype without a decoder (integers, BOOL) is compared by bytes only.
CheckpointPairOutcome compareNamedTensors(const st::Checkpoint &a, const st::Checkpoint &b, const NamedTensorPair &pair,
                                          bool values, const ValueDiffOptions &options);

/// A key of config.json (flattened: "rope_scaling.factor") or of the first shard's `__metadata__`
/// ("__metadata__.format") whose text differs: nullopt on the side without it.
struct ConfigChange {
    std::string key;
    std::optional<std::string> a, b;
};

struct ConfigDiff {
    std::vector<ConfigChange> changes; ///< added, removed and changed keys, A's order then B's new ones
    uint64_t same = 0;
};

ConfigDiff diffConfigs(const st::Checkpoint &a, const st::Checkpoint &b);

} // namespace gguf
