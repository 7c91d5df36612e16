// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/text_format.h"

#include <concepts>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace cli {

using gguf::decodeUtf8; // core/util/text_format.h

/// Appends `text` (bytes, not necessarily valid UTF-8) to `out` as a JSON string literal the way
/// Python's json.dumps writes it with ensure_ascii: \" \\ \b \f \n \r \t, \u00XX for other controls
/// and DEL, \uXXXX (lower-case hex, surrogate pairs) for everything past ASCII. Ill-formed UTF-8
/// becomes U+FFFD, one per maximal ill-formed subpart (Python's errors="replace").
void appendJsonString(std::string &out, std::string_view text);

/// Appends a double as Python's repr() writes it (shortest round-trip digits, "1.0", "1e-05",
/// "1.5e+20"), and NaN / Infinity / -Infinity as Python's json module writes non-finite floats.
void appendPythonFloat(std::string &out, double value);

/// A streaming JSON writer: values go straight to a FILE* (through a small buffer), so a
/// 256k-entry vocabulary is never held as a document. Separators are those of Python's
/// json.dump defaults (", " and ": "), so `dump` output can equal gguf_dump.py's byte for byte.
class JsonWriter {
public:
    explicit JsonWriter(std::FILE *out);
    ~JsonWriter();
    JsonWriter(const JsonWriter &) = delete;
    JsonWriter &operator=(const JsonWriter &) = delete;

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    /// The key of the next member (inside an object only).
    void key(std::string_view name);

    void string(std::string_view text);
    void integer(int64_t value);
    void unsignedInteger(uint64_t value);
    void number(double value);
    void boolean(bool value);
    void null();

    /// One member, key and value: the value is written by its type (bool, a signed or unsigned
    /// integer, a floating-point number, text, nullptr for null; an empty optional is null).
    template <typename T> void field(std::string_view name, const T &value)
    {
        key(name);
        writeValue(value);
    }

    /// Ends the document with a newline and flushes; false when writing failed.
    bool finish();

private:
    enum class Scope : uint8_t { Object, Array };
    template <typename T> void writeValue(const T &value)
    {
        if constexpr (std::is_same_v<T, bool>)
            boolean(value);
        else if constexpr (std::is_same_v<T, std::nullptr_t>)
            null();
        else if constexpr (std::signed_integral<T>)
            integer(value);
        else if constexpr (std::unsigned_integral<T>)
            unsignedInteger(value);
        else if constexpr (std::floating_point<T>)
            number(value);
        else if constexpr (std::is_convertible_v<const T &, std::string_view>)
            string(value);
        else if (value)
            writeValue(*value); // an optional
        else
            null();
    }
    void beforeValue();
    void write(std::string_view text);
    void flushBuffer();

    std::FILE *m_out;
    std::string m_buffer;
    std::vector<Scope> m_scopes;
    bool m_first = true;     ///< no member or element yet in the current scope
    bool m_afterKey = false; ///< a key was written; its value comes next
    bool m_failed = false;
};

} // namespace cli
