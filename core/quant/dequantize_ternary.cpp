// SPDX-License-Identifier: GPL-3.0-or-later
// Ternary weights: ggml's TQ1_0 / TQ2_0 (block_tq1_0, block_tq2_0 in src/ggml-common.h; docs/FORMAT.md §4.6) and
// BitNet's I2_S (fork id 36, layout in docs/FORMAT.md §3.3).
#include "core/format/ggml_blocks.h"
#include "core/util/float_convert.h"
#include "dequantize_blocks.h"
#include "x86/kernels.h"

#include <array>
#include <cstddef>

namespace gguf::detail {
namespace {

constexpr std::array<uint8_t, 5> kPow3 = {1, 3, 9, 27, 81};

// Trit n of a packed byte: multiplying by 3^n (mod 256) brings it to the top, *3 >> 8 reads it.
inline float trit(uint8_t packed, int n, float d)
{
    const uint8_t shifted = static_cast<uint8_t>(packed * kPow3[n]);
    const int value = (static_cast<uint16_t>(shifted) * 3) >> 8;
    return static_cast<float>(value - 1) * d;
}

// I2_S code → value: 0, 1, 2, 3 mean -1, 0, +1, 0 (computed, not looked up, so it vectorizes).
inline float i2sValue(unsigned code)
{
    // odd codes are 0: mask code - 1 with all-ones for even codes, zero for odd ones
    return static_cast<float>((static_cast<int>(code) - 1) & -static_cast<int>(~code & 1u));
}

} // namespace

GGUF_DECODER_CLONES void decodeTQ1_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeTQ1_0Avx512(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockTQ1_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockTQ1_0, d)));
        const uint8_t *qs = b + offsetof(BlockTQ1_0, qs);
        const uint8_t *qh = b + offsetof(BlockTQ1_0, qh);
        // qs[0..31] hold elements 0..159 (trit n of byte m is element 32n+m)
        for (int n = 0; n < 5; ++n, dst += 32)
            for (int m = 0; m < 32; ++m)
                dst[m] = trit(qs[m], n, d);
        // qs[32..47] hold elements 160..239 (trit n of byte 32+m is element 160+16n+m)
        for (int n = 0; n < 5; ++n, dst += 16)
            for (int m = 0; m < 16; ++m)
                dst[m] = trit(qs[32 + m], n, d);
        // qh holds elements 240..255 (trit n of byte m is element 240+4n+m)
        for (int n = 0; n < 4; ++n, dst += 4)
            for (int m = 0; m < 4; ++m)
                dst[m] = trit(qh[m], n, d);
    }
}

void decodeTQ2_0(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeTQ2_0Avx512(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockTQ2_0>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockTQ2_0, d)));
        // each 32-byte half holds 128 elements: bits 2l of byte m is element 32l+m
        for (int half = 0; half < 2; ++half) {
            const uint8_t *q = b + offsetof(BlockTQ2_0, qs) + 32 * half;
            for (int l = 0; l < 4; ++l, dst += 32)
                for (int m = 0; m < 32; ++m)
                    dst[m] = static_cast<float>(((q[m] >> (2 * l)) & 3) - 1) * d;
        }
    }
}

void decodeI2_S(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, src += 32, dst += 128) {
        // byte g holds elements g, 32+g, 64+g, 96+g from its top bit pair down
        for (int g = 0; g < 32; ++g) {
            const unsigned byte = src[g];
            dst[g] = i2sValue(byte >> 6);
            dst[32 + g] = i2sValue((byte >> 4) & 3);
            dst[64 + g] = i2sValue((byte >> 2) & 3);
            dst[96 + g] = i2sValue(byte & 3);
        }
    }
}

} // namespace gguf::detail
