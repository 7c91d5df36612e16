// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gguf {

class GgufFile;

/// GGUF metadata value types (the on-disk u32 ids; docs/FORMAT.md §1.5).
enum class ValueType : uint32_t {
    Uint8 = 0,
    Int8 = 1,
    Uint16 = 2,
    Int16 = 3,
    Uint32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    Uint64 = 10,
    Int64 = 11,
    Float64 = 12,
};

inline constexpr uint32_t kValueTypeCount = 13;

/// "UINT8" … "FLOAT64" (gguf-py's GGUFValueType names, docs/FORMAT.md §1.5); "INVALID(n)" for ids ≥ 13.
std::string valueTypeName(uint32_t type);
inline std::string valueTypeName(ValueType type)
{
    return valueTypeName(static_cast<uint32_t>(type));
}

/// Size in bytes of a fixed-size value type; 0 for String and Array.
uint32_t valueTypeSize(ValueType type);

class ArrayRef;

/// A metadata value seen in place: a type, the byte range of its encoding in the file, and the
/// file it lives in. Cheap to copy; valid while its GgufFile lives. Nothing is copied out of the
/// mapping until a getter is called.
class Value {
public:
    Value() = default;
    Value(const GgufFile *file, ValueType type, uint64_t offset, uint64_t size)
        : m_file(file), m_type(type), m_offset(offset), m_size(size)
    {
    }

    bool isValid() const { return m_file != nullptr; }
    ValueType type() const { return m_type; }
    /// Absolute offset of the value's bytes (for a string: its length field; for an array: its
    /// element-type field).
    uint64_t offset() const { return m_offset; }
    /// Encoded size in bytes, including length and count fields.
    uint64_t size() const { return m_size; }

    bool isInteger() const;
    bool isFloat() const { return m_type == ValueType::Float32 || m_type == ValueType::Float64; }

    /// Integer value of an integer or bool type; nullopt otherwise or when a negative value is
    /// asked for as unsigned.
    std::optional<uint64_t> toUInt() const;
    std::optional<int64_t> toInt() const;
    /// Any numeric or bool type as a double.
    std::optional<double> toDouble() const;
    std::optional<bool> toBool() const;
    /// The stored bits of a fixed-size value in host byte order (floats unwidened, so a signalling
    /// NaN stays one; a BOOL's byte as stored); nullopt for strings, arrays and bytes not in the file.
    std::optional<uint64_t> bits() const;
    /// The bytes of a String value (not necessarily valid UTF-8); empty for other types.
    std::string_view toStringView() const;
    /// An Array value's elements; an empty ArrayRef for other types.
    ArrayRef array() const;

    /// Offset of a string's text (after the length field).
    uint64_t stringDataOffset() const;

    /// Short human text: numbers in full, strings quoted and cut after `maxChars`, arrays as
    /// "[STRING × 32000]".
    std::string toDisplayString(size_t maxChars = 200) const;

private:
    const GgufFile *m_file = nullptr;
    ValueType m_type = ValueType::Uint8;
    uint64_t m_offset = 0;
    uint64_t m_size = 0;
};

/// The elements of an array value. Fixed-size elements are located arithmetically; strings and
/// nested arrays through an offsets index the file builds on first access (O(1) after that).
class ArrayRef {
public:
    ArrayRef() = default;
    ArrayRef(const GgufFile *file, ValueType elementType, uint64_t count, uint64_t headerOffset,
             uint64_t elementsOffset, uint64_t end)
        : m_file(file), m_elementType(elementType), m_count(count), m_headerOffset(headerOffset),
          m_elementsOffset(elementsOffset), m_end(end)
    {
    }

    bool isValid() const { return m_file != nullptr; }
    ValueType elementType() const { return m_elementType; }
    uint64_t size() const { return m_count; }
    bool empty() const { return m_count == 0; }
    uint64_t headerOffset() const { return m_headerOffset; }    ///< element-type field
    uint64_t countOffset() const { return m_headerOffset + 4; } ///< count field
    uint64_t elementsOffset() const { return m_elementsOffset; }
    uint64_t end() const { return m_end; }

    /// Element `i` (i < size()).
    Value at(uint64_t i) const;
    /// Shortcuts for typed arrays, converting like Value's getters.
    std::string_view stringAt(uint64_t i) const { return at(i).toStringView(); }

private:
    const GgufFile *m_file = nullptr;
    ValueType m_elementType = ValueType::Uint8;
    uint64_t m_count = 0;
    uint64_t m_headerOffset = 0;
    uint64_t m_elementsOffset = 0;
    uint64_t m_end = 0;
};

} // namespace gguf
