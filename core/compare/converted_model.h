// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {
class SplitModel;
namespace st {
class Checkpoint;
}

/// A Hugging Face checkpoint as the GGUF llama.cpp's converter would make of it, header only
/// (docs/SAFETENSORS.md §8): general.architecture, the hyperparameters the converter writes from
/// config.json (block count, context, widths, heads, head size, experts, sliding window, vocabulary
/// size) and every tensor under its GGUF name, shape and type at the checkpoint's own dtype — no
/// tensor data, no tokenizer. What `memory` and `fit` need to say what the converted model would
/// take in llama.cpp.
struct ConvertedModel {
    std::shared_ptr<const SplitModel> model; ///< null when the conversion is not known
    std::vector<std::string> unmapped;       ///< checkpoint tensors no rule maps (left out)
    std::string problem;                     ///< why there is no model
};
ConvertedModel convertedModel(const st::Checkpoint &checkpoint);

} // namespace gguf
