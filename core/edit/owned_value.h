// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_value.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

/// A metadata value held in memory: what an edit puts into a file. Unlike `Value` (a view into a
/// mapped file) it owns its contents. Every value keeps its exact GGUF type; arrays keep their
/// element type, so writing one back never widens a UINT16 array to INT32.
struct OwnedValue {
    ValueType type = ValueType::Uint8;
    /// Fixed-size scalars: the value's bits in the low bytes (two's complement for signed types,
    /// the IEEE bits for floats, 0/1 for bools), so −0.0 and NaN payloads survive unchanged.
    uint64_t bits = 0;
    std::string text;                         ///< STRING: the bytes (not necessarily UTF-8)
    ValueType elementType = ValueType::Uint8; ///< ARRAY: the element type
    std::vector<OwnedValue> elements;         ///< ARRAY: the elements, each of `elementType`

    static OwnedValue unsignedInt(ValueType type, uint64_t v);
    static OwnedValue signedInt(ValueType type, int64_t v);
    static OwnedValue float32(float v);
    static OwnedValue float64(double v);
    static OwnedValue boolean(bool v);
    static OwnedValue string(std::string v);
    static OwnedValue array(ValueType elementType, std::vector<OwnedValue> elements = {});

    /// A deep copy of a value read from a file (arrays element by element).
    static OwnedValue fromValue(const Value &value);

    bool isArray() const { return type == ValueType::Array; }
    /// Integer and bool scalars as signed / unsigned numbers (the bits reinterpreted by the type).
    int64_t asInt() const;
    double asDouble() const;
    /// Short text like `Value::toDisplayString`: numbers in full, strings quoted and cut after
    /// `maxChars`, arrays as "[UINT32 × 3]".
    std::string toDisplayString(size_t maxChars = 200) const;
    /// The value as an editor shows it for editing: numbers as `toDisplayString`, strings
    /// unquoted, arrays as a JSON-like list (`[1, 2, "a"]`).
    std::string toEditText() const;

    bool operator==(const OwnedValue &other) const = default;
};

/// Parses `text` as a value of `type`; for arrays, `elementType` gives the type of the elements and
/// `text` is a list `[a, b, "c"]` (strings in JSON's double quotes and escapes). Integers are range
/// checked against their type (decimal or 0x hexadecimal), floats are decimal (with an exponent, or
/// inf and nan; a NaN's payload cannot be written), bools are `true`/`false`/`1`/`0`. A string is taken as it is. On
/// failure returns nullopt and sets `error` to one line saying why.
std::optional<OwnedValue> parseValue(ValueType type, std::string_view text, std::string &error,
                                     ValueType elementType = ValueType::Uint8);

/// Reads a type name as `--type` takes it: the GGUF names (`UINT32`, `STRING`, …, any case), the
/// short forms `u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool str`, and arrays as `ARRAY[T]` or `[T]`.
/// Returns false when the name is none of those.
bool parseTypeName(std::string_view name, ValueType &type, ValueType &elementType);

/// "UINT32", or "ARRAY[UINT32]" for arrays.
std::string typeDisplayName(ValueType type, ValueType elementType);

} // namespace gguf
