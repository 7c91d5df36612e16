// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/byte_search.h"

#include "core/format/byte_source.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string.h> // memrchr (glibc)

namespace gguf {
namespace {

// Called before a window is read (false stops the search) and after it, with done = true.
using ChunkHook = std::function<bool(uint64_t begin, uint64_t end, bool done)>;

// First match in [begin, end), as an offset from `data`: memchr for the first byte (vectorised
// in the C library, fast over long runs where it does not occur), then memcmp for the rest.
std::optional<uint64_t> firstIn(const uint8_t *data, uint64_t begin, uint64_t end, std::span<const uint8_t> pattern)
{
    const uint64_t m = pattern.size();
    if (end - begin < m)
        return std::nullopt;
    const uint8_t *p = data + begin;
    const uint8_t *const lastStart = data + end - m;
    while (p <= lastStart) {
        const void *hit = std::memchr(p, pattern[0], size_t(lastStart - p) + 1);
        if (!hit)
            return std::nullopt;
        p = static_cast<const uint8_t *>(hit);
        if (std::memcmp(p + 1, pattern.data() + 1, m - 1) == 0)
            return uint64_t(p - data);
        ++p;
    }
    return std::nullopt;
}

// The last byte equal to `byte` in [first, last], or nullptr.
const uint8_t *lastByte(const uint8_t *first, const uint8_t *last, uint8_t byte)
{
#if defined(__GLIBC__)
    return static_cast<const uint8_t *>(memrchr(first, byte, size_t(last - first) + 1));
#else
    for (const uint8_t *p = last + 1; p != first;)
        if (*--p == byte)
            return p;
    return nullptr;
#endif
}

// Last match in [begin, end), as an offset from `data`.
std::optional<uint64_t> lastIn(const uint8_t *data, uint64_t begin, uint64_t end, std::span<const uint8_t> pattern)
{
    const uint64_t m = pattern.size();
    if (end - begin < m)
        return std::nullopt;
    const uint8_t *const first = data + begin;
    const uint8_t *p = data + end - m;
    while (p >= first) {
        const uint8_t *hit = lastByte(first, p, pattern[0]);
        if (!hit)
            return std::nullopt;
        if (std::memcmp(hit + 1, pattern.data() + 1, m - 1) == 0)
            return uint64_t(hit - data);
        if (hit == first)
            return std::nullopt;
        p = hit - 1;
    }
    return std::nullopt;
}

std::optional<uint64_t> search(std::span<const uint8_t> haystack, std::span<const uint8_t> pattern, uint64_t from,
                               SearchDirection direction, const ProgressFn &progress, uint64_t chunkBytes,
                               const ChunkHook &hook)
{
    const uint64_t n = haystack.size();
    const uint64_t m = pattern.size();
    if (m == 0 || m > n)
        return std::nullopt;
    // a chunk must hold the overlap with its neighbour plus at least as much new ground
    const uint64_t chunk = std::max<uint64_t>(chunkBytes, 2 * m);
    const uint8_t *data = haystack.data();
    if (direction == SearchDirection::Forward) {
        const uint64_t start = std::min(from, n);
        for (uint64_t pos = start; pos + m <= n; pos += chunk) {
            // matches starting in [pos, pos + chunk) end before pos + chunk + m - 1
            const uint64_t end = std::min(n, pos + chunk + (m - 1));
            if (hook && !hook(pos, end, false))
                return std::nullopt;
            const std::optional<uint64_t> hit = firstIn(data, pos, end, pattern);
            if (hook)
                hook(pos, end, true);
            if (hit)
                return hit;
            if (progress && !progress(std::min(n, pos + chunk) - start, n - start))
                return std::nullopt;
        }
        return std::nullopt;
    }
    // a match starting at `from` ends at from + m
    const uint64_t top = std::min(n - m, from) + m;
    for (uint64_t end = top;;) {
        const uint64_t begin = end > chunk ? end - chunk : 0;
        if (hook && !hook(begin, end, false))
            return std::nullopt;
        const std::optional<uint64_t> hit = lastIn(data, begin, end, pattern);
        if (hook)
            hook(begin, end, true);
        if (hit)
            return hit;
        if (begin == 0)
            return std::nullopt;
        if (progress && !progress(top - begin, top))
            return std::nullopt;
        // the next window overlaps this one by m - 1 bytes: matches across the border
        end = begin + (m - 1);
    }
}

} // namespace

std::optional<uint64_t> findBytes(std::span<const uint8_t> haystack, std::span<const uint8_t> pattern, uint64_t from,
                                  SearchDirection direction, const ProgressFn &progress, uint64_t chunkBytes)
{
    return search(haystack, pattern, from, direction, progress, chunkBytes, {});
}

std::optional<uint64_t> findInFile(const ByteSource &file, std::span<const uint8_t> pattern, uint64_t from,
                                   SearchDirection direction, const ProgressFn &progress, Error *error)
{
    ByteLease window;
    // while a window is fetched, the caller is asked again with the last figures it was given
    uint64_t lastDone = 0, lastTotal = 0;
    const ProgressFn reported = [&](uint64_t done, uint64_t total) {
        lastDone = done;
        lastTotal = total;
        return !progress || progress(done, total);
    };
    const auto hook = [&](uint64_t begin, uint64_t end, bool done) {
        if (done) {
            window = ByteLease();
            file.releasePages(begin, end - begin);
            return true;
        }
        window = file.acquire(begin, end - begin, [&](uint64_t, uint64_t) { return reported(lastDone, lastTotal); });
        if (!window && error)
            *error = window.error();
        return static_cast<bool>(window);
    };
    return search(file.bytes(), pattern, from, direction, progress ? reported : ProgressFn(), uint64_t(16) << 20, hook);
}

} // namespace gguf
