// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Private to core/quant: the hand-written x86 decoders, one per type that has one, each a drop-in
// for the portable decoder of dequantize_blocks.h with the same signature and bit-identical
// results. The portable decoder calls its kernel when cpuHasAvx2() / cpuHasF16c() allow (so
// GGUF_SIMD and setSimdCeiling choose between them); this folder is the only x86-specific code
// of the dequantizer, as ggml keeps its kernels under ggml-cpu/arch/x86/.

#include "core/util/cpu_features.h"

#include <cstddef>
#include <cstdint>

#if GGUF_X86_KERNELS

namespace gguf::detail {

// kernels_plain.cpp: F16 (Swap = the other byte order) with the F16C conversion.
template <bool Swap> GGUF_F16C_KERNEL void decodeF16F16c(const uint8_t *src, size_t n, float *dst);
extern template void decodeF16F16c<false>(const uint8_t *src, size_t n, float *dst);
extern template void decodeF16F16c<true>(const uint8_t *src, size_t n, float *dst);

// kernels_simple.cpp: blocks of 32-128 elements with one scale.
GGUF_AVX2_KERNEL void decodeQ4_0Avx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ4_1Avx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ5_0Avx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ5_1Avx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeIQ4_NLAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeMXFP4Avx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeNVFP4Avx2(const uint8_t *src, size_t nBlocks, float *dst);

// kernels_kquants.cpp: 256-element k-quant super-blocks.
GGUF_AVX2_KERNEL void decodeQ2_KAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ3_KAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ4_KAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ5_KAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeQ6_KAvx2(const uint8_t *src, size_t nBlocks, float *dst);

// kernels_iquants.cpp: IQ1 and IQ4_XS codebook super-blocks.
GGUF_AVX2_KERNEL void decodeIQ1_SAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeIQ1_MAvx2(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX2_KERNEL void decodeIQ4_XSAvx2(const uint8_t *src, size_t nBlocks, float *dst);

// kernels_avx512.cpp: AVX-512 decoders, chosen over the above by cpuHasAvx512().
GGUF_AVX512_KERNEL void decodeQ4_KAvx512(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX512_KERNEL void decodeQ5_KAvx512(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX512_KERNEL void decodeTQ1_0Avx512(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX512_KERNEL void decodeTQ2_0Avx512(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX512_KERNEL void decodeQ8_0Avx512(const uint8_t *src, size_t nBlocks, float *dst);
GGUF_AVX512_KERNEL void decodeBF16Avx512(const uint8_t *src, size_t n, float *dst);
GGUF_AVX512_KERNEL void decodeF16Avx512(const uint8_t *src, size_t n, float *dst);

} // namespace gguf::detail

#endif
