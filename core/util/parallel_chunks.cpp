// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/util/parallel_chunks.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace gguf {

namespace {
std::atomic<bool> g_backgroundYields{false};
} // namespace

ProgressFn progressPart(const ProgressFn &outer, uint64_t before, uint64_t weight, uint64_t sum)
{
    return [outer, before, weight, sum](uint64_t done, uint64_t total) {
        const double share = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
        return !outer || outer(before + static_cast<uint64_t>(share * static_cast<double>(weight)), sum);
    };
}

void setBackgroundThreadsYield(bool yield)
{
    g_backgroundYields.store(yield, std::memory_order_relaxed);
}

void enterBackground()
{
    thread_local bool lowered = false;
    if (lowered || !g_backgroundYields.load(std::memory_order_relaxed))
        return;
    lowered = true;
#if defined(__linux__)
    // Linux applies nice per thread (the thread id is a process id to setpriority); raising it
    // needs no privilege, lowering it back would, so it stays
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int current = getpriority(PRIO_PROCESS, tid);
    if (errno == 0)
        setpriority(PRIO_PROCESS, tid, std::min(current + 10, 19));
#endif
}

namespace {

/// The core's one worker pool: hardware concurrency − 1 threads (the thread that calls runChunks
/// is always a worker too), started on first use and kept for the life of the process, so no call
/// starts a thread. Tasks are taken in order; a call never waits for a task that has not started
/// (see runChunks), so callers on any thread, this pool's own included, cannot deadlock on it.
class WorkerPool {
public:
    static WorkerPool &instance()
    {
        // never destroyed: threads of other libraries (Qt's pools) may still call in while the
        // program's statics are being torn down
        static WorkerPool *const pool = new WorkerPool(std::max(1u, std::thread::hardware_concurrency()) - 1);
        return *pool;
    }

    unsigned threadCount() const { return static_cast<unsigned>(m_threads.size()); }

    void post(std::function<void()> task)
    {
        {
            const std::lock_guard lock(m_mutex);
            m_tasks.push_back(std::move(task));
        }
        m_wake.notify_one();
    }

private:
    explicit WorkerPool(unsigned threads)
    {
        m_threads.reserve(threads);
        for (unsigned i = 0; i < threads; ++i)
            m_threads.emplace_back([this] { serve(); });
        for (std::thread &t : m_threads)
            t.detach();
    }

    [[noreturn]] void serve()
    {
        for (;;) {
            std::function<void()> task;
            {
                std::unique_lock lock(m_mutex);
                m_wake.wait(lock, [this] { return !m_tasks.empty(); });
                task = std::move(m_tasks.front());
                m_tasks.pop_front();
            }
            enterBackground();
            task();
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_tasks;
    std::vector<std::thread> m_threads;
};

/// What the helpers of one runChunks call share with it. A helper that starts after the call has
/// closed does nothing; the call waits only for the helpers that started before it closed.
struct Helpers {
    std::mutex mutex;
    std::condition_variable idle;
    bool closed = false;
    unsigned active = 0;
};

} // namespace

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
    // Worker w (1 … n−1) is a task of the shared pool; the calling thread is worker 0 and does
    // whatever the helpers do not get to, so the call finishes even when the pool is busy.
    const auto helpers = std::make_shared<Helpers>();
    WorkerPool &pool = WorkerPool::instance();
    for (unsigned w = 1; w < n; ++w) {
        pool.post([helpers, &loop, w] {
            {
                const std::lock_guard lock(helpers->mutex);
                if (helpers->closed)
                    return; // the call has returned: `loop` is gone
                ++helpers->active;
            }
            loop(w);
            const std::lock_guard lock(helpers->mutex);
            if (--helpers->active == 0)
                helpers->idle.notify_all();
        });
    }
    loop(0);
    {
        std::unique_lock lock(helpers->mutex);
        helpers->closed = true;
        helpers->idle.wait(lock, [&] { return helpers->active == 0; });
    }
    if (!cancelled && progress && !progress(chunkCount, chunkCount))
        cancelled = true;
    return !cancelled;
}

} // namespace gguf
