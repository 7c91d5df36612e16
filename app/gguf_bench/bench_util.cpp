// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_util.h"

#include "core/parallel_chunks.h"

#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace bench {

double timePerRun(const std::function<void()> &body, double minSeconds)
{
    int runs = 0;
    const double start = now();
    double elapsed = 0;
    do {
        body();
        ++runs;
        elapsed = now() - start;
    } while (elapsed < minSeconds);
    return elapsed / runs;
}

double peakMemoryOfChild(const std::function<void()> &body)
{
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
        body();
        std::fflush(stdout);
        ::_exit(0);
    }
    int status = 0;
    struct rusage usage {};
    if (pid < 0 || ::wait4(pid, &status, 0, &usage) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

void fillRandom(uint8_t *data, uint64_t size, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    uint64_t i = 0;
    for (; i + 8 <= size; i += 8) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        std::memcpy(data + i, &x, 8);
    }
    for (; i < size; ++i)
        data[i] = static_cast<uint8_t>(x >> (8 * (i & 7)));
}

void fillWeightLike(uint8_t *data, uint64_t size, uint64_t seed)
{
    fillRandom(data, size, seed);
    // high byte of each half: keep sign and two mantissa bits, exponent fixed at 7 (about 2^-8)
    for (uint64_t i = 1; i < size; i += 2)
        data[i] = static_cast<uint8_t>((data[i] & 0x83) | 0x1c);
}

Floors measureFloors(const uint8_t *data, uint64_t size, unsigned threads)
{
    constexpr uint64_t kChunk = 1 << 20;
    const uint64_t chunks = (size + kChunk - 1) / kChunk;
    const unsigned n = gguf::workerCount(threads, chunks);
    std::vector<std::vector<uint8_t>> scratch(n, std::vector<uint8_t>(kChunk));
    std::vector<uint64_t> sinks(n * 8, 0);
    Floors f;
    f.readSeconds = timePerRun([&] {
        gguf::runChunks(chunks, threads, [&](uint64_t c, unsigned w) {
            const uint64_t begin = c * kChunk, end = std::min(size, begin + kChunk);
            uint64_t s = 0, v = 0;
            for (uint64_t i = begin; i + 8 <= end; i += 8) {
                std::memcpy(&v, data + i, 8);
                s += v;
            }
            sinks[w * 8] += s;
        }, {});
    });
    f.memcpySeconds = timePerRun([&] {
        gguf::runChunks(chunks, threads, [&](uint64_t c, unsigned w) {
            const uint64_t begin = c * kChunk, end = std::min(size, begin + kChunk);
            std::memcpy(scratch[w].data(), data + begin, end - begin);
            sinks[w * 8] += scratch[w][0];
        }, {});
    });
    if (sinks[0] == 42)
        std::puts("");
    return f;
}

std::string formatRate(double perSecond, const char *unit)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f %s", perSecond, unit);
    return buf;
}

} // namespace bench
