// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gguf {

/// Reverses the bytes of an integer.
template <typename T> constexpr T byteSwap(T v)
{
    static_assert(std::is_integral_v<T>);
    using U = std::make_unsigned_t<T>;
    U u = static_cast<U>(v), r = 0;
    for (size_t i = 0; i < sizeof(T); ++i) {
        r = static_cast<U>((r << 8) | (u & 0xFF));
        u = static_cast<U>(u >> 8);
    }
    return static_cast<T>(r);
}

/// Loads a T from possibly unaligned bytes written little-endian (`swap` = false) or in the
/// other byte order (`swap` = true). Floats are swapped through their bit pattern.
template <typename T> inline T loadAs(const uint8_t *p, bool swap)
{
    if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
        return std::bit_cast<T>(loadAs<Bits>(p, swap));
    } else {
        T v;
        std::memcpy(&v, p, sizeof(T));
        return swap ? byteSwap(v) : v;
    }
}

namespace detail {

/// Little-endian scalar fields at any alignment.
inline uint16_t loadU16(const uint8_t *p)
{
    uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline uint32_t loadU32(const uint8_t *p)
{
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

} // namespace detail

} // namespace gguf
