// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class GgufFile;
struct Breakage;

/// What a run of bytes is.
enum class RegionKind : uint8_t {
    Magic,
    Version,
    TensorCount,
    KvCount,
    HeaderAlignment,
    HeaderDataOffset,
    KeyLength,
    Key,
    ValueType,
    Value,
    ArrayType,
    ArrayCount,
    ArrayElements,
    TensorNameLength,
    TensorName,
    TensorNDims,
    TensorDims,
    TensorType,
    TensorOffset,
    Padding,
    TensorData,
    Unused,
    Unparsed,
    Broken, ///< the field where reading stopped (GgufFile::breakage())
};

/// Stable lower-case name used by `gguf-inspect layout --json` ("key_length", "tensor_data", …).
std::string_view regionKindName(RegionKind kind);

/// One run of bytes and the item it belongs to (metadata pair index or tensor index; unused
/// for header fields and padding).
struct Region {
    uint64_t offset = 0;
    uint64_t size = 0;
    RegionKind kind = RegionKind::Unused;
    uint32_t item = 0;
    uint64_t end() const { return offset + size; }
};

/// The byte map of a parsed file: regions in file order, without gaps or overlaps, covering every
/// byte from 0 to the file size. Built from the positions the parser recorded (no re-parsing).
/// Array elements are one region per array; `arrayElementRegion` splits them on demand.
class ByteMap {
public:
    explicit ByteMap(const GgufFile &file);

    const std::vector<Region> &regions() const { return m_regions; }
    /// The region holding `offset`, or nullptr past the end.
    const Region *regionAt(uint64_t offset) const;
    /// A people-readable label: "key 3 'general.name': value (STRING)",
    /// "tensor info 12 'blk.0.attn_q.weight': dims".
    std::string label(const Region &region) const;

private:
    void add(uint64_t offset, uint64_t size, RegionKind kind, uint32_t item = 0);
    /// The parts of the item being read when reading stopped, then the field that broke.
    void addBroken(const Breakage &broken);

    const GgufFile &m_file;
    std::vector<Region> m_regions;
};

} // namespace gguf
