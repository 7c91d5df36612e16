// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace gguf {

/// The distinct lists of regular expressions llama.cpp's BPE pre-tokenizers use, each named after
/// the first llama.cpp pre-tokenizer type that uses it (the others follow).
enum class RegexSet : uint8_t {
    Default,         ///< DEFAULT
    Llama3,          ///< LLAMA3, DBRX, SMAUG, CHATGLM4
    Jais2,           ///< JAIS2
    DeepseekLlm,     ///< DEEPSEEK_LLM
    Deepseek3,       ///< DEEPSEEK3_LLM, HUNYUAN_DENSE, JOYAI_LLM, HY_V4
    Spark25,         ///< SPARK2_5
    Youtu,           ///< YOUTU
    DeepseekCoder,   ///< DEEPSEEK_CODER
    Falcon,          ///< FALCON
    DigitsGpt2,      ///< STARCODER, REFACT, COMMAND_R, SMOLLM, CODESHELL, EXAONE, MINERVA, MELLUM2
    Gpt2,            ///< GPT2, MPT, OLMO, JAIS, TRILLION, GRANITE_DOCLING
    Qwen2,           ///< STABLELM2, QWEN2, HUNYUAN, SOLAR_OPEN, GROK_2
    Qwen35,          ///< QWEN35
    Poro,            ///< PORO, BLOOM, GPT3_FINNISH
    Viking,          ///< VIKING
    Tekken,          ///< TEKKEN
    Chameleon,       ///< CHAMELEON
    Gpt4o,           ///< GPT4O, MINIMAX_M2
    GraniteEmbMulti, ///< GRANITE_EMB_MULTI
    TinyAya,         ///< TINY_AYA
    KimiK2,          ///< KIMI_K2
    SuperBpe,        ///< SUPERBPE
    BailingMoe,      ///< BAILINGMOE
    SeedCoder,       ///< SEED_CODER
    Ufakzeka,        ///< UFAKZEKA
    Afmoe,           ///< AFMOE
    Laguna,          ///< LAGUNA
    ExaoneMoe,       ///< EXAONE_MOE
    Newlines,        ///< GEMMA4, SARVAM_MOE
    Minicpm5,        ///< MINICPM5
    Whitespace,      ///< WHITESPACE
};
inline constexpr size_t kRegexSetCount = 31;

/// The patterns of every set, in order (UTF-8, as llama.cpp writes them), indexed by RegexSet.
/// A few are not regular expressions PCRE2 runs but the names llama.cpp gives its hand-written
/// splitters (`\\p{Han}+`, `\\p{AFMoE_digits}`, …; pre_tokenizer_custom.cpp).
const std::array<std::span<const std::string_view>, kRegexSetCount> &regexSets();

} // namespace gguf
