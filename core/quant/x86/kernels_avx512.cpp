// SPDX-License-Identifier: GPL-3.0-or-later
// AVX-512 decoders (F, BW, VL, DQ), chosen over the AVX2 ones by cpuHasAvx512(): the types where
// ggml's own scalar loops, compiled with -march=native, came close to or passed the AVX2 kernels
// (README.md, "Dequantization against ggml built for this CPU"). Layouts in docs/FORMAT.md §4.
//
// Most of them decode through a small table of floats: a block's 16 or 32 possible values are
// computed once with the portable decoder's float operations (so each is bit-identical), and
// vpermps then picks 16 of them at a time by the codes — the index uses only the low 4 bits of
// each lane (5 with two tables), so most masking disappears.
#include "../dequantize_blocks.h"
#include "core/format/ggml_blocks.h"
#include "core/util/float_convert.h"
#include "kernels.h"

#include <cstring>

#if GGUF_X86_KERNELS

namespace gguf::detail {
namespace {

/// 16 bytes at p, zero-extended to 16 int32 lanes.
GGUF_AVX512 inline __m512i bytesToLanes(const uint8_t *p)
{
    return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i *>(p)));
}

/// The f16 at p as a float by the F16C instruction (the same value as fp16ToFp32, in one
/// instruction instead of a dozen).
GGUF_AVX512 inline float halfAt(const uint8_t *p)
{
    return _cvtsh_ss(loadU16(p));
}

/// The sub-block factors of a Q4_K or Q5_K block (kSubBlockFactors): the 8 scales and 8 mins
/// times d and dmin, 16 products in one instruction.
template <typename Block> GGUF_AVX512 inline KSubBlockFactors kFactorsAvx512(const uint8_t *block)
{
    uint8_t scaleMin[16]; // scales 0-7, then mins 0-7
    unpackQ4KScaleMins(block + offsetof(Block, scales), scaleMin);
    const __m512 factor = _mm512_insertf32x8(_mm512_set1_ps(halfAt(block + offsetof(Block, d))),
                                             _mm256_set1_ps(halfAt(block + offsetof(Block, dmin))), 1);
    KSubBlockFactors f;
    static_assert(sizeof f == 16 * sizeof(float) && offsetof(KSubBlockFactors, min) == 8 * sizeof(float));
    _mm512_storeu_ps(&f, _mm512_mul_ps(_mm512_cvtepi32_ps(bytesToLanes(scaleMin)), factor));
    return f;
}

/// 16 bf16 as floats (a bf16 is the top half of an f32).
GGUF_AVX512 inline __m512 widenBF16(__m256i h)
{
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/// 16 f16 as floats: vcvtph2ps gives exactly fp16ToFp32's results (quiet NaNs, exact subnormals).
GGUF_AVX512 inline __m512 widenF16(__m256i h)
{
    return _mm512_cvtph_ps(h);
}

/// The table scale * code - offset for the codes in `codes` (small integers as floats), rounded as
/// the portable loop rounds it: a product, then a true subtraction (a fused multiply-subtract would
/// give the same finite values, since every product here is exact, but another NaN when 0 · ∞
/// meets a NaN offset).
GGUF_AVX512 inline __m512 affineTable(__m512 codes, float scale, float offset)
{
    return _mm512_sub_ps(_mm512_mul_ps(codes, _mm512_set1_ps(scale)), _mm512_set1_ps(offset));
}

/// Bitwise select: bits of `low` where `mask` is set, bits of `high` elsewhere (vpternlogd).
GGUF_AVX512 inline __m512i selectBits(__m512i mask, __m512i low, __m512i high)
{
    // truth table of (A & B) | (~A & C) with A = mask, B = low, C = high
    return _mm512_ternarylogic_epi32(mask, low, high, 0xCA);
}

/// Each lane shifted so that its bit `bit` (0-7) lands on bit 4.
GGUF_AVX512 inline __m512i moveBitTo4(__m512i v, int bit)
{
    return bit <= 4 ? _mm512_sll_epi32(v, _mm_cvtsi32_si128(4 - bit)) : _mm512_srl_epi32(v, _mm_cvtsi32_si128(bit - 4));
}

} // namespace

GGUF_AVX512_KERNEL void decodeQ4_KAvx512(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m512 codes = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ4_K>(src, i);
        const KSubBlockFactors f = kFactorsAvx512<BlockQ4_K>(b);
        const uint8_t *qs = b + offsetof(BlockQ4_K, qs);
        for (int chunk = 0; chunk < 4; ++chunk, dst += 64) {
            // elements 0-31 are the low nibbles of 32 bytes, 32-63 their high nibbles
            const __m512 low = affineTable(codes, f.scale[2 * chunk], f.min[2 * chunk]);
            const __m512 high = affineTable(codes, f.scale[2 * chunk + 1], f.min[2 * chunk + 1]);
            for (int part = 0; part < 2; ++part) {
                const __m512i q = bytesToLanes(qs + 32 * chunk + 16 * part);
                _mm512_storeu_ps(dst + 16 * part, _mm512_permutexvar_ps(q, low));
                _mm512_storeu_ps(dst + 32 + 16 * part, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), high));
            }
        }
    }
}

GGUF_AVX512_KERNEL void decodeQ5_KAvx512(const uint8_t *src, size_t nBlocks, float *dst)
{
    const __m512i lowNibble = _mm512_set1_epi32(0x0f);
    const __m512 codes0 = _mm512_setr_ps(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const __m512 codes1 = _mm512_add_ps(codes0, _mm512_set1_ps(16));
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockQ5_K>(src, i);
        const KSubBlockFactors f = kFactorsAvx512<BlockQ5_K>(b);
        const uint8_t *qs = b + offsetof(BlockQ5_K, qs);
        const __m512i qh[2] = {bytesToLanes(b + offsetof(BlockQ5_K, qh)),
                               bytesToLanes(b + offsetof(BlockQ5_K, qh) + 16)};
        for (int chunk = 0; chunk < 4; ++chunk, dst += 64) {
            // codes 0-15 and 16-31 of each half: permutex2var takes bit 4 of the index as the table
            const float d1 = f.scale[2 * chunk], m1 = f.min[2 * chunk];
            const float d2 = f.scale[2 * chunk + 1], m2 = f.min[2 * chunk + 1];
            const __m512 low0 = affineTable(codes0, d1, m1), low1 = affineTable(codes1, d1, m1);
            const __m512 high0 = affineTable(codes0, d2, m2), high1 = affineTable(codes1, d2, m2);
            for (int part = 0; part < 2; ++part) {
                const __m512i q = bytesToLanes(qs + 32 * chunk + 16 * part);
                // bit 2*chunk (low nibbles) or 2*chunk+1 (high nibbles) of qh moved to bit 4
                const __m512i h = qh[part];
                const __m512i hLo = moveBitTo4(h, 2 * chunk);
                const __m512i hHi = moveBitTo4(h, 2 * chunk + 1);
                const __m512i codeLo = selectBits(lowNibble, q, hLo);
                const __m512i codeHi = selectBits(lowNibble, _mm512_srli_epi32(q, 4), hHi);
                _mm512_storeu_ps(dst + 16 * part, _mm512_permutex2var_ps(low0, codeLo, low1));
                _mm512_storeu_ps(dst + 32 + 16 * part, _mm512_permutex2var_ps(high0, codeHi, high1));
            }
        }
    }
}

GGUF_AVX512_KERNEL void decodeTQ2_0Avx512(const uint8_t *src, size_t nBlocks, float *dst)
{
    // code q gives (q - 1) * d; the table repeats the four values so that bits 2-3 of the index
    // (the next code up) do not matter
    const __m512 codesMinusOne = _mm512_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockTQ2_0>(src, i);
        const __m512 values = _mm512_mul_ps(codesMinusOne, _mm512_set1_ps(halfAt(b + offsetof(BlockTQ2_0, d))));
        // each 32-byte half holds 128 elements: bits 2l of byte m is element 32l+m
        for (int half = 0; half < 2; ++half, dst += 128) {
            for (int part = 0; part < 2; ++part) {
                const __m512i q = bytesToLanes(b + offsetof(BlockTQ2_0, qs) + 32 * half + 16 * part);
                _mm512_storeu_ps(dst + 16 * part, _mm512_permutexvar_ps(q, values));
                _mm512_storeu_ps(dst + 32 + 16 * part, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 2), values));
                _mm512_storeu_ps(dst + 64 + 16 * part, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), values));
                _mm512_storeu_ps(dst + 96 + 16 * part, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 6), values));
            }
        }
    }
}

namespace {

/// Trit n of each 16-bit lane's byte b (docs/FORMAT.md §4.6): (b * 3^n mod 256) * 3 >> 8, as
/// ((b * 3^n) << 8) * 3 >> 16 in 16-bit arithmetic (the shift drops everything above the byte).
GGUF_AVX512 inline __m512i trits32(__m512i bytes, short pow3)
{
    const __m512i top = _mm512_slli_epi16(_mm512_mullo_epi16(bytes, _mm512_set1_epi16(pow3)), 8);
    return _mm512_mulhi_epu16(top, _mm512_set1_epi16(3));
}

GGUF_AVX512 inline __m256i trits16(__m256i bytes, short pow3)
{
    const __m256i top = _mm256_slli_epi16(_mm256_mullo_epi16(bytes, _mm256_set1_epi16(pow3)), 8);
    return _mm256_mulhi_epu16(top, _mm256_set1_epi16(3));
}

} // namespace

GGUF_AVX512_KERNEL void decodeTQ1_0Avx512(const uint8_t *src, size_t nBlocks, float *dst)
{
    constexpr short kPow3[5] = {1, 3, 9, 27, 81};
    // trit t gives (t - 1) * d
    const __m512 tritsMinusOne = _mm512_setr_ps(-1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    // the last 16 elements: lane 4n+m is trit n of qh[m]
    const __m512i qhPick = _mm512_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3);
    const __m512i qhPow3 = _mm512_setr_epi32(1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27);
    for (size_t i = 0; i < nBlocks; ++i) {
        const uint8_t *b = blockAt<BlockTQ1_0>(src, i);
        const __m512 values = _mm512_mul_ps(tritsMinusOne, _mm512_set1_ps(halfAt(b + offsetof(BlockTQ1_0, d))));
        const uint8_t *qs = b + offsetof(BlockTQ1_0, qs);
        // qs[0..31] hold elements 0..159 (trit n of byte m is element 32n+m)
        const __m512i wide = _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(qs)));
        for (int n = 0; n < 5; ++n, dst += 32) {
            const __m512i t = trits32(wide, kPow3[n]);
            _mm512_storeu_ps(dst, _mm512_permutexvar_ps(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(t)), values));
            _mm512_storeu_ps(dst + 16,
                             _mm512_permutexvar_ps(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(t, 1)), values));
        }
        // qs[32..47] hold elements 160..239 (trit n of byte 32+m is element 160+16n+m)
        const __m256i narrow = _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i *>(qs + 32)));
        for (int n = 0; n < 5; ++n, dst += 16)
            _mm512_storeu_ps(dst, _mm512_permutexvar_ps(_mm512_cvtepu16_epi32(trits16(narrow, kPow3[n])), values));
        // qh holds elements 240..255 (trit n of byte m is element 240+4n+m)
        uint32_t qhWord = 0;
        std::memcpy(&qhWord, b + offsetof(BlockTQ1_0, qh), sizeof qhWord);
        const __m512i qh =
            _mm512_permutexvar_epi32(qhPick, _mm512_cvtepu8_epi32(_mm_cvtsi32_si128(static_cast<int>(qhWord))));
        const __m512i shifted = _mm512_and_si512(_mm512_mullo_epi32(qh, qhPow3), _mm512_set1_epi32(0xff));
        const __m512i t = _mm512_srli_epi32(_mm512_mullo_epi32(shifted, _mm512_set1_epi32(3)), 8);
        _mm512_storeu_ps(dst, _mm512_permutexvar_ps(t, values));
        dst += 16;
    }
}

namespace {

/// Elements 32 at a time (one 64-byte load, widened in two halves), then 16, then the rest by the
/// portable conversion.
template <typename Widen, typename Scalar>
GGUF_AVX512 inline void convert16s(const uint8_t *src, size_t n, float *dst, Widen widen, Scalar scalar)
{
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i h = _mm512_loadu_si512(src + 2 * i);
        _mm512_storeu_ps(dst + i, widen(_mm512_castsi512_si256(h)));
        _mm512_storeu_ps(dst + i + 16, widen(_mm512_extracti64x4_epi64(h, 1)));
    }
    if (i + 16 <= n) {
        _mm512_storeu_ps(dst + i, widen(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(src + 2 * i))));
        i += 16;
    }
    for (; i < n; ++i)
        dst[i] = scalar(loadU16(src + 2 * i));
}

} // namespace

GGUF_AVX512_KERNEL void decodeBF16Avx512(const uint8_t *src, size_t n, float *dst)
{
    convert16s(src, n, dst, widenBF16, bf16ToFp32);
}

GGUF_AVX512_KERNEL void decodeF16Avx512(const uint8_t *src, size_t n, float *dst)
{
    convert16s(src, n, dst, widenF16, fp16ToFp32);
}

GGUF_AVX512_KERNEL void decodeQ8_0Avx512(const uint8_t *src, size_t nBlocks, float *dst)
{
    for (size_t i = 0; i < nBlocks; ++i, dst += 32) {
        const uint8_t *b = blockAt<BlockQ8_0>(src, i);
        const __m512 d = _mm512_set1_ps(halfAt(b + offsetof(BlockQ8_0, d)));
        for (int part = 0; part < 2; ++part) {
            const __m128i q =
                _mm_loadu_si128(reinterpret_cast<const __m128i *>(b + offsetof(BlockQ8_0, qs) + 16 * part));
            _mm512_storeu_ps(dst + 16 * part, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)), d));
        }
    }
}

} // namespace gguf::detail

#endif
