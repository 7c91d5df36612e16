// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gguf {

/// Decodes the UTF-8 code point at `pos` and advances past it. Ill-formed input yields U+FFFD and
/// consumes only its maximal ill-formed subpart (Unicode §3.9; Python's errors="replace").
char32_t decodeUtf8(std::string_view text, size_t &pos);

/// Text with control characters, DEL, C1 controls and ill-formed UTF-8 made visible ("\n", "\x07",
/// "\u0085", "\xff"), so that file content can never drive a terminal or a document's layout; cut
/// after `maxChars` code points with "…" (0: no cut).
std::string printable(std::string_view text, size_t maxChars = 0);

/// "12,345,678".
std::string groupDigits(uint64_t value);
/// "1 tensor", "2,048 tensors": a grouped count and the word that agrees with it.
std::string countOf(uint64_t n, std::string_view one, std::string_view many);
/// "13.3 MiB" (or "512 B").
std::string humanBytes(uint64_t bytes);

} // namespace gguf
