// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Writing Hugging Face checkpoints (#43, docs/SAFETENSORS.md §10): a checkpoint split into shards
// with their `*.safetensors.index.json`, as transformers' save_pretrained names them; shards merged
// into one .safetensors file; a file's `__metadata__` edited. Each file is what the reference
// writer makes — an 8-byte length, the JSON header padded with spaces to a multiple of 8, the
// tensors' bytes back to back — and is written beside its target, synced and named at the end.
// New files never replace an existing one; an edit replaces its file only after the copy is synced.

#include "core/edit/shard_writer.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gguf {

namespace st {
class Checkpoint;
}

/// One .safetensors file to write: its path and the tensors it holds (indices into the
/// checkpoint's tensors()) and their bytes.
using CheckpointFile = PlannedFile;

struct CheckpointPlan {
    std::vector<CheckpointFile> files;
    std::string indexPath; ///< split: the index written with the shards ("" otherwise)
    /// The `__metadata__` of every file written, in order.
    std::vector<std::pair<std::string, std::string>> metadata;
    bool replace = false; ///< an edit: the one file replaces its target
    std::string error;    ///< why nothing can be written (then no files)
};

/// The shards `checkpoint` would be split into: PREFIX-00001-of-0000N.safetensors… and
/// PREFIX.safetensors.index.json; each shard keeps the first shard's `__metadata__`.
CheckpointPlan planCheckpointSplit(const st::Checkpoint &checkpoint, const std::string &prefix,
                                   const SplitLimits &limits);
/// The one file the shards of `checkpoint` would be merged into, with the first shard's
/// `__metadata__`.
CheckpointPlan planCheckpointMerge(const st::Checkpoint &checkpoint, const std::string &out);
/// The one file of `checkpoint` written to `target` (itself: replaced) with its `__metadata__`
/// changed: `set` pairs added or replaced (in order, after the kept ones), `remove` keys dropped
/// (a key that is not there is an error).
CheckpointPlan planMetadataEdit(const st::Checkpoint &checkpoint,
                                const std::vector<std::pair<std::string, std::string>> &set,
                                const std::vector<std::string> &remove, const std::string &target);

/// Writes `plan`; `progress` gets bytes of tensor data written of all, false cancels (nothing is left).
WriteOutcome writeCheckpointPlan(const st::Checkpoint &checkpoint, const CheckpointPlan &plan,
                                 const ProgressFn &progress = {});

} // namespace gguf
