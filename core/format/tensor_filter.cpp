// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/tensor_filter.h"

#include <algorithm>
#include <cctype>

namespace gguf {

std::string globToRegex(const std::string &glob)
{
    std::string re = "^";
    for (char c : glob) {
        switch (c) {
        case '*': re += ".*"; break;
        case '?': re += '.'; break;
        case '[':
        case ']': re += c; break;
        case '.':
        case '\\':
        case '+':
        case '(':
        case ')':
        case '{':
        case '}':
        case '^':
        case '$':
        case '|':
            re += '\\';
            re += c;
            break;
        default: re += c;
        }
    }
    return re + "$";
}

bool TensorFilter::setPattern(const std::string &pattern, Syntax syntax, std::string *error)
{
    m_pattern = pattern;
    m_syntax = syntax;
    m_regex.reset();
    if (syntax == Syntax::Substring || pattern.empty())
        return true;
    try {
        const std::string re = syntax == Syntax::Glob ? globToRegex(pattern) : pattern;
        m_regex = std::make_shared<const std::regex>(re, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error &e) {
        if (error)
            *error = std::string("invalid regular expression: ") + e.what();
        m_pattern.clear();
        return false;
    }
    return true;
}

bool TensorFilter::matches(const TensorInfo &tensor) const
{
    if (m_type && tensor.typeId != *m_type)
        return false;
    if (m_layer && tensor.layer != *m_layer)
        return false;
    if (m_pattern.empty())
        return true;
    if (m_regex)
        return std::regex_search(tensor.name.begin(), tensor.name.end(), *m_regex);
    // case-insensitive substring
    const auto it =
        std::search(tensor.name.begin(), tensor.name.end(), m_pattern.begin(), m_pattern.end(), [](char a, char b) {
            return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        });
    return it != tensor.name.end();
}

std::vector<uint32_t> TensorFilter::apply(std::span<const TensorInfo> tensors) const
{
    std::vector<uint32_t> out;
    for (const TensorInfo &t : tensors)
        if (matches(t))
            out.push_back(t.index);
    return out;
}

} // namespace gguf
