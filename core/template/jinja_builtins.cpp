// SPDX-License-Identifier: GPL-3.0-or-later
#include "jinja_builtins.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace gguf::jinja {
namespace {

bool isSpaceChar(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string strip(const std::string &s, const Value *chars, bool left, bool right)
{
    const auto drop = [&](char c) {
        return chars && chars->isString() ? chars->str().find(c) != std::string::npos : isSpaceChar(c);
    };
    size_t b = 0, e = s.size();
    while (left && b < e && drop(s[b]))
        ++b;
    while (right && e > b && drop(s[e - 1]))
        --e;
    return s.substr(b, e - b);
}

std::string lower(std::string s)
{
    for (char &c : s)
        if (c >= 'A' && c <= 'Z')
            c = static_cast<char>(c + 32);
    return s;
}
std::string upper(std::string s)
{
    for (char &c : s)
        if (c >= 'a' && c <= 'z')
            c = static_cast<char>(c - 32);
    return s;
}
// Python's title() for ASCII letters: upper case after a non-letter, lower case elsewhere.
std::string title(std::string s)
{
    bool start = true;
    for (char &c : s) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (letter)
            c = start ? upper(std::string(1, c))[0] : lower(std::string(1, c))[0];
        start = !letter;
    }
    return s;
}

std::string replace(const std::string &s, const std::string &from, const std::string &to, int64_t count = -1)
{
    if (from.empty())
        return s;
    std::string out;
    size_t at = 0;
    for (int64_t n = 0; count < 0 || n < count; ++n) {
        const size_t hit = s.find(from, at);
        if (hit == std::string::npos)
            break;
        out += s.substr(at, hit - at) + to;
        at = hit + from.size();
    }
    return out + s.substr(at);
}

Value split(const std::string &s, const Value *sep, int64_t maxSplit)
{
    List parts;
    if (!sep || sep->isNone()) {
        size_t i = 0;
        while (true) {
            while (i < s.size() && isSpaceChar(s[i]))
                ++i;
            if (i >= s.size())
                break;
            if (maxSplit >= 0 && static_cast<int64_t>(parts.size()) == maxSplit) {
                parts.push_back(Value::string(strip(s.substr(i), nullptr, false, true)));
                break;
            }
            size_t j = i;
            while (j < s.size() && !isSpaceChar(s[j]))
                ++j;
            parts.push_back(Value::string(s.substr(i, j - i)));
            i = j;
        }
        return Value::list(std::move(parts));
    }
    const std::string &d = sep->str();
    if (d.empty())
        throw Error{"split: empty separator"};
    size_t at = 0;
    for (;;) {
        const size_t hit = s.find(d, at);
        if (hit == std::string::npos || (maxSplit >= 0 && static_cast<int64_t>(parts.size()) == maxSplit))
            break;
        parts.push_back(Value::string(s.substr(at, hit - at)));
        at = hit + d.size();
    }
    parts.push_back(Value::string(s.substr(at)));
    return Value::list(std::move(parts));
}

const Value *arg(const Args &args, const KwArgs &kwargs, size_t index, std::string_view name)
{
    for (const auto &[k, v] : kwargs)
        if (k == name)
            return &v;
    return index < args.size() ? &args[index] : nullptr;
}

int64_t length(const Value &v)
{
    if (v.isString())
        return std::count_if(v.str().begin(), v.str().end(),
                             [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
    if (v.isList())
        return static_cast<int64_t>(v.items().size());
    if (v.isDict())
        return static_cast<int64_t>(v.entries().size());
    if (v.isUndefined())
        return 0;
    throw Error{"length of a " + v.typeName()};
}

const std::string &needString(const Value &v, std::string_view what)
{
    if (!v.isString())
        throw Error{std::string(what) + " needs a string, not a " + v.typeName()};
    return v.str();
}

bool startsOrEnds(const std::string &s, const Value &which, bool start)
{
    const auto one = [&](const std::string &p) {
        return p.size() <= s.size() &&
               (start ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
    };
    if (which.isList())
        return std::any_of(which.items().begin(), which.items().end(),
                           [&](const Value &p) { return one(needString(p, "startswith")); });
    return one(needString(which, "startswith/endswith"));
}

// attribute `name` of an item (a dict key), or undefined
Value attributeOf(const Value &item, const std::string &name)
{
    const Value *v = item.get(name);
    return v ? *v : Value::undefined(name);
}

} // namespace

List characters(const std::string &s)
{
    if (s.size() > (1u << 20))
        throw Error{"a string of more than a million bytes cannot be taken apart character by character"};
    List out;
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        n = std::min(n, s.size() - i);
        out.push_back(Value::string(s.substr(i, n)));
        i += n;
    }
    return out;
}

List iterate(const Value &v)
{
    switch (v.kind()) {
    case Value::Kind::Array: return v.items();
    case Value::Kind::String: return characters(v.str());
    case Value::Kind::Undefined: return {};
    case Value::Kind::Object: {
        List keys;
        for (const auto &[k, value] : v.entries())
            keys.push_back(Value::string(k));
        return keys;
    }
    default: throw Error{"a " + v.typeName() + " cannot be iterated"};
    }
}

Value applyFilter(std::string_view name, const Value &in, const Args &args, const KwArgs &kwargs)
{
    const Value *a0 = arg(args, kwargs, 0, "");
    if (name == "trim" || name == "strip")
        return Value::string(strip(in.toString(), a0, true, true));
    if (name == "length" || name == "count")
        return Value::integer(length(in));
    if (name == "upper")
        return Value::string(upper(in.toString()));
    if (name == "lower")
        return Value::string(lower(in.toString()));
    if (name == "title")
        return Value::string(title(in.toString()));
    if (name == "capitalize") {
        std::string s = lower(in.toString());
        if (!s.empty())
            s[0] = upper(s.substr(0, 1))[0];
        return Value::string(s);
    }
    if (name == "default" || name == "d") {
        const Value *boolean = arg(args, kwargs, 1, "boolean");
        const bool useDefault = in.isUndefined() || (boolean && boolean->truthy() && !in.truthy());
        return useDefault ? (a0 ? *a0 : Value::string("")) : in;
    }
    if (name == "first" || name == "last") {
        const List items = iterate(in);
        if (items.empty())
            return Value::undefined();
        return name == "first" ? items.front() : items.back();
    }
    if (name == "join") {
        const Value *attribute = arg(args, kwargs, 1, "attribute");
        std::string out;
        bool first = true;
        for (const Value &item : iterate(in)) {
            if (!first && a0)
                out += a0->toString();
            first = false;
            out += (attribute ? attributeOf(item, attribute->toString()) : item).toString();
        }
        return Value::string(out);
    }
    if (name == "replace") {
        const Value *to = arg(args, kwargs, 1, "new");
        const Value *count = arg(args, kwargs, 2, "count");
        if (!a0 || !to)
            throw Error{"replace needs two arguments"};
        return Value::string(replace(in.toString(), a0->toString(), to->toString(), count ? count->asInt() : -1));
    }
    if (name == "string")
        return Value::string(in.toString());
    if (name == "safe") // no autoescaping in HuggingFace's environment: nothing to mark
        return in;
    if (name == "int") {
        if (in.isString()) {
            try {
                return Value::integer(std::stoll(in.str()));
            } catch (const std::exception &) {
                return a0 ? *a0 : Value::integer(0);
            }
        }
        return Value::integer(in.asInt());
    }
    if (name == "float")
        return Value::real(in.isString() ? std::atof(in.str().c_str()) : in.asDouble());
    if (name == "abs")
        return in.kind() == Value::Kind::Float ? Value::real(std::fabs(in.asDouble()))
                                               : Value::integer(std::llabs(in.asInt()));
    if (name == "round") {
        const int64_t digits = a0 ? a0->asInt() : 0;
        const double scale = std::pow(10.0, static_cast<double>(digits));
        return Value::real(std::nearbyint(in.asDouble() * scale) / scale);
    }
    if (name == "list")
        return Value::list(iterate(in));
    if (name == "items") {
        if (!in.isDict())
            throw Error{"items needs a dict"};
        List pairs;
        for (const auto &[k, v] : in.entries())
            pairs.push_back(Value::list({Value::string(k), v}));
        return Value::list(std::move(pairs));
    }
    if (name == "reverse") {
        if (in.isString()) {
            List chars = characters(in.str());
            std::string out;
            for (auto it = chars.rbegin(); it != chars.rend(); ++it)
                out += it->str();
            return Value::string(out);
        }
        List items = iterate(in);
        std::reverse(items.begin(), items.end());
        return Value::list(std::move(items));
    }
    if (name == "tojson") {
        const Value *indent = arg(args, kwargs, 0, "indent");
        return Value::string(in.toJson(indent && !indent->isNone() ? static_cast<int>(indent->asInt()) : -1));
    }
    if (name == "unique") {
        if (in.isList() && in.items().size() > 10000)
            throw Error{"unique of more than 10,000 items"};
        List out;
        for (const Value &v : iterate(in))
            if (std::find(out.begin(), out.end(), v) == out.end())
                out.push_back(v);
        return Value::list(std::move(out));
    }
    if (name == "map") {
        const Value *attribute = arg(args, kwargs, 99, "attribute");
        List out;
        for (const Value &item : iterate(in)) {
            if (attribute)
                out.push_back(attributeOf(item, attribute->toString()));
            else if (a0)
                out.push_back(applyFilter(a0->toString(), item, Args(args.begin() + 1, args.end()), {}));
            else
                throw Error{"map needs a filter or attribute="};
        }
        return Value::list(std::move(out));
    }
    if (name == "selectattr" || name == "rejectattr" || name == "select" || name == "reject") {
        const bool byAttr = name == "selectattr" || name == "rejectattr";
        const bool keep = name == "selectattr" || name == "select";
        const size_t testAt = byAttr ? 1 : 0;
        List out;
        for (const Value &item : iterate(in)) {
            const Value subject = byAttr ? attributeOf(item, a0 ? a0->toString() : std::string()) : item;
            const bool passed =
                testAt < args.size()
                    ? applyTest(args[testAt].toString(), subject,
                                Args(args.begin() + static_cast<std::ptrdiff_t>(testAt) + 1, args.end()))
                    : subject.truthy();
            if (passed == keep)
                out.push_back(item);
        }
        return Value::list(std::move(out));
    }
    if (name == "indent") {
        const int64_t width = a0 ? a0->asInt() : 4;
        const Value *first = arg(args, kwargs, 1, "first");
        const std::string pad(static_cast<size_t>(std::clamp<int64_t>(width, 0, 64)), ' ');
        std::string s = in.toString(), out;
        for (size_t i = 0; i < s.size(); ++i) {
            out += s[i];
            if (s[i] == '\n' && i + 1 < s.size() && s[i + 1] != '\n')
                out += pad;
        }
        return Value::string((first && first->truthy() ? pad : std::string()) + out);
    }
    throw Error{"the '" + std::string(name) + "' filter is not supported"};
}

bool applyTest(std::string_view name, const Value &v, const Args &args)
{
    if (name == "defined")
        return !v.isUndefined();
    if (name == "undefined")
        return v.isUndefined();
    if (name == "none")
        return v.isNone();
    if (name == "string")
        return v.isString();
    if (name == "number")
        return v.kind() == Value::Kind::Int || v.kind() == Value::Kind::Float;
    if (name == "integer")
        return v.kind() == Value::Kind::Int;
    if (name == "float")
        return v.kind() == Value::Kind::Float;
    if (name == "boolean")
        return v.kind() == Value::Kind::Bool;
    if (name == "true" || name == "false")
        return v.kind() == Value::Kind::Bool && v.asBool() == (name == "true");
    if (name == "mapping")
        return v.isDict();
    if (name == "sequence" || name == "iterable")
        return v.isList() || v.isString() || v.isDict();
    if (name == "callable")
        return v.isFunction();
    if (name == "odd" || name == "even")
        return (v.asInt() % 2 != 0) == (name == "odd");
    if (name == "divisibleby")
        return !args.empty() && args[0].asInt() != 0 && (args[0].asInt() == -1 || v.asInt() % args[0].asInt() == 0);
    if (name == "lower" || name == "upper")
        return v.isString() && v.str() == (name == "lower" ? lower(v.str()) : upper(v.str()));
    if (!args.empty()) {
        if (name == "equalto" || name == "eq" || name == "==" || name == "sameas")
            return v == args[0];
        if (name == "ne" || name == "!=")
            return !(v == args[0]);
        if (name == "in") {
            const List items = iterate(args[0]);
            return std::find(items.begin(), items.end(), v) != items.end();
        }
    }
    throw Error{"the '" + std::string(name) + "' test is not supported"};
}

std::optional<Value> method(const Value &self, std::string_view name)
{
    const auto bind = [](Function f) { return std::optional<Value>(Value::function(std::move(f))); };
    if (self.isString()) {
        const std::string &s = self.str(); // the bound methods keep copies
        if (name == "strip" || name == "lstrip" || name == "rstrip")
            return bind([s, name = std::string(name)](const Args &a, const KwArgs &) {
                return Value::string(strip(s, a.empty() ? nullptr : &a[0], name != "rstrip", name != "lstrip"));
            });
        if (name == "startswith" || name == "endswith")
            return bind([s, name = std::string(name)](const Args &a, const KwArgs &) {
                if (a.empty())
                    throw Error{std::string(name) + " needs an argument"};
                return Value::boolean(startsOrEnds(s, a[0], name == "startswith"));
            });
        if (name == "split")
            return bind([s](const Args &a, const KwArgs &k) {
                const Value *max = arg(a, k, 1, "maxsplit");
                return split(s, arg(a, k, 0, "sep"), max ? max->asInt() : -1);
            });
        if (name == "upper" || name == "lower" || name == "title" || name == "capitalize")
            return bind([self, name = std::string(name)](const Args &, const KwArgs &) {
                return applyFilter(name, self, {}, {});
            });
        if (name == "replace")
            return bind([s](const Args &a, const KwArgs &) {
                if (a.size() < 2)
                    throw Error{"replace needs two arguments"};
                return Value::string(replace(s, a[0].toString(), a[1].toString(), a.size() > 2 ? a[2].asInt() : -1));
            });
        if (name == "join")
            return bind([self](const Args &a, const KwArgs &) {
                if (a.empty())
                    throw Error{"join needs an argument"};
                return applyFilter("join", a[0], {self}, {});
            });
        if (name == "find")
            return bind([s](const Args &a, const KwArgs &) {
                const size_t at = a.empty() ? std::string::npos : s.find(a[0].toString());
                return Value::integer(at == std::string::npos ? -1 : static_cast<int64_t>(at));
            });
        if (name == "count")
            return bind([s](const Args &a, const KwArgs &) {
                if (a.empty() || a[0].toString().empty())
                    throw Error{"count needs a non-empty argument"};
                int64_t n = 0;
                for (size_t at = s.find(a[0].str()); at != std::string::npos;
                     at = s.find(a[0].str(), at + a[0].str().size()))
                    ++n;
                return Value::integer(n);
            });
    }
    if (self.isDict()) {
        if (name == "items")
            return bind([self](const Args &, const KwArgs &) { return applyFilter("items", self, {}, {}); });
        if (name == "keys" || name == "values")
            return bind([self, name = std::string(name)](const Args &, const KwArgs &) {
                List out;
                for (const auto &[k, v] : self.entries())
                    out.push_back(name == "keys" ? Value::string(k) : v);
                return Value::list(std::move(out));
            });
        if (name == "get")
            return bind([self](const Args &a, const KwArgs &) {
                const Value *v = a.empty() ? nullptr : self.get(a[0].toString());
                return v ? *v : (a.size() > 1 ? a[1] : Value::none());
            });
    }
    if (self.isList() &&
        (name == "append" || name == "pop" || name == "extend" || name == "insert" || name == "remove"))
        // HuggingFace renders in Jinja's immutable sandbox, which refuses to change a list
        throw Error{"access to attribute '" + std::string(name) + "' of 'list' object is unsafe"};
    return std::nullopt;
}

Value globalFunction(std::string_view name)
{
    if (name == "raise_exception")
        return Value::function([](const Args &a, const KwArgs &) -> Value {
            throw Error{"the template raised an exception: " + (a.empty() ? std::string() : a[0].toString())};
        });
    if (name == "namespace" || name == "dict")
        return Value::function([name = std::string(name)](const Args &, const KwArgs &k) {
            Dict entries(k.begin(), k.end());
            return Value::dict(std::move(entries), name == "namespace");
        });
    if (name == "range")
        return Value::function([](const Args &a, const KwArgs &) {
            if (a.empty() || a.size() > 3)
                throw Error{"range takes one to three arguments"};
            const int64_t start = a.size() > 1 ? a[0].asInt() : 0, stop = a.size() > 1 ? a[1].asInt() : a[0].asInt();
            const int64_t step = a.size() > 2 ? a[2].asInt() : 1;
            if (step == 0)
                throw Error{"range with a step of 0"};
            List out;
            for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
                if (out.size() >= 1'000'000)
                    throw Error{"range of more than a million numbers"};
                out.push_back(Value::integer(i));
            }
            return Value::list(std::move(out));
        });
    if (name == "strftime_now")
        return Value::function([](const Args &a, const KwArgs &) {
            // a fixed day, 2024-07-26, for reproducible renderings; only the formats templates use
            std::string fmt = a.empty() ? std::string() : a[0].toString(), out;
            for (size_t i = 0; i < fmt.size(); ++i) {
                if (fmt[i] != '%' || i + 1 == fmt.size()) {
                    out += fmt[i];
                    continue;
                }
                switch (fmt[++i]) {
                case 'd': out += "26"; break;
                case 'b': out += "Jul"; break;
                case 'B': out += "July"; break;
                case 'Y': out += "2024"; break;
                case 'm': out += "07"; break;
                case 'y': out += "24"; break;
                case 'A': out += "Friday"; break;
                case 'a': out += "Fri"; break;
                case '%': out += '%'; break;
                default: out += '%', out += fmt[i];
                }
            }
            return Value::string(out);
        });
    return Value::undefined(std::string(name));
}

} // namespace gguf::jinja
