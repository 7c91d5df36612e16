// SPDX-License-Identifier: GPL-3.0-or-later
// Plain element types: float formats converted exactly, integers by the C conversion (float)v.
#include "core/util/byte_order.h"
#include "core/util/float_convert.h"
#include "dequantize_blocks.h"
#include "x86/kernels.h"

#include <cmath>
#include <limits>

namespace gguf::detail {
namespace {

template <typename Bits, bool Swap, typename Convert>
inline void convertAll(const uint8_t *src, size_t n, float *dst, Convert convert)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = convert(loadElement<Bits, Swap>(src, i));
}

template <bool Swap> void decodeF32Impl(const uint8_t *src, size_t n, float *dst)
{
    if constexpr (!Swap)
        std::memcpy(dst, src, n * sizeof(float));
    else
        convertAll<uint32_t, true>(src, n, dst, [](uint32_t v) { return std::bit_cast<float>(v); });
}

template <bool Swap> void decodeF64Impl(const uint8_t *src, size_t n, float *dst)
{
    convertAll<uint64_t, Swap>(src, n, dst, [](uint64_t v) { return static_cast<float>(std::bit_cast<double>(v)); });
}

template <typename Int, bool Swap> void decodeIntImpl(const uint8_t *src, size_t n, float *dst)
{
    convertAll<Int, Swap>(src, n, dst, [](Int v) { return static_cast<float>(v); });
}

} // namespace

void decodeF32(const uint8_t *src, size_t n, float *dst)
{
    decodeF32Impl<false>(src, n, dst);
}

void decodeF32Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeF32Impl<true>(src, n, dst);
}

void decodeF16(const uint8_t *src, size_t n, float *dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeF16Avx512(src, n, dst);
        return;
    }
    if (cpuHasF16c()) {
        decodeF16F16c<false>(src, n, dst);
        return;
    }
#endif
    convertAll<uint16_t, false>(src, n, dst, [](uint16_t h) { return fp16ToFp32(h); });
}

void decodeF16Swapped(const uint8_t *src, size_t n, float *dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasF16c()) {
        decodeF16F16c<true>(src, n, dst);
        return;
    }
#endif
    convertAll<uint16_t, true>(src, n, dst, [](uint16_t h) { return fp16ToFp32(h); });
}

GGUF_DECODER_CLONES void decodeBF16(const uint8_t *src, size_t n, float *dst)
{
#if GGUF_X86_KERNELS
    if (cpuHasAvx512()) {
        decodeBF16Avx512(src, n, dst);
        return;
    }
#endif
    convertAll<uint16_t, false>(src, n, dst, [](uint16_t h) { return bf16ToFp32(h); });
}

GGUF_DECODER_CLONES void decodeBF16Swapped(const uint8_t *src, size_t n, float *dst)
{
    convertAll<uint16_t, true>(src, n, dst, [](uint16_t h) { return bf16ToFp32(h); });
}

void decodeF64(const uint8_t *src, size_t n, float *dst)
{
    decodeF64Impl<false>(src, n, dst);
}

void decodeF64Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeF64Impl<true>(src, n, dst);
}

void decodeI8(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int8_t, false>(src, n, dst);
}

void decodeI16(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int16_t, false>(src, n, dst);
}

void decodeI16Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int16_t, true>(src, n, dst);
}

void decodeI32(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int32_t, false>(src, n, dst);
}

void decodeI32Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int32_t, true>(src, n, dst);
}

void decodeI64(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int64_t, false>(src, n, dst);
}

void decodeI64Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<int64_t, true>(src, n, dst);
}

void decodeU8(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint8_t, false>(src, n, dst);
}

void decodeU16(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint16_t, false>(src, n, dst);
}

void decodeU16Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint16_t, true>(src, n, dst);
}

void decodeU32(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint32_t, false>(src, n, dst);
}

void decodeU32Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint32_t, true>(src, n, dst);
}

void decodeU64(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint64_t, false>(src, n, dst);
}

void decodeU64Swapped(const uint8_t *src, size_t n, float *dst)
{
    decodeIntImpl<uint64_t, true>(src, n, dst);
}

void decodeBool(const uint8_t *src, size_t n, float *dst)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = src[i] != 0 ? 1.0f : 0.0f;
}

// OCP FP8 E4M3 (the "FN" variant safetensors and PyTorch use): sign, 4 exponent bits (bias 7), 3
// mantissa bits; exponent 0 is subnormal (m · 2⁻⁹), S.1111.111 is NaN, and there is no infinity.
void decodeF8E4M3(const uint8_t *src, size_t n, float *dst)
{
    for (size_t i = 0; i < n; ++i) {
        const uint8_t b = src[i];
        const uint32_t exponent = (b >> 3) & 0xf, mantissa = b & 0x7;
        float magnitude = 0;
        if (exponent == 0xf && mantissa == 0x7)
            magnitude = std::numeric_limits<float>::quiet_NaN();
        else if (exponent == 0)
            magnitude = std::ldexp(static_cast<float>(mantissa), -9);
        else
            magnitude = std::ldexp(static_cast<float>(8 + mantissa), static_cast<int>(exponent) - 10);
        dst[i] = (b & 0x80) ? -magnitude : magnitude;
    }
}

// OCP FP8 E5M2: the upper byte of an IEEE half (infinities and NaN as there), so exact through it.
void decodeF8E5M2(const uint8_t *src, size_t n, float *dst)
{
    for (size_t i = 0; i < n; ++i)
        dst[i] = fp16ToFp32(static_cast<uint16_t>(src[i] << 8));
}

} // namespace gguf::detail
