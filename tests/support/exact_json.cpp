// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/exact_json.h"

#include <charconv>

namespace gguf::test {

/// Recursive-descent reader over the text; depth-limited so a broken manifest cannot overflow the stack.
class ExactJsonParser {
public:
    explicit ExactJsonParser(std::string_view text) : m_text(text) {}

    bool document(ExactJson &out)
    {
        if (!value(out, 0))
            return false;
        skipSpace();
        return m_pos == m_text.size() || fail("trailing characters");
    }

    std::string error;

private:
    bool fail(const std::string &what)
    {
        if (error.empty())
            error = what + " at offset " + std::to_string(m_pos);
        return false;
    }

    void skipSpace()
    {
        while (m_pos < m_text.size() &&
               (m_text[m_pos] == ' ' || m_text[m_pos] == '\n' || m_text[m_pos] == '\r' || m_text[m_pos] == '\t'))
            ++m_pos;
    }

    bool literal(std::string_view word)
    {
        if (m_text.substr(m_pos, word.size()) != word)
            return fail("expected '" + std::string(word) + "'");
        m_pos += word.size();
        return true;
    }

    bool value(ExactJson &out, int depth)
    {
        if (depth > 64)
            return fail("nesting too deep");
        skipSpace();
        if (m_pos >= m_text.size())
            return fail("unexpected end");
        const char c = m_text[m_pos];
        if (c == '{')
            return object(out, depth);
        if (c == '[')
            return array(out, depth);
        if (c == '"') {
            out.m_kind = ExactJson::Kind::String;
            return string(out.m_text);
        }
        if (c == 't' || c == 'f') {
            out.m_kind = ExactJson::Kind::Bool;
            out.m_bool = c == 't';
            return literal(c == 't' ? "true" : "false");
        }
        if (c == 'n') {
            out.m_kind = ExactJson::Kind::Null;
            return literal("null");
        }
        return number(out);
    }

    bool number(ExactJson &out)
    {
        const size_t start = m_pos;
        while (m_pos < m_text.size() &&
               std::string_view("+-0123456789.eE").find(m_text[m_pos]) != std::string_view::npos)
            ++m_pos;
        if (m_pos == start)
            return fail("unexpected character");
        out.m_kind = ExactJson::Kind::Number;
        out.m_text = std::string(m_text.substr(start, m_pos - start));
        return true;
    }

    bool hex4(uint32_t &cp)
    {
        if (m_pos + 4 > m_text.size())
            return fail("short \\u escape");
        cp = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = m_text[m_pos++];
            cp <<= 4;
            if (h >= '0' && h <= '9')
                cp |= uint32_t(h - '0');
            else if (h >= 'a' && h <= 'f')
                cp |= uint32_t(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                cp |= uint32_t(h - 'A' + 10);
            else
                return fail("bad \\u escape");
        }
        return true;
    }

    static void appendUtf8(std::string &s, uint32_t cp)
    {
        if (cp < 0x80) {
            s += char(cp);
        } else if (cp < 0x800) {
            s += char(0xC0 | (cp >> 6));
            s += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            s += char(0xE0 | (cp >> 12));
            s += char(0x80 | ((cp >> 6) & 0x3F));
            s += char(0x80 | (cp & 0x3F));
        } else {
            s += char(0xF0 | (cp >> 18));
            s += char(0x80 | ((cp >> 12) & 0x3F));
            s += char(0x80 | ((cp >> 6) & 0x3F));
            s += char(0x80 | (cp & 0x3F));
        }
    }

    bool string(std::string &out)
    {
        ++m_pos; // opening quote
        out.clear();
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos++];
            if (c == '"')
                return true;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (m_pos >= m_text.size())
                break;
            const char e = m_text[m_pos++];
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
                if (!hex4(cp))
                    return false;
                // a surrogate pair spells one code point above U+FFFF
                if (cp >= 0xD800 && cp < 0xDC00 && m_text.substr(m_pos, 2) == "\\u") {
                    m_pos += 2;
                    uint32_t low = 0;
                    if (!hex4(low))
                        return false;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                }
                appendUtf8(out, cp);
                break;
            }
            default: return fail("bad escape");
            }
        }
        return fail("unterminated string");
    }

    bool array(ExactJson &out, int depth)
    {
        out.m_kind = ExactJson::Kind::Array;
        ++m_pos;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == ']') {
            ++m_pos;
            return true;
        }
        for (;;) {
            ExactJson item;
            if (!value(item, depth + 1))
                return false;
            out.m_items.push_back(std::move(item));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == ']') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or ']'");
        }
    }

    bool object(ExactJson &out, int depth)
    {
        out.m_kind = ExactJson::Kind::Object;
        ++m_pos;
        skipSpace();
        if (m_pos < m_text.size() && m_text[m_pos] == '}') {
            ++m_pos;
            return true;
        }
        for (;;) {
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != '"')
                return fail("expected a member name");
            std::string key;
            if (!string(key))
                return false;
            skipSpace();
            if (m_pos >= m_text.size() || m_text[m_pos] != ':')
                return fail("expected ':'");
            ++m_pos;
            ExactJson item;
            if (!value(item, depth + 1))
                return false;
            out.m_members.emplace_back(std::move(key), std::move(item));
            skipSpace();
            if (m_pos < m_text.size() && m_text[m_pos] == ',') {
                ++m_pos;
                continue;
            }
            if (m_pos < m_text.size() && m_text[m_pos] == '}') {
                ++m_pos;
                return true;
            }
            return fail("expected ',' or '}'");
        }
    }

    std::string_view m_text;
    size_t m_pos = 0;
};

std::optional<ExactJson> ExactJson::parse(std::string_view text, std::string *error)
{
    ExactJsonParser parser(text);
    ExactJson doc;
    if (!parser.document(doc)) {
        if (error)
            *error = parser.error;
        return std::nullopt;
    }
    return doc;
}

std::optional<uint64_t> ExactJson::toUInt64() const
{
    uint64_t v = 0;
    const char *end = m_text.data() + m_text.size();
    if (m_kind != Kind::Number || std::from_chars(m_text.data(), end, v).ptr != end)
        return std::nullopt;
    return v;
}

std::optional<int64_t> ExactJson::toInt64() const
{
    int64_t v = 0;
    const char *end = m_text.data() + m_text.size();
    if (m_kind != Kind::Number || std::from_chars(m_text.data(), end, v).ptr != end)
        return std::nullopt;
    return v;
}

std::optional<double> ExactJson::toDouble() const
{
    double v = 0;
    const char *end = m_text.data() + m_text.size();
    if (m_kind != Kind::Number || std::from_chars(m_text.data(), end, v).ptr != end)
        return std::nullopt;
    return v;
}

const ExactJson *ExactJson::find(std::string_view key) const
{
    for (const auto &[k, v] : m_members)
        if (k == key)
            return &v;
    return nullptr;
}

const ExactJson &ExactJson::operator[](std::string_view key) const
{
    static const ExactJson kNull;
    const ExactJson *v = find(key);
    return v ? *v : kNull;
}

} // namespace gguf::test
