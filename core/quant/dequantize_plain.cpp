// SPDX-License-Identifier: GPL-3.0-or-later
// Plain element types: float formats converted exactly, integers by the C conversion (float)v.
#include "core/util/byte_order.h"
#include "core/util/float_convert.h"
#include "dequantize_blocks.h"
#include "x86/kernels.h"

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

} // namespace gguf::detail
