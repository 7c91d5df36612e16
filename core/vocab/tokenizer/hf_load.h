// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading a tokenizer.json's parts (hf_load.cpp: normalizers, pre-tokenizers, decoders and the
// whole; hf_load_model.cpp: the model, the added tokens and the post-processor).

#include "hf_pipeline.h"

#include "core/safetensors/json_reader.h"

namespace gguf::hf {

/// Stops loading: loadPipeline returns null with `why`.
[[noreturn]] void refuseFile(const std::string &why);
/// A token id (a non-negative integer below 2^31), or a refusal naming `part`.
TokenId tokenIdOf(const json::Value &v, const std::string &part);

Model modelOf(const json::Value &v);
void readAddedTokens(const json::Value &root, Pipeline &pipeline);
PostProcessor postProcessorOf(const json::Value &v);

} // namespace gguf::hf
