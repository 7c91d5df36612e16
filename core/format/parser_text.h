// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Small helpers shared by the parser's files (private to gguf_format).

#include <cstdint>
#include <string>
#include <string_view>

namespace gguf {

inline bool isPowerOfTwo(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/// `v` rounded up to a multiple of `a` (saturates instead of wrapping).
inline uint64_t alignUp(uint64_t v, uint64_t a)
{
    const uint64_t r = v % a;
    if (r == 0)
        return v;
    return v > UINT64_MAX - (a - r) ? UINT64_MAX : v + (a - r);
}

/// A name from the file as messages quote it: control characters as '?', at most 80 bytes.
inline std::string quoted(std::string_view s)
{
    std::string out = "'";
    for (char c : s.substr(0, 80))
        out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
    if (s.size() > 80)
        out += "…";
    return out + "'";
}

} // namespace gguf
