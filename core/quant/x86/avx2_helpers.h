// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Private to the x86 kernels of core/quant: small AVX2 building blocks that widen int8 codes to
// floats and store them, in the float operation order of the portable decoders.

#include "core/util/cpu_features.h"

#include <array>
#include <cstdint>
#include <cstring>

#if GGUF_X86_KERNELS

namespace gguf::detail::avx2 {

/// The low 8 int8 lanes of `v` as floats times `scale`, stored at y[0..7].
GGUF_AVX2 inline void storeScaled8(__m128i v, __m256 scale, float *y)
{
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), scale));
}

/// 16 int8 lanes as floats times `scale`, stored at y[0..15].
GGUF_AVX2 inline void storeScaled16(__m128i v, __m256 scale, float *y)
{
    storeScaled8(v, scale, y);
    storeScaled8(_mm_unpackhi_epi64(v, v), scale, y + 8);
}

/// Affine forms of storeScaled8: y = v * scale + offset, or v * scale - offset (two roundings,
/// and a true subtraction, as ggml computes them).
template <bool Subtract> GGUF_AVX2 inline void storeAffine8(__m128i v, __m256 scale, __m256 offset, float *y)
{
    const __m256 product = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), scale);
    _mm256_storeu_ps(y, Subtract ? _mm256_sub_ps(product, offset) : _mm256_add_ps(product, offset));
}

template <bool Subtract> GGUF_AVX2 inline void storeAffine16(__m128i v, __m256 scale, __m256 offset, float *y)
{
    storeAffine8<Subtract>(v, scale, offset, y);
    storeAffine8<Subtract>(_mm_unpackhi_epi64(v, v), scale, offset, y + 8);
}

/// 32 int8 lanes as floats: y[0..15] times `scaleLow`, y[16..31] times `scaleHigh`.
GGUF_AVX2 inline void storeScaled32(__m256i v, __m256 scaleLow, __m256 scaleHigh, float *y)
{
    storeScaled16(_mm256_castsi256_si128(v), scaleLow, y);
    storeScaled16(_mm256_extracti128_si256(v, 1), scaleHigh, y + 16);
}

/// The 16 low nibbles of `q`, then its 16 high nibbles, each mapped through the int8 codebook
/// `lut` (pshufb) and multiplied by `scale`: y[0..31] in the split-halves order of Q4_0 and IQ4_NL.
GGUF_AVX2 inline void storeNibbleLut32(__m128i q, __m128i lut, __m256 scale, float *y)
{
    const __m128i low = _mm_set1_epi8(0x0f);
    storeScaled16(_mm_shuffle_epi8(lut, _mm_and_si128(q, low)), scale, y);
    storeScaled16(_mm_shuffle_epi8(lut, _mm_and_si128(_mm_srli_epi16(q, 4), low)), scale, y + 16);
}

/// Bit j of `bits` as byte j (j = 0..31): `value` where the bit is set, 0 where it is clear.
GGUF_AVX2 inline __m256i spreadBits32(uint32_t bits, char value)
{
    // byte j takes byte j/8 of `bits`, then keeps bit j%8
    const __m256i pick = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3,
                                          3, 3, 3, 3, 3, 3);
    const __m256i bytes = _mm256_shuffle_epi8(_mm256_set1_epi32(static_cast<int>(bits)), pick);
    const __m256i bit = _mm256_set1_epi64x(static_cast<long long>(0x8040201008040201ull));
    return _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(bytes, bit), bit), _mm256_set1_epi8(value));
}

/// The 16 low nibbles of 16 bytes in lanes 0-15, their high nibbles in lanes 16-31.
GGUF_AVX2 inline __m256i splitNibbles(__m128i q)
{
    const __m128i low = _mm_set1_epi8(0x0f);
    return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), low), _mm_and_si128(q, low));
}

/// Unaligned 16-byte load.
GGUF_AVX2 inline __m128i load16(const uint8_t *p)
{
    return _mm_loadu_si128(reinterpret_cast<const __m128i *>(p));
}

/// Unaligned 32-byte load.
GGUF_AVX2 inline __m256i load32(const uint8_t *p)
{
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(p));
}

/// A 16-entry int8 codebook as a pshufb table.
inline __m128i lutOf(const std::array<int8_t, 16> &values)
{
    __m128i lut;
    std::memcpy(&lut, values.data(), sizeof lut);
    return lut;
}

} // namespace gguf::detail::avx2

#endif
