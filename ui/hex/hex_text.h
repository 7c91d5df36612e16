// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <optional>
#include <span>

/// Text ↔ bytes for the hex page: the search pattern and go-to expressions typed by the user, and
/// the clipboard formats of a selection.
namespace HexText {

/// Bytes written in hex: "47 47 55 46", "47475546", "0x47,0x47"; nullopt (and `error`) for odd
/// digit counts, other characters or nothing at all.
std::optional<QByteArray> parseHexBytes(const QString &text, QString *error = nullptr);

/// "47 47 55 46".
QString toHex(std::span<const uint8_t> bytes);

/// A C array definition of the bytes (12 per line), named after their offset in the file.
QString toCArray(std::span<const uint8_t> bytes, uint64_t offset);

/// What a go-to expression resolved to.
struct OffsetResult {
    std::optional<uint64_t> offset; ///< set when the expression names a byte of the file
    QString error;                  ///< why not, otherwise
};

/// Resolves a go-to expression: a number (decimal, or hex with 0x), optionally after a base —
/// `data` (the data region), `end` (the file size) or nothing with a leading sign (the cursor) —
/// and a sign: "1234", "0x4d2", "data+0x100", "end-16", "+32", "-0x10". Offsets before the
/// start or at/after the end of the file are refused with a message.
OffsetResult parseOffset(const QString &text, uint64_t dataOffset, uint64_t cursor, uint64_t fileSize);

} // namespace HexText
