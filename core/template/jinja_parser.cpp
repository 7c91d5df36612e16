// SPDX-License-Identifier: GPL-3.0-or-later
// Jinja's syntax as chat templates use it: text, {{ expressions }}, {% statements %} and
// {# comments #}, with '-' whitespace control and HuggingFace's trim_blocks and lstrip_blocks.
// The expressions are parsed in jinja_expressions.cpp.
#include "jinja_parser.h"

#include "core/util/utf8.h"

#include <cctype>
#include <cstring>

namespace gguf::jinja {
namespace detail {

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool isNameStart(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

Body Parser::parseAll()
{
    std::string stop;
    Body body = parseBody({}, stop);
    if (!stop.empty())
        fail("'" + stop + "' without its opening tag", m_tagOffset);
    return body;
}

// Statements until a block tag whose keyword is in `stops` (its name goes to `stopped`, its
// tokens stay in m_tokens for the caller) or the end of the template.
Body Parser::parseBody(std::initializer_list<std::string_view> stops, std::string &stopped)
{
    const Nesting nesting(*this);
    Body body;
    stopped.clear();
    while (m_pos < m_src.size()) {
        const size_t tag = findTag(m_pos);
        size_t textEnd = tag;
        const bool atTag = tag < m_src.size();
        const char kind = atTag ? m_src[tag + 1] : '\0';
        const bool minusLeft = atTag && tag + 2 < m_src.size() && m_src[tag + 2] == '-';
        const bool plusLeft = atTag && tag + 2 < m_src.size() && m_src[tag + 2] == '+';
        if (minusLeft) {
            while (textEnd > m_pos && isSpace(m_src[textEnd - 1]))
                --textEnd;
        } else if (atTag && kind != '{' && !plusLeft) {
            // lstrip_blocks: spaces and tabs from the start of the line up to a block tag
            size_t lineStart = textEnd;
            while (lineStart > m_pos && (m_src[lineStart - 1] == ' ' || m_src[lineStart - 1] == '\t'))
                --lineStart;
            if (lineStart == 0 || (lineStart > m_pos && m_src[lineStart - 1] == '\n') ||
                (lineStart == m_pos && m_lineStartAtPos))
                textEnd = lineStart;
        }
        addText(body, m_pos, textEnd);
        if (!atTag) {
            m_pos = m_src.size();
            break;
        }
        m_tagOffset = tag;
        m_pos = tag + 2 + ((minusLeft || plusLeft) ? 1 : 0);
        if (kind == '#') {
            const size_t end = m_src.find("#}", m_pos);
            if (end == std::string_view::npos)
                fail("a comment that is never closed", tag);
            afterTag(end, end > m_pos && m_src[end - 1] == '-', true);
            continue;
        }
        tokenizeTag(kind == '{' ? "}}" : "%}");
        if (kind == '{') {
            auto stmt = std::make_unique<Stmt>();
            stmt->kind = Stmt::Kind::Output;
            stmt->offset = tag;
            stmt->expr = parseExpression();
            expectEnd();
            body.push_back(std::move(stmt));
            continue;
        }
        const Token &keyword = peek();
        if (keyword.type != Token::Type::Name)
            fail("a statement must start with a keyword", keyword.offset);
        if (std::find(stops.begin(), stops.end(), keyword.text) != stops.end()) {
            stopped = keyword.text;
            return body;
        }
        parseStatement(body);
    }
    return body;
}

void Parser::addText(Body &body, size_t begin, size_t end)
{
    if (m_stripNext) {
        while (begin < end && isSpace(m_src[begin]))
            ++begin;
        m_stripNext = false;
    }
    if (end <= begin)
        return;
    auto stmt = std::make_unique<Stmt>();
    stmt->kind = Stmt::Kind::Text;
    stmt->offset = begin;
    stmt->text = std::string(m_src.substr(begin, end - begin));
    body.push_back(std::move(stmt));
}

size_t Parser::findTag(size_t from) const
{
    for (size_t i = from; i + 1 < m_src.size(); ++i)
        if (m_src[i] == '{' && (m_src[i + 1] == '{' || m_src[i + 1] == '%' || m_src[i + 1] == '#'))
            return i;
    return m_src.size();
}

// After a tag that ends at `end` (the position of its closing two characters): '-' strips the
// whitespace that follows; trim_blocks removes one newline after a block or comment tag.
void Parser::afterTag(size_t end, bool minusRight, bool block)
{
    m_pos = end + 2;
    m_lineStartAtPos = false;
    if (minusRight) {
        m_stripNext = true;
    } else if (block) {
        if (m_src.substr(m_pos, 2) == "\r\n")
            m_pos += 2, m_lineStartAtPos = true;
        else if (m_pos < m_src.size() && m_src[m_pos] == '\n')
            ++m_pos, m_lineStartAtPos = true;
    }
}

void Parser::tokenizeTag(std::string_view close)
{
    m_tokens.clear();
    m_next = 0;
    size_t i = m_pos;
    for (;;) {
        while (i < m_src.size() && isSpace(m_src[i]))
            ++i;
        if (i >= m_src.size())
            fail("a tag that is never closed", m_tagOffset);
        if (m_src[i] == '-' && m_src.substr(i + 1, 2) == close) {
            m_tokens.push_back({Token::Type::End, {}, i});
            afterTag(i + 1, true, close == "%}");
            return;
        }
        if (m_src.substr(i, 2) == close) {
            m_tokens.push_back({Token::Type::End, {}, i});
            afterTag(i, false, close == "%}");
            return;
        }
        const char c = m_src[i];
        const size_t start = i;
        if (isNameStart(c)) {
            while (i < m_src.size() && (isNameStart(m_src[i]) || isDigit(m_src[i])))
                ++i;
            m_tokens.push_back({Token::Type::Name, std::string(m_src.substr(start, i - start)), start});
        } else if (isDigit(c)) {
            bool real = false;
            while (i < m_src.size() && (isDigit(m_src[i]) || m_src[i] == '_' ||
                                        (m_src[i] == '.' && i + 1 < m_src.size() && isDigit(m_src[i + 1]) && !real))) {
                real = real || m_src[i] == '.';
                ++i;
            }
            if (i < m_src.size() && (m_src[i] == 'e' || m_src[i] == 'E')) { // 1e3, 2.5e-4
                size_t j = i + 1;
                if (j < m_src.size() && (m_src[j] == '+' || m_src[j] == '-'))
                    ++j;
                if (j < m_src.size() && isDigit(m_src[j])) {
                    while (j < m_src.size() && isDigit(m_src[j]))
                        ++j;
                    i = j;
                    real = true;
                }
            }
            std::string digits(m_src.substr(start, i - start));
            digits.erase(std::remove(digits.begin(), digits.end(), '_'), digits.end());
            m_tokens.push_back({real ? Token::Type::Float : Token::Type::Int, digits, start});
        } else if (c == '\'' || c == '"') {
            m_tokens.push_back({Token::Type::String, readString(i), start});
        } else {
            static constexpr const char *kOps[] = {"**", "//", "==", "!=", "<=", ">=", "+", "-", "*",
                                                   "/",  "%",  "~",  "<",  ">",  "=",  "(", ")", "[",
                                                   "]",  "{",  "}",  ",",  ":",  ".",  "|"};
            bool found = false;
            for (const char *op : kOps)
                if (m_src.substr(i, std::strlen(op)) == op) {
                    m_tokens.push_back({Token::Type::Op, op, start});
                    i += std::strlen(op);
                    found = true;
                    break;
                }
            if (!found)
                fail(std::string("unexpected character '") + c + "'", i);
        }
    }
}

// A quoted string with Python's escapes; `i` moves past its closing quote.
std::string Parser::readString(size_t &i)
{
    const char quote = m_src[i++];
    std::string out;
    while (i < m_src.size() && m_src[i] != quote) {
        char c = m_src[i++];
        if (c == '\\' && i < m_src.size()) {
            const char e = m_src[i++];
            // Python's escapes: \xNN, \uNNNN and \UNNNNNNNN name a code point
            const size_t digits = e == 'x' ? 2 : e == 'u' ? 4 : e == 'U' ? 8 : 0;
            if (digits && i + digits <= m_src.size() &&
                std::all_of(m_src.begin() + static_cast<std::ptrdiff_t>(i),
                            m_src.begin() + static_cast<std::ptrdiff_t>(i + digits),
                            [](char h) { return std::isxdigit(static_cast<unsigned char>(h)) != 0; })) {
                const unsigned long cp = std::stoul(std::string(m_src.substr(i, digits)), nullptr, 16);
                i += digits;
                appendUtf8(cp <= 0x10FFFF ? static_cast<uint32_t>(cp) : 0xFFFD, out);
                continue;
            }
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'a': c = '\a'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'v': c = '\v'; break;
            case '\\': c = '\\'; break;
            case '\'': c = '\''; break;
            case '"': c = '"'; break;
            case '0': c = '\0'; break;
            default: out += '\\'; c = e;
            }
        }
        out += c;
    }
    if (i >= m_src.size())
        fail("a string that is never closed", i);
    ++i;
    return out;
}

Token Parser::take()
{
    Token t = peek();
    if (m_next < m_tokens.size() - 1)
        ++m_next;
    return t;
}

bool Parser::isOp(std::string_view op, size_t ahead) const
{
    return peek(ahead).type == Token::Type::Op && peek(ahead).text == op;
}

bool Parser::isName(std::string_view name, size_t ahead) const
{
    return peek(ahead).type == Token::Type::Name && peek(ahead).text == name;
}

bool Parser::acceptOp(std::string_view op)
{
    if (!isOp(op))
        return false;
    take();
    return true;
}

bool Parser::acceptName(std::string_view name)
{
    if (!isName(name))
        return false;
    take();
    return true;
}

void Parser::expectOp(std::string_view op)
{
    if (!acceptOp(op))
        fail("expected '" + std::string(op) + "'", peek().offset);
}

std::string Parser::expectName()
{
    if (peek().type != Token::Type::Name)
        fail("expected a name", peek().offset);
    return take().text;
}

void Parser::expectEnd() const
{
    if (peek().type != Token::Type::End)
        fail("unexpected '" + peek().text + "'", peek().offset);
}

void Parser::parseStatement(Body &body)
{
    const Token keyword = take();
    auto stmt = std::make_unique<Stmt>();
    stmt->offset = keyword.offset;
    std::string stop;
    const std::string &k = keyword.text;
    if (k == "if") {
        stmt->kind = Stmt::Kind::If;
        ExprPtr cond = parseExpression();
        for (;;) {
            expectEnd();
            Body branch = parseBody({"elif", "else", "endif"}, stop);
            stmt->branches.emplace_back(std::move(cond), std::move(branch));
            if (stop.empty())
                fail("'if' without 'endif'", keyword.offset);
            take();
            if (stop == "elif") {
                cond = parseExpression();
            } else if (stop == "else") {
                expectEnd();
                Body last = parseBody({"endif"}, stop);
                if (stop.empty())
                    fail("'if' without 'endif'", keyword.offset);
                take();
                stmt->branches.emplace_back(nullptr, std::move(last));
                break;
            } else {
                break;
            }
        }
        expectEnd();
    } else if (k == "for") {
        stmt->kind = Stmt::Kind::For;
        do
            stmt->targets.push_back(expectName());
        while (acceptOp(","));
        if (!acceptName("in"))
            fail("expected 'in'", peek().offset);
        stmt->expr = parseTernaryFree();
        if (acceptName("if"))
            stmt->condition = parseExpression();
        acceptName("recursive");
        expectEnd();
        stmt->body = parseBody({"else", "endfor"}, stop);
        if (stop.empty())
            fail("'for' without 'endfor'", keyword.offset);
        take();
        if (stop == "else") {
            expectEnd();
            stmt->elseBody = parseBody({"endfor"}, stop);
            if (stop.empty())
                fail("'for' without 'endfor'", keyword.offset);
            take();
        }
        expectEnd();
    } else if (k == "set") {
        const std::string first = expectName();
        if (acceptOp(".")) {
            stmt->object = first;
            stmt->targets.push_back(expectName());
        } else {
            stmt->targets.push_back(first);
            while (acceptOp(","))
                stmt->targets.push_back(expectName());
        }
        if (peek().type == Token::Type::End && stmt->object.empty() && stmt->targets.size() == 1) {
            stmt->kind = Stmt::Kind::SetBlock;
            expectEnd();
            stmt->body = parseBody({"endset"}, stop);
            if (stop.empty())
                fail("'set' without 'endset'", keyword.offset);
            take();
        } else {
            stmt->kind = Stmt::Kind::Set;
            expectOp("=");
            stmt->expr = parseTuple();
        }
        expectEnd();
    } else if (k == "macro") {
        stmt->kind = Stmt::Kind::Macro;
        stmt->name = expectName();
        expectOp("(");
        while (!acceptOp(")")) {
            std::string param = expectName();
            ExprPtr def;
            if (acceptOp("="))
                def = parseExpression();
            stmt->params.emplace_back(std::move(param), std::move(def));
            if (!isOp(")"))
                expectOp(",");
        }
        expectEnd();
        stmt->body = parseBody({"endmacro"}, stop);
        if (stop.empty())
            fail("'macro' without 'endmacro'", keyword.offset);
        take();
        acceptName(stmt->name);
        expectEnd();
    } else if (k == "break" || k == "continue") {
        stmt->kind = k == "break" ? Stmt::Kind::Break : Stmt::Kind::Continue;
        expectEnd();
    } else if (k == "generation") {
        // HuggingFace's marker of the assistant's part: its content is ordinary template text
        expectEnd();
        Body inner = parseBody({"endgeneration"}, stop);
        if (stop.empty())
            fail("'generation' without 'endgeneration'", keyword.offset);
        take();
        expectEnd();
        for (auto &s : inner)
            body.push_back(std::move(s));
        return;
    } else if (k == "raw") {
        expectEnd();
        const size_t end = m_src.find("endraw", m_pos);
        const size_t open = end == std::string_view::npos ? end : m_src.rfind("{%", end);
        if (open == std::string_view::npos || open < m_pos)
            fail("'raw' without 'endraw'", keyword.offset);
        stmt->kind = Stmt::Kind::Text;
        stmt->text = std::string(m_src.substr(m_pos, open - m_pos));
        const size_t close = m_src.find("%}", end);
        if (close == std::string_view::npos)
            fail("a tag that is never closed", open);
        afterTag(close, m_src[close - 1] == '-', true);
    } else {
        fail("'" + k + "' is not a statement this evaluator knows", keyword.offset);
    }
    body.push_back(std::move(stmt));
}

} // namespace detail

Body parseTemplate(std::string_view source)
{
    // as Jinja's lexer: every newline sequence is "\n", and one newline at the very end is dropped
    // (keep_trailing_newline is off)
    std::string text;
    text.reserve(source.size());
    for (size_t i = 0; i < source.size(); ++i) {
        if (source[i] == '\r') {
            text += '\n';
            if (i + 1 < source.size() && source[i + 1] == '\n')
                ++i;
        } else {
            text += source[i];
        }
    }
    if (!text.empty() && text.back() == '\n')
        text.pop_back();
    return detail::Parser(text).parseAll();
}

} // namespace gguf::jinja
