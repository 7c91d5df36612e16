// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

/// How a key (or a tensor, a token) of file A relates to file B.
enum class DiffStatus : uint8_t { Same, Added, Removed, Changed };

/// "same", "added", "removed", "changed".
std::string_view diffStatusName(DiffStatus status);

/// One array element that differs: its index and both values as display text ("" past the end of
/// the shorter array).
struct ElementDifference {
    uint64_t index = 0;
    std::string a, b;
};

/// One metadata key of either file. Entries point into the files, which must outlive the diff.
struct MetadataDifference {
    std::string_view key;
    DiffStatus status = DiffStatus::Same;
    const MetadataEntry *a = nullptr; ///< null when added
    const MetadataEntry *b = nullptr; ///< null when removed
    /// The value types differ (for arrays: the element types; a u32 that became an i32 is a change
    /// even when the number is the same).
    bool typeChanged = false;
    // Arrays with the same element type (nested arrays are compared as wholes, element by element):
    uint64_t differingElements = 0; ///< over the common length, plus every element past it
    std::vector<ElementDifference> firstDifferences;
};

struct MetadataDiffOptions {
    size_t maxElementDifferences = 8; ///< how many differing elements each array lists
    size_t maxValueChars = 200;       ///< display text is cut after this many bytes
};

/// The keys of both files: A's in A's order, then those only in B in B's order.
struct MetadataDiff {
    std::vector<MetadataDifference> entries;
    uint64_t same = 0, added = 0, removed = 0, changed = 0;
    bool identical() const { return added == 0 && removed == 0 && changed == 0; }
};

/// Compares the metadata of two files by key, by value type and by value: numbers exactly (floats
/// by their bits, so -0 differs from 0 and a NaN equals the same NaN), strings byte for byte,
/// arrays element by element. Files of different byte order compare by value.
MetadataDiff compareMetadata(const GgufFile &a, const GgufFile &b, const MetadataDiffOptions &options = {});

} // namespace gguf
