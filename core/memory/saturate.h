// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Arithmetic on sizes read from a file that may be hostile: products and sums stop at the largest
// uint64_t instead of wrapping, so a file claiming absurd dimensions gives an absurd (and so
// visibly wrong) figure, never a small one.

#include <cstdint>
#include <limits>

namespace gguf::sat {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

inline uint64_t mul(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? kMax : r;
}

template <typename... Rest> uint64_t mul(uint64_t a, uint64_t b, Rest... rest)
{
    return mul(mul(a, b), uint64_t(rest)...);
}

inline uint64_t add(uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? kMax : r;
}

template <typename... Rest> uint64_t add(uint64_t a, uint64_t b, Rest... rest)
{
    return add(add(a, b), uint64_t(rest)...);
}

} // namespace gguf::sat
