// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_inspect/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace cli {
namespace {

constexpr char32_t kReplacement = 0xFFFD;
constexpr size_t kFlushAt = 1 << 16;

} // namespace

namespace {

void appendUnicodeEscape(std::string &out, uint32_t unit)
{
    static constexpr char kHex[] = "0123456789abcdef";
    const char buf[6] = {
        '\\', 'u', kHex[(unit >> 12) & 0xF], kHex[(unit >> 8) & 0xF], kHex[(unit >> 4) & 0xF], kHex[unit & 0xF]};
    out.append(buf, sizeof buf);
}

} // namespace

void appendJsonString(std::string &out, std::string_view text)
{
    out += '"';
    size_t pos = 0;
    while (pos < text.size()) {
        const char32_t cp = decodeUtf8(text, pos);
        switch (cp) {
        case '"': out += "\\\""; continue;
        case '\\': out += "\\\\"; continue;
        case '\b': out += "\\b"; continue;
        case '\f': out += "\\f"; continue;
        case '\n': out += "\\n"; continue;
        case '\r': out += "\\r"; continue;
        case '\t': out += "\\t"; continue;
        default: break;
        }
        if (cp >= 0x20 && cp < 0x7F) {
            out += static_cast<char>(cp);
        } else if (cp < 0x10000) {
            appendUnicodeEscape(out, cp);
        } else {
            const uint32_t v = cp - 0x10000;
            appendUnicodeEscape(out, 0xD800 + (v >> 10));
            appendUnicodeEscape(out, 0xDC00 + (v & 0x3FF));
        }
    }
    out += '"';
}

void appendPythonFloat(std::string &out, double value)
{
    if (std::isnan(value)) {
        out += "NaN";
        return;
    }
    if (std::isinf(value)) {
        out += value < 0 ? "-Infinity" : "Infinity";
        return;
    }
    // Shortest round-trip digits in scientific form: "-d.ddde±XX".
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
    const std::string_view sci(buf, static_cast<size_t>(result.ptr - buf));
    const size_t e = sci.find('e');
    std::string_view mantissa = sci.substr(0, e);
    const int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
    if (!mantissa.empty() && mantissa.front() == '-') {
        out += '-';
        mantissa.remove_prefix(1);
    }
    std::string digits;
    for (char c : mantissa)
        if (c != '.')
            digits += c;
    const int ndigits = static_cast<int>(digits.size());
    // Python's repr (float_repr_style "short"): positional when -4 < decpt <= 16.
    const int decpt = exponent + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out += "0.";
            out.append(static_cast<size_t>(-decpt), '0');
            out += digits;
        } else if (decpt >= ndigits) {
            out += digits;
            out.append(static_cast<size_t>(decpt - ndigits), '0');
            out += ".0";
        } else {
            out.append(digits, 0, static_cast<size_t>(decpt));
            out += '.';
            out.append(digits, static_cast<size_t>(decpt));
        }
        return;
    }
    out += digits[0];
    if (ndigits > 1) {
        out += '.';
        out.append(digits, 1);
    }
    const int exp = decpt - 1;
    char expBuf[16];
    std::snprintf(expBuf, sizeof expBuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += expBuf;
}

JsonWriter::JsonWriter(std::FILE *out) : m_out(out)
{
    m_buffer.reserve(kFlushAt + 4096);
}

JsonWriter::~JsonWriter()
{
    flushBuffer();
}

void JsonWriter::write(std::string_view text)
{
    m_buffer += text;
    if (m_buffer.size() >= kFlushAt)
        flushBuffer();
}

void JsonWriter::flushBuffer()
{
    if (m_buffer.empty())
        return;
    if (std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_out) != m_buffer.size())
        m_failed = true;
    m_buffer.clear();
}

void JsonWriter::beforeValue()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (!m_scopes.empty() && !m_first)
        m_buffer += ", ";
    m_first = false;
}

void JsonWriter::beginObject()
{
    beforeValue();
    m_scopes.push_back(Scope::Object);
    m_first = true;
    write("{");
}

void JsonWriter::endObject()
{
    m_scopes.pop_back();
    m_first = false;
    write("}");
}

void JsonWriter::beginArray()
{
    beforeValue();
    m_scopes.push_back(Scope::Array);
    m_first = true;
    write("[");
}

void JsonWriter::endArray()
{
    m_scopes.pop_back();
    m_first = false;
    write("]");
}

void JsonWriter::key(std::string_view name)
{
    beforeValue();
    appendJsonString(m_buffer, name);
    m_buffer += ": ";
    m_afterKey = true;
}

void JsonWriter::string(std::string_view text)
{
    beforeValue();
    appendJsonString(m_buffer, text);
    write({});
}

void JsonWriter::integer(int64_t value)
{
    beforeValue();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    write(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

void JsonWriter::unsignedInteger(uint64_t value)
{
    beforeValue();
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    write(std::string_view(buf, static_cast<size_t>(r.ptr - buf)));
}

void JsonWriter::number(double value)
{
    beforeValue();
    appendPythonFloat(m_buffer, value);
    write({});
}

void JsonWriter::boolean(bool value)
{
    beforeValue();
    write(value ? "true" : "false");
}

void JsonWriter::null()
{
    beforeValue();
    write("null");
}

bool JsonWriter::finish()
{
    write("\n");
    flushBuffer();
    if (std::fflush(m_out) != 0)
        m_failed = true;
    return !m_failed;
}

} // namespace cli
