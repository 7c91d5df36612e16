// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Scalar conversions of the small float formats found in GGUF tensors (docs/FORMAT.md §4.1), with ggml's semantics
// (ggml `src/ggml-impl.h`): every result is the exact value of the encoding.

#include <array>
#include <bit>
#include <cstdint>

namespace gguf {

/// IEEE half → float, exact for zeros, subnormals, normals and infinities. NaNs keep sign and
/// payload and come back quiet, as ggml's GGML_FP16_TO_FP32 (and the F16C instruction) return them.
/// Branch-free so that loops over F16 data vectorize.
constexpr float fp16ToFp32(uint16_t h)
{
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const int32_t magnitude = h & 0x7fff;
    // normal numbers: move exponent and mantissa into place and rebias the exponent (127 - 15)
    uint32_t normal = (static_cast<uint32_t>(magnitude) << 13) + (112u << 23);
    // exponent 31 (inf/NaN) must land on exponent 255; NaNs come back quiet
    normal += static_cast<uint32_t>(magnitude >= 0x7c00) * (112u << 23);
    normal |= static_cast<uint32_t>(magnitude > 0x7c00) << 22;
    // subnormal halves are mantissa * 2^-24, exact in float
    const uint32_t subnormal = std::bit_cast<uint32_t>(static_cast<float>(magnitude) * 0x1p-24f);
    // all-ones mask where the input is subnormal (or zero); masks instead of branches vectorize
    const uint32_t isSubnormal = 0u - static_cast<uint32_t>(magnitude < 0x400);
    return std::bit_cast<float>(sign | (subnormal & isSubnormal) | (normal & ~isSubnormal));
}

/// bfloat16 → float: the upper half of an f32 (NaNs pass through unchanged, as in ggml).
constexpr float bf16ToFp32(uint16_t h)
{
    return std::bit_cast<float>(static_cast<uint32_t>(h) << 16);
}

/// E8M0 scale (MXFP4) → half of its value, 2^(x-128): ggml's GGML_E8M0_TO_FP32_HALF. The E2M1
/// codebook stores doubled values, so the half scale gives the true product. 255 is 2^127, not NaN
/// (docs/FORMAT.md §4.2).
constexpr float e8m0ToFp32Half(uint8_t x)
{
    // x = 0 and 1 give the subnormals 2^-128 and 2^-127
    const uint32_t bits = x < 2 ? (0x00200000u << x) : (static_cast<uint32_t>(x - 1) << 23);
    return std::bit_cast<float>(bits);
}

/// UE4M3 sub-block scale (NVFP4) → half of its value, as ggml's ggml_ue4m3_to_fp32 returns it.
/// Unsigned: bits 6–3 exponent (bias 7), bits 2–0 mantissa, bit 7 ignored; 0x00 and 0x7F
/// (the NaN code) give 0 (docs/FORMAT.md §4.2). Every result is exact in float.
constexpr float ue4m3ToFp32Half(uint8_t x)
{
    if (x == 0 || x == 0x7f)
        return 0.0f;
    const int exponent = (x >> 3) & 0xf;
    const uint32_t mantissa = x & 0x7u;
    if (exponent == 0) // subnormal: mantissa * 2^-9, halved
        return static_cast<float>(mantissa) * 0x1p-10f;
    // (1 + m/8) * 2^(e-7) * 0.5 = (8 + m) * 2^(e-11)
    const uint32_t bits = static_cast<uint32_t>(exponent - 11 + 127) << 23;
    return static_cast<float>(8u + mantissa) * std::bit_cast<float>(bits);
}

/// All 256 UE4M3 half-scales, so the NVFP4 decoder does one load per sub-block.
inline constexpr std::array<float, 256> kUe4m3HalfTable = [] {
    std::array<float, 256> table{};
    for (unsigned i = 0; i < 256; ++i)
        table[i] = ue4m3ToFp32Half(static_cast<uint8_t>(i));
    return table;
}();

} // namespace gguf
