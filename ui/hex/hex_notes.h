// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <cstdint>

class HexAnnotator;

/// The hex view's annotation column: for one row, short names of the fields that start in it
/// ("magic · version 3 · tensor_count 38", "[1234] \"▁the\"", "block 37"), so the first rows of a
/// file read like an annotated walk through the format.
namespace HexNotes {

/// Notes for the bytes [begin, end) of `annotator`'s file, cut near `maxChars` characters.
QString forRow(const HexAnnotator &annotator, uint64_t begin, uint64_t end, int maxChars);

} // namespace HexNotes
