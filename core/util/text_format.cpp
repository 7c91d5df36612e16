// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/util/text_format.h"

#include <cstdio>
#include <iterator>

namespace gguf {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

} // namespace

char32_t decodeUtf8(std::string_view s, size_t &pos)
{
    const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
    const uint8_t b0 = byte(pos++);
    if (b0 < 0x80)
        return b0;
    int more = 0;
    char32_t cp = 0;
    uint8_t lo = 0x80, hi = 0xBF; // allowed range of the first continuation byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        more = 1;
        cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        more = 2;
        cp = b0 & 0x0F;
        if (b0 == 0xE0)
            lo = 0xA0; // no overlong forms
        else if (b0 == 0xED)
            hi = 0x9F; // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        more = 3;
        cp = b0 & 0x07;
        if (b0 == 0xF0)
            lo = 0x90;
        else if (b0 == 0xF4)
            hi = 0x8F; // nothing past U+10FFFF
    } else {
        return kReplacement;
    }
    for (int i = 0; i < more; ++i) {
        if (pos >= s.size())
            return kReplacement;
        const uint8_t b = byte(pos);
        if (b < lo || b > hi)
            return kReplacement; // the offending byte starts the next sequence
        lo = 0x80;
        hi = 0xBF;
        cp = (cp << 6) | (b & 0x3F);
        ++pos;
    }
    return cp;
}

std::string printable(std::string_view text, size_t maxChars)
{
    std::string out;
    size_t pos = 0;
    size_t chars = 0;
    while (pos < text.size()) {
        if (maxChars != 0 && chars == maxChars) {
            out += "…";
            break;
        }
        const size_t start = pos;
        const char32_t cp = decodeUtf8(text, pos);
        const std::string_view raw = text.substr(start, pos - start);
        char buf[8];
        ++chars;
        if (cp == 0xFFFD && raw != "\xEF\xBF\xBD") {
            // ill-formed bytes: show each one
            for (unsigned char c : raw) {
                std::snprintf(buf, sizeof buf, "\\x%02x", c);
                out += buf;
            }
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp < 0x20 || cp == 0x7F) {
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
            out += buf;
        } else if (cp >= 0x80 && cp < 0xA0) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out += raw;
        }
    }
    return out;
}

std::string groupDigits(uint64_t value)
{
    std::string digits = std::to_string(value);
    std::string out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i != 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

std::string countOf(uint64_t n, std::string_view one, std::string_view many)
{
    return groupDigits(n) + " " + std::string(n == 1 ? one : many);
}

std::string humanBytes(uint64_t bytes)
{
    static constexpr const char *kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024)
        return std::to_string(bytes) + " B";
    double v = static_cast<double>(bytes);
    size_t unit = 0;
    while (v >= 1024.0 && unit + 1 < std::size(kUnits)) {
        v /= 1024.0;
        ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
    return buf;
}

} // namespace gguf
