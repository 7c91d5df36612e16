// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "jinja_value.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

// The syntax tree of a template: what jinja_parser.cpp builds and jinja_eval.cpp runs.
namespace gguf::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
    enum class Kind : uint8_t {
        Literal,     ///< `literal`
        Name,        ///< `name`
        Attr,        ///< args[0].name
        Item,        ///< args[0][args[1]]
        Slice,       ///< args[0][args[1]:args[2]:args[3]] (null parts left out)
        Call,        ///< args[0](args[1…], kwargs)
        Filter,      ///< args[0] | name(args[1…], kwargs)
        Test,        ///< args[0] is [not] name(args[1…])
        Unary,       ///< name args[0]: "not", "-", "+"
        Binary,      ///< args[0] name args[1]: or and == != < <= > >= in notin + - ~ * / // % **
        Ternary,     ///< args[1] if args[0] else args[2] (args[2] may be null)
        ListLiteral, ///< [args…]
        DictLiteral, ///< {args[0]: args[1], …}
    };
    Kind kind = Kind::Literal;
    size_t offset = 0; ///< in the template source
    Value literal;
    std::string name;
    std::vector<ExprPtr> args;
    std::vector<std::pair<std::string, ExprPtr>> kwargs;
    bool negated = false;
};

struct Stmt;
using Body = std::vector<std::unique_ptr<Stmt>>;

struct Stmt {
    enum class Kind : uint8_t {
        Text,     ///< text
        Output,   ///< {{ expr }}
        If,       ///< branches (a null condition is the else branch)
        For,      ///< for targets in expr [if condition]: body [else: elseBody]
        Set,      ///< set targets = expr; with `object`: set object.targets[0] = expr
        SetBlock, ///< set targets[0]: body
        Macro,    ///< macro name(params): body
        Break,
        Continue,
    };
    Kind kind = Kind::Text;
    size_t offset = 0;
    std::string text;
    std::string name;   ///< Macro: its name
    std::string object; ///< Set: the namespace in `set ns.attr = …`
    ExprPtr expr;
    ExprPtr condition;
    std::vector<std::string> targets;
    std::vector<std::pair<ExprPtr, Body>> branches;
    std::vector<std::pair<std::string, ExprPtr>> params; ///< Macro: name and default (may be null)
    Body body, elseBody;
};

/// Parses a template (HuggingFace's environment: trim_blocks and lstrip_blocks on). Throws Error
/// with the offset of the problem in `offset`.
struct ParseError {
    std::string message;
    size_t offset = 0;
};
Body parseTemplate(std::string_view source);

} // namespace gguf::jinja
