// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The values a chat template computes with, following Python's and Jinja's semantics as far as
// chat templates use them (docs/CHAT_TEMPLATES.md).
namespace gguf::jinja {

class Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>; ///< in insertion order, as Python's dict
using Args = std::vector<Value>;
using KwArgs = std::vector<std::pair<std::string, Value>>;
using Function = std::function<Value(const Args &, const KwArgs &)>;

/// A template error: what went wrong (the evaluator adds where).
struct Error {
    std::string message;
};

class Value {
public:
    enum class Kind : uint8_t { Undefined, None, Bool, Int, Float, String, Array, Object, Callable };

    Value() = default;
    static Value none();
    static Value boolean(bool b);
    static Value integer(int64_t i);
    static Value real(double f);
    static Value string(std::string s);
    static Value list(List items = {});
    static Value dict(Dict items = {}, bool isNamespace = false);
    static Value function(Function f);
    /// An undefined value that remembers the name it was looked up by (for messages).
    static Value undefined(std::string name = {});

    Kind kind() const { return m_kind; }
    bool isUndefined() const { return m_kind == Kind::Undefined; }
    bool isNone() const { return m_kind == Kind::None; }
    bool isString() const { return m_kind == Kind::String; }
    bool isNumber() const { return m_kind == Kind::Int || m_kind == Kind::Float || m_kind == Kind::Bool; }
    bool isList() const { return m_kind == Kind::Array; }
    bool isDict() const { return m_kind == Kind::Object; }
    bool isNamespace() const { return m_kind == Kind::Object && m_namespace; }
    bool isFunction() const { return m_kind == Kind::Callable; }

    bool asBool() const { return m_bool; }
    int64_t asInt() const; ///< Bool and Float convert; others 0
    double asDouble() const;
    const std::string &str() const { return m_string; }
    /// The shared list or dict (reference semantics, as in Python).
    List &items() const { return *m_list; }
    Dict &entries() const { return *m_dict; }
    const Function &fn() const { return *m_fn; }

    /// Python's truth value.
    bool truthy() const;
    /// What `{{ value }}` prints: Python's str() (an undefined value prints nothing).
    std::string toString() const;
    /// Python's repr(): strings quoted, as inside a printed list.
    std::string repr() const;
    /// JSON as HuggingFace's tojson writes it (", " and ": ", non-ASCII kept); `indent` < 0: one line.
    std::string toJson(int indent = -1) const;
    /// A dict entry, or nullptr.
    const Value *get(std::string_view key) const;
    /// Sets a namespace attribute. Throws Error for a value that is or holds a namespace: that is how
    /// a template could build a cycle, or nesting deeper than kMaxNesting that the limit cannot see.
    void set(const std::string &key, Value value) const;

    /// Lists and dicts nest at most this deep (deeper values would exhaust the stack when printed
    /// or freed); making a deeper one throws Error.
    static constexpr int kMaxNesting = 200;
    /// Strings and lists beyond these sizes are refused (Error) wherever they are made.
    static constexpr size_t kMaxStringBytes = 8u << 20;
    static constexpr size_t kMaxListSize = 1u << 20;

    /// Python's ==.
    friend bool operator==(const Value &a, const Value &b);
    /// Python's <, for numbers and strings; throws Error otherwise.
    static bool less(const Value &a, const Value &b);
    std::string typeName() const;

private:
    Kind m_kind = Kind::Undefined;
    bool m_bool = false;
    bool m_namespace = false;
    uint16_t m_nesting = 0; ///< containers within containers, this one included
    int64_t m_int = 0;
    double m_double = 0;
    std::string m_string; ///< String value; for Undefined, the name
    std::shared_ptr<List> m_list;
    std::shared_ptr<Dict> m_dict;
    std::shared_ptr<Function> m_fn;
};

} // namespace gguf::jinja
