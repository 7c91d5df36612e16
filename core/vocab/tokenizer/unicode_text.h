// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/utf8.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

// Code points as llama.cpp's tokenizers see them (docs/TOKENIZER.md §7.1).
namespace gguf::unicode {

inline constexpr uint32_t kReplacement = 0xFFFD;

/// Length of the UTF-8 sequence a byte starts, from its high nibble alone, as llama.cpp's
/// SentencePiece tokenizer cuts text (a stray continuation byte is a 1-byte char).
size_t sequenceLength(uint8_t lead);

/// The length of the UTF-8 sequence at `at` as llama.cpp's decoder accepts it (overlong forms and
/// surrogates included), 0 when it is malformed or cut short.
size_t decodableLength(std::string_view text, size_t at);
/// Decodes UTF-8 as llama.cpp does: overlong forms and surrogates are accepted, a malformed or
/// truncated sequence becomes U+FFFD and consumes one byte, and values above U+10FFFF (which
/// llama.cpp decodes, then fails to encode) become U+FFFD.
std::vector<uint32_t> decodeUtf8(std::string_view text);

/// Appends the UTF-8 form of `cp` (surrogates included, as llama.cpp does).
using gguf::appendUtf8;
std::string encodeUtf8(std::span<const uint32_t> cps);

/// Unicode White_Space, the 25 code points llama.cpp treats as whitespace.
bool isWhitespace(uint32_t cp);
/// The first code point of the lowercase form (cp itself when it has none).
uint32_t toLower(uint32_t cp);
/// The first code point of the canonical decomposition (cp itself when it has none).
uint32_t nfdFirst(uint32_t cp);

/// GPT-2's printable stand-in for a byte, as UTF-8 (space → "Ġ").
std::string_view byteStandIn(uint8_t byte);
/// The same stand-in as a code point (space → U+0120).
char32_t byteStandInCodePoint(uint8_t byte);
/// Appends the GPT-2 spelling of every byte of `utf8`.
void appendByteStandIns(std::string_view utf8, std::string &out);
/// The byte a GPT-2 stand-in code point spells, or -1.
int byteOfStandIn(uint32_t cp);
/// Appends `text` with SentencePiece's space mark "▁" (U+2581) turned back into spaces.
void appendSpaceMarksAsSpaces(std::string_view text, std::string &out);

/// General category flags of a code point, from PCRE2's Unicode tables.
enum Category : uint8_t {
    kLetter = 1,
    kNumber = 2,
    kPunctuation = 4,
    kSymbol = 8,
    kMark = 16,
    kSeparator = 32,
    kOther = 64, ///< \p{C}: controls, format characters, surrogates, private use, unassigned
};
/// One of the flags above; thread-safe (a lazily filled table of 256-code-point pages).
uint8_t category(uint32_t cp);

} // namespace gguf::unicode
