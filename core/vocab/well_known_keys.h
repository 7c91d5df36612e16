// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguf {

/// llama.cpp's `llama_ftype` name (docs/FORMAT.md §7.5) for a `general.file_type` value as the issue tracker and
/// llama.cpp spell it without the `LLAMA_FTYPE_` prefix ("ALL_F32", "MOSTLY_F16", "Q4_K_M", …);
/// nullopt for values llama.cpp does not define.
std::optional<std::string_view> fileTypeName(uint64_t fileType);

/// `<arch>.pooling_type` (llama_pooling_type): "NONE", "MEAN", "CLS", "LAST", "RANK"; -1 is "UNSPECIFIED".
std::optional<std::string_view> poolingTypeName(int64_t value);

/// `<arch>.rope.scaling.type` stored as a number (llama_rope_scaling_type): "NONE", "LINEAR", "YARN",
/// "LONGROPE"; -1 is "UNSPECIFIED". (Most writers store this key as a string; docs/FORMAT.md §7.5.)
std::optional<std::string_view> ropeScalingTypeName(int64_t value);

/// `<arch>.expert_gating_func` (llm_expert_gating_func_type): "NONE", "SOFTMAX", "SIGMOID", "SOFTMAX_WEIGHT".
std::optional<std::string_view> expertGatingFuncName(int64_t value);

/// The name of an enum-valued integer for `key`: `general.file_type`, `*.pooling_type`,
/// `*.rope.scaling.type`, `*.expert_gating_func`, and the elements of `tokenizer.ggml.token_type`
/// (pass the array's key). nullopt when the key has no enum or the value is not defined.
std::optional<std::string> enumValueName(std::string_view key, int64_t value);

/// The value an enum name stands for in `key`, as the window's choices offer it: the name
/// enumValueName gives, in any case ("q8_0", "Q8_0"; for general.file_type also with llama.cpp's
/// "LLAMA_FTYPE_" and "MOSTLY_" prefixes). nullopt when the key has no enum or no such name.
std::optional<int64_t> enumValueOfName(std::string_view key, std::string_view name);

/// True for `tokenizer.ggml.<role>_token_id` keys, whose value is a token id.
bool isTokenIdKey(std::string_view key);

/// The namespace of a dotted key: everything before the last dot ("llama.attention.head_count" →
/// "llama.attention", "tokenizer.ggml.tokens" → "tokenizer.ggml"); empty for a key without a dot.
std::string_view keyNamespace(std::string_view key);

} // namespace gguf
