// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf {

/// llama.cpp's hand-written splitters that stand for a pattern no regex engine runs as it does
/// (unicode_regex_split_custom; docs/TOKENIZER.md §3.3). The others it has (GPT-2, LLaMA 3, Qwen2,
/// Qwen3.5, newlines) cut exactly where their regular expressions do, so PCRE2 runs those.
enum class CustomSplit : uint8_t {
    None,
    KimiK2,      ///< "\p{Han}+": Kimi K2's whole pattern (Han runs, letter words, 1-3 digits, …)
    DigitGroups, ///< "\p{AFMoE_digits}" and Tiny Aya's digit pattern: digit runs cut in threes from the right
};

/// The splitter llama.cpp uses for a pattern, by its exact text; None for a regular expression.
CustomSplit customSplitOf(std::string_view pattern);

/// Cuts the piece [begin, end) of `cps` as the splitter does, appending the pieces (never empty).
void splitCustom(CustomSplit kind, std::span<const uint32_t> cps, std::pair<uint32_t, uint32_t> piece,
                 std::vector<std::pair<uint32_t, uint32_t>> &out);

} // namespace gguf
