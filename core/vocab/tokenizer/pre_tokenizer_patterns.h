// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace gguf {

/// The distinct lists of regular expressions llama.cpp's BPE pre-tokenizers use.
enum class RegexSet : uint8_t {
    Default,       ///< no or unknown pre; gpt-neox
    Falcon,        ///< falcon
    Gpt2,          ///< gpt-2, mpt, olmo, jais, …
    DigitsGpt2,    ///< single digits, then GPT-2: starcoder, refact, command-r, smollm, …
    Llama3,        ///< llama3, dbrx, smaug, chatglm-bpe
    Qwen2,         ///< qwen2, stablelm2: LLaMA 3's with single digits
    DeepseekCoder, ///< deepseek-coder
    DeepseekLlm,   ///< deepseek-llm
    Deepseek3,     ///< deepseek-v3
    Poro,          ///< poro-chat, bloom, gpt3-finnish
    Viking,        ///< viking
    Tekken,        ///< tekken
    Chameleon,     ///< chameleon
};
inline constexpr size_t kRegexSetCount = 13;

/// The patterns of every set, in order (UTF-8, PCRE2 syntax), indexed by RegexSet.
const std::array<std::span<const std::string_view>, kRegexSetCount> &regexSets();

} // namespace gguf
