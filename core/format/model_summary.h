// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

class SplitModel;

/// One description of an opened model, a single file or a split set (every shard that opened),
/// damaged or not: what the Overview page, `gguf-inspect FILE` and `gguf-inspect info` report, so
/// that they agree on every file.
struct ModelSummary {
    /// Where `layers` came from.
    enum class LayerSource : uint8_t {
        BlockCount,  ///< the `<arch>.block_count` key (llama.cpp's n_layer)
        TensorNames, ///< no such key: one more than the highest `blk.N.` in the tensors' names
        None,        ///< neither: 0 layers
    };
    uint64_t layers = 0;
    LayerSource layerSource = LayerSource::None;
    uint64_t parameters = 0;  ///< elements of every tensor read, in every shard
    uint64_t tensorCount = 0; ///< tensors read, in every shard
    uint64_t tensorBytes = 0; ///< their data sizes
    /// Tensor counts by type id, in id order.
    std::map<uint32_t, uint64_t> tensorTypes;
    std::optional<uint64_t> fileType; ///< general.file_type
    uint64_t fileSize = 0;            ///< of every shard that opened

    struct Shard {
        std::string path;
        std::optional<uint64_t> size; ///< unset when the shard could not be opened
        std::string error;            ///< why not, or where its reading stopped (damaged)
    };
    std::vector<Shard> shards; ///< in shard order; one for a single file
    size_t missingShards = 0;  ///< shards that could not be opened
    /// The first shard whose structure broke off (index into shards); its counts hold what was read.
    std::optional<size_t> damagedShard;
};

ModelSummary summarizeModel(const SplitModel &model);

} // namespace gguf
