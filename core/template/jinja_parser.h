// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The template parser's class, shared by jinja_parser.cpp (text, tags and statements) and
// jinja_expressions.cpp (expressions). Internal to the library.
#include "jinja_ast.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace gguf::jinja::detail {

struct Token {
    enum class Type : uint8_t { Name, String, Int, Float, Op, End };
    Type type = Type::End;
    std::string text;
    size_t offset = 0;
};

bool isSpace(char c);
bool isNameStart(char c);
bool isDigit(char c);

/// Builds the syntax tree of one template (jinja_ast.h); throws ParseError.
class Parser {
public:
    explicit Parser(std::string_view src) : m_src(src) {}

    Body parseAll();

private:
    [[noreturn]] void fail(const std::string &message, size_t offset) const { throw ParseError{message, offset}; }

    // Bounds the parser's recursion (and so the evaluator's): a hostile template of a million
    // nested brackets or blocks is refused rather than overflowing the stack.
    static constexpr int kMaxNesting = 256;
    struct Nesting {
        explicit Nesting(Parser &p) : parser(p)
        {
            if (++parser.m_nesting > kMaxNesting)
                parser.fail("the template nests more than " + std::to_string(kMaxNesting) + " levels deep",
                            parser.m_tokens.empty() ? parser.m_pos : parser.peek().offset);
        }
        ~Nesting() { --parser.m_nesting; }
        Nesting(const Nesting &) = delete;
        Nesting &operator=(const Nesting &) = delete;
        Parser &parser;
    };
    // A left-leaning chain (a + b + c, x.a.b, s|f|g) deepens the tree by one per link.
    struct Chain {
        explicit Chain(Parser &p) : parser(p) {}
        void link()
        {
            ++links;
            if (++parser.m_nesting > kMaxNesting)
                parser.fail("the template nests more than " + std::to_string(kMaxNesting) + " levels deep",
                            parser.peek().offset);
        }
        ~Chain() { parser.m_nesting -= links; }
        Chain(const Chain &) = delete;
        Chain &operator=(const Chain &) = delete;
        Parser &parser;
        int links = 0;
    };

    // ---- template level -------------------------------------------------------------------

    // Statements until a block tag whose keyword is in `stops` (its name goes to `stopped`, its
    // tokens stay in m_tokens for the caller) or the end of the template.
    Body parseBody(std::initializer_list<std::string_view> stops, std::string &stopped);

    void addText(Body &body, size_t begin, size_t end);

    size_t findTag(size_t from) const;

    // After a tag that ends at `end` (the position of its closing two characters): '-' strips the
    // whitespace that follows; trim_blocks removes one newline after a block or comment tag.
    void afterTag(size_t end, bool minusRight, bool block);

    // ---- tokens of one tag ---------------------------------------------------------------

    void tokenizeTag(std::string_view close);

    // A quoted string with Python's escapes; `i` moves past its closing quote.
    std::string readString(size_t &i);

    const Token &peek(size_t ahead = 0) const { return m_tokens[std::min(m_next + ahead, m_tokens.size() - 1)]; }
    Token take();
    bool isOp(std::string_view op, size_t ahead = 0) const;
    bool isName(std::string_view name, size_t ahead = 0) const;
    bool acceptOp(std::string_view op);
    bool acceptName(std::string_view name);
    void expectOp(std::string_view op);
    std::string expectName();
    void expectEnd() const;

    // ---- statements ------------------------------------------------------------------------

    void parseStatement(Body &body);

    // ---- expressions -----------------------------------------------------------------------

    ExprPtr make(Expr::Kind kind, size_t offset, std::string name = {});

    // `a, b` (a tuple, as a list) or one expression
    ExprPtr parseTuple();

    ExprPtr parseExpression();
    // the iterable of a for loop: no `if` (that is the loop's filter)
    ExprPtr parseTernaryFree() { return parseLevel(0); }

    ExprPtr binary(std::string op, size_t at, ExprPtr l, ExprPtr r);

    /// The binary operators of precedence level `level` and above (jinja_expressions.cpp's table).
    ExprPtr parseLevel(size_t level);
    ExprPtr parseNot();
    ExprPtr parseCompare();
    ExprPtr parseUnary();

    void parseCallArgs(Expr &e);

    ExprPtr parsePostfix(ExprPtr e);

    ExprPtr parseFilters(ExprPtr e);

    ExprPtr parsePrimary();

    std::string_view m_src;
    size_t m_pos = 0;
    size_t m_tagOffset = 0;
    bool m_stripNext = false;
    bool m_lineStartAtPos = true;
    std::vector<Token> m_tokens;
    size_t m_next = 0;
    int m_nesting = 0;
};

} // namespace gguf::jinja::detail
