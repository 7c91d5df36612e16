// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf::test {

/// A parsed JSON value that keeps number literals as written, so 64-bit integers, -0.0 and the
/// exact spelling of floats survive (QJsonDocument turns integers above 2^63 into doubles).
/// Only for reading the fixture manifests in tests.
class ExactJson {
public:
    enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };

    /// Parses a whole document; nullopt (and `error` filled) when it is not valid JSON.
    static std::optional<ExactJson> parse(std::string_view text, std::string *error = nullptr);

    Kind kind() const { return m_kind; }
    bool isNull() const { return m_kind == Kind::Null; }
    bool isNumber() const { return m_kind == Kind::Number; }
    bool isString() const { return m_kind == Kind::String; }
    bool isArray() const { return m_kind == Kind::Array; }
    bool isObject() const { return m_kind == Kind::Object; }

    bool toBool() const { return m_bool; }
    /// A string's UTF-8 text, or a number's literal as written.
    const std::string &text() const { return m_text; }
    /// Exact conversions of a number literal; nullopt when it does not fit or is not a number.
    std::optional<uint64_t> toUInt64() const;
    std::optional<int64_t> toInt64() const;
    std::optional<double> toDouble() const;

    const std::vector<ExactJson> &items() const { return m_items; }
    size_t size() const { return m_kind == Kind::Object ? m_members.size() : m_items.size(); }
    const std::vector<std::pair<std::string, ExactJson>> &members() const { return m_members; }
    /// Member `key` of an object; nullptr when absent.
    const ExactJson *find(std::string_view key) const;
    /// Member `key`, or a null value when absent.
    const ExactJson &operator[](std::string_view key) const;

private:
    friend class ExactJsonParser;

    Kind m_kind = Kind::Null;
    bool m_bool = false;
    std::string m_text;
    std::vector<ExactJson> m_items;
    std::vector<std::pair<std::string, ExactJson>> m_members;
};

} // namespace gguf::test
