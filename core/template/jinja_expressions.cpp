// SPDX-License-Identifier: GPL-3.0-or-later
// Jinja's expressions, with its precedence: or, and, not, comparisons and `in`, + -, ~, * / // %,
// **, unary - +, then postfix access, calls, filters and tests on a primary.
#include "jinja_parser.h"

#include <array>

namespace gguf::jinja::detail {

ExprPtr Parser::make(Expr::Kind kind, size_t offset, std::string name)
{
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->offset = offset;
    e->name = std::move(name);
    return e;
}

// `a, b` (a tuple, as a list) or one expression
ExprPtr Parser::parseTuple()
{
    ExprPtr first = parseExpression();
    if (!isOp(","))
        return first;
    ExprPtr list = make(Expr::Kind::ListLiteral, first->offset);
    list->args.push_back(std::move(first));
    while (acceptOp(",") && peek().type != Token::Type::End)
        list->args.push_back(parseExpression());
    return list;
}

ExprPtr Parser::parseExpression()
{
    const Nesting nesting(*this);
    ExprPtr value = parseLevel(0);
    if (!isName("if"))
        return value;
    const size_t at = take().offset;
    ExprPtr e = make(Expr::Kind::Ternary, at);
    e->args.push_back(parseLevel(0));
    e->args.push_back(std::move(value));
    e->args.push_back(acceptName("else") ? parseExpression() : nullptr);
    return e;
}

ExprPtr Parser::binary(std::string op, size_t at, ExprPtr l, ExprPtr r)
{
    ExprPtr e = make(Expr::Kind::Binary, at, std::move(op));
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
}

namespace {

// The left-associative binary operators by precedence, lowest first: `or`, `and` (then `not` and
// the comparisons, parsed apart), + -, ~, * / // %, **.
struct BinaryLevel {
    bool words; ///< the operators are names ("or"), not symbols
    std::initializer_list<std::string_view> ops;
};
const std::array<BinaryLevel, 6> kLevels = {{
    {true, {"or"}},
    {true, {"and"}},
    {false, {"+", "-"}},
    {false, {"~"}},
    {false, {"*", "/", "//", "%"}},
    {false, {"**"}},
}};
constexpr size_t kFirstArithmeticLevel = 2;

} // namespace

ExprPtr Parser::parseLevel(size_t level)
{
    const auto operand = [&] {
        if (level == 1)
            return parseNot();
        return level + 1 < kLevels.size() ? parseLevel(level + 1) : parseUnary();
    };
    const BinaryLevel &ops = kLevels[level];
    Chain chain(*this);
    ExprPtr e = operand();
    for (;;) {
        const Token &t = peek();
        if (t.type != (ops.words ? Token::Type::Name : Token::Type::Op) ||
            std::find(ops.ops.begin(), ops.ops.end(), t.text) == ops.ops.end())
            return e;
        chain.link();
        const Token op = take();
        e = binary(op.text, op.offset, std::move(e), operand());
    }
}

ExprPtr Parser::parseNot()
{
    const Nesting nesting(*this);
    if (isName("not")) {
        const size_t at = take().offset;
        ExprPtr e = make(Expr::Kind::Unary, at, "not");
        e->args.push_back(parseNot());
        return e;
    }
    return parseCompare();
}

ExprPtr Parser::parseCompare()
{
    Chain chain(*this);
    ExprPtr e = parseLevel(kFirstArithmeticLevel);
    for (;;) {
        chain.link();
        std::string op;
        for (const char *o : {"==", "!=", "<=", ">=", "<", ">"})
            if (isOp(o))
                op = o;
        if (op.empty() && isName("in"))
            op = "in";
        if (op.empty() && isName("not") && isName("in", 1)) {
            take();
            op = "notin";
        }
        if (op.empty())
            return e;
        const size_t at = take().offset;
        e = binary(op, at, std::move(e), parseLevel(kFirstArithmeticLevel));
    }
}

ExprPtr Parser::parseUnary()
{
    const Nesting nesting(*this);
    if (isOp("-") || isOp("+")) {
        const Token t = take();
        ExprPtr e = make(Expr::Kind::Unary, t.offset, t.text);
        e->args.push_back(parseUnary());
        return e;
    }
    return parseFilters(parsePostfix(parsePrimary()));
}

void Parser::parseCallArgs(Expr &e)
{
    while (!acceptOp(")")) {
        if (peek().type == Token::Type::Name && isOp("=", 1)) {
            std::string name = take().text;
            take();
            e.kwargs.emplace_back(std::move(name), parseExpression());
        } else {
            e.args.push_back(parseExpression());
        }
        if (!isOp(")"))
            expectOp(",");
    }
}

ExprPtr Parser::parsePostfix(ExprPtr e)
{
    Chain chain(*this);
    for (;;) {
        chain.link();
        if (isOp(".")) {
            const size_t at = take().offset;
            ExprPtr attr = make(Expr::Kind::Attr, at, expectName());
            attr->args.push_back(std::move(e));
            e = std::move(attr);
        } else if (isOp("[")) {
            const size_t at = take().offset;
            ExprPtr parts[3];
            int colons = 0;
            while (!isOp("]")) {
                if (acceptOp(":")) {
                    if (++colons > 2)
                        fail("too many ':' in a slice", at);
                } else {
                    parts[colons] = parseExpression();
                }
            }
            take();
            ExprPtr item = make(colons ? Expr::Kind::Slice : Expr::Kind::Item, at);
            item->args.push_back(std::move(e));
            if (!colons && !parts[0])
                fail("an empty subscript", at);
            for (int i = 0; i < (colons ? 3 : 1); ++i)
                item->args.push_back(std::move(parts[i]));
            e = std::move(item);
        } else if (isOp("(")) {
            const size_t at = take().offset;
            ExprPtr call = make(Expr::Kind::Call, at);
            call->args.push_back(std::move(e));
            parseCallArgs(*call);
            e = std::move(call);
        } else {
            return e;
        }
    }
}

ExprPtr Parser::parseFilters(ExprPtr e)
{
    Chain chain(*this);
    for (;;) {
        chain.link();
        if (isOp("|")) {
            const size_t at = take().offset;
            ExprPtr f = make(Expr::Kind::Filter, at, expectName());
            f->args.push_back(std::move(e));
            if (acceptOp("("))
                parseCallArgs(*f);
            e = parsePostfix(std::move(f));
        } else if (isName("is")) {
            const size_t at = take().offset;
            const bool negated = acceptName("not");
            ExprPtr t = make(Expr::Kind::Test, at, expectName());
            t->negated = negated;
            t->args.push_back(std::move(e));
            if (acceptOp("("))
                parseCallArgs(*t);
            else if (peek().type == Token::Type::String || peek().type == Token::Type::Int ||
                     peek().type == Token::Type::Float ||
                     (peek().type == Token::Type::Name && !isName("and") && !isName("or") && !isName("else") &&
                      !isName("if") && !isName("in") && !isName("not") && !isName("is")))
                t->args.push_back(parsePostfix(parsePrimary()));
            e = std::move(t);
        } else {
            return e;
        }
    }
}

ExprPtr Parser::parsePrimary()
{
    const Token t = take();
    switch (t.type) {
    case Token::Type::Name: {
        ExprPtr e = make(Expr::Kind::Literal, t.offset);
        if (t.text == "true" || t.text == "True")
            e->literal = Value::boolean(true);
        else if (t.text == "false" || t.text == "False")
            e->literal = Value::boolean(false);
        else if (t.text == "none" || t.text == "None")
            e->literal = Value::none();
        else
            e = make(Expr::Kind::Name, t.offset, t.text);
        return e;
    }
    case Token::Type::String: {
        std::string s = t.text;
        while (peek().type == Token::Type::String) // adjacent strings join, as in Python
            s += take().text;
        ExprPtr e = make(Expr::Kind::Literal, t.offset);
        e->literal = Value::string(std::move(s));
        return e;
    }
    case Token::Type::Int:
    case Token::Type::Float: {
        ExprPtr e = make(Expr::Kind::Literal, t.offset);
        try {
            e->literal =
                t.type == Token::Type::Int ? Value::integer(std::stoll(t.text)) : Value::real(std::stod(t.text));
        } catch (const std::exception &) {
            fail("a number out of range", t.offset);
        }
        return e;
    }
    case Token::Type::Op:
        if (t.text == "(") {
            ExprPtr e = parseTuple();
            expectOp(")");
            return e;
        }
        if (t.text == "[") {
            ExprPtr e = make(Expr::Kind::ListLiteral, t.offset);
            while (!acceptOp("]")) {
                e->args.push_back(parseExpression());
                if (!isOp("]"))
                    expectOp(",");
            }
            return e;
        }
        if (t.text == "{") {
            ExprPtr e = make(Expr::Kind::DictLiteral, t.offset);
            while (!acceptOp("}")) {
                e->args.push_back(parseExpression());
                expectOp(":");
                e->args.push_back(parseExpression());
                if (!isOp("}"))
                    expectOp(",");
            }
            return e;
        }
        fail("unexpected '" + t.text + "'", t.offset);
    case Token::Type::End: fail("an expression is missing", t.offset);
    }
    fail("unexpected token", t.offset);
}

} // namespace gguf::jinja::detail
