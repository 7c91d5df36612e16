// SPDX-License-Identifier: GPL-3.0-or-later
// The "i-quants": 256-element super-blocks whose groups of 4 or 8 values are indices into the
// codebooks of core/quant_tables.h (block_iq* in ggml src/ggml-common.h; docs/FORMAT.md §4.5). Each group's float
// scale is computed once in ggml's operation order, then value = scale * magnitude * sign.
#include "core/format/ggml_blocks.h"
#include "core/quant/quant_tables.h"
#include "core/util/float_convert.h"
#include "dequantize_blocks.h"
#include "x86/kernels.h"

#include <cstddef>

namespace gguf::detail {
namespace {

using tables::kSignsIq2xs;

// x with its sign bit flipped where `mask` has it: a branch-free negation.
inline float flipSign(float x, uint32_t mask)
{
    return std::bit_cast<float>(std::bit_cast<uint32_t>(x) ^ mask);
}

// The codebooks with their magnitude bytes as floats (exact), built once on first use: the inner
// loops then only multiply, flip signs and store, which vectorizes without byte conversions.
template <size_t Width, typename Point, size_t N>
void toFloatRows(const std::array<Point, N> &grid, std::array<std::array<float, Width>, N> &rows)
{
    for (size_t i = 0; i < N; ++i)
        for (size_t j = 0; j < Width; ++j)
            rows[i][j] = static_cast<float>(static_cast<uint8_t>(grid[i] >> (8 * j)));
}

struct FloatGrids {
    std::array<std::array<float, 8>, 256> iq2xxs;
    std::array<std::array<float, 8>, 512> iq2xs;
    std::array<std::array<float, 8>, 1024> iq2s;
    std::array<std::array<float, 4>, 256> iq3xxs;
    std::array<std::array<float, 4>, 512> iq3s;

    FloatGrids()
    {
        toFloatRows(tables::kIq2xxsGrid, iq2xxs);
        toFloatRows(tables::kIq2xsGrid, iq2xs);
        toFloatRows(tables::kIq2sGrid, iq2s);
        toFloatRows(tables::kIq3xxsGrid, iq3xxs);
        toFloatRows(tables::kIq3sGrid, iq3s);
    }
};

const FloatGrids &floatGrids()
{
    static const FloatGrids grids; // 68 KiB, constructed in place
    return grids;
}

// Eight values db * magnitude, negated where the sign byte has the element's bit.
inline void emitSigned8(float db, const float *magnitude, uint8_t signs, float *__restrict y)
{
    const uint32_t *mask = kSignMasks[signs].data();
    for (int j = 0; j < 8; ++j)
        y[j] = flipSign(db * magnitude[j], mask[j]);
}

// Four values db * magnitude with sign masks applied. Written with a 16-byte vector type:
// left to itself, GCC merges the two halves of an IQ3 group into one vector lane by lane.
inline void emitSigned4(float db, const float *magnitude, const uint32_t *mask, float *__restrict y)
{
    using Float4 = float __attribute__((vector_size(16)));
    using Uint4 = uint32_t __attribute__((vector_size(16)));
    Float4 m;
    Uint4 flip;
    std::memcpy(&m, magnitude, sizeof m);
    std::memcpy(&flip, mask, sizeof flip);
    const Float4 v = db * m;
    Uint4 bits;
    std::memcpy(&bits, &v, sizeof bits);
    bits ^= flip;
    std::memcpy(y, &bits, sizeof bits);
}

// Same for the two 4-magnitude points of IQ3 (elements 0-3 and 4-7 of the group).
inline void emitSigned4x2(float db, const float *first, const float *second, uint8_t signs, float *__restrict y)
{
    const uint32_t *mask = kSignMasks[signs].data();
    emitSigned4(db, first, mask, y);
    emitSigned4(db, second, mask + 4, y + 4);
}

// The 4-bit group scales of IQ2 and IQ3_XXS: d * (0.5 + s) * factor, in that order.
inline float halfStepScale(float d, uint32_t s, float factor)
{
    return d * (0.5f + static_cast<float>(s)) * factor;
}

// The IQ1 grid as floats (64 KiB, built on first use), for the portable decoders: converting
// the int8 grid bytes lane by lane is what GCC's SSE2 code does badly.
struct Iq1FloatGrid {
    std::array<std::array<float, 8>, 2048> rows;

    Iq1FloatGrid()
    {
        for (size_t i = 0; i < rows.size(); ++i)
            for (size_t j = 0; j < 8; ++j)
                rows[i][j] = static_cast<float>(static_cast<int8_t>(tables::kIq1sGrid[i] >> (8 * j)));
    }
};

const Iq1FloatGrid &iq1FloatGrid()
{
    static const Iq1FloatGrid grid;
    return grid;
}

// Eight IQ1 values dl * (grid + delta), grid values -1/0/+1.
inline void emitIq1(float dl, float delta, const float *grid, float *__restrict y)
{
    for (int j = 0; j < 8; ++j)
        y[j] = dl * (grid[j] + delta);
}

} // namespace

GGUF_DECODER_CLONES void decodeIQ2_XXS(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    const FloatGrids &grids = floatGrids();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ2_XXS>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ2_XXS, d)));
        const uint8_t *qs = b + offsetof(BlockIQ2_XXS, qs);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t *group = qs + 8 * ib;
            const uint32_t signsAndScale = loadU32(group + 4);
            const float db = halfStepScale(d, signsAndScale >> 28, 0.25f);
            for (int l = 0; l < 4; ++l, dst += 8) {
                const uint8_t signs = kSignsIq2xs[(signsAndScale >> (7 * l)) & 127];
                emitSigned8(db, grids.iq2xxs[group[l]].data(), signs, dst);
            }
        }
    }
}

GGUF_DECODER_CLONES void decodeIQ2_XS(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    const FloatGrids &grids = floatGrids();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ2_XS>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ2_XS, d)));
        const uint8_t *qs = b + offsetof(BlockIQ2_XS, qs);
        const uint8_t *scales = b + offsetof(BlockIQ2_XS, scales);
        for (int ib = 0; ib < 8; ++ib) {
            const float db[2] = {halfStepScale(d, scales[ib] & 0x0fu, 0.25f), halfStepScale(d, scales[ib] >> 4, 0.25f)};
            for (int l = 0; l < 4; ++l, dst += 8) {
                const uint16_t q = loadU16(qs + 2 * (4 * ib + l));
                emitSigned8(db[l / 2], grids.iq2xs[q & 511].data(), kSignsIq2xs[q >> 9], dst);
            }
        }
    }
}

GGUF_DECODER_CLONES void decodeIQ2_S(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    const FloatGrids &grids = floatGrids();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ2_S>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ2_S, d)));
        const uint8_t *qh = b + offsetof(BlockIQ2_S, qh);
        const uint8_t *scales = b + offsetof(BlockIQ2_S, scales);
        for (int ib = 0; ib < 8; ++ib) {
            const float db[2] = {halfStepScale(d, scales[ib] & 0x0fu, 0.25f), halfStepScale(d, scales[ib] >> 4, 0.25f)};
            const uint8_t *qs = b + offsetof(BlockIQ2_S, qs) + 4 * ib;
            const uint8_t *signs = b + offsetof(BlockIQ2_S, qs) + 32 + 4 * ib;
            for (int l = 0; l < 4; ++l, dst += 8) {
                // bits 2l, 2l+1 of qh[ib] are index bits 8 and 9
                const unsigned index = qs[l] | (((qh[ib] >> (2 * l)) & 3u) << 8);
                emitSigned8(db[l / 2], grids.iq2s[index].data(), signs[l], dst);
            }
        }
    }
}

void decodeIQ3_XXS(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    const FloatGrids &grids = floatGrids();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ3_XXS>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ3_XXS, d)));
        const uint8_t *qsAll = b + offsetof(BlockIQ3_XXS, qs);
        for (int ib = 0; ib < 8; ++ib) {
            const uint8_t *qs = qsAll + 8 * ib;
            const uint32_t signsAndScale = loadU32(qsAll + 64 + 4 * ib);
            const float db = halfStepScale(d, signsAndScale >> 28, 0.5f);
            for (int l = 0; l < 4; ++l, dst += 8) {
                const uint8_t signs = kSignsIq2xs[(signsAndScale >> (7 * l)) & 127];
                emitSigned4x2(db, grids.iq3xxs[qs[2 * l]].data(), grids.iq3xxs[qs[2 * l + 1]].data(), signs, dst);
            }
        }
    }
}

void decodeIQ3_S(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    const FloatGrids &grids = floatGrids();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ3_S>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ3_S, d)));
        const uint8_t *qh = b + offsetof(BlockIQ3_S, qh);
        const uint8_t *scales = b + offsetof(BlockIQ3_S, scales);
        for (int ib = 0; ib < 8; ++ib) {
            // odd scales 1..31: the low nibble serves even groups, the high nibble odd ones
            const int nibble = (scales[ib / 2] >> (4 * (ib & 1))) & 0x0f;
            const float db = d * static_cast<float>(1 + 2 * nibble);
            const uint8_t *qs = b + offsetof(BlockIQ3_S, qs) + 8 * ib;
            const uint8_t *signs = b + offsetof(BlockIQ3_S, signs) + 4 * ib;
            for (int l = 0; l < 4; ++l, dst += 8) {
                // bits 2l and 2l+1 of qh[ib] are the 9th index bits of the two points
                const unsigned firstIndex = qs[2 * l] | (((qh[ib] >> (2 * l)) & 1u) << 8);
                const unsigned secondIndex = qs[2 * l + 1] | (((qh[ib] >> (2 * l + 1)) & 1u) << 8);
                emitSigned4x2(db, grids.iq3s[firstIndex].data(), grids.iq3s[secondIndex].data(), signs[l], dst);
            }
        }
    }
}

void decodeIQ1_S(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeIQ1_SAvx2(src, nBlocks, dst);
        return;
    }
#endif
    const Iq1FloatGrid &grid = iq1FloatGrid();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ1_S>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ1_S, d)));
        const uint8_t *qs = b + offsetof(BlockIQ1_S, qs);
        for (int ib = 0; ib < 8; ++ib) {
            const unsigned qh = loadU16(b + offsetof(BlockIQ1_S, qh) + 2 * ib);
            const float dl = d * static_cast<float>(2 * ((qh >> 12) & 7) + 1);
            const float delta = iq1Delta(qh & 0x8000u);
            for (int l = 0; l < 4; ++l, dst += 8) {
                const unsigned index = qs[4 * ib + l] | (((qh >> (3 * l)) & 7u) << 8);
                emitIq1(dl, delta, grid.rows[index].data(), dst);
            }
        }
    }
}

void decodeIQ1_M(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeIQ1_MAvx2(src, nBlocks, dst);
        return;
    }
#endif
    const Iq1FloatGrid &grid = iq1FloatGrid();
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ1_M>(src, i);
        const std::array<float, 16> groupScales = iq1mGroupScales(b);
        for (int ib = 0; ib < 8; ++ib) {
            const float *dl = &groupScales[2 * ib];
            const uint8_t *qs = b + offsetof(BlockIQ1_M, qs) + 4 * ib;
            const uint8_t *qh = b + offsetof(BlockIQ1_M, qh) + 2 * ib;
            for (int l = 0; l < 4; ++l, dst += 8) {
                // each qh byte serves two groups: low nibble for the first, high for the second
                const unsigned nibble = (qh[l / 2] >> (4 * (l & 1))) & 0x0fu;
                const unsigned index = qs[l] | ((nibble & 7u) << 8);
                emitIq1(dl[l / 2], iq1Delta(nibble & 8u), grid.rows[index].data(), dst);
            }
        }
    }
}

void decodeIQ4_XS(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeIQ4_XSAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockIQ4_XS>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockIQ4_XS, d)));
        const unsigned scales_h = loadU16(b + offsetof(BlockIQ4_XS, scales_h));
        const uint8_t *scales_l = b + offsetof(BlockIQ4_XS, scales_l);
        for (int ib = 0; ib < 8; ++ib, dst += 32) {
            const int low = (scales_l[ib / 2] >> (4 * (ib & 1))) & 0x0f;
            const int high = (scales_h >> (2 * ib)) & 3;
            const float dl = d * static_cast<float>((low | (high << 4)) - 32);
            const uint8_t *qs = b + offsetof(BlockIQ4_XS, qs) + 16 * ib;
            for (int j = 0; j < 16; ++j) {
                dst[j] = dl * tables::kValuesIq4nlFloat[qs[j] & 0x0f];
                dst[j + 16] = dl * tables::kValuesIq4nlFloat[qs[j] >> 4];
            }
        }
    }
}

} // namespace gguf::detail
