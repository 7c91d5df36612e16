// SPDX-License-Identifier: GPL-3.0-or-later
// A strict JSON reader with offsets (RFC 8259: the grammar of values, strings and numbers, and
// whitespace as space, tab, line feed and carriage return only).
#include "json_reader.h"

#include "core/util/text_format.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <charconv>

namespace gguf::json {
namespace {

class Reader {
public:
    Reader(std::string_view text, ParseError &error, int maxDepth) : m_text(text), m_error(error), m_maxDepth(maxDepth)
    {
    }

    std::optional<Value> document()
    {
        Value v;
        skipSpace();
        if (!value(v, 0))
            return std::nullopt;
        skipSpace();
        if (m_pos != m_text.size())
            return fail("unexpected text after the JSON value");
        return v;
    }

private:
    std::nullopt_t fail(std::string message)
    {
        if (m_error.message.empty()) {
            m_error.offset = m_pos;
            m_error.message = std::move(message);
        }
        return std::nullopt;
    }
    bool failed(std::string message)
    {
        fail(std::move(message));
        return false;
    }

    bool atEnd() const { return m_pos >= m_text.size(); }
    char peek() const { return atEnd() ? '\0' : m_text[m_pos]; }

    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }

    bool literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return failed("expected '" + std::string(word) + "'");
        m_pos += word.size();
        return true;
    }

    bool value(Value &v, int depth)
    {
        v.begin = m_pos;
        if (atEnd())
            return failed("the text ends where a value should start");
        bool ok = true;
        switch (peek()) {
        case '{': ok = object(v, depth); break;
        case '[': ok = array(v, depth); break;
        case '"':
            v.kind = Value::Kind::String;
            ok = string(v.text);
            break;
        case 't':
            v.kind = Value::Kind::Bool;
            v.boolean = true;
            ok = literal("true");
            break;
        case 'f':
            v.kind = Value::Kind::Bool;
            ok = literal("false");
            break;
        case 'n': ok = literal("null"); break;
        default:
            if (peek() == '-' || (peek() >= '0' && peek() <= '9')) {
                ok = number(v);
                break;
            }
            return failed(std::string("'") + peek() + "' cannot start a JSON value");
        }
        v.end = m_pos;
        return ok;
    }

    bool nested(int depth)
    {
        if (depth + 1 > m_maxDepth)
            return failed("values nested more than " + std::to_string(m_maxDepth) + " deep");
        return true;
    }

    /// An object or array at m_pos: `member` reads each member or element (after the separator),
    /// the container ends at `close`.
    template <typename Member> bool container(int depth, char close, const char *what, const Member &member)
    {
        if (!nested(depth))
            return false;
        ++m_pos; // { or [
        skipSpace();
        if (peek() == close) {
            ++m_pos;
            return true;
        }
        for (;;) {
            skipSpace();
            if (!member())
                return false;
            skipSpace();
            if (peek() == close) {
                ++m_pos;
                return true;
            }
            if (peek() != ',')
                return failed(std::string("expected ',' or '") + close + "' in " + what);
            ++m_pos;
        }
    }

    bool object(Value &v, int depth)
    {
        v.kind = Value::Kind::Object;
        return container(depth, '}', "an object", [&] {
            if (peek() != '"')
                return failed("expected a key in quotes");
            const uint64_t keyAt = m_pos;
            std::string key;
            if (!string(key))
                return false;
            skipSpace();
            if (peek() != ':')
                return failed("expected ':' after the key");
            ++m_pos;
            skipSpace();
            v.keys.emplace_back(std::move(key), keyAt);
            v.values.emplace_back();
            return value(v.values.back(), depth + 1);
        });
    }

    bool array(Value &v, int depth)
    {
        v.kind = Value::Kind::Array;
        return container(depth, ']', "an array", [&] {
            v.values.emplace_back();
            return value(v.values.back(), depth + 1);
        });
    }

    /// Four hex digits of a \u escape.
    std::optional<uint32_t> hex4()
    {
        if (m_text.size() - m_pos < 4)
            return fail("a \\u escape needs four hex digits");
        uint32_t cp = 0;
        for (int i = 0; i < 4; ++i) {
            const int d = hexDigit(m_text[m_pos + i]);
            if (d < 0)
                return fail("a \\u escape needs four hex digits");
            cp = cp * 16 + static_cast<uint32_t>(d);
        }
        m_pos += 4;
        return cp;
    }

    bool escape(std::string &out)
    {
        const char c = peek();
        ++m_pos;
        switch (c) {
        case '"': out += '"'; return true;
        case '\\': out += '\\'; return true;
        case '/': out += '/'; return true;
        case 'b': out += '\b'; return true;
        case 'f': out += '\f'; return true;
        case 'n': out += '\n'; return true;
        case 'r': out += '\r'; return true;
        case 't': out += '\t'; return true;
        case 'u': break;
        default: --m_pos; return failed("unknown escape in a string");
        }
        const auto high = hex4();
        if (!high)
            return false;
        if (*high >= 0xDC00 && *high <= 0xDFFF)
            return failed("a lone low surrogate escape");
        uint32_t cp = *high;
        if (*high >= 0xD800 && *high <= 0xDBFF) {
            if (m_text.substr(m_pos, 2) != "\\u")
                return failed("a high surrogate escape without its low half");
            m_pos += 2;
            const auto low = hex4();
            if (!low)
                return false;
            if (*low < 0xDC00 || *low > 0xDFFF)
                return failed("a high surrogate escape without its low half");
            cp = 0x10000 + ((*high - 0xD800) << 10) + (*low - 0xDC00);
        }
        appendUtf8(cp, out);
        return true;
    }

    bool string(std::string &out)
    {
        ++m_pos; // "
        for (;;) {
            if (atEnd())
                return failed("a string is not closed");
            const auto c = static_cast<unsigned char>(peek());
            if (c == '"') {
                ++m_pos;
                return true;
            }
            if (c < 0x20)
                return failed("a control character inside a string");
            if (c == '\\') {
                ++m_pos;
                if (!escape(out))
                    return false;
                continue;
            }
            out += static_cast<char>(c);
            ++m_pos;
        }
    }

    bool digits()
    {
        const uint64_t from = m_pos;
        while (!atEnd() && peek() >= '0' && peek() <= '9')
            ++m_pos;
        return m_pos > from;
    }

    bool number(Value &v)
    {
        v.kind = Value::Kind::Number;
        const uint64_t from = m_pos;
        if (peek() == '-')
            ++m_pos;
        if (peek() == '0') {
            ++m_pos;
        } else if (!digits()) {
            return failed("a number needs digits");
        }
        if (peek() == '.') {
            ++m_pos;
            if (!digits())
                return failed("a number needs digits after '.'");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++m_pos;
            if (peek() == '+' || peek() == '-')
                ++m_pos;
            if (!digits())
                return failed("a number needs digits in its exponent");
        }
        v.text = std::string(m_text.substr(from, m_pos - from));
        return true;
    }

    std::string_view m_text;
    ParseError &m_error;
    int m_maxDepth;
    uint64_t m_pos = 0;
};

} // namespace

const Value *Value::find(std::string_view key) const
{
    if (kind != Kind::Object)
        return nullptr;
    const auto it = std::find_if(keys.begin(), keys.end(), [key](const auto &k) { return k.first == key; });
    return it == keys.end() ? nullptr : &values[static_cast<size_t>(it - keys.begin())];
}

std::optional<uint64_t> Value::asUnsigned() const
{
    if (kind != Kind::Number || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    uint64_t n = 0;
    const auto [stop, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || stop != text.data() + text.size())
        return std::nullopt;
    return n;
}

std::optional<Value> parse(std::string_view text, ParseError &error, int maxDepth)
{
    error = ParseError{};
    if (const auto bad = firstInvalidUtf8(text)) {
        error.offset = *bad;
        error.message = "the text is not valid UTF-8";
        return std::nullopt;
    }
    return Reader(text, error, maxDepth).document();
}

std::optional<uint64_t> firstInvalidUtf8(std::string_view text)
{
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const auto continuation = [&](size_t i) { return i < text.size() && (byte(i) & 0xC0) == 0x80; };
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = byte(i);
        size_t length = 0;
        uint32_t cp = 0, least = 0;
        if (c < 0x80) {
            ++i;
            continue;
        }
        if ((c & 0xE0) == 0xC0) {
            length = 2, cp = c & 0x1Fu, least = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            length = 3, cp = c & 0x0Fu, least = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            length = 4, cp = c & 0x07u, least = 0x10000;
        } else {
            return i;
        }
        for (size_t k = 1; k < length; ++k) {
            if (!continuation(i + k))
                return i;
            cp = (cp << 6) | (byte(i + k) & 0x3Fu);
        }
        if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return i; // overlong, beyond Unicode, or a surrogate
        i += length;
    }
    return std::nullopt;
}

namespace {

void flattenInto(const Value &v, const std::string &path, size_t inlineArray,
                 std::vector<std::pair<std::string, std::string>> &out)
{
    using Kind = Value::Kind;
    switch (v.kind) {
    case Kind::Object:
        for (size_t i = 0; i < v.values.size(); ++i)
            flattenInto(v.values[i], path.empty() ? v.keys[i].first : path + "." + v.keys[i].first, inlineArray, out);
        if (v.values.empty())
            out.emplace_back(path, "{}");
        return;
    case Kind::Array: {
        bool scalars = true;
        for (const Value &e : v.values)
            scalars = scalars && e.kind != Kind::Object && e.kind != Kind::Array;
        if (!scalars || v.values.size() > inlineArray) {
            out.emplace_back(path, "[" + groupDigits(v.values.size()) + " elements]");
            return;
        }
        std::string text = "[";
        for (size_t i = 0; i < v.values.size(); ++i) {
            std::vector<std::pair<std::string, std::string>> one;
            flattenInto(v.values[i], "", inlineArray, one);
            text += (i ? ", " : "") + one.front().second;
        }
        out.emplace_back(path, text + "]");
        return;
    }
    case Kind::String: out.emplace_back(path, "\"" + v.text + "\""); return;
    case Kind::Number: out.emplace_back(path, v.text); return;
    case Kind::Bool: out.emplace_back(path, v.boolean ? "true" : "false"); return;
    case Kind::Null: out.emplace_back(path, "null"); return;
    }
}

} // namespace

std::vector<std::pair<std::string, std::string>> flatten(const Value &value, size_t inlineArray)
{
    std::vector<std::pair<std::string, std::string>> out;
    flattenInto(value, "", inlineArray, out);
    return out;
}

} // namespace gguf::json
