// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_value.h"

#include <memory>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

/// An in-memory GGUF writer for tests. It knows the format independently of the reader (its own
/// encoder and its own table of tensor sizes), records where it put every field, and can damage
/// what it produced in named ways, so a test computes every expected offset instead of hard-coding it.
namespace gguf {
class GgufFile;
}

namespace gguf::test {

enum class Endian : uint8_t { Little, Big };

/// A metadata value as the builder writes it. Build one with the static factories.
struct BuildValue {
    uint32_t type = 0;                     ///< on-disk type id (ids ≥ 13 are written raw)
    uint64_t bits = 0;                     ///< fixed-size scalars: the bit pattern (low bytes used)
    std::string text;                      ///< STRING
    uint32_t elementType = 0;              ///< ARRAY: element type id as written
    std::vector<BuildValue> elements;      ///< ARRAY elements (each written by its own type)
    std::vector<std::string> strings;      ///< ARRAY of STRING, compact form for huge arrays
    std::optional<uint64_t> writtenCount;  ///< ARRAY: count written instead of the real one
    std::optional<uint64_t> writtenLength; ///< STRING: length written instead of text.size()
    std::vector<uint8_t> payload;          ///< bytes written after the value (raw type ids)

    static BuildValue u8(uint8_t v);
    static BuildValue i8(int8_t v);
    static BuildValue u16(uint16_t v);
    static BuildValue i16(int16_t v);
    static BuildValue u32(uint32_t v);
    static BuildValue i32(int32_t v);
    static BuildValue f32(float v);
    static BuildValue f32Bits(uint32_t bits);
    static BuildValue boolean(bool v);
    static BuildValue str(std::string v);
    static BuildValue u64(uint64_t v);
    static BuildValue i64(int64_t v);
    static BuildValue f64(double v);
    static BuildValue f64Bits(uint64_t bits);
    static BuildValue array(ValueType elementType, std::vector<BuildValue> elements);
    static BuildValue stringArray(std::vector<std::string> strings);
    /// A value of any type id, `payload` written as its bytes (for ids the format does not define).
    static BuildValue raw(uint32_t typeId, std::vector<uint8_t> payload);

    bool isArray() const { return type == static_cast<uint32_t>(ValueType::Array); }
    bool isString() const { return type == static_cast<uint32_t>(ValueType::String); }
    /// Number of array elements as built (not as written).
    uint64_t elementCount() const { return strings.empty() ? elements.size() : strings.size(); }
    /// Element `i` of an array (materialises compact string arrays one element at a time).
    BuildValue element(uint64_t i) const;
    /// Size in bytes of a fixed-size type id; 0 for STRING, ARRAY and invalid ids.
    static uint32_t fixedSize(uint32_t typeId);
};

/// One tensor to write.
struct TensorSpec {
    std::string name;
    std::vector<uint64_t> dims;               ///< innermost first, as stored
    uint32_t type = 0;                        ///< ggml type id as written
    std::optional<std::vector<uint8_t>> data; ///< the data; zero fill of the computed size when absent
    std::optional<uint64_t> offset;           ///< relative offset as written; automatic when absent
};

/// Where the builder put one key/value pair.
struct KvLayout {
    std::string key;
    uint32_t type = 0;
    uint64_t offset = 0;      ///< key length field
    uint64_t keyOffset = 0;   ///< key text
    uint64_t typeOffset = 0;  ///< value type field
    uint64_t valueOffset = 0; ///< value (arrays: element-type field; strings: length field)
    uint64_t end = 0;
    // arrays only
    uint64_t countOffset = 0;
    uint64_t elementsOffset = 0;
    std::vector<uint64_t> elementOffsets; ///< start of each top-level element
};

/// Where the builder put one tensor info record and its data.
struct TensorLayout {
    std::string name;
    uint64_t infoOffset = 0; ///< name length field
    uint64_t nameOffset = 0;
    uint64_t nDimsOffset = 0;
    uint64_t dimsOffset = 0;
    uint64_t typeOffset = 0;
    uint64_t offsetFieldOffset = 0;
    uint64_t infoEnd = 0;
    uint64_t relativeOffset = 0;      ///< as written
    uint64_t dataOffset = 0;          ///< absolute (saturating)
    uint64_t dataSize = 0;            ///< computed or given size (saturating)
    std::optional<uint64_t> typeSize; ///< size from the type table; nullopt when the type cannot be sized
    bool materialized = false;        ///< its data bytes were written into the file
    uint64_t elements = 0;            ///< product of dims (saturating)
};

/// Where everything went.
struct Layout {
    uint32_t version = 3;
    Endian byteOrder = Endian::Little;
    uint64_t lenSize = 8;    ///< size of counts, lengths and dims: 4 in v1, else 8
    uint64_t alignment = 32; ///< alignment used for padding and automatic offsets
    uint64_t versionOffset = 4;
    uint64_t tensorCountOffset = 8;
    uint64_t kvCountOffset = 16;
    bool extendedHeader = false;
    uint64_t headerAlignmentOffset = 0;  ///< extended header only
    uint64_t headerDataOffsetOffset = 0; ///< extended header only
    uint64_t headerEnd = 0;
    uint64_t metadataEnd = 0;
    uint64_t tensorInfoEnd = 0;
    uint64_t dataOffset = 0; ///< start of the data region
    uint64_t dataEnd = 0;    ///< end of the last materialized tensor's data
    uint64_t fileSize = 0;   ///< as built (before corruptions)
    std::vector<KvLayout> kvs;
    std::vector<TensorLayout> tensors;

    /// The pair with this key (the first one when duplicated); nullptr when absent.
    const KvLayout *kv(std::string_view key) const;
    const TensorLayout *tensor(std::string_view name) const;
};

/// A produced file: its bytes, where everything is, and named corruptions applied in place.
/// Corruptions keep the recorded layout (it still says where each field *was* written).
class BuiltFile {
public:
    BuiltFile(std::vector<uint8_t> bytes, Layout layout) : m_bytes(std::move(bytes)), m_layout(std::move(layout)) {}

    const std::vector<uint8_t> &bytes() const { return m_bytes; }
    const Layout &layout() const { return m_layout; }
    uint64_t size() const { return m_bytes.size(); }

    /// Cuts the file to `size` bytes (no-op when already shorter).
    BuiltFile &truncate(uint64_t size);
    /// Appends zero bytes up to `size`.
    BuiltFile &padTo(uint64_t size);
    /// Replaces bytes at `offset` (grows the file when needed).
    BuiltFile &overwrite(uint64_t offset, const std::vector<uint8_t> &bytes);
    /// Writes an integer in the file's byte order.
    BuiltFile &patchU32(uint64_t offset, uint32_t value);
    BuiltFile &patchU64(uint64_t offset, uint64_t value);
    /// Writes a count/length/dim field: u32 in v1, u64 otherwise.
    BuiltFile &patchLength(uint64_t offset, uint64_t value);

    BuiltFile &setMagic(std::string_view fourChars);
    BuiltFile &setVersion(uint32_t version);
    BuiltFile &setTensorCount(uint64_t count);
    BuiltFile &setKvCount(uint64_t count);
    BuiltFile &setKeyLength(size_t kv, uint64_t length);
    BuiltFile &setValueType(size_t kv, uint32_t typeId);
    BuiltFile &setStringLength(size_t kv, uint64_t length);
    BuiltFile &setArrayElementType(size_t kv, uint32_t typeId);
    BuiltFile &setArrayCount(size_t kv, uint64_t count);
    /// Copies the key text of pair `from` over the key of pair `to` (both keys must be equally long).
    BuiltFile &duplicateKey(size_t from, size_t to);
    BuiltFile &setTensorNameLength(size_t tensor, uint64_t length);
    BuiltFile &setTensorNDims(size_t tensor, uint32_t nDims);
    BuiltFile &setTensorDim(size_t tensor, size_t dim, uint64_t value);
    BuiltFile &setTensorType(size_t tensor, uint32_t typeId);
    BuiltFile &setTensorOffset(size_t tensor, uint64_t relativeOffset);
    /// Copies the name of tensor `from` over tensor `to` (both names must be equally long).
    BuiltFile &duplicateTensorName(size_t from, size_t to);

private:
    std::vector<uint8_t> m_bytes;
    Layout m_layout;
};

/// Fluent GGUF writer. Defaults: version 3, little-endian, "GGUF", plain header, alignment 32,
/// automatic tensor offsets (ggml's rule, docs/FORMAT.md §1.8: running sum of sizes padded to the alignment), every
/// tensor's data padded to the alignment like ggml's writer.
class GgufBuilder {
public:
    GgufBuilder &version(uint32_t version);
    GgufBuilder &byteOrder(Endian order);
    /// The four magic bytes as written ("GGUF" by default).
    GgufBuilder &magic(std::string_view fourChars);
    GgufBuilder &swappedMagic() { return magic("FUGG"); }
    /// BitNet-rs's extended header: u32 alignment and u64 data offset after kv_count. The data
    /// offset is where the data region is put (at least the padded end of the tensor infos).
    GgufBuilder &extendedHeader(std::optional<uint64_t> dataOffset = std::nullopt);
    /// Writes `general.alignment` (UINT32) as the next pair and lays the data out with it.
    GgufBuilder &alignment(uint32_t alignment);
    /// Lays the data out with `alignment` without writing a key (for inconsistent files).
    GgufBuilder &layoutAlignment(uint64_t alignment);

    GgufBuilder &kv(std::string key, BuildValue value);

    GgufBuilder &tensor(TensorSpec spec);
    /// A zero-filled tensor at the automatic offset.
    GgufBuilder &tensor(std::string name, std::vector<uint64_t> dims, uint32_t type);
    GgufBuilder &tensor(std::string name, std::vector<uint64_t> dims, uint32_t type, std::vector<uint8_t> data);

    /// Counts written instead of the real ones.
    GgufBuilder &writtenTensorCount(uint64_t count);
    GgufBuilder &writtenKvCount(uint64_t count);
    /// Pad the last tensor's data to the alignment (default true, as ggml's writer does).
    GgufBuilder &padLastTensor(bool pad);
    /// Zero bytes appended after everything.
    GgufBuilder &trailingBytes(uint64_t count);

    BuiltFile build() const;

    /// Byte size of a tensor of `type` with `dims` from the builder's own table (docs/FORMAT.md §3.1);
    /// nullopt for removed/unknown ids, a row not a multiple of the block, or overflow.
    static std::optional<uint64_t> tensorSize(uint32_t type, const std::vector<uint64_t> &dims);
    /// Elements per block of `type`; 0 when the type has no block size.
    static uint32_t blockSize(uint32_t type);

private:
    uint32_t m_version = 3;
    Endian m_order = Endian::Little;
    std::array<char, 4> m_magic{'G', 'G', 'U', 'F'};
    bool m_extended = false;
    std::optional<uint64_t> m_extendedDataOffset;
    uint64_t m_alignment = 32;
    std::vector<std::pair<std::string, BuildValue>> m_kvs;
    std::vector<TensorSpec> m_tensors;
    std::optional<uint64_t> m_writtenTensorCount;
    std::optional<uint64_t> m_writtenKvCount;
    bool m_padLastTensor = true;
    uint64_t m_trailing = 0;
};

/// Shorthand for tests.
using V = BuildValue;

/// Shard `number` (1 or 2) of a two-file split model ("general.architecture" llama in shard 1),
/// each shard with one F32 tensor "blk.<number>.w" of 32 values.
std::vector<uint8_t> twoFileSplitShard(uint16_t number);

/// A built file kept together with the GgufFile parsed from its bytes (the file views them).
struct OpenedBuilt {
    BuiltFile built;
    std::shared_ptr<const GgufFile> file; ///< null when the bytes do not parse
};
OpenedBuilt buildAndOpen(const GgufBuilder &builder);

} // namespace gguf::test
