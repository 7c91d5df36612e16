// SPDX-License-Identifier: GPL-3.0-or-later
#include "jinja_value.h"

#include "core/util/json_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace gguf::jinja {
namespace {

// Python's repr of a float: the shortest text that reads back, with ".0" on whole numbers.
std::string floatText(double f)
{
    if (std::isnan(f))
        return "nan";
    if (std::isinf(f))
        return f < 0 ? "-inf" : "inf";
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, f);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".en") == std::string::npos)
        s += ".0";
    return s;
}

std::string quoted(const std::string &s)
{
    // Python prefers single quotes, double when the text has a single quote and no double
    const bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
    const char q = useDouble ? '"' : '\'';
    std::string out(1, q);
    for (char c : s) {
        if (c == '\\')
            out += "\\\\";
        else if (c == q)
            out += std::string("\\") + q;
        else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else
            out += c;
    }
    return out + q;
}

void json(const Value &v, int indent, int depth, std::string &out)
{
    indent = std::min(indent, 64);
    const auto newline = [&](int d) {
        if (indent >= 0) {
            out += '\n';
            out.append(static_cast<size_t>(indent * d), ' ');
        }
    };
    switch (v.kind()) {
    case Value::Kind::Undefined:
    case Value::Kind::None: out += "null"; return;
    case Value::Kind::Bool: out += v.asBool() ? "true" : "false"; return;
    case Value::Kind::Int: out += std::to_string(v.asInt()); return;
    case Value::Kind::Float: out += floatText(v.asDouble()); return;
    case Value::Kind::String: appendJsonString(out, v.str()); return;
    case Value::Kind::Callable: out += "null"; return;
    case Value::Kind::Array: {
        if (v.items().empty()) {
            out += "[]";
            return;
        }
        out += '[';
        for (size_t i = 0; i < v.items().size(); ++i) {
            if (i)
                out += indent >= 0 ? "," : ", ";
            newline(depth + 1);
            json(v.items()[i], indent, depth + 1, out);
        }
        newline(depth);
        out += ']';
        return;
    }
    case Value::Kind::Object: {
        if (v.entries().empty()) {
            out += "{}";
            return;
        }
        out += '{';
        bool first = true;
        for (const auto &[key, value] : v.entries()) {
            if (!first)
                out += indent >= 0 ? "," : ", ";
            first = false;
            newline(depth + 1);
            appendJsonString(out, key);
            out += ": ";
            json(value, indent, depth + 1, out);
        }
        newline(depth);
        out += '}';
        return;
    }
    }
}

bool holdsNamespace(const Value &v)
{
    if (v.isNamespace())
        return true;
    if (v.isList())
        return std::any_of(v.items().begin(), v.items().end(), holdsNamespace);
    if (v.isDict())
        return std::any_of(v.entries().begin(), v.entries().end(),
                           [](const auto &e) { return holdsNamespace(e.second); });
    return false;
}

} // namespace

Value Value::none()
{
    Value v;
    v.m_kind = Kind::None;
    return v;
}
Value Value::boolean(bool b)
{
    Value v;
    v.m_kind = Kind::Bool;
    v.m_bool = b;
    return v;
}
Value Value::integer(int64_t i)
{
    Value v;
    v.m_kind = Kind::Int;
    v.m_int = i;
    return v;
}
Value Value::real(double f)
{
    Value v;
    v.m_kind = Kind::Float;
    v.m_double = f;
    return v;
}
Value Value::string(std::string s)
{
    if (s.size() > kMaxStringBytes)
        throw Error{"a string of more than " + std::to_string(kMaxStringBytes) + " bytes"};
    Value v;
    v.m_kind = Kind::String;
    v.m_string = std::move(s);
    return v;
}
Value Value::list(List items)
{
    if (items.size() > kMaxListSize)
        throw Error{"a list of more than " + std::to_string(kMaxListSize) + " items"};
    Value v;
    for (const Value &item : items)
        v.m_nesting = std::max(v.m_nesting, item.m_nesting);
    if (++v.m_nesting > kMaxNesting)
        throw Error{"values nest more than " + std::to_string(kMaxNesting) + " deep"};
    v.m_kind = Kind::Array;
    v.m_list = std::make_shared<List>(std::move(items));
    return v;
}
Value Value::dict(Dict items, bool isNamespace)
{
    Value v;
    for (const auto &[key, item] : items)
        v.m_nesting = std::max(v.m_nesting, item.m_nesting);
    if (++v.m_nesting > kMaxNesting)
        throw Error{"values nest more than " + std::to_string(kMaxNesting) + " deep"};
    v.m_kind = Kind::Object;
    v.m_namespace = isNamespace;
    v.m_dict = std::make_shared<Dict>(std::move(items));
    return v;
}
Value Value::function(Function f)
{
    Value v;
    v.m_kind = Kind::Callable;
    v.m_fn = std::make_shared<Function>(std::move(f));
    return v;
}
Value Value::undefined(std::string name)
{
    Value v;
    v.m_string = std::move(name);
    return v;
}

int64_t Value::asInt() const
{
    switch (m_kind) {
    case Kind::Int: return m_int;
    case Kind::Bool: return m_bool ? 1 : 0;
    case Kind::Float:
        return std::isfinite(m_double) && std::fabs(m_double) < 9.2e18 ? static_cast<int64_t>(m_double) : 0;
    default: return 0;
    }
}

double Value::asDouble() const
{
    return m_kind == Kind::Float ? m_double : static_cast<double>(asInt());
}

bool Value::truthy() const
{
    switch (m_kind) {
    case Kind::Undefined:
    case Kind::None: return false;
    case Kind::Bool: return m_bool;
    case Kind::Int: return m_int != 0;
    case Kind::Float: return m_double != 0;
    case Kind::String: return !m_string.empty();
    case Kind::Array: return !m_list->empty();
    case Kind::Object: return !m_dict->empty();
    case Kind::Callable: return true;
    }
    return false;
}

std::string Value::toString() const
{
    switch (m_kind) {
    case Kind::Undefined: return {};
    case Kind::String: return m_string;
    default: return repr();
    }
}

std::string Value::repr() const
{
    switch (m_kind) {
    case Kind::Undefined: return {};
    case Kind::None: return "None";
    case Kind::Bool: return m_bool ? "True" : "False";
    case Kind::Int: return std::to_string(m_int);
    case Kind::Float: return floatText(m_double);
    case Kind::String: return quoted(m_string);
    case Kind::Callable: return "<function>";
    case Kind::Array: {
        std::string s = "[";
        for (size_t i = 0; i < m_list->size(); ++i)
            s += (i ? ", " : "") + (*m_list)[i].repr();
        return s + "]";
    }
    case Kind::Object: {
        std::string s = m_namespace ? "<Namespace {" : "{";
        bool first = true;
        for (const auto &[k, v] : *m_dict) {
            s += (first ? "" : ", ") + quoted(k) + ": " + v.repr();
            first = false;
        }
        return s + (m_namespace ? "}>" : "}");
    }
    }
    return {};
}

std::string Value::toJson(int indent) const
{
    std::string out;
    json(*this, indent, 0, out);
    return out;
}

const Value *Value::get(std::string_view key) const
{
    if (m_kind != Kind::Object)
        return nullptr;
    for (const auto &[k, v] : *m_dict)
        if (k == key)
            return &v;
    return nullptr;
}

void Value::set(const std::string &key, Value value) const
{
    if (holdsNamespace(value))
        throw Error{"a namespace attribute cannot hold a namespace"};
    for (auto &[k, v] : *m_dict)
        if (k == key) {
            v = std::move(value);
            return;
        }
    m_dict->emplace_back(key, std::move(value));
}

bool operator==(const Value &a, const Value &b)
{
    if (a.isNumber() && b.isNumber())
        return a.m_kind == Value::Kind::Float || b.m_kind == Value::Kind::Float ? a.asDouble() == b.asDouble()
                                                                                : a.asInt() == b.asInt();
    if (a.m_kind != b.m_kind)
        return false;
    switch (a.m_kind) {
    case Value::Kind::Undefined:
    case Value::Kind::None: return true;
    case Value::Kind::String: return a.m_string == b.m_string;
    case Value::Kind::Array: return *a.m_list == *b.m_list;
    case Value::Kind::Object: {
        if (a.m_dict->size() != b.m_dict->size())
            return false;
        for (const auto &[k, v] : *a.m_dict) {
            const Value *other = b.get(k);
            if (!other || !(*other == v))
                return false;
        }
        return true;
    }
    case Value::Kind::Callable: return a.m_fn == b.m_fn;
    default: return false;
    }
}

bool Value::less(const Value &a, const Value &b)
{
    if (a.isNumber() && b.isNumber())
        return a.asDouble() < b.asDouble();
    if (a.isString() && b.isString())
        return a.m_string < b.m_string;
    if (a.isList() && b.isList())
        return std::lexicographical_compare(a.items().begin(), a.items().end(), b.items().begin(), b.items().end(),
                                            less);
    throw Error{"cannot compare " + a.typeName() + " with " + b.typeName()};
}

std::string Value::typeName() const
{
    switch (m_kind) {
    case Kind::Undefined: return "undefined";
    case Kind::None: return "none";
    case Kind::Bool: return "boolean";
    case Kind::Int: return "integer";
    case Kind::Float: return "float";
    case Kind::String: return "string";
    case Kind::Array: return "list";
    case Kind::Object: return m_namespace ? "namespace" : "dict";
    case Kind::Callable: return "function";
    }
    return "?";
}

} // namespace gguf::jinja
