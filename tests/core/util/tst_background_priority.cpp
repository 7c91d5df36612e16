// SPDX-License-Identifier: GPL-3.0-or-later
// Background threads give way to the interactive one once the program asks for it: a thread that
// enters the background, and the core's worker pool, run at a nice value 10 higher (Linux).
#include "core/util/parallel_chunks.h"

#include <QtTest>

#include <atomic>
#include <cerrno>
#include <thread>

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

/// The nice value of the calling thread, as the kernel keeps it.
int threadNice()
{
    errno = 0;
    return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
}

/// Runs `body` on a new thread and returns the thread's nice value before and after it.
std::pair<int, int> niceAround(const std::function<void()> &body)
{
    std::pair<int, int> seen;
    std::thread t([&] {
        seen.first = threadNice();
        body();
        seen.second = threadNice();
    });
    t.join();
    return seen;
}

} // namespace

class TestBackgroundPriority : public QObject {
    Q_OBJECT

private slots:
    // (in this order: the setting is never undone)
    void nothingChangesUnlessAsked()
    {
        const auto [before, after] = niceAround([] { gguf::enterBackground(); });
        QCOMPARE(after, before);
    }

    void aThreadThatEntersTheBackgroundYields()
    {
        const int mine = threadNice();
        gguf::setBackgroundThreadsYield(true);
        const auto [before, after] = niceAround([] {
            gguf::enterBackground();
            gguf::enterBackground(); // once per thread
        });
        QCOMPARE(after, std::min(before + 10, 19));
        QCOMPARE(threadNice(), mine); // only the thread that asked
    }

    void theCoreWorkersYield()
    {
        const int base = threadNice();
        // on one core the pool has no threads: the caller is the only worker
        const bool poolHasThreads = gguf::workerCount(2, 256) > 1;
        std::atomic<int> helperNice{-100};
        // enough chunks, each slow enough, that a pool thread takes some
        const bool done = gguf::runChunks(256, 2,
                                          [&](uint64_t, unsigned worker) {
                                              if (worker > 0)
                                                  helperNice.store(threadNice());
                                              std::this_thread::sleep_for(std::chrono::microseconds(200));
                                          },
                                          {});
        QVERIFY(done);
        if (poolHasThreads) {
            QVERIFY2(helperNice.load() != -100, "no chunk ran on a pool thread");
            QCOMPARE(helperNice.load(), std::min(base + 10, 19));
        } else {
            QCOMPARE(helperNice.load(), -100); // every chunk ran on the caller
        }
        QCOMPARE(threadNice(), base); // the caller was not in the background
    }
};

QTEST_GUILESS_MAIN(TestBackgroundPriority)
#include "tst_background_priority.moc"
