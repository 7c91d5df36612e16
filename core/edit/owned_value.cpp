// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/edit/owned_value.h"

#include "core/util/json_text.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace gguf {
namespace {

bool isSigned(ValueType t)
{
    return t == ValueType::Int8 || t == ValueType::Int16 || t == ValueType::Int32 || t == ValueType::Int64;
}

bool isUnsigned(ValueType t)
{
    return t == ValueType::Uint8 || t == ValueType::Uint16 || t == ValueType::Uint32 || t == ValueType::Uint64;
}

// the bits of a fixed-size value of `bytes` bytes
uint64_t lowBits(uint64_t v, uint32_t bytes)
{
    return bytes >= 8 ? v : v & ((uint64_t(1) << (8 * bytes)) - 1);
}

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

template <typename F> std::string shortest(F v)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}

std::optional<OwnedValue> parseInteger(ValueType type, std::string_view s, std::string &error)
{
    const uint32_t bytes = valueTypeSize(type);
    bool negative = false;
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    uint64_t magnitude = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
    if (s.empty() || r.ec == std::errc::invalid_argument || r.ptr != s.data() + s.size()) {
        error = "not an integer";
        return std::nullopt;
    }
    const std::string range = valueTypeName(type) + " holds ";
    if (isUnsigned(type)) {
        const uint64_t max = bytes >= 8 ? UINT64_MAX : (uint64_t(1) << (8 * bytes)) - 1;
        if (r.ec == std::errc::result_out_of_range || magnitude > max || (negative && magnitude != 0)) {
            error = range + "0 to " + std::to_string(max);
            return std::nullopt;
        }
        return OwnedValue::unsignedInt(type, magnitude);
    }
    const uint64_t maxPositive = bytes >= 8 ? uint64_t(INT64_MAX) : (uint64_t(1) << (8 * bytes - 1)) - 1;
    if (r.ec == std::errc::result_out_of_range || magnitude > maxPositive + (negative ? 1 : 0)) {
        error = range + "-" + std::to_string(maxPositive + 1) + " to " + std::to_string(maxPositive);
        return std::nullopt;
    }
    const int64_t v = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return OwnedValue::signedInt(type, v);
}

template <typename F> std::optional<F> parseFloat(std::string_view s, std::string &error)
{
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    F v{};
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec == std::errc::invalid_argument || r.ptr != s.data() + s.size()) {
        error = "not a number";
        return std::nullopt;
    }
    if (r.ec == std::errc::result_out_of_range) {
        // from_chars leaves v unchanged here: say what the number would round to
        error = "out of range for a " + std::string(sizeof(F) == 4 ? "FLOAT32" : "FLOAT64");
        return std::nullopt;
    }
    return v;
}

// A list `[a, b, "c"]`: reads one element at a time from `s`.
class ListReader {
public:
    explicit ListReader(std::string_view s) : m_s(s) {}

    bool readString(std::string &out, std::string &error);
    std::string_view readToken();
    void skipSpace()
    {
        while (m_pos < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_pos])))
            ++m_pos;
    }
    bool take(char c)
    {
        skipSpace();
        if (m_pos < m_s.size() && m_s[m_pos] == c) {
            ++m_pos;
            return true;
        }
        return false;
    }
    bool atEnd()
    {
        skipSpace();
        return m_pos >= m_s.size();
    }
    size_t position() const { return m_pos; }

private:
    bool hex4(uint32_t &v);
    std::string_view m_s;
    size_t m_pos = 0;
};

bool ListReader::hex4(uint32_t &v)
{
    if (m_pos + 4 > m_s.size())
        return false;
    const auto r = std::from_chars(m_s.data() + m_pos, m_s.data() + m_pos + 4, v, 16);
    if (r.ptr != m_s.data() + m_pos + 4)
        return false;
    m_pos += 4;
    return true;
}

bool ListReader::readString(std::string &out, std::string &error)
{
    if (!take('"')) {
        error = "expected a string in double quotes";
        return false;
    }
    while (m_pos < m_s.size()) {
        const char c = m_s[m_pos++];
        if (c == '"')
            return true;
        if (c != '\\') {
            out += c;
            continue;
        }
        if (m_pos >= m_s.size())
            break;
        const char e = m_s[m_pos++];
        switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
            uint32_t cp = 0;
            if (!hex4(cp)) {
                error = "\\u needs four hexadecimal digits";
                return false;
            }
            if (cp >= 0xD800 && cp < 0xDC00) { // a surrogate pair
                uint32_t low = 0;
                if (m_pos + 2 > m_s.size() || m_s[m_pos] != '\\' || m_s[m_pos + 1] != 'u' || (m_pos += 2, !hex4(low)) ||
                    low < 0xDC00 || low > 0xDFFF) {
                    error = "a high surrogate \\u escape without its low half";
                    return false;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            appendUtf8(cp, out);
            break;
        }
        default: error = std::string("unknown escape \\") + e; return false;
        }
    }
    error = "a string without its closing quote";
    return false;
}

std::string_view ListReader::readToken()
{
    skipSpace();
    const size_t start = m_pos;
    while (m_pos < m_s.size() && m_s[m_pos] != ',' && m_s[m_pos] != ']')
        ++m_pos;
    return trimmed(m_s.substr(start, m_pos - start));
}

std::optional<OwnedValue> parseList(ValueType elementType, std::string_view text, std::string &error)
{
    if (elementType == ValueType::Array) {
        error = "arrays of arrays cannot be written as text";
        return std::nullopt;
    }
    ListReader in(text);
    if (!in.take('[')) {
        error = "an array is written as a list in brackets: [a, b, c]";
        return std::nullopt;
    }
    OwnedValue out = OwnedValue::array(elementType);
    if (in.take(']')) {
        if (in.atEnd())
            return out;
        error = "text after the closing ']'";
        return std::nullopt;
    }
    while (true) {
        const std::string where = "element " + std::to_string(out.elements.size()) + ": ";
        if (elementType == ValueType::String) {
            std::string s;
            if (!in.readString(s, error)) {
                error = where + error;
                return std::nullopt;
            }
            out.elements.push_back(OwnedValue::string(std::move(s)));
        } else {
            auto v = parseValue(elementType, in.readToken(), error);
            if (!v) {
                error = where + error;
                return std::nullopt;
            }
            out.elements.push_back(std::move(*v));
        }
        if (in.take(']'))
            break;
        if (!in.take(',')) {
            error = "expected ',' or ']' at character " + std::to_string(in.position() + 1);
            return std::nullopt;
        }
    }
    if (!in.atEnd()) {
        error = "text after the closing ']'";
        return std::nullopt;
    }
    return out;
}

} // namespace

OwnedValue OwnedValue::unsignedInt(ValueType type, uint64_t v)
{
    OwnedValue o;
    o.type = type;
    o.bits = lowBits(v, valueTypeSize(type));
    return o;
}

OwnedValue OwnedValue::signedInt(ValueType type, int64_t v)
{
    return unsignedInt(type, static_cast<uint64_t>(v));
}

OwnedValue OwnedValue::float32(float v)
{
    OwnedValue o;
    o.type = ValueType::Float32;
    o.bits = std::bit_cast<uint32_t>(v);
    return o;
}

OwnedValue OwnedValue::float64(double v)
{
    OwnedValue o;
    o.type = ValueType::Float64;
    o.bits = std::bit_cast<uint64_t>(v);
    return o;
}

OwnedValue OwnedValue::boolean(bool v)
{
    OwnedValue o;
    o.type = ValueType::Bool;
    o.bits = v ? 1 : 0;
    return o;
}

OwnedValue OwnedValue::string(std::string v)
{
    OwnedValue o;
    o.type = ValueType::String;
    o.text = std::move(v);
    return o;
}

OwnedValue OwnedValue::array(ValueType elementType, std::vector<OwnedValue> elements)
{
    OwnedValue o;
    o.type = ValueType::Array;
    o.elementType = elementType;
    o.elements = std::move(elements);
    return o;
}

OwnedValue OwnedValue::fromValue(const Value &value)
{
    OwnedValue o;
    o.type = value.type();
    switch (value.type()) {
    case ValueType::String: o.text = std::string(value.toStringView()); break;
    case ValueType::Array: {
        const ArrayRef a = value.array();
        o.elementType = a.elementType();
        o.elements.reserve(static_cast<size_t>(a.size()));
        for (uint64_t i = 0; i < a.size(); ++i)
            o.elements.push_back(fromValue(a.at(i)));
        break;
    }
    default: o.bits = value.bits().value_or(0); break; // the stored bits: a NaN's payload and a BOOL's byte survive
    }
    return o;
}

int64_t OwnedValue::asInt() const
{
    switch (type) {
    case ValueType::Int8: return static_cast<int8_t>(bits);
    case ValueType::Int16: return static_cast<int16_t>(bits);
    case ValueType::Int32: return static_cast<int32_t>(bits);
    default: return static_cast<int64_t>(bits);
    }
}

double OwnedValue::asDouble() const
{
    if (type == ValueType::Float32)
        return std::bit_cast<float>(static_cast<uint32_t>(bits));
    if (type == ValueType::Float64)
        return std::bit_cast<double>(bits);
    if (type == ValueType::Uint64)
        return static_cast<double>(bits);
    return static_cast<double>(asInt());
}

std::string OwnedValue::toDisplayString(size_t maxChars) const
{
    if (type == ValueType::String) {
        size_t cut = std::min(maxChars, text.size());
        while (cut < text.size() && cut > 0 && (static_cast<uint8_t>(text[cut]) & 0xC0) == 0x80)
            --cut;
        // built by appending: GCC 12's -Wrestrict misfires on chains of operator+
        std::string out = "\"";
        out.append(text, 0, cut);
        out += cut < text.size() ? "…\"" : "\"";
        return out;
    }
    if (type == ValueType::Array) {
        std::string out = "[";
        out += valueTypeName(elementType);
        out += " × ";
        out += std::to_string(elements.size());
        out += "]";
        return out;
    }
    return toEditText();
}

std::string OwnedValue::toEditText() const
{
    switch (type) {
    case ValueType::String: return text;
    case ValueType::Bool: return bits ? "true" : "false";
    case ValueType::Float32: return shortest(std::bit_cast<float>(static_cast<uint32_t>(bits)));
    case ValueType::Float64: return shortest(std::bit_cast<double>(bits));
    case ValueType::Uint8:
    case ValueType::Uint16:
    case ValueType::Uint32:
    case ValueType::Uint64: return std::to_string(bits);
    case ValueType::Array: {
        std::string out = "[";
        for (size_t i = 0; i < elements.size(); ++i) {
            if (i)
                out += ", ";
            if (elements[i].type == ValueType::String)
                appendJsonString(out, elements[i].text);
            else
                out += elements[i].toEditText();
        }
        return out + "]";
    }
    default: return std::to_string(asInt());
    }
}

std::optional<OwnedValue> parseValue(ValueType type, std::string_view text, std::string &error, ValueType elementType)
{
    if (type == ValueType::String)
        return OwnedValue::string(std::string(text));
    if (type == ValueType::Array)
        return parseList(elementType, text, error);
    const std::string_view s = trimmed(text);
    if (type == ValueType::Bool) {
        const std::string l = lower(s);
        if (l == "true" || l == "1")
            return OwnedValue::boolean(true);
        if (l == "false" || l == "0")
            return OwnedValue::boolean(false);
        error = "a BOOL is true or false";
        return std::nullopt;
    }
    if (type == ValueType::Float32) {
        const auto v = parseFloat<float>(s, error);
        return v ? std::optional(OwnedValue::float32(*v)) : std::nullopt;
    }
    if (type == ValueType::Float64) {
        const auto v = parseFloat<double>(s, error);
        return v ? std::optional(OwnedValue::float64(*v)) : std::nullopt;
    }
    if (isSigned(type) || isUnsigned(type))
        return parseInteger(type, s, error);
    error = "unknown value type";
    return std::nullopt;
}

bool parseTypeName(std::string_view name, ValueType &type, ValueType &elementType)
{
    std::string l = lower(trimmed(name));
    bool array = false;
    if (l.starts_with("array[") && l.ends_with("]")) {
        l = l.substr(6, l.size() - 7);
        array = true;
    } else if (l.size() > 2 && l.front() == '[' && l.back() == ']') {
        l = l.substr(1, l.size() - 2);
        array = true;
    }
    static constexpr std::pair<std::string_view, ValueType> kShort[] = {
        {"u8", ValueType::Uint8},    {"i8", ValueType::Int8},    {"u16", ValueType::Uint16},
        {"i16", ValueType::Int16},   {"u32", ValueType::Uint32}, {"i32", ValueType::Int32},
        {"u64", ValueType::Uint64},  {"i64", ValueType::Int64},  {"f32", ValueType::Float32},
        {"f64", ValueType::Float64}, {"bool", ValueType::Bool},  {"str", ValueType::String},
    };
    std::optional<ValueType> found;
    for (const auto &[shortName, t] : kShort)
        if (l == shortName)
            found = t;
    for (uint32_t id = 0; id < kValueTypeCount && !found; ++id)
        if (l == lower(valueTypeName(id)) && id != static_cast<uint32_t>(ValueType::Array))
            found = static_cast<ValueType>(id);
    if (!found)
        return false;
    if (array) {
        type = ValueType::Array;
        elementType = *found;
    } else {
        type = *found;
    }
    return true;
}

std::string typeDisplayName(ValueType type, ValueType elementType)
{
    return type == ValueType::Array ? "ARRAY[" + valueTypeName(elementType) + "]" : valueTypeName(type);
}

} // namespace gguf
