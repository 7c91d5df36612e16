// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/model_summary.h"

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"

#include <algorithm>
#include <cstdint>

namespace gguf {

namespace {

uint64_t saturatingAdd(uint64_t a, uint64_t b)
{
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

} // namespace

ModelSummary summarizeModel(const SplitModel &model)
{
    ModelSummary s;
    int32_t highestLayer = -1;
    for (const SplitModel::TensorRef &t : model.tensors()) {
        ++s.tensorCount;
        s.parameters = saturatingAdd(s.parameters, t.info->elements);
        s.tensorBytes = saturatingAdd(s.tensorBytes, t.info->byteSize);
        ++s.tensorTypes[t.info->typeId];
        highestLayer = std::max(highestLayer, t.info->layer);
    }
    const GgufFile &primary = model.primary();
    if (const std::optional<uint64_t> blocks = primary.blockCount()) {
        s.layers = *blocks;
        s.layerSource = ModelSummary::LayerSource::BlockCount;
    } else if (highestLayer >= 0) {
        s.layers = static_cast<uint64_t>(highestLayer) + 1;
        s.layerSource = ModelSummary::LayerSource::TensorNames;
    }
    s.fileType = primary.fileType();
    s.fileSize = model.totalFileSize();
    for (const SplitModel::Shard &shard : model.shards()) {
        ModelSummary::Shard out{shard.path, std::nullopt, {}};
        if (shard.file) {
            out.size = shard.file->fileSize();
            if (shard.file->breakage())
                out.error = shard.file->error().message;
        } else {
            ++s.missingShards;
            out.error = shard.error ? shard.error.message : std::string("could not be opened");
        }
        s.shards.push_back(std::move(out));
    }
    if (const std::optional<SplitModel::Break> b = model.firstBreak())
        s.damagedShard = b->shard;
    return s;
}

} // namespace gguf
