// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reading a tokenizer.json's parts (hf_load.cpp: normalizers, pre-tokenizers, decoders and the
// whole; hf_load_model.cpp: the model, the added tokens and the post-processor).

#include "hf_pipeline.h"

#include "core/safetensors/json_reader.h"

namespace gguf::hf {

/// Stops loading: loadPipeline returns null with `why`.
[[noreturn]] void refuse(const std::string &why);
/// A component's "type"; a refusal naming `part` when it has none.
std::string typeOf(const json::Value &v, const char *part);
/// A member read as a bool, a string or a count; `fallback` when absent or of another kind.
bool flagField(const json::Value &v, const char *key, bool fallback);
std::string textField(const json::Value &v, const char *key, const std::string &fallback = {});
uint64_t countField(const json::Value &v, const char *key, uint64_t fallback);
/// A member that must be an array; a refusal naming `part` when it is not.
const json::Value &listField(const json::Value &v, const char *key, const std::string &part);
/// A token id (a non-negative integer below 2^31), or a refusal naming `part`.
TokenId tokenIdOf(const json::Value &v, const std::string &part);

Model modelOf(const json::Value &v);
void readAddedTokens(const json::Value &root, Pipeline &pipeline);
PostProcessor postProcessorOf(const json::Value &v);

} // namespace gguf::hf
