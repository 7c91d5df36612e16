// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The constant codebooks of ggml's quantization types, kept in one place (this header and
// quant_tables.cpp). Source of every value: ggml `src/ggml-common.h` (ggml-org/ggml, MIT licence,
// commit d99724f2b141fed9e1a9f402213506c081433465; identical in llama.cpp `ggml/src/ggml-common.h`).
// Tables are data: the numbers are copied, in ggml's order, under ggml's names noted beside ours
// (docs/FORMAT.md §4.7).

#include <array>
#include <cstddef>
#include <cstdint>

namespace gguf::tables {

/// ggml `kmask_iq2xs`: bit j of a sign byte belongs to element j of a group of 8.
inline constexpr std::array<uint8_t, 8> kMaskIq2xs = {1, 2, 4, 8, 16, 32, 64, 128};

// keep ggml's 16-per-line layout for comparison
// clang-format off
/// ggml `ksigns_iq2xs`: 7 stored sign bits → 8 sign bits; the 8th makes the count of minus signs even.
inline constexpr std::array<uint8_t, 128> kSignsIq2xs = {
      0, 129, 130,   3, 132,   5,   6, 135, 136,   9,  10, 139,  12, 141, 142,  15,
    144,  17,  18, 147,  20, 149, 150,  23,  24, 153, 154,  27, 156,  29,  30, 159,
    160,  33,  34, 163,  36, 165, 166,  39,  40, 169, 170,  43, 172,  45,  46, 175,
     48, 177, 178,  51, 180,  53,  54, 183, 184,  57,  58, 187,  60, 189, 190,  63,
    192,  65,  66, 195,  68, 197, 198,  71,  72, 201, 202,  75, 204,  77,  78, 207,
     80, 209, 210,  83, 212,  85,  86, 215, 216,  89,  90, 219,  92, 221, 222,  95,
     96, 225, 226,  99, 228, 101, 102, 231, 232, 105, 106, 235, 108, 237, 238, 111,
    240, 113, 114, 243, 116, 245, 246, 119, 120, 249, 250, 123, 252, 125, 126, 255,
};
// clang-format on

/// ggml `kvalues_iq4nl`: the 16 non-linear levels of IQ4_NL and IQ4_XS.
inline constexpr std::array<int8_t, 16> kValuesIq4nl = {
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
};

/// ggml `kvalues_fp4` (alias `kvalues_mxfp4`): the E2M1 values doubled, shared by MXFP4 and NVFP4
/// (their scale decoders return half the scale to compensate).
inline constexpr std::array<int8_t, 16> kValuesFp4 = {
    0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12,
};

/// A 16-entry codebook as floats (exact), so decoders do one load and one multiply per value.
constexpr std::array<float, 16> toFloats(const std::array<int8_t, 16> &values)
{
    std::array<float, 16> out{};
    for (std::size_t i = 0; i < values.size(); ++i)
        out[i] = static_cast<float>(values[i]);
    return out;
}
inline constexpr std::array<float, 16> kValuesIq4nlFloat = toFloats(kValuesIq4nl);
inline constexpr std::array<float, 16> kValuesFp4Float = toFloats(kValuesFp4);

/// ggml `IQ1S_DELTA` / `IQ1M_DELTA`: the shift applied to every IQ1 grid value.
inline constexpr float kIq1Delta = 0.125f;

/// ggml `iq2xxs_grid`: 256 points of 8 magnitudes each (bytes 0x08, 0x19, 0x2b), element j in byte j.
extern const std::array<uint64_t, 256> kIq2xxsGrid;
/// ggml `iq2xs_grid`: 512 points, same encoding.
extern const std::array<uint64_t, 512> kIq2xsGrid;
/// ggml `iq2s_grid`: 1024 points, same encoding.
extern const std::array<uint64_t, 1024> kIq2sGrid;
/// ggml `iq3xxs_grid`: 256 points of 4 magnitudes (bytes 4 … 62), element j in byte j.
extern const std::array<uint32_t, 256> kIq3xxsGrid;
/// ggml `iq3s_grid`: 512 points of 4 odd magnitudes 1 … 15.
extern const std::array<uint32_t, 512> kIq3sGrid;
/// ggml `iq1s_grid`: 2048 points of 8 int8 values in {-1, 0, +1}, element j in byte j. Expanded at
/// compile time from ggml's packed copy of the same grid (`iq1s_grid_gpu`).
extern const std::array<uint64_t, 2048> kIq1sGrid;
/// ggml `iq1s_grid_gpu`: the IQ1 grid with value+1 in a nibble; element j < 4 in the low nibble of
/// byte j, element j >= 4 in the high nibble of byte j-4.
extern const std::array<uint32_t, 2048> kIq1sGridPacked;

} // namespace gguf::tables
