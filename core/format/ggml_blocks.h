// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one statement of every quantization block's layout: ggml's block_* structs (src/ggml-common.h,
// MIT), written again with the same member names, each pinned by its size. Blocks are read in
// place at any alignment (the members are never accessed through these structs: code takes
// sizeof and offsetof and loads the bytes), so the structs carry no alignment requirement of their
// own beyond what the sizes assert. The type table (ggml_types.cpp) states the same sizes and
// tst_block_fields checks the two against each other; block_fields.cpp names the fields from
// these structs; the decoders (core/quant) and the code-level statistics (core/stats) read them.
// Multi-byte fields are little-endian (docs/FORMAT.md §2.3, §4.1).

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace gguf {

// 32-, 64- and 128-element blocks with one scale (ggml-common.h block_q4_0 … block_q8_1, block_iq4_nl, block_mxfp4,
// block_nvfp4, block_q1_0, block_q2_0); docs/FORMAT.md §4.2.

struct BlockQ4_0 {
    uint16_t d;     // f16 scale
    uint8_t qs[16]; // element j in the low nibble of qs[j], element j+16 in the high nibble
};
static_assert(sizeof(BlockQ4_0) == 18);

struct BlockQ4_1 {
    uint16_t d; // f16 scale
    uint16_t m; // f16 minimum
    uint8_t qs[16];
};
static_assert(sizeof(BlockQ4_1) == 20);

struct BlockQ5_0 {
    uint16_t d;
    uint8_t qh[4]; // fifth bit of element j is bit j of this little-endian word
    uint8_t qs[16];
};
static_assert(sizeof(BlockQ5_0) == 22);

struct BlockQ5_1 {
    uint16_t d;
    uint16_t m;
    uint8_t qh[4];
    uint8_t qs[16];
};
static_assert(sizeof(BlockQ5_1) == 24);

struct BlockQ8_0 {
    uint16_t d;
    int8_t qs[32];
};
static_assert(sizeof(BlockQ8_0) == 34);

struct BlockQ8_1 {
    uint16_t d;
    uint16_t s; // f16 d * sum(qs): used by dot products, not needed to decode
    int8_t qs[32];
};
static_assert(sizeof(BlockQ8_1) == 36);

struct BlockQ1_0 {
    uint16_t d;
    uint8_t qs[16]; // element j is bit j%8 of qs[j/8]: 1 → +d, 0 → -d
};
static_assert(sizeof(BlockQ1_0) == 18);

struct BlockQ2_0 {
    uint16_t d;
    uint8_t qs[16]; // element j is bits 2*(j%4) of qs[j/4]; code q gives (q-1)*d
};
static_assert(sizeof(BlockQ2_0) == 18);

struct BlockIQ4_NL {
    uint16_t d;
    uint8_t qs[16]; // nibbles index kValuesIq4nl, split halves as in Q4_0
};
static_assert(sizeof(BlockIQ4_NL) == 18);

struct BlockMXFP4 {
    uint8_t e;      // E8M0 shared exponent
    uint8_t qs[16]; // E2M1 nibbles, split halves as in Q4_0
};
static_assert(sizeof(BlockMXFP4) == 17);

struct BlockNVFP4 {
    uint8_t d[4];   // UE4M3 scale of each 16-element sub-block
    uint8_t qs[32]; // sub-block s uses qs[8s..8s+7]: low nibbles elements 0-7, high nibbles 8-15
};
static_assert(sizeof(BlockNVFP4) == 36);

// 256-element k-quant super-blocks (block_q2_K … block_q8_K); docs/FORMAT.md §4.3, the 6-bit scale packing §4.4.

struct BlockQ2_K {
    uint8_t scales[16]; // per 16 elements: low nibble scale, high nibble min
    uint8_t qs[64];     // 2-bit codes
    uint16_t d;         // f16 scale of the scales
    uint16_t dmin;      // f16 scale of the mins
};
static_assert(sizeof(BlockQ2_K) == 84);

struct BlockQ3_K {
    uint8_t hmask[32];  // third bit of each code (set means "no -4")
    uint8_t qs[64];     // low 2 bits of each code
    uint8_t scales[12]; // 16 6-bit scales
    uint16_t d;
};
static_assert(sizeof(BlockQ3_K) == 110);

struct BlockQ4_K {
    uint16_t d;
    uint16_t dmin;
    uint8_t scales[12]; // 8 6-bit scales and 8 6-bit mins
    uint8_t qs[128];
};
static_assert(sizeof(BlockQ4_K) == 144);

struct BlockQ5_K {
    uint16_t d;
    uint16_t dmin;
    uint8_t scales[12];
    uint8_t qh[32]; // fifth bit of each code
    uint8_t qs[128];
};
static_assert(sizeof(BlockQ5_K) == 176);

struct BlockQ6_K {
    uint8_t ql[128];   // low 4 bits
    uint8_t qh[64];    // high 2 bits
    int8_t scales[16]; // per 16 elements
    uint16_t d;
};
static_assert(sizeof(BlockQ6_K) == 210);

struct BlockQ8_K {
    float d;
    int8_t qs[256];
    int16_t bsums[16]; // sums of groups of 16 codes, for dot products only
};
static_assert(sizeof(BlockQ8_K) == 292);

// 256-element codebook super-blocks (block_iq*); docs/FORMAT.md §4.5.

struct BlockIQ2_XXS {
    uint16_t d;
    uint16_t qs[32]; // per 32 elements: 4 grid bytes, then a word of 4x7 sign bits + 4-bit scale
};
static_assert(sizeof(BlockIQ2_XXS) == 66);

struct BlockIQ2_XS {
    uint16_t d;
    uint16_t qs[32];   // 9-bit grid index + 7-bit sign index per 8 elements
    uint8_t scales[8]; // two 4-bit scales per 32 elements
};
static_assert(sizeof(BlockIQ2_XS) == 74);

struct BlockIQ2_S {
    uint16_t d;
    uint8_t qs[64]; // 32 low grid-index bytes, then 32 sign bytes
    uint8_t qh[8];  // top 2 index bits of each group of 8, per 32 elements
    uint8_t scales[8];
};
static_assert(sizeof(BlockIQ2_S) == 82);

struct BlockIQ3_XXS {
    uint16_t d;
    uint8_t qs[96]; // 64 grid bytes (one per 4 elements), then 8 words of 4x7 sign bits + scale
};
static_assert(sizeof(BlockIQ3_XXS) == 98);

struct BlockIQ3_S {
    uint16_t d;
    uint8_t qs[64];    // low 8 bits of the grid index, one per 4 elements
    uint8_t qh[8];     // 9th index bit, one byte per 32 elements
    uint8_t signs[32]; // one sign bit per element
    uint8_t scales[4]; // two 4-bit scales per 64 elements
};
static_assert(sizeof(BlockIQ3_S) == 110);

struct BlockIQ1_S {
    uint16_t d;
    uint8_t qs[32]; // low 8 bits of the grid index, one per 8 elements
    uint16_t qh[8]; // per 32 elements: 4x3 high index bits, 3-bit scale, delta sign (bit 15)
};
static_assert(sizeof(BlockIQ1_S) == 50);

struct BlockIQ1_M {
    uint8_t qs[32];    // low 8 bits of the grid index
    uint8_t qh[16];    // per 8+8 elements: 3 high index bits and the delta sign, twice
    uint8_t scales[8]; // 3-bit scales; the f16 block scale hides in the top nibbles
};
static_assert(sizeof(BlockIQ1_M) == 56);

struct BlockIQ4_XS {
    uint16_t d;
    uint16_t scales_h;   // top 2 bits of the 8 6-bit scales
    uint8_t scales_l[4]; // low 4 bits of the 8 scales
    uint8_t qs[128];     // nibbles indexing kValuesIq4nl, split halves per 32 elements
};
static_assert(sizeof(BlockIQ4_XS) == 136);

// Ternary blocks (block_tq1_0, block_tq2_0); docs/FORMAT.md §4.6. BitNet's I2_S has no block struct: its codes are
// packed 4 per byte over the whole tensor, followed by one f32 scale (§3.3).

struct BlockTQ1_0 {
    uint8_t qs[48]; // 5 trits per byte (3^5 = 243 < 256), stored as a base-3 fraction of 256
    uint8_t qh[4];  // 4 trits per byte, same encoding
    uint16_t d;
};
static_assert(sizeof(BlockTQ1_0) == 54);

struct BlockTQ2_0 {
    uint8_t qs[64]; // 2 bits per element; code q gives (q-1)*d
    uint16_t d;
};
static_assert(sizeof(BlockTQ2_0) == 66);

/// The 8 scales (out[0..7]) and 8 mins (out[8..15]) of the 12-byte `scales` field of a Q4_K or
/// Q5_K block, each 6 bits (docs/FORMAT.md §4.4; ggml's get_scale_min_k4): scales and mins 0-3 are
/// the low 6 bits of bytes 0-3 and 4-7; 4-7 take their low 4 bits from the nibbles of bytes 8-11
/// and their top 2 bits from the spare top bits of bytes 0-3 / 4-7. Done on 32-bit words, four
/// bytes at a time.
inline void unpackQ4KScaleMins(const uint8_t *packed, uint8_t *out)
{
    const auto word = [packed](int at) {
        return uint32_t{packed[at]} | uint32_t{packed[at + 1]} << 8 | uint32_t{packed[at + 2]} << 16 |
               uint32_t{packed[at + 3]} << 24;
    };
    const uint32_t w0 = word(0), w1 = word(4), w2 = word(8);
    constexpr uint32_t low6 = 0x3f3f3f3f, low4 = 0x0f0f0f0f, low2 = 0x03030303;
    const uint32_t words[4] = {w0 & low6, (w2 & low4) | (((w0 >> 6) & low2) << 4), w1 & low6,
                               ((w2 >> 4) & low4) | (((w1 >> 6) & low2) << 4)};
    if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(out, words, sizeof words);
    } else {
        for (int w = 0; w < 4; ++w)
            for (int k = 0; k < 4; ++k)
                out[4 * w + k] = static_cast<uint8_t>(words[w] >> (8 * k));
    }
}

/// The 16 signed scales of the 12-byte `scales` field of a Q3_K block, each 6 bits minus 32
/// (docs/FORMAT.md §4.3): the low 4 bits are the nibbles of bytes 0-7 (scales 0-7 the low
/// nibbles, 8-15 the high ones), the top 2 bits are in bytes 8-11 (byte 8 + j%4, bit pair j/4).
inline std::array<int, 16> unpackQ3Scales(const uint8_t *s)
{
    std::array<int, 16> out{};
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? (s[j] & 0x0f) : (s[j - 8] >> 4);
        const int high = (s[8 + (j & 3)] >> (2 * (j >> 2))) & 3;
        out[j] = (low | (high << 4)) - 32;
    }
    return out;
}

} // namespace gguf
