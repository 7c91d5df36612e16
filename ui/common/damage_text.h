// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace gguf {
class GgufFile;
struct Breakage;
} // namespace gguf

/// The words every page uses for a damaged file (GgufFile::breakage()): which item was being read
/// when reading stopped, and what is missing because of it.
namespace DamageText {

/// "tensor info #5 `blk.0.ffn_up.weight`", "key/value pair 3", "the header".
QString item(const gguf::Breakage &broken);
/// "Reading stopped at byte 1234 (0x4d2) in key/value pair 3 `general.name`: u64 string length: needs
/// 8 bytes, 3 left."
QString where(const gguf::GgufFile &file);
/// What the break leaves out: "2 of 9 key/value pairs were read; the 201 tensor infos after them
/// were not."
QString missing(const gguf::GgufFile &file);

} // namespace DamageText
