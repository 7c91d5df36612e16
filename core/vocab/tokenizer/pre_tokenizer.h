// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pre_tokenizer_patterns.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf {

/// What a `tokenizer.ggml.pre` value means to llama.cpp (docs/TOKENIZER.md §3.1).
struct PreTokenizerSpec {
    std::string_view type; ///< llama.cpp's name for it, e.g. "LLAMA3"
    RegexSet regexes = RegexSet::Default;
    bool cleanSpaces = true;   ///< detokenizing removes spaces before punctuation
    bool ignoreMerges = false; ///< a word that is a token is not merged from its characters
    bool addBos = false;
    bool bosNull = false;           ///< the BOS default is "none"
    bool escapeWhitespaces = false; ///< spaces become "▁" before splitting, and back in pieces
    bool byteEncode = true;         ///< words are spelled in GPT-2's byte stand-ins (else raw UTF-8)
};

/// The spec of a `tokenizer.ggml.pre` value: empty and "default" give DEFAULT; nullopt for a value
/// llama.cpp (de3ff815) does not know, which it refuses.
std::optional<PreTokenizerSpec> preTokenizerSpec(std::string_view pre);

/// Every `tokenizer.ggml.pre` value llama.cpp knows ("default" included, the empty one not).
std::vector<std::string_view> knownPreTokenizers();

/// A code point range [begin, end) of a text.
using CodePointRange = std::pair<uint32_t, uint32_t>;

/// The compiled regular expressions of one RegexSet, applied as llama.cpp applies them
/// (docs/TOKENIZER.md §3.3). Compiled once per process; safe to use from several threads.
class RegexSplitter {
public:
    static const RegexSplitter &forSet(RegexSet set);
    ~RegexSplitter();
    RegexSplitter(const RegexSplitter &) = delete;
    RegexSplitter &operator=(const RegexSplitter &) = delete;

    /// Why a pattern did not compile; empty when all did.
    const std::string &error() const { return m_error; }

    /// Splits `cps` into words: every regex in turn cuts each piece into its matches and the gaps
    /// between them, so no code point is lost. Appends the words to `words`. Returns false when
    /// PCRE2 gave up on a piece (a resource limit); that piece is then kept whole.
    bool split(std::span<const uint32_t> cps, std::vector<CodePointRange> &words) const;

private:
    explicit RegexSplitter(RegexSet set);
    struct Compiled;
    std::vector<std::unique_ptr<Compiled>> m_patterns;
    bool splitWithPattern(const Compiled &pattern, std::span<const uint32_t> cps, std::span<const uint32_t> subject,
                          const std::vector<CodePointRange> &pieces, std::vector<CodePointRange> &next) const;
    std::string m_error;
};

} // namespace gguf
