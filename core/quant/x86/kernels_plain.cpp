// SPDX-License-Identifier: GPL-3.0-or-later
// The F16C decoder of F16 elements, in either byte order (the portable one and the choice are in
// ../dequantize_plain.cpp).
#include "../dequantize_blocks.h"
#include "core/util/float_convert.h"
#include "kernels.h"

#if GGUF_X86_KERNELS

namespace gguf::detail {

// The F16C conversion gives exactly fp16ToFp32's results (quiet NaNs, exact subnormals).
template <bool Swap> GGUF_F16C_KERNEL void decodeF16F16c(const uint8_t *src, size_t n, float *dst)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + 2 * i));
        if constexpr (Swap)
            h = _mm_or_si128(_mm_slli_epi16(h, 8), _mm_srli_epi16(h, 8));
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; ++i)
        dst[i] = fp16ToFp32(loadElement<uint16_t, Swap>(src, i));
}

template void decodeF16F16c<false>(const uint8_t *src, size_t n, float *dst);
template void decodeF16F16c<true>(const uint8_t *src, size_t n, float *dst);

} // namespace gguf::detail

#endif
