// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/edit/metadata_changes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;

/// How to lay out an edited header.
struct HeaderOptions {
    /// Spare bytes to leave in a header that must be rewritten by a copy anyway, so that later
    /// edits can be saved in place (the plain layout holds them in the padding key). Without a
    /// reserve, a copy writes no key the user did not ask for.
    uint64_t reserve = 0;
    /// May the padding key (kPaddingKey) keep the data in place when the header shrank by more than
    /// the alignment's slack? Only a save in place needs it (a copy can move the data back instead);
    /// without it such a header is saved by a copy.
    bool paddingKey = true;
    /// Encode every value anew from its parsed form instead of copying the bytes of untouched
    /// pairs (what the tests use to check the encoder against every fixture).
    bool reencode = false;
};

/// The new header of an edited file: every byte before its data region.
struct HeaderPlan {
    /// The new file's bytes [0, dataOffset): fixed header, metadata, tensor infos, padding.
    std::vector<uint8_t> bytes;
    uint64_t dataOffset = 0;    ///< start of the data region in the new file
    uint64_t oldDataOffset = 0; ///< start of the data region in the file now
    uint64_t kvCount = 0;       ///< pairs written (the padding key included)
    uint64_t paddingBytes = 0;  ///< elements of the padding key; 0 when it is not written
    bool paddingKeyWritten = false;
    /// The new header ends exactly where the old data region starts: writing `bytes` over the
    /// start of the file is the whole save.
    bool fitsInPlace = false;
    /// One line for people: why the save can or cannot happen in place.
    std::string reason;
};

/// Why `file` may not be edited because it is a shard of a split set other than the first (whose
/// split.no is not 0): the set's metadata lives in shard 1, which the message names by path when the
/// file's name follows llama.cpp's shard naming. Empty for shard 1 and for a file of its own.
std::string otherShardRefusal(const GgufFile &file);

/// Serializes `file`'s header with `changes` applied. Untouched pairs and every tensor info are
/// copied byte for byte; changed values are encoded in the file's byte order and version (v1's
/// 32-bit lengths), keeping each value's exact type; the magic, the version, the alignment and the
/// header layout (plain or extended) stay as they are. Tensor offsets are relative to the data
/// region, so they need no change wherever it starts. On failure (a file that did not parse
/// completely, changes that `problems()` refuses) returns nullopt and sets `error`.
std::optional<HeaderPlan> planHeader(const GgufFile &file, const MetadataChanges &changes, const HeaderOptions &options,
                                     std::string &error);

} // namespace gguf
