// SPDX-License-Identifier: GPL-3.0-or-later
// Blocks of 32 to 128 elements sharing one scale (or four, for NVFP4). Layouts follow ggml's
// block_* structs in src/ggml-common.h; the arithmetic mirrors ggml's dequantize_row_* exactly.
#include "core/dequantize_blocks.h"
#include "core/float_convert.h"
#include "core/quant_tables.h"

#include <cstddef>

namespace gguf::detail {
namespace {

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

// The fifth bits of Q5_0/Q5_1 as 0 or 16, element j in byte j (qh bit j is element j's bit).
inline uint8_t highBit16(uint32_t qh, int j)
{
    return static_cast<uint8_t>((qh & (1u << j)) != 0) << 4;
}

} // namespace

// Every decoder reads its blocks in place; __restrict tells the compiler the output never
// overlaps the input, so it vectorizes without runtime overlap checks.

void decodeQ4_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ4_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ4_0, d)));
        const uint8_t *qs = b + offsetof(BlockQ4_0, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = static_cast<float>((qs[j] & 0x0f) - 8) * d;
            dst[j + 16] = static_cast<float>((qs[j] >> 4) - 8) * d;
        }
    }
}

void decodeQ4_1(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ4_1>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ4_1, d)));
        const float m = fp16ToFp32(loadU16(b + offsetof(BlockQ4_1, m)));
        const uint8_t *qs = b + offsetof(BlockQ4_1, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = static_cast<float>(qs[j] & 0x0f) * d + m;
            dst[j + 16] = static_cast<float>(qs[j] >> 4) * d + m;
        }
    }
}

void decodeQ5_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ5_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ5_0, d)));
        const uint32_t qh = loadU32(b + offsetof(BlockQ5_0, qh));
        const uint8_t *qs = b + offsetof(BlockQ5_0, qs);
        for (int j = 0; j < 16; ++j) {
            const int lo = ((qs[j] & 0x0f) | highBit16(qh, j)) - 16;
            const int hi = ((qs[j] >> 4) | highBit16(qh, j + 16)) - 16;
            dst[j] = static_cast<float>(lo) * d;
            dst[j + 16] = static_cast<float>(hi) * d;
        }
    }
}

void decodeQ5_1(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ5_1>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ5_1, d)));
        const float m = fp16ToFp32(loadU16(b + offsetof(BlockQ5_1, m)));
        const uint32_t qh = loadU32(b + offsetof(BlockQ5_1, qh));
        const uint8_t *qs = b + offsetof(BlockQ5_1, qs);
        for (int j = 0; j < 16; ++j) {
            const unsigned lo = (qs[j] & 0x0fu) | highBit16(qh, j);
            const unsigned hi = (qs[j] >> 4) | highBit16(qh, j + 16);
            dst[j] = static_cast<float>(lo) * d + m;
            dst[j + 16] = static_cast<float>(hi) * d + m;
        }
    }
}

void decodeQ8_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ8_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ8_0, d)));
        const auto *qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_0, qs));
        for (int j = 0; j < 32; ++j)
            dst[j] = static_cast<float>(qs[j]) * d;
    }
}

void decodeQ8_1(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    // ggml has no to_float for Q8_1; decode it the way Q8_0 is decoded (value = q * d)
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ8_1>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ8_1, d)));
        const auto *qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_1, qs));
        for (int j = 0; j < 32; ++j)
            dst[j] = static_cast<float>(qs[j]) * d;
    }
}

void decodeQ1_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 128) {
        const uint8_t *b = blockAt<BlockQ1_0>(src, i);
        const uint32_t d = std::bit_cast<uint32_t>(fp16ToFp32(loadU16(b + offsetof(BlockQ1_0, d))));
        const uint8_t *qs = b + offsetof(BlockQ1_0, qs);
        for (int byte = 0; byte < 16; ++byte) {
            // a clear bit selects -d: flipping d's sign bit is exactly the negation
            const uint32_t *flip = kSignMasks[static_cast<uint8_t>(~qs[byte])].data();
            for (int k = 0; k < 8; ++k)
                dst[8 * byte + k] = std::bit_cast<float>(d ^ flip[k]);
        }
    }
}

void decodeQ2_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 64) {
        const uint8_t *b = blockAt<BlockQ2_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ2_0, d)));
        const uint8_t *qs = b + offsetof(BlockQ2_0, qs);
        for (int byte = 0; byte < 16; ++byte) {
            const int bits = qs[byte];
            for (int k = 0; k < 4; ++k)
                dst[4 * byte + k] = static_cast<float>(((bits >> (2 * k)) & 3) - 1) * d;
        }
    }
}

void decodeIQ4_NL(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockIQ4_NL>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ4_NL, d)));
        const uint8_t *qs = b + offsetof(BlockIQ4_NL, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = d * tables::kValuesIq4nlFloat[qs[j] & 0x0f];
            dst[j + 16] = d * tables::kValuesIq4nlFloat[qs[j] >> 4];
        }
    }
}

void decodeMXFP4(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockMXFP4>(src, i);
        const float d = e8m0ToFp32Half(b[offsetof(BlockMXFP4, e)]);
        const uint8_t *qs = b + offsetof(BlockMXFP4, qs);
        for (int j = 0; j < 16; ++j) {
            dst[j] = tables::kValuesFp4Float[qs[j] & 0x0f] * d;
            dst[j + 16] = tables::kValuesFp4Float[qs[j] >> 4] * d;
        }
    }
}

void decodeNVFP4(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockNVFP4>(src, i);
        for (int s = 0; s < 4; ++s, dst += 16) {
            const float d = kUe4m3HalfTable[b[offsetof(BlockNVFP4, d) + s]];
            const uint8_t *q = b + offsetof(BlockNVFP4, qs) + 8 * s;
            for (int j = 0; j < 8; ++j) {
                dst[j] = tables::kValuesFp4Float[q[j] & 0x0f] * d;
                dst[j + 8] = tables::kValuesFp4Float[q[j] >> 4] * d;
            }
        }
    }
}

} // namespace gguf::detail
