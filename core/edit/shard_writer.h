// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Splitting a model into shards and merging a split set, as llama.cpp's gguf-split does
// (#45; docs/EDITING.md §6): shards named PREFIX-%05d-of-%05d.gguf, the split.no (UINT16, from 0),
// split.count (UINT16) and split.tensors.count (INT32) keys in each, the model's metadata in the
// first, tensors in their order, each aligned; a merge keeps the first shard's metadata less the
// split keys and every tensor's bytes. Every file is written beside its target, synced and renamed
// at the end; nothing is left on failure, and an existing file is never replaced.

#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;
class SplitModel;

struct SplitLimits {
    uint64_t maxTensors = 0; ///< --split-max-tensors (0: no limit)
    uint64_t maxBytes = 0;   ///< --split-max-size: tensor data per shard, each tensor padded (0: no limit)
};

/// One output file: its path and the tensors it holds (indices into the model's tensors()).
struct PlannedFile {
    std::string path;
    std::vector<size_t> tensors;
    uint64_t dataBytes = 0;
};

struct WritePlan {
    std::vector<PlannedFile> files;
    std::string error; ///< why nothing can be written (then no files)
};

/// Items 0…count−1 in order, packed into files: a file closes after `maxTensors` items, or before
/// the item that would take its bytes past `maxBytes` (an item larger than that has a file of its
/// own). The paths are left empty. No files, with `error`, when neither limit is set.
std::vector<PlannedFile> packTensors(size_t count, const std::function<uint64_t(size_t)> &bytesOf,
                                     const SplitLimits &limits, std::string &error);

/// The name of shard k (from 0) of `count`: PREFIX-0000k+1-of-0000count.EXTENSION, as gguf-split and
/// transformers name them.
std::string shardFileName(const std::string &prefix, size_t k, size_t count, const char *extension);

/// The shards `model` (one file or a set, read whole) would be split into under `prefix`.
WritePlan planSplit(const SplitModel &model, const std::string &prefix, const SplitLimits &limits);
/// The one file a set would be merged into.
WritePlan planMerge(const SplitModel &model, const std::string &out);

struct WriteOutcome {
    bool ok = false;
    bool cancelled = false;
    std::string message; ///< on failure: what failed, where
    uint64_t bytesWritten = 0;
    bool ownerKept = true; ///< a replace: the replaced file's owner and group could be given to the new one
};

/// Writes `plan` (of planSplit or planMerge on `model`): the split keys in each file when `split`,
/// none when merging. `progress` gets bytes written of all; false cancels (nothing is left).
WriteOutcome writePlan(const SplitModel &model, const WritePlan &plan, bool split, const ProgressFn &progress = {});

} // namespace gguf
