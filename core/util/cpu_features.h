// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one place that knows which x86 instruction sets the machine has: the target attributes the
// hand-written kernels of core/quant and core/stats are compiled with, the run-time checks that
// choose them, and the ceiling (GGUF_SIMD, setSimdCeiling) that lets the tests run every level on
// one machine. Off x86-64, GGUF_X86_KERNELS is 0 and only portable code is built.

#include <atomic>
#include <cstdlib>
#include <cstring>

// x86-64 gets AVX2 code beside the baseline: hand-written kernels (GGUF_AVX2_KERNEL functions,
// chosen per call by cpuHasAvx2()) or, for loops the compiler vectorizes well by itself, an AVX2
// clone chosen once at load time (GGUF_DECODER_CLONES, glibc ifunc). Neither enables FMA.
// Define GGUF_PORTABLE_DECODERS to build only the portable code (to test and time it).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(GGUF_PORTABLE_DECODERS)
#define GGUF_X86_KERNELS 1
#include <cpuid.h>
// GCC 12's AVX-512 intrinsics start from a self-initialized "undefined" vector that
// -Wmaybe-uninitialized and -Wuninitialized report wherever they are inlined (GCC bug 105593)
#if defined(__clang__)
#include <immintrin.h>
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
#define GGUF_AVX2 __attribute__((target("avx2")))
// Kernel entry points are noipa: GCC 12.2 -O3 deleted a dispatcher's call to one of them (its
// interprocedural analysis judged the kernel free of side effects).
#if __has_attribute(noipa)
#define GGUF_AVX2_KERNEL __attribute__((target("avx2"), noipa))
#define GGUF_F16C_KERNEL __attribute__((target("avx,f16c"), noipa))
#define GGUF_AVX512_KERNEL __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c"), noipa))
#define GGUF_AVX2_F16C_KERNEL __attribute__((target("avx2,f16c"), noipa))
#define GGUF_AVX2_FMA_KERNEL __attribute__((target("avx2,f16c,fma"), noipa))
#define GGUF_AVX512_FMA_KERNEL __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c,fma"), noipa))
#else
#define GGUF_AVX2_KERNEL __attribute__((target("avx2")))
#define GGUF_F16C_KERNEL __attribute__((target("avx,f16c")))
#define GGUF_AVX512_KERNEL __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c")))
#define GGUF_AVX2_F16C_KERNEL __attribute__((target("avx2,f16c")))
#define GGUF_AVX2_FMA_KERNEL __attribute__((target("avx2,f16c,fma")))
#define GGUF_AVX512_FMA_KERNEL __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c,fma")))
#endif
#define GGUF_AVX512_VNNI_KERNEL __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,f16c")))
#define GGUF_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,f16c")))
#if defined(__GLIBC__) && __has_attribute(target_clones)
#define GGUF_DECODER_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define GGUF_X86_KERNELS 0
#endif
#ifndef GGUF_DECODER_CLONES
#define GGUF_DECODER_CLONES
#endif

namespace gguf::detail {

#if GGUF_X86_KERNELS
/// The widest hand-written kernels allowed: 2 (AVX-512), 1 (AVX2 and F16C) or 0 (portable code
/// only). The environment variable GGUF_SIMD=avx2 or GGUF_SIMD=portable lowers it at start, and
/// setSimdCeiling at run time, so that the tests can run every path on one machine (the
/// compiler's AVX2 clones, GGUF_DECODER_CLONES, are chosen by the CPU alone).
inline std::atomic<int> &simdCeilingLevel()
{
    static std::atomic<int> level{[] {
        const char *v = std::getenv("GGUF_SIMD");
        if (v && std::strcmp(v, "portable") == 0)
            return 0;
        if (v && std::strcmp(v, "avx2") == 0)
            return 1;
        return 2;
    }()};
    return level;
}
inline int simdCeiling()
{
    return simdCeilingLevel().load(std::memory_order_relaxed);
}
inline void setSimdCeiling(int level)
{
    simdCeilingLevel().store(level, std::memory_order_relaxed);
}

/// True when the CPU has F16C (checked once). F16C is CPUID leaf 1, ECX bit 29 (not every
/// compiler's __builtin_cpu_supports knows it); the "avx" check covers the OS saving the YMM
/// registers.
inline bool cpuHasF16c()
{
    static const bool yes = [] {
        unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx") && __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
    }();
    return yes && simdCeiling() >= 1;
}

/// True when the CPU and the OS support AVX2 (checked once).
inline bool cpuHasAvx2()
{
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") != 0;
    }();
    return yes && simdCeiling() >= 1;
}

/// True when the CPU has FMA3 (checked once; it comes with AVX2 in practice).
inline bool cpuHasFma()
{
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma") != 0;
    }();
    return yes && simdCeiling() >= 1;
}

/// True when the CPU and the OS support AVX-512 F, BW, VL and DQ (checked once; GCC's check
/// includes the OS saving the ZMM registers), and F16C.
inline bool cpuHasAvx512()
{
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") &&
               __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512dq");
    }();
    return yes && cpuHasF16c() && simdCeiling() >= 2;
}

/// True when the CPU has AVX-512 VNNI besides the AVX-512 set above (checked once).
inline bool cpuHasAvx512Vnni()
{
    static const bool yes = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512vnni") != 0;
    }();
    return yes && cpuHasAvx512();
}
#endif

} // namespace gguf::detail
