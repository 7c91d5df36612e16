// SPDX-License-Identifier: GPL-3.0-or-later
// k-quant super-blocks of 256 elements (block_q2_K … block_q8_K in ggml src/ggml-common.h; docs/FORMAT.md §4.3).
// Sub-block scales are small integers multiplied by an f16 super-block scale; the float
// operations happen in ggml's order: (d * scale) first, then times the code, then minus the min.
#include "core/format/ggml_blocks.h"
#include "core/util/float_convert.h"
#include "dequantize_blocks.h"
#include "x86/kernels.h"

#include <array>
#include <cstddef>

namespace gguf::detail {

void decodeQ2_K(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ2_KAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ2_K>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ2_K, d)));
        const float dmin = fp16ToFp32(loadU16(b + offsetof(BlockQ2_K, dmin)));
        const uint8_t *scales = b + offsetof(BlockQ2_K, scales);
        int is = 0;
        // two halves of 128 elements, each from 32 bytes read four times at shifts 0, 2, 4, 6
        for (int half = 0; half < 2; ++half) {
            const uint8_t *q = b + offsetof(BlockQ2_K, qs) + 32 * half;
            for (int shift = 0; shift < 8; shift += 2) {
                for (int part = 0; part < 2; ++part, ++is, dst += 16) {
                    const uint8_t sc = scales[is];
                    const float dl = d * static_cast<float>(sc & 0x0f);
                    const float ml = dmin * static_cast<float>(sc >> 4);
                    for (int l = 0; l < 16; ++l)
                        dst[l] = dl * static_cast<float>((q[16 * part + l] >> shift) & 3) - ml;
                }
            }
        }
    }
}

void decodeQ3_K(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ3_KAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ3_K>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ3_K, d)));
        const std::array<int, 16> scales = unpackQ3Scales(b + offsetof(BlockQ3_K, scales));
        const uint8_t *hmask = b + offsetof(BlockQ3_K, hmask);
        int is = 0;
        int maskBit = 0; // hmask bit 0..7, one per group of 32 elements
        for (int half = 0; half < 2; ++half) {
            const uint8_t *q = b + offsetof(BlockQ3_K, qs) + 32 * half;
            for (int shift = 0; shift < 8; shift += 2, ++maskBit) {
                for (int part = 0; part < 2; ++part, ++is, dst += 16) {
                    const float dl = d * static_cast<float>(scales[is]);
                    for (int l = 0; l < 16; ++l) {
                        const int k = 16 * part + l;
                        const int low = (q[k] >> shift) & 3;
                        // a clear hmask bit subtracts 4
                        const int minus = (~hmask[k] >> maskBit & 1) << 2;
                        dst[l] = dl * static_cast<float>(low - minus);
                    }
                }
            }
        }
    }
}

void decodeQ4_K(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeQ4_KAvx512(src, nBlocks, dst);
        return;
    }
    if (cpuHasAvx2()) {
        decodeQ4_KAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ4_K>(src, i);
        const KSubBlockFactors f = kSubBlockFactors<BlockQ4_K>(b);
        // four chunks of 64: low nibbles of 32 bytes, then their high nibbles
        for (int chunk = 0; chunk < 4; ++chunk) {
            const uint8_t *q = b + offsetof(BlockQ4_K, qs) + 32 * chunk;
            const float d1 = f.scale[2 * chunk], m1 = f.min[2 * chunk];
            const float d2 = f.scale[2 * chunk + 1], m2 = f.min[2 * chunk + 1];
            for (int l = 0; l < 32; ++l)
                dst[l] = d1 * static_cast<float>(q[l] & 0x0f) - m1;
            for (int l = 0; l < 32; ++l)
                dst[32 + l] = d2 * static_cast<float>(q[l] >> 4) - m2;
            dst += 64;
        }
    }
}

void decodeQ5_K(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeQ5_KAvx512(src, nBlocks, dst);
        return;
    }
    if (cpuHasAvx2()) {
        decodeQ5_KAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ5_K>(src, i);
        const KSubBlockFactors f = kSubBlockFactors<BlockQ5_K>(b);
        for (int chunk = 0; chunk < 4; ++chunk) {
            const uint8_t *q = b + offsetof(BlockQ5_K, qs) + 32 * chunk;
            const float d1 = f.scale[2 * chunk], m1 = f.min[2 * chunk];
            const float d2 = f.scale[2 * chunk + 1], m2 = f.min[2 * chunk + 1];
            // the fifth bits of this chunk are bits 2*chunk (low half) and 2*chunk+1 (high half) of qh
            const int bitLo = 2 * chunk;
            const int bitHi = 2 * chunk + 1;
            const uint8_t *qh = b + offsetof(BlockQ5_K, qh);
            for (int l = 0; l < 32; ++l) {
                const int code = (q[l] & 0x0f) + (((qh[l] >> bitLo) & 1) << 4);
                dst[l] = d1 * static_cast<float>(code) - m1;
            }
            for (int l = 0; l < 32; ++l) {
                const int code = (q[l] >> 4) + (((qh[l] >> bitHi) & 1) << 4);
                dst[32 + l] = d2 * static_cast<float>(code) - m2;
            }
            dst += 64;
        }
    }
}

void decodeQ6_K(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx2()) {
        decodeQ6_KAvx2(src, nBlocks, dst);
        return;
    }
#endif
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ6_K>(src, i);
        const float d = fp16ToFp32(loadU16(b + offsetof(BlockQ6_K, d)));
        const auto *scales = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ6_K, scales));
        // two halves of 128: 64 low-nibble bytes, 32 high-bit bytes and 8 scales each
        for (int half = 0; half < 2; ++half, dst += 128) {
            const uint8_t *ql = b + offsetof(BlockQ6_K, ql) + 64 * half;
            const uint8_t *qh = b + offsetof(BlockQ6_K, qh) + 32 * half;
            // (d * scale) first, as ggml evaluates d * sc * q left to right
            float ds[8];
            for (int k = 0; k < 8; ++k)
                ds[k] = d * static_cast<float>(scales[8 * half + k]);
            for (int part = 0; part < 2; ++part) {
                for (int l = 16 * part; l < 16 * part + 16; ++l) {
                    const int q1 = ((ql[l] & 0x0f) | (((qh[l] >> 0) & 3) << 4)) - 32;
                    const int q2 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
                    const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
                    const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
                    dst[l] = ds[part] * static_cast<float>(q1);
                    dst[l + 32] = ds[part + 2] * static_cast<float>(q2);
                    dst[l + 64] = ds[part + 4] * static_cast<float>(q3);
                    dst[l + 96] = ds[part + 6] * static_cast<float>(q4);
                }
            }
        }
    }
}

void decodeQ8_K(const uint8_t *__restrict src, size_t nBlocks, float *__restrict dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 256) {
        const uint8_t *b = blockAt<BlockQ8_K>(src, i);
        const float d = std::bit_cast<float>(loadU32(b + offsetof(BlockQ8_K, d)));
        const auto *qs = reinterpret_cast<const int8_t *>(b + offsetof(BlockQ8_K, qs));
        for (int j = 0; j < 256; ++j)
            dst[j] = d * static_cast<float>(qs[j]);
    }
}

} // namespace gguf::detail
