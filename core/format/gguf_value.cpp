// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/gguf_value.h"

#include "core/format/gguf_file.h"
#include "core/util/byte_order.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace gguf {

std::string valueTypeName(uint32_t type)
{
    static constexpr const char *kNames[kValueTypeCount] = {"UINT8",  "INT8",    "UINT16", "INT16",  "UINT32",
                                                            "INT32",  "FLOAT32", "BOOL",   "STRING", "ARRAY",
                                                            "UINT64", "INT64",   "FLOAT64"};
    if (type < kValueTypeCount)
        return kNames[type];
    return "INVALID(" + std::to_string(type) + ")";
}

uint32_t valueTypeSize(ValueType type)
{
    switch (type) {
    case ValueType::Uint8:
    case ValueType::Int8:
    case ValueType::Bool: return 1;
    case ValueType::Uint16:
    case ValueType::Int16: return 2;
    case ValueType::Uint32:
    case ValueType::Int32:
    case ValueType::Float32: return 4;
    case ValueType::Uint64:
    case ValueType::Int64:
    case ValueType::Float64: return 8;
    case ValueType::String:
    case ValueType::Array: return 0;
    }
    return 0;
}

bool Value::isInteger() const
{
    switch (m_type) {
    case ValueType::Uint8:
    case ValueType::Int8:
    case ValueType::Uint16:
    case ValueType::Int16:
    case ValueType::Uint32:
    case ValueType::Int32:
    case ValueType::Uint64:
    case ValueType::Int64: return true;
    default: return false;
    }
}

std::optional<int64_t> Value::toInt() const
{
    if (!m_file)
        return std::nullopt;
    const auto b = m_file->bytes(m_offset, m_size);
    const bool sw = m_file->byteSwapped();
    if (b.size() < valueTypeSize(m_type) || valueTypeSize(m_type) == 0)
        return std::nullopt;
    const uint8_t *p = b.data();
    switch (m_type) {
    case ValueType::Uint8: return p[0];
    case ValueType::Int8: return static_cast<int8_t>(p[0]);
    case ValueType::Bool: return p[0] != 0;
    case ValueType::Uint16: return loadAs<uint16_t>(p, sw);
    case ValueType::Int16: return loadAs<int16_t>(p, sw);
    case ValueType::Uint32: return loadAs<uint32_t>(p, sw);
    case ValueType::Int32: return loadAs<int32_t>(p, sw);
    case ValueType::Int64: return loadAs<int64_t>(p, sw);
    case ValueType::Uint64: {
        const uint64_t v = loadAs<uint64_t>(p, sw);
        if (v > static_cast<uint64_t>(INT64_MAX))
            return std::nullopt;
        return static_cast<int64_t>(v);
    }
    default: return std::nullopt;
    }
}

std::optional<uint64_t> Value::toUInt() const
{
    if (!m_file)
        return std::nullopt;
    if (m_type == ValueType::Uint64) {
        const auto b = m_file->bytes(m_offset, 8);
        if (b.size() < 8)
            return std::nullopt;
        return loadAs<uint64_t>(b.data(), m_file->byteSwapped());
    }
    const auto v = toInt();
    if (!v || *v < 0)
        return std::nullopt;
    return static_cast<uint64_t>(*v);
}

std::optional<double> Value::toDouble() const
{
    if (!m_file)
        return std::nullopt;
    if (m_type == ValueType::Float32 || m_type == ValueType::Float64) {
        const auto b = m_file->bytes(m_offset, m_size);
        if (b.size() < valueTypeSize(m_type))
            return std::nullopt;
        if (m_type == ValueType::Float32)
            return loadAs<float>(b.data(), m_file->byteSwapped());
        return loadAs<double>(b.data(), m_file->byteSwapped());
    }
    if (m_type == ValueType::Uint64) {
        const auto u = toUInt();
        return u ? std::optional<double>(static_cast<double>(*u)) : std::nullopt;
    }
    const auto i = toInt();
    return i ? std::optional<double>(static_cast<double>(*i)) : std::nullopt;
}

std::optional<bool> Value::toBool() const
{
    if (m_type != ValueType::Bool)
        return std::nullopt;
    const auto i = toInt();
    return i ? std::optional<bool>(*i != 0) : std::nullopt;
}

uint64_t Value::stringDataOffset() const
{
    return m_offset + (m_file && m_file->v1() ? 4 : 8);
}

std::string_view Value::toStringView() const
{
    if (!m_file || m_type != ValueType::String)
        return {};
    const uint64_t start = stringDataOffset();
    const auto b = m_file->bytes(start, m_offset + m_size - start);
    return {reinterpret_cast<const char *>(b.data()), b.size()};
}

ArrayRef Value::array() const
{
    if (!m_file || m_type != ValueType::Array)
        return {};
    const bool v1 = m_file->v1();
    const uint64_t headerSize = v1 ? 8 : 12;
    const auto b = m_file->bytes(m_offset, headerSize);
    if (b.size() < headerSize)
        return {};
    const bool sw = m_file->byteSwapped();
    const uint32_t elemType = loadAs<uint32_t>(b.data(), sw);
    const uint64_t count = v1 ? loadAs<uint32_t>(b.data() + 4, sw) : loadAs<uint64_t>(b.data() + 4, sw);
    return ArrayRef(m_file, static_cast<ValueType>(elemType), count, m_offset, m_offset + headerSize,
                    m_offset + m_size);
}

std::string Value::toDisplayString(size_t maxChars) const
{
    if (!m_file)
        return {};
    char buf[64];
    switch (m_type) {
    case ValueType::String: {
        const std::string_view s = toStringView();
        std::string out = "\"";
        // cut on a character boundary: never inside a UTF-8 sequence
        size_t cut = std::min(maxChars, s.size());
        while (cut < s.size() && cut > 0 && (static_cast<uint8_t>(s[cut]) & 0xC0) == 0x80)
            --cut;
        out.append(s.substr(0, cut));
        if (s.size() > cut)
            out += "…";
        out += "\"";
        return out;
    }
    case ValueType::Array: {
        const ArrayRef a = array();
        // built by appending: GCC 12's -Wrestrict misfires on the chain of operator+ here
        std::string out = "[";
        out += valueTypeName(a.elementType());
        out += " × ";
        out += std::to_string(a.size());
        out += "]";
        return out;
    }
    case ValueType::Bool: return toBool().value_or(false) ? "true" : "false";
    case ValueType::Float32: std::snprintf(buf, sizeof buf, "%.9g", toDouble().value_or(0)); return buf;
    case ValueType::Float64: std::snprintf(buf, sizeof buf, "%.17g", toDouble().value_or(0)); return buf;
    case ValueType::Uint64: return std::to_string(toUInt().value_or(0));
    default: return std::to_string(toInt().value_or(0));
    }
}

std::optional<uint64_t> Value::bits() const
{
    const uint32_t fixed = valueTypeSize(m_type);
    if (!m_file || fixed == 0)
        return std::nullopt;
    const auto b = m_file->bytes(m_offset, fixed);
    if (b.size() != fixed)
        return std::nullopt;
    const bool sw = m_file->byteSwapped();
    switch (fixed) {
    case 1: return b[0];
    case 2: return loadAs<uint16_t>(b.data(), sw);
    case 4: return loadAs<uint32_t>(b.data(), sw);
    default: return loadAs<uint64_t>(b.data(), sw);
    }
}

Value ArrayRef::at(uint64_t i) const
{
    if (!m_file || i >= m_count)
        return {};
    const uint32_t fixed = valueTypeSize(m_elementType);
    if (fixed != 0)
        return Value(m_file, m_elementType, m_elementsOffset + i * fixed, fixed);
    const std::vector<uint64_t> &index = m_file->arrayIndex(*this);
    if (i + 1 >= index.size())
        return {};
    return Value(m_file, m_elementType, index[i], index[i + 1] - index[i]);
}

} // namespace gguf
