// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <string_view>

/// Token bytes as text a person can read: every character that would be invisible or ambiguous
/// on screen is drawn as a visible stand-in. Built on demand in data(), never stored.
namespace TokenText {

/// Space → "·", newline → "↵", tab → "→", carriage return → "\r", other control characters and
/// bytes that are not UTF-8 → "\x1b", other invisible code points (no-break and other spaces,
/// zero-width and format characters) → "‹U+200B›". Cut after `maxChars` characters with "…".
QString visible(std::string_view bytes, int maxChars = 200);

/// "20 74 68 65": each byte as two hex digits; cut after `maxBytes` bytes with " …".
QString hex(std::string_view bytes, int maxBytes = 48);

} // namespace TokenText
