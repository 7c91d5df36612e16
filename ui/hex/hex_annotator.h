// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_map.h"

#include <QString>

#include <cstdint>
#include <memory>

namespace gguf {
class GgufFile;
}

/// What every byte of a file is, for the hex view: built once per file (on a worker thread: it
/// builds the ByteMap and the element indexes of string arrays), then asked on the GUI thread for
/// colours, tooltips and links. Lookups are binary searches; nothing is parsed again.
class HexAnnotator {
public:
    /// What a byte is, coarsely: one colour each.
    enum class Category : uint8_t {
        Magic,
        Version,
        Count,
        KeyLength,
        Key,
        ValueType,
        Value,
        ArrayHeader,
        ArrayElements,
        TensorName,
        TensorDims,
        TensorType,
        TensorOffset,
        Padding,
        TensorData,
        Unused,
        Unparsed,
        Broken, ///< the field where reading stopped
    };
    static constexpr int kCategoryCount = int(Category::Broken) + 1;
    static Category categoryOf(gguf::RegionKind kind);
    static QString categoryName(Category category);

    /// The item a byte belongs to, for linking to the metadata tree or the tensor table.
    enum class Item : uint8_t { None, Metadata, Tensor };

    /// Everything about one byte.
    struct Description {
        gguf::RegionKind kind = gguf::RegionKind::Unused;
        Category category = Category::Unused;
        uint64_t regionOffset = 0, regionSize = 0; ///< the byte-map region
        uint64_t unitOffset = 0, unitSize = 0;     ///< the smallest field holding the byte
        Item item = Item::None;
        uint32_t index = 0;  ///< metadata entry or tensor index
        QString label;       ///< "tensor info #12 `blk.0.attn_q.weight`: dims[1] = 4096"
        QString explanation; ///< what such bytes are, in words
    };

    /// How to shade one byte: its category, a sub-field (block field k of tensor data is k + 1,
    /// the I2_S trailer 8; 0 elsewhere) and whether it is in an odd unit (array element, block,
    /// plain element), so neighbours can be told apart.
    struct Shade {
        Category category = Category::Unused;
        uint8_t field = 0;
        bool odd = false;
    };

    explicit HexAnnotator(std::shared_ptr<const gguf::GgufFile> file);

    const gguf::GgufFile &file() const { return *m_file; }
    std::shared_ptr<const gguf::GgufFile> fileShared() const { return m_file; }
    const gguf::ByteMap &byteMap() const { return m_map; }

    Description describe(uint64_t offset) const;
    /// Shades of bytes [begin, begin + count) into `out` (count entries).
    void shades(uint64_t begin, uint64_t count, Shade *out) const;
    /// Element of the array of metadata entry `entry` holding `offset`, and its byte range
    /// [begin, end); false when `offset` is not inside an element of that array.
    bool arrayElementAt(uint32_t entry, uint64_t offset, uint64_t &element, uint64_t &begin, uint64_t &end) const;
    /// "key 3 `general.name`", "`blk.0.attn_q.weight`".
    QString keyName(uint32_t entry) const;
    QString tensorName(uint32_t tensor) const;
    /// True for the region of the field where reading stopped, and for the parts of the item being
    /// read then (a damaged file: GgufFile::breakage()).
    bool isBrokenItem(const gguf::Region &region) const;

private:
    void describeBroken(const gguf::Region &region, uint64_t offset, Description &d) const;
    void describeMetadata(const gguf::Region &region, uint64_t offset, Description &d) const;
    void describeElement(const gguf::Region &region, uint64_t offset, Description &d) const;
    void describeTensorInfo(const gguf::Region &region, uint64_t offset, Description &d) const;
    void describeTensorData(const gguf::Region &region, uint64_t offset, Description &d) const;

    std::shared_ptr<const gguf::GgufFile> m_file;
    gguf::ByteMap m_map;
};
