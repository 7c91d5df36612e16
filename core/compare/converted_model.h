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

/// One tensor as llama.cpp's converter would write it from a checkpoint (docs/SAFETENSORS.md §8).
struct ConvertedTensor {
    std::string name;           ///< the GGUF name ("blk.0.attn_q.weight")
    std::vector<uint64_t> dims; ///< innermost first, experts stacked last
    uint32_t type = 0;          ///< ggml type id
};

/// The tensors of `checkpoint` under the names, shapes and types the converter
/// (convert_hf_to_gguf.py, at the checkpoint's own dtype: --outtype f32, f16 or bf16) gives them, by
/// the same rules as pairWithCheckpoint read the other way; `unmapped` names what no rule maps (a
/// vision tower, rotary tables), which the converter would write differently or not at all.
struct ConvertedTensors {
    std::string architecture; ///< llama.cpp's name for the config's model_type ("llama" for mistral)
    std::vector<ConvertedTensor> tensors;
    std::vector<std::string> unmapped;
    std::string problem; ///< why nothing could be mapped (an unknown model_type)
};
ConvertedTensors convertedTensors(const st::Checkpoint &checkpoint);

/// llama.cpp's architecture name for a Hugging Face `model_type` among those whose conversion is
/// known ("mistral" → "llama", "qwen3_moe" → "qwen3moe", "gemma3_text" → "gemma3"); "" otherwise.
std::string architectureForModelType(std::string_view modelType);

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
