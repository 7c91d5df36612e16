// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <vector>

namespace gguf {

/// Selects tensors by name (substring, glob or regular expression), type and layer.
/// All set criteria must hold.
class TensorFilter {
public:
    enum class Syntax : uint8_t { Substring, Glob, Regex };

    TensorFilter() = default;
    /// Sets the name pattern; false (and `error` filled) for an invalid regular expression.
    bool setPattern(const std::string &pattern, Syntax syntax, std::string *error = nullptr);
    void setType(std::optional<uint32_t> typeId) { m_type = typeId; }
    void setLayer(std::optional<int32_t> layer) { m_layer = layer; }

    bool matches(const TensorInfo &tensor) const;
    /// Indices of the matching tensors, in file order.
    std::vector<uint32_t> apply(std::span<const TensorInfo> tensors) const;

private:
    std::string m_pattern;
    Syntax m_syntax = Syntax::Substring;
    std::shared_ptr<const std::regex> m_regex;
    std::optional<uint32_t> m_type;
    std::optional<int32_t> m_layer;
};

/// Converts a shell glob (`*`, `?`, `[...]`) to an equivalent ECMAScript regular expression.
std::string globToRegex(const std::string &glob);

} // namespace gguf
