// SPDX-License-Identifier: GPL-3.0-or-later
// Runs a template's syntax tree as Jinja does (docs/CHAT_TEMPLATES.md): scopes per loop and
// macro, Python's operators and truth, the loop variable, namespaces, break and continue.
#include "jinja_eval.h"

#include "jinja_builtins.h"

#include <climits>
#include <cmath>

namespace gguf::jinja {
namespace {

enum class Flow : uint8_t { Normal, Break, Continue };

class Evaluator {
public:
    Evaluator(const Dict &variables, const RenderLimits &limits)
        : m_limits(limits), m_stackBase(reinterpret_cast<uintptr_t>(__builtin_frame_address(0)))
    {
        m_scopes.push_back(variables);
    }

    Flow exec(const Body &body, std::string &out)
    {
        for (const auto &stmt : body) {
            const Flow flow = exec(*stmt, out);
            if (flow != Flow::Normal)
                return flow;
        }
        return Flow::Normal;
    }

private:
    // Bounds the evaluator's recursion as a whole (expressions within macros within expressions…),
    // so no template can exhaust a worker's stack: by levels, and by the stack the levels use, whose
    // frames differ by build (an optimised build's 1500 levels take about 1 MiB; a sanitizer build's
    // frames are ten times larger, and 1500 of them overflow an 8 MiB stack).
    struct Depth {
        Depth(Evaluator &e, size_t offset) : ev(e)
        {
            // the frame address, not a local's: a sanitizer may keep locals off the stack
            const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
            const bool stackSpent = here < ev.m_stackBase && ev.m_stackBase - here > kMaxStackBytes;
            if (++ev.m_recursion > kMaxRecursion || stackSpent)
                throw RenderError{"the template recurses more than " + std::to_string(kMaxRecursion) +
                                      " levels (or 4 MiB of stack) deep",
                                  offset};
        }
        ~Depth() { --ev.m_recursion; }
        Depth(const Depth &) = delete;
        Depth &operator=(const Depth &) = delete;
        Evaluator &ev;
    };
    static constexpr int kMaxRecursion = 1500;
    static constexpr uintptr_t kMaxStackBytes = uintptr_t(4) << 20;

    void step(size_t offset, uint64_t cost = 1)
    {
        m_steps += cost - 1;
        if (++m_steps > m_limits.maxSteps)
            throw RenderError{"the template runs too long (more than " + std::to_string(m_limits.maxSteps) + " steps)",
                              offset};
    }

    void emit(std::string &out, const std::string &text, size_t offset) const
    {
        if (out.size() + text.size() > m_limits.maxOutput)
            throw RenderError{"the template writes more than " + std::to_string(m_limits.maxOutput) + " bytes", offset};
        out += text;
    }

    Flow exec(const Stmt &s, std::string &out)
    {
        const Depth depth(*this, s.offset);
        step(s.offset);
        try {
            switch (s.kind) {
            case Stmt::Kind::Text: emit(out, s.text, s.offset); return Flow::Normal;
            case Stmt::Kind::Output: emit(out, eval(*s.expr).toString(), s.offset); return Flow::Normal;
            case Stmt::Kind::If:
                for (const auto &[cond, branch] : s.branches)
                    if (!cond || eval(*cond).truthy())
                        return exec(branch, out);
                return Flow::Normal;
            case Stmt::Kind::For: return execFor(s, out);
            case Stmt::Kind::Set: assign(s, eval(*s.expr)); return Flow::Normal;
            case Stmt::Kind::SetBlock: {
                std::string captured;
                exec(s.body, captured);
                assign(s, Value::string(std::move(captured)));
                return Flow::Normal;
            }
            case Stmt::Kind::Macro: defineMacro(s); return Flow::Normal;
            case Stmt::Kind::Break: return Flow::Break;
            case Stmt::Kind::Continue: return Flow::Continue;
            }
        } catch (const Error &e) {
            throw RenderError{e.message, s.offset};
        }
        return Flow::Normal;
    }

    void bind(const std::string &name, Value value)
    {
        for (auto &[k, v] : m_scopes.back())
            if (k == name) {
                v = std::move(value);
                return;
            }
        m_scopes.back().emplace_back(name, std::move(value));
    }

    void assign(const Stmt &s, const Value &value)
    {
        if (!s.object.empty()) {
            const Value ns = lookup(s.object);
            if (!ns.isNamespace())
                throw Error{"'" + s.object + "' is not a namespace (set " + s.object + "." + s.targets[0] + ")"};
            ns.set(s.targets[0], value);
            return;
        }
        if (s.targets.size() == 1) {
            bind(s.targets[0], value);
            return;
        }
        const List items = iterate(value);
        if (items.size() != s.targets.size())
            throw Error{"cannot unpack " + std::to_string(items.size()) + " values into " +
                        std::to_string(s.targets.size())};
        for (size_t i = 0; i < items.size(); ++i)
            bind(s.targets[i], items[i]);
    }

    void bindTargets(const std::vector<std::string> &targets, const Value &item)
    {
        if (targets.size() == 1) {
            bind(targets[0], item);
            return;
        }
        const List parts = iterate(item);
        if (parts.size() != targets.size())
            throw Error{"cannot unpack " + std::to_string(parts.size()) + " values into " +
                        std::to_string(targets.size())};
        for (size_t i = 0; i < parts.size(); ++i)
            bind(targets[i], parts[i]);
    }

    Flow execFor(const Stmt &s, std::string &out)
    {
        const Value iterable = eval(*s.expr);
        if (iterable.isNone())
            throw Error{"None cannot be iterated"};
        List items = iterate(iterable);
        if (s.condition) { // the loop's filter decides which items are the loop's
            List kept;
            for (const Value &item : items) {
                m_scopes.emplace_back();
                bindTargets(s.targets, item);
                const bool keep = eval(*s.condition).truthy();
                m_scopes.pop_back();
                if (keep)
                    kept.push_back(item);
            }
            items = std::move(kept);
        }
        const auto n = static_cast<int64_t>(items.size());
        for (int64_t i = 0; i < n; ++i) {
            step(s.offset);
            m_scopes.emplace_back();
            bindTargets(s.targets, items[static_cast<size_t>(i)]);
            Dict loop = {{"index", Value::integer(i + 1)},
                         {"index0", Value::integer(i)},
                         {"revindex", Value::integer(n - i)},
                         {"revindex0", Value::integer(n - i - 1)},
                         {"first", Value::boolean(i == 0)},
                         {"last", Value::boolean(i == n - 1)},
                         {"length", Value::integer(n)},
                         {"previtem", i > 0 ? items[static_cast<size_t>(i - 1)] : Value::undefined("previtem")},
                         {"nextitem", i + 1 < n ? items[static_cast<size_t>(i + 1)] : Value::undefined("nextitem")}};
            loop.emplace_back("cycle", Value::function([i](const Args &a, const KwArgs &) {
                                  if (a.empty())
                                      throw Error{"cycle needs arguments"};
                                  return a[static_cast<size_t>(i) % a.size()];
                              }));
            bind("loop", Value::dict(std::move(loop)));
            const Flow flow = exec(s.body, out);
            m_scopes.pop_back();
            if (flow == Flow::Break)
                break;
        }
        if (n == 0)
            exec(s.elseBody, out);
        return Flow::Normal;
    }

    void defineMacro(const Stmt &s)
    {
        const Stmt *macro = &s;
        bind(s.name, Value::function([this, macro](const Args &args, const KwArgs &kwargs) {
                 if (++m_depth > m_limits.maxDepth)
                     throw Error{"macros nest more than " + std::to_string(m_limits.maxDepth) + " deep"};
                 m_scopes.emplace_back();
                 for (size_t i = 0; i < macro->params.size(); ++i) {
                     const auto &[name, def] = macro->params[i];
                     Value v = i < args.size() ? args[i] : (def ? eval(*def) : Value::undefined(name));
                     for (const auto &[k, kv] : kwargs)
                         if (k == name)
                             v = kv;
                     bind(name, v);
                 }
                 std::string out;
                 exec(macro->body, out);
                 m_scopes.pop_back();
                 --m_depth;
                 return Value::string(std::move(out));
             }));
    }

    Value lookup(const std::string &name) const
    {
        for (auto scope = m_scopes.rbegin(); scope != m_scopes.rend(); ++scope)
            for (const auto &[k, v] : *scope)
                if (k == name)
                    return v;
        return globalFunction(name);
    }

    Value eval(const Expr &e)
    {
        const Depth depth(*this, e.offset);
        step(e.offset);
        try {
            return evalUnchecked(e);
        } catch (const Error &err) {
            throw RenderError{err.message, e.offset};
        }
    }

    Value evalUnchecked(const Expr &e)
    {
        switch (e.kind) {
        case Expr::Kind::Literal: return e.literal;
        case Expr::Kind::Name: return lookup(e.name);
        case Expr::Kind::Attr: return attribute(eval(*e.args[0]), e.name);
        case Expr::Kind::Item: return item(eval(*e.args[0]), eval(*e.args[1]));
        case Expr::Kind::Slice: return slice(e);
        case Expr::Kind::Call: {
            const Value callee = eval(*e.args[0]);
            if (!callee.isFunction())
                throw Error{callee.isUndefined() ? "'" + callee.str() + "' is undefined"
                                                 : "a " + callee.typeName() + " cannot be called"};
            Args args;
            KwArgs kwargs;
            collect(e, 1, args, kwargs);
            return callee.fn()(args, kwargs);
        }
        case Expr::Kind::Filter: {
            const Value input = eval(*e.args[0]);
            step(e.offset, workOf(input));
            Args args;
            KwArgs kwargs;
            collect(e, 1, args, kwargs);
            return applyFilter(e.name, input, args, kwargs);
        }
        case Expr::Kind::Test: {
            const Value input = eval(*e.args[0]);
            Args args;
            KwArgs kwargs;
            collect(e, 1, args, kwargs);
            return Value::boolean(applyTest(e.name, input, args) != e.negated);
        }
        case Expr::Kind::Unary: {
            const Value v = eval(*e.args[0]);
            if (e.name == "not")
                return Value::boolean(!v.truthy());
            if (!v.isNumber())
                throw Error{"unary " + e.name + " on a " + v.typeName()};
            if (e.name == "+")
                return v;
            if (v.kind() == Value::Kind::Float)
                return Value::real(-v.asDouble());
            if (v.asInt() == INT64_MIN)
                throw Error{"integer overflow"};
            return Value::integer(-v.asInt());
        }
        case Expr::Kind::Binary: return binary(e);
        case Expr::Kind::Ternary:
            if (eval(*e.args[0]).truthy())
                return eval(*e.args[1]);
            return e.args[2] ? eval(*e.args[2]) : Value::undefined();
        case Expr::Kind::ListLiteral: {
            List items;
            for (const auto &a : e.args)
                items.push_back(eval(*a));
            return Value::list(std::move(items));
        }
        case Expr::Kind::DictLiteral: {
            Dict entries;
            for (size_t i = 0; i + 1 < e.args.size(); i += 2)
                entries.emplace_back(eval(*e.args[i]).toString(), eval(*e.args[i + 1]));
            return Value::dict(std::move(entries));
        }
        }
        return Value::undefined();
    }

    void collect(const Expr &e, size_t from, Args &args, KwArgs &kwargs)
    {
        for (size_t i = from; i < e.args.size(); ++i)
            args.push_back(eval(*e.args[i]));
        for (const auto &[k, v] : e.kwargs)
            kwargs.emplace_back(k, eval(*v));
    }

    static Value attribute(const Value &object, const std::string &name)
    {
        if (object.isUndefined())
            throw Error{"'" + object.str() + "' is undefined (reading ." + name + ")"};
        // as Jinja's getattr: a method of the object first (d.items), then a key (message.content)
        if (auto m = method(object, name))
            return *m;
        if (const Value *v = object.get(name))
            return *v;
        return Value::undefined(name);
    }

    static Value item(const Value &object, const Value &key)
    {
        if (object.isUndefined())
            throw Error{"'" + object.str() + "' is undefined (reading [" + key.repr() + "])"};
        if (object.isDict()) {
            const Value *v = object.get(key.toString());
            return v ? *v : Value::undefined(key.toString());
        }
        if (object.isList() || object.isString()) {
            if (!key.isNumber())
                return key.isString() ? attribute(object, key.str()) : Value::undefined();
            const List chars = object.isString() ? characters(object.str()) : List();
            const List &items = object.isString() ? chars : object.items();
            int64_t i = key.asInt();
            if (i < 0)
                i += static_cast<int64_t>(items.size());
            if (i < 0 || i >= static_cast<int64_t>(items.size()))
                return Value::undefined("[" + std::to_string(key.asInt()) + "]");
            return items[static_cast<size_t>(i)];
        }
        throw Error{"a " + object.typeName() + " cannot be indexed"};
    }

    Value slice(const Expr &e)
    {
        const Value object = eval(*e.args[0]);
        const bool isString = object.isString();
        if (!isString && !object.isList())
            throw Error{"a " + object.typeName() + " cannot be sliced"};
        const List items = isString ? characters(object.str()) : object.items();
        const auto n = static_cast<int64_t>(items.size());
        const auto part = [&](size_t i) -> std::optional<int64_t> {
            if (!e.args[i])
                return std::nullopt;
            const Value v = eval(*e.args[i]);
            return v.isNone() ? std::nullopt : std::optional<int64_t>(v.asInt());
        };
        const int64_t stepBy = part(3).value_or(1);
        if (stepBy == 0)
            throw Error{"a slice step of 0"};
        const auto clampIndex = [&](std::optional<int64_t> v, int64_t def) {
            if (!v)
                return def;
            int64_t x = *v < 0 ? *v + n : *v;
            return stepBy > 0 ? std::clamp<int64_t>(x, 0, n) : std::clamp<int64_t>(x, -1, n - 1);
        };
        const int64_t start = clampIndex(part(1), stepBy > 0 ? 0 : n - 1),
                      stop = clampIndex(part(2), stepBy > 0 ? n : -1);
        List out;
        for (int64_t i = start; stepBy > 0 ? i < stop : i > stop;) {
            out.push_back(items[static_cast<size_t>(i)]);
            // the next index without overflowing: stop when the step passes the end
            if (stepBy > 0 ? stop - i <= stepBy : i - stop <= -stepBy)
                break;
            i += stepBy;
        }
        if (!isString)
            return Value::list(std::move(out));
        std::string s;
        for (const Value &c : out)
            s += c.str();
        return Value::string(s);
    }

    Value binary(const Expr &e)
    {
        const std::string &op = e.name;
        if (op == "and" || op == "or") {
            Value l = eval(*e.args[0]);
            if (l.truthy() == (op == "or"))
                return l;
            return eval(*e.args[1]);
        }
        const Value l = eval(*e.args[0]), r = eval(*e.args[1]);
        if (op == "==")
            return Value::boolean(l == r);
        if (op == "!=")
            return Value::boolean(!(l == r));
        if (op == "<")
            return Value::boolean(Value::less(l, r));
        if (op == ">")
            return Value::boolean(Value::less(r, l));
        if (op == "<=")
            return Value::boolean(!Value::less(r, l));
        if (op == ">=")
            return Value::boolean(!Value::less(l, r));
        if (op == "in" || op == "notin") {
            step(e.offset, workOf(r));
            return Value::boolean(contains(r, l) == (op == "in"));
        }
        if (op == "~")
            return Value::string(l.toString() + r.toString());
        if (op == "+") {
            if (l.isString() && r.isString())
                return Value::string(l.str() + r.str());
            if (l.isList() && r.isList()) {
                List items = l.items();
                items.insert(items.end(), r.items().begin(), r.items().end());
                return Value::list(std::move(items));
            }
        }
        if (op == "*" && (l.isString() || l.isList()) && r.kind() == Value::Kind::Int) {
            const int64_t times = std::clamp<int64_t>(r.asInt(), 0, 1'000'000);
            if (l.isString()) {
                if (l.str().size() * static_cast<size_t>(times) > m_limits.maxOutput)
                    throw Error{"a string repeated past the output limit"};
                std::string s;
                for (int64_t i = 0; i < times; ++i)
                    s += l.str();
                return Value::string(s);
            }
            if (l.items().size() * static_cast<size_t>(times) > Value::kMaxListSize)
                throw Error{"a list repeated past the list size limit"};
            List items;
            for (int64_t i = 0; i < times; ++i)
                items.insert(items.end(), l.items().begin(), l.items().end());
            return Value::list(std::move(items));
        }
        if (!l.isNumber() || !r.isNumber())
            throw Error{"'" + op + "' between a " + l.typeName() + " and a " + r.typeName()};
        const bool real = l.kind() == Value::Kind::Float || r.kind() == Value::Kind::Float;
        const double a = l.asDouble(), b = r.asDouble();
        const int64_t x = l.asInt(), y = r.asInt();
        int64_t exact = 0;
        const auto checked = [&exact](bool overflowed) {
            if (overflowed)
                throw Error{"integer overflow"};
            return Value::integer(exact);
        };
        if (op == "+")
            return real ? Value::real(a + b) : checked(__builtin_add_overflow(x, y, &exact));
        if (op == "-")
            return real ? Value::real(a - b) : checked(__builtin_sub_overflow(x, y, &exact));
        if (op == "*")
            return real ? Value::real(a * b) : checked(__builtin_mul_overflow(x, y, &exact));
        if (op == "/") {
            if (b == 0)
                throw Error{"division by zero"};
            return Value::real(a / b);
        }
        if (op == "//" || op == "%") {
            if (b == 0)
                throw Error{"division by zero"};
            if (real) {
                const double q = std::floor(a / b);
                return op == "//" ? Value::real(q) : Value::real(a - q * b);
            }
            if (x == INT64_MIN && y == -1)
                throw Error{"integer overflow"};
            int64_t q = x / y;
            if ((x % y != 0) && ((x < 0) != (y < 0)))
                --q;
            return op == "//" ? Value::integer(q) : Value::integer(x - q * y);
        }
        if (op == "**") {
            const double p = std::pow(a, b);
            if (real || y < 0)
                return Value::real(p);
            if (!(std::fabs(p) < 9.2e18))
                throw Error{"integer overflow"};
            return Value::integer(static_cast<int64_t>(p));
        }
        throw Error{"unknown operator '" + op + "'"};
    }

    // How much work a filter or `in` does on a value: one step per 64 elements or bytes.
    static uint64_t workOf(const Value &v)
    {
        const size_t n = v.isList()     ? v.items().size()
                         : v.isDict()   ? v.entries().size()
                         : v.isString() ? v.str().size()
                                        : 0;
        return 1 + n / 64;
    }

    static bool contains(const Value &container, const Value &v)
    {
        if (container.isString())
            return v.isString() ? container.str().find(v.str()) != std::string::npos
                                : throw Error{"'in <string>' needs a string on the left"};
        if (container.isDict())
            return container.get(v.toString()) != nullptr;
        if (container.isList())
            return std::find(container.items().begin(), container.items().end(), v) != container.items().end();
        if (container.isUndefined())
            throw Error{"'" + container.str() + "' is undefined (in)"};
        throw Error{"'in' a " + container.typeName()};
    }

    const RenderLimits &m_limits;
    uintptr_t m_stackBase; ///< the frame that made the evaluator: the stack grows down from about there
    std::vector<Dict> m_scopes;
    uint64_t m_steps = 0;
    int m_depth = 0;
    int m_recursion = 0;
};

} // namespace

std::string render(const Body &body, const Dict &variables, const RenderLimits &limits)
{
    Evaluator evaluator(variables, limits);
    std::string out;
    evaluator.exec(body, out);
    return out;
}

} // namespace gguf::jinja
