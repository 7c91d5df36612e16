// SPDX-License-Identifier: GPL-3.0-or-later
// JobTracker: results come back on the GUI thread, a newer job makes an older one's result stale,
// cancel() makes the core's progress callback return false so the work stops, progress arrives.
#include "tests/support/pending_events.h"
#include "ui/common/job_tracker.h"

#include <QSemaphore>
#include <QSignalSpy>
#include <QThread>
#include <QThreadPool>
#include <QtTest>

#include <atomic>
#include <memory>

class TestJobTracker : public QObject {
    Q_OBJECT

private slots:
    void deliversOnTheGuiThread()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        QThread *deliveredOn = nullptr;
        int result = 0;
        tracker.start(
            QStringLiteral("answer"), [](const gguf::ProgressFn &) { return 42; },
            [&](int value) {
                result = value;
                deliveredOn = QThread::currentThread();
            });
        QVERIFY(tracker.isRunning());
        QVERIFY(finished.wait(5000));
        QCOMPARE(result, 42);
        QCOMPARE(deliveredOn, QThread::currentThread());
        QVERIFY(!tracker.isRunning());
    }

    void newerJobMakesOlderResultStale()
    {
        JobTracker tracker;
        auto gate = std::make_shared<QSemaphore>();
        QStringList delivered;
        // The first job is still computing when the second one starts.
        tracker.start(
            QStringLiteral("first"),
            [gate](const gguf::ProgressFn &) {
                gate->acquire();
                return QStringLiteral("first");
            },
            [&](const QString &value) { delivered << value; });
        const quint64 firstGeneration = tracker.generation();
        QSignalSpy finished(&tracker, &JobTracker::finished);
        tracker.start(
            QStringLiteral("second"), [](const gguf::ProgressFn &) { return QStringLiteral("second"); },
            [&](const QString &value) { delivered << value; });
        QVERIFY(tracker.generation() > firstGeneration);
        QVERIFY(finished.wait(5000));
        gate->release(); // the first job now returns, too late
        QVERIFY(gguf::test::settlePool(JobTracker::pool(), 5000));
        QCOMPARE(delivered, QStringList{QStringLiteral("second")});
        QCOMPARE(finished.count(), 1);
    }

    void cancelStopsTheWork()
    {
        JobTracker tracker;
        QSignalSpy cancelled(&tracker, &JobTracker::cancelled);
        QSignalSpy progress(&tracker, &JobTracker::progressChanged);
        auto running = std::make_shared<std::atomic<bool>>(false);
        auto stoppedByCallback = std::make_shared<std::atomic<bool>>(false);
        bool delivered = false;
        // Runs until its progress callback says stop: it would never end without cancel().
        tracker.start(
            QStringLiteral("endless"),
            [running, stoppedByCallback](const gguf::ProgressFn &report) {
                *running = true;
                uint64_t step = 0;
                while (report(step % 1000, 1000)) {
                    ++step;
                    QThread::usleep(200);
                }
                *stoppedByCallback = true;
                return step;
            },
            [&](uint64_t) { delivered = true; });
        QTRY_VERIFY(running->load()); // the worker is inside the work, not merely queued
        QVERIFY(progress.count() > 0 || progress.wait(5000));
        QVERIFY(progress.last().at(0).toInt() >= 0 && progress.last().at(0).toInt() <= 1000);
        tracker.cancel();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!tracker.isRunning());
        QVERIFY(gguf::test::settlePool(JobTracker::pool(), 5000));
        QVERIFY(stoppedByCallback->load());
        QVERIFY(!delivered);
    }

    void dropIsSilentAndDestructionCancels()
    {
        auto running = std::make_shared<std::atomic<int>>(0);
        auto stopped = std::make_shared<std::atomic<int>>(0);
        bool delivered = false;
        {
            JobTracker tracker;
            QSignalSpy cancelled(&tracker, &JobTracker::cancelled);
            QSignalSpy dropped(&tracker, &JobTracker::dropped);
            const auto endless = [running, stopped](const gguf::ProgressFn &report) {
                ++*running;
                while (report(0, 1))
                    QThread::usleep(200);
                ++*stopped;
                return 0;
            };
            tracker.start(QStringLiteral("dropped"), endless, [&](int) { delivered = true; });
            QTRY_COMPARE(running->load(), 1);
            tracker.drop();
            QCOMPARE(dropped.count(), 1);
            QCOMPARE(cancelled.count(), 0);
            tracker.start(QStringLiteral("outlived"), endless, [&](int) { delivered = true; });
            QTRY_COMPARE(running->load(), 2);
        } // the tracker goes away with a job running
        QVERIFY(gguf::test::settlePool(JobTracker::pool(), 5000));
        QCOMPARE(stopped->load(), 2);
        QVERIFY(!delivered);
    }

    void chainedJobFinishesOnce()
    {
        JobTracker tracker;
        QSignalSpy finished(&tracker, &JobTracker::finished);
        QList<int> steps;
        tracker.start(
            QStringLiteral("first pass"), [](const gguf::ProgressFn &) { return 1; },
            [&](int value) {
                steps << value;
                tracker.start(
                    QStringLiteral("second pass"), [](const gguf::ProgressFn &) { return 2; },
                    [&](int second) { steps << second; });
            });
        QVERIFY(finished.wait(5000));
        QCOMPARE(steps, (QList<int>{1, 2}));
        QVERIFY(gguf::test::settlePool(JobTracker::pool(), 5000));
        QCOMPARE(finished.count(), 1);
    }

    void aCancelThatWaitsStillDelivers()
    {
        // a save: the work is asked to stop, and what it did is still told
        JobTracker tracker;
        tracker.setCancelWaits(true);
        QSignalSpy cancelled(&tracker, &JobTracker::cancelled);
        QSignalSpy finished(&tracker, &JobTracker::finished);
        auto running = std::make_shared<std::atomic<bool>>(false);
        QString delivered;
        tracker.start(
            QStringLiteral("save"),
            [running](const gguf::ProgressFn &report) {
                *running = true;
                uint64_t steps = 0;
                while (report(steps % 100, 100))
                    ++steps;
                return QStringLiteral("stopped after %1 steps").arg(steps);
            },
            [&](const QString &value) { delivered = value; });
        QTRY_VERIFY(running->load());
        tracker.cancel();
        QVERIFY(tracker.isRunning()); // until the work has answered
        QVERIFY(finished.wait(5000));
        QVERIFY(delivered.startsWith(QStringLiteral("stopped after")));
        QCOMPARE(cancelled.count(), 0);
        QVERIFY(!tracker.isRunning());
    }
};

QTEST_GUILESS_MAIN(TestJobTracker)
#include "tst_job_tracker.moc"
