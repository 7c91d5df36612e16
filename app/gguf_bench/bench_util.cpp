// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_util.h"

#include "core/quant/dequantize.h"
#include "core/util/parallel_chunks.h"

#include <algorithm>
#include <cmath>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
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

// A line of /proc/self/status in MiB (e.g. "VmHWM:"), or -1.
double residentMiB(const char *field)
{
    FILE *f = std::fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    double mib = -1;
    const size_t length = std::strlen(field);
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, field, length) == 0)
            mib = std::strtod(line + length, nullptr) / 1024.0;
    std::fclose(f);
    return mib;
}

ChildRun runInChild(const std::function<void()> &body)
{
    // the child writes its time into a shared anonymous page
    void *shared = ::mmap(nullptr, 3 * sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
        return {};
    auto *result = static_cast<double *>(shared);
    result[0] = result[1] = result[2] = -1;
    ChildRun run;
    const double maxRss = peakMemoryOfChild([&] {
        // the peak is counted from here, not from what the parent had resident at the fork
        result[2] = residentMiB("VmRSS:");
        if (FILE *f = std::fopen("/proc/self/clear_refs", "w")) {
            std::fputs("5", f);
            std::fclose(f);
        }
        const double t0 = now();
        body();
        result[0] = now() - t0;
        result[1] = residentMiB("VmHWM:");
    });
    run.seconds = result[0];
    run.peakMiB = maxRss < 0 ? -1 : result[1] >= 0 ? result[1] : maxRss;
    run.residentAtStartMiB = result[2];
    ::munmap(shared, 3 * sizeof(double));
    return run;
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

namespace {
constexpr uint64_t kChunk = 1 << 20;       // bytes of a read or memcpy floor's chunk
constexpr uint64_t kDecodeChunk = 1 << 20; // elements of a decoding pass's chunk
constexpr uint64_t kDecodePiece = 16384;   // elements decoded into a worker's buffer at a time
} // namespace

uint64_t measureFloorOnce(const uint8_t *data, uint64_t size, unsigned threads)
{
    const uint64_t chunks = (size + kChunk - 1) / kChunk;
    std::vector<uint64_t> sinks(gguf::workerCount(threads, chunks) * 8, 0);
    gguf::runChunks(chunks, threads,
                    [&](uint64_t c, unsigned w) {
                        const uint64_t begin = c * kChunk, end = std::min(size, begin + kChunk);
                        uint64_t s = 0, v = 0;
                        for (uint64_t i = begin; i + 8 <= end; i += 8) {
                            std::memcpy(&v, data + i, 8);
                            s += v;
                        }
                        sinks[w * 8] += s;
                    },
                    {});
    uint64_t total = 0;
    for (const uint64_t s : sinks)
        total += s;
    return total;
}

Floors measureFloors(const uint8_t *data, uint64_t size, unsigned threads)
{
    const uint64_t chunks = (size + kChunk - 1) / kChunk;
    const unsigned n = gguf::workerCount(threads, chunks);
    std::vector<std::vector<uint8_t>> scratch(n, std::vector<uint8_t>(kChunk));
    std::vector<uint64_t> sinks(n * 8, 0);
    Floors f;
    f.readSeconds = timePerRun([&] { sinks[0] += measureFloorOnce(data, size, threads); });
    f.memcpySeconds = timePerRun([&] {
        gguf::runChunks(chunks, threads,
                        [&](uint64_t c, unsigned w) {
                            const uint64_t begin = c * kChunk, end = std::min(size, begin + kChunk);
                            std::memcpy(scratch[w].data(), data + begin, end - begin);
                            sinks[w * 8] += scratch[w][0];
                        },
                        {});
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

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

namespace {

uint64_t decodeChunks(uint64_t elements)
{
    return (elements + kDecodeChunk - 1) / kDecodeChunk;
}

// Decodes all of `bytes` (elements of `type`) chunk by chunk on `threads`, piece by piece into one
// small buffer per worker, and hands each decoded piece to `use(worker, values)`.
template <typename Use>
void forEachDecodedPiece(uint32_t type, std::span<const uint8_t> bytes, uint64_t elements, unsigned threads,
                         const Use &use)
{
    const uint64_t chunks = decodeChunks(elements);
    std::vector<std::vector<float>> buffers(gguf::workerCount(threads, chunks), std::vector<float>(kDecodePiece));
    gguf::runChunks(chunks, threads,
                    [&](uint64_t c, unsigned w) {
                        const uint64_t end = std::min(elements, (c + 1) * kDecodeChunk);
                        for (uint64_t at = c * kDecodeChunk; at < end; at += kDecodePiece) {
                            const std::span<float> piece(buffers[w].data(),
                                                         static_cast<size_t>(std::min(kDecodePiece, end - at)));
                            gguf::dequantizeRange(type, bytes, elements, at, piece);
                            use(w, std::span<const float>(piece));
                        }
                    },
                    {});
}

// The bins of n values, vectorized as wide as this CPU goes (the floor should be the least cost).
#if defined(__x86_64__) && defined(__GLIBC__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
void binsOf(const float *x, size_t n, float lo, float scale, int bins, uint8_t *out)
{
    for (size_t i = 0; i < n; ++i) // no NaN care: a floor
        out[i] = static_cast<uint8_t>(std::clamp(static_cast<int>((x[i] - lo) * scale), 0, bins - 1));
}

} // namespace

void decodeAll(uint32_t type, std::span<const uint8_t> bytes, uint64_t elements, unsigned threads)
{
    forEachDecodedPiece(type, bytes, elements, threads, [](unsigned, std::span<const float>) {});
}

uint64_t countAll(uint32_t type, std::span<const uint8_t> bytes, uint64_t elements, unsigned threads)
{
    constexpr int kBins = 256, kCopies = 4;
    // the range of the first piece's values stands in for [min, max]: values beyond it go to the end bins
    std::vector<float> first(static_cast<size_t>(std::min(kDecodePiece, elements)));
    gguf::dequantizeRange(type, bytes, elements, 0, first);
    float lo = 0, hi = 0;
    for (const float x : first)
        if (std::isfinite(x)) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
    const float scale = hi > lo ? static_cast<float>(kBins) / (hi - lo) : 0.0f;
    struct Worker {
        std::vector<uint8_t> bins = std::vector<uint8_t>(kDecodePiece);
        std::vector<uint32_t> counts = std::vector<uint32_t>(kBins * kCopies, 0);
    };
    std::vector<Worker> workers(gguf::workerCount(threads, decodeChunks(elements)));
    forEachDecodedPiece(type, bytes, elements, threads, [&](unsigned w, std::span<const float> values) {
        uint8_t *b = workers[w].bins.data();
        uint32_t *t = workers[w].counts.data();
        const size_t n = values.size();
        binsOf(values.data(), n, lo, scale, kBins, b);
        size_t i = 0;
        for (; i + kCopies <= n; i += kCopies)
            for (int j = 0; j < kCopies; ++j)
                ++t[j * kBins + b[i + j]];
        for (; i < n; ++i)
            ++t[b[i]];
    });
    uint64_t total = 0;
    for (const Worker &k : workers)
        for (const uint32_t n : k.counts)
            total += n;
    return total;
}

double Rounds::median(size_t body) const
{
    std::vector<double> t;
    for (const ChildRun &r : runs[body])
        t.push_back(r.seconds);
    return medianOf(t);
}

double Rounds::peakMiB(size_t body) const
{
    double peak = 0;
    for (const ChildRun &r : runs[body])
        peak = std::max(peak, r.peakMiB);
    return peak;
}

std::array<double, 3> Rounds::ratio(size_t a, size_t b) const
{
    std::vector<double> q;
    for (size_t k = 0; k < runs[a].size(); ++k)
        q.push_back(runs[a][k].seconds / runs[b][k].seconds);
    return {medianOf(q), *std::min_element(q.begin(), q.end()), *std::max_element(q.begin(), q.end())};
}

bool runRounds(const std::vector<std::function<void()>> &bodies, Rounds &out)
{
    out.runs.assign(bodies.size(), {});
    for (int k = 0; k < kRounds; ++k)
        for (size_t b = 0; b < bodies.size(); ++b) {
            const ChildRun r = runInChild(bodies[b]);
            if (r.seconds < 0 || r.peakMiB < 0)
                return false;
            out.runs[b].push_back(r);
        }
    return true;
}

} // namespace bench
