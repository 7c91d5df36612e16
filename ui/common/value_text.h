// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/edit/owned_value.h"
#include "core/format/gguf_value.h"

#include <QString>

#include <string_view>

namespace gguf {
class Vocabulary;
}

/// Turning in-place GGUF values into text for the views. Every QString is built here, on demand.
namespace ValueText {

/// Bytes as text for one line: invalid UTF-8 becomes U+FFFD, control characters are escaped
/// (\n, \t, \xNN) and the result is cut after `maxChars` characters with "…".
QString oneLine(std::string_view bytes, int maxChars);

/// The whole text of a string (no escaping, no cut), for the detail pane.
QString fullText(std::string_view bytes);

/// A value for the "value" column: quoted strings, numbers in full, arrays as "[STRING × 32000]"
/// plus the first elements, enum names ("15 (Q4_K_M)") for `key`'s enums and token text
/// ("1 "<s>"") for `*_token_id` keys. `element` is true for an element of the array `key`.
QString display(const gguf::Value &value, std::string_view key, bool element, const gguf::Vocabulary *vocab,
                int maxChars = 200);

/// "UINT32", "STRING", "ARRAY[STRING]".
QString typeName(const gguf::Value &value);

/// A pending value (an edit not yet saved) as `display` shows a value of the file.
QString display(const gguf::OwnedValue &value, std::string_view key, bool element, const gguf::Vocabulary *vocab,
                int maxChars = 200);
QString typeName(const gguf::OwnedValue &value);

} // namespace ValueText
