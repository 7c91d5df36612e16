// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/util/parallel_chunks.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace gguf {

unsigned workerCount(unsigned threads, uint64_t chunkCount)
{
    unsigned n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    return static_cast<unsigned>(std::min<uint64_t>(n, std::max<uint64_t>(chunkCount, 1)));
}

bool runChunks(uint64_t chunkCount, unsigned threads, const std::function<void(uint64_t, unsigned)> &work,
               const ProgressFn &progress)
{
    const unsigned n = workerCount(threads, chunkCount);
    std::atomic<uint64_t> next{0};
    std::atomic<uint64_t> done{0};
    std::atomic<bool> cancelled{false};
    const auto loop = [&](unsigned worker) {
        while (!cancelled.load(std::memory_order_relaxed)) {
            const uint64_t chunk = next.fetch_add(1, std::memory_order_relaxed);
            if (chunk >= chunkCount)
                break;
            work(chunk, worker);
            const uint64_t d = done.fetch_add(1, std::memory_order_relaxed) + 1;
            if (worker == 0 && progress && !progress(d, chunkCount))
                cancelled.store(true, std::memory_order_relaxed);
        }
    };
    std::vector<std::thread> pool;
    pool.reserve(n - 1);
    for (unsigned w = 1; w < n; ++w)
        pool.emplace_back(loop, w);
    loop(0);
    for (std::thread &t : pool)
        t.join();
    if (!cancelled && progress && !progress(chunkCount, chunkCount))
        cancelled = true;
    return !cancelled;
}

} // namespace gguf
