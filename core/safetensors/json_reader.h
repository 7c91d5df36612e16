// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A strict JSON reader (RFC 8259) that keeps where each value and key lies in the text, for
// headers whose every byte the explorer annotates and whose errors it reports at their offset
// (the safetensors header; docs/SAFETENSORS.md). Qt's QJsonDocument gives no offsets, and the core
// does not use Qt.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf::json {

struct Value {
    enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    uint64_t begin = 0, end = 0; ///< the value's bytes in the text, [begin, end)
    bool boolean = false;
    /// String: the decoded UTF-8 text. Number: the literal exactly as written.
    std::string text;
    /// Array: the elements. Object: the members' values, in the order written.
    std::vector<Value> values;
    /// Object: the members in the order written; a repeated key appears each time.
    std::vector<std::pair<std::string, uint64_t>> keys; ///< key and its offset, parallel to `values`

    /// The value of the first member named `key`; nullptr when none (or not an object).
    const Value *find(std::string_view key) const;
    /// A Number written as a non-negative integer (no sign, fraction or exponent) that fits 64 bits.
    std::optional<uint64_t> asUnsigned() const;
};

/// Where and why the text is not JSON.
struct ParseError {
    uint64_t offset = 0; ///< the byte where reading stopped
    std::string message;
};

/// Parses one JSON value that fills `text` (whitespace around it allowed). The text must be valid
/// UTF-8; strings may not hold raw control characters or lone surrogate escapes; nesting deeper
/// than `maxDepth` is refused. Offsets count from the start of `text`.
std::optional<Value> parse(std::string_view text, ParseError &error, int maxDepth = 64);

/// A JSON value flattened to (path, text) rows: objects by "a.b" paths (an empty one as "{}"),
/// strings quoted, numbers as written; an array of scalars inline when it has at most
/// `inlineArray` elements, else "[N elements]" (also an array of objects or arrays).
std::vector<std::pair<std::string, std::string>> flatten(const Value &value, size_t inlineArray);

/// The offset of the first byte that is not part of valid UTF-8 in `text` (overlong forms and
/// surrogates refused), or nullopt when all of it is.
std::optional<uint64_t> firstInvalidUtf8(std::string_view text);

} // namespace gguf::json
