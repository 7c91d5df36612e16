// SPDX-License-Identifier: GPL-3.0-or-later
// The stall monitor behind GGUF_STALL_REPORT: a handler that keeps the GUI thread busy is measured
// and named; time a tool excludes and the waits of a nested event loop are not stalls.
#include "app/explorer/stall_monitor.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <QtTest>

#include <functional>

namespace {

/// Keeps the thread busy (not asleep: a stall is work, and a sleeping thread is as unresponsive).
void spin(int ms)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) {
    }
}

/// Runs `work` when it receives a QEvent::User.
class Worker : public QObject {
public:
    explicit Worker(std::function<void()> work) : m_work(std::move(work)) { setObjectName(QStringLiteral("worker")); }
    bool done = false;

protected:
    bool event(QEvent *e) override
    {
        if (e->type() != QEvent::User)
            return QObject::event(e);
        m_work();
        done = true;
        return true;
    }

private:
    std::function<void()> m_work;
};

/// Runs a real event loop for `ms`: it waits for events as QApplication::exec() does (QTest::qWait
/// polls without waiting in the dispatcher, so to the monitor it would look like one long stretch).
void idle(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

/// Posts the work and lets the event loop run it and then go idle.
void runAndSettle(StallMonitor &monitor, Worker &worker)
{
    monitor.start();
    idle(20); // the stretch that start() opened ends at the first wait
    QCoreApplication::postEvent(&worker, new QEvent(QEvent::User));
    idle(50);
    QVERIFY(worker.done);
    idle(20);
}

} // namespace

class TestStallMonitor : public QObject {
    Q_OBJECT

private slots:
    void busyHandlerIsMeasuredAndNamed()
    {
        StallMonitor monitor;
        Worker worker([] { spin(150); });
        runAndSettle(monitor, worker);
        QVERIFY2(monitor.maxStallMs() >= 150, qPrintable(monitor.report()));
        QCOMPARE(monitor.maxStallAction(), QStringLiteral("User to QObject \"worker\""));
        // the events sent while handling one are charged their own time, not their caller's
        Worker caller([] {
            QObject child;
            child.setObjectName(QStringLiteral("child"));
            QEvent ping(QEvent::User);
            QCoreApplication::sendEvent(&child, &ping); // returns at once
            spin(60);                                   // the caller's own work, after its child
        });
        caller.setObjectName(QStringLiteral("caller"));
        StallMonitor second;
        runAndSettle(second, caller);
        QVERIFY2(second.maxStallMs() >= 60, qPrintable(second.report()));
        QCOMPARE(second.maxStallAction(), QStringLiteral("User to QObject \"caller\""));
        QVERIFY(monitor.report().startsWith(QStringLiteral("max-stall-ms ")));
        const QStringList words = monitor.report().split(u' ');
        bool number = false;
        QVERIFY(words.value(1).toInt(&number) >= 150 && number);
    }

    void longestStretchWins()
    {
        StallMonitor monitor;
        Worker first([] { spin(120); });
        runAndSettle(monitor, first);
        Worker second([] { spin(40); });
        second.setObjectName(QStringLiteral("second"));
        QCoreApplication::postEvent(&second, new QEvent(QEvent::User));
        idle(50);
        QVERIFY(second.done);
        QVERIFY2(monitor.maxStallMs() >= 120, qPrintable(monitor.report()));
        QVERIFY2(monitor.maxStallAction().contains(QStringLiteral("\"worker\"")), qPrintable(monitor.report()));
    }

    void excludedTimeIsNotAStall()
    {
        StallMonitor monitor;
        Worker worker([&monitor] {
            const StallMonitor::Excluded tool(&monitor);
            spin(300);
        });
        runAndSettle(monitor, worker);
        // the 300 ms are left out; what remains is event handling around it
        QVERIFY2(monitor.maxStallMs() < 150, qPrintable(monitor.report()));
    }

    void nestedEventLoopIsNotAStall()
    {
        // a dialog's exec() or a QEventLoop waits for events: the thread is responsive meanwhile
        StallMonitor monitor;
        Worker worker([] {
            QEventLoop loop;
            QTimer::singleShot(300, &loop, &QEventLoop::quit);
            loop.exec();
        });
        runAndSettle(monitor, worker);
        QVERIFY2(monitor.maxStallMs() < 150, qPrintable(monitor.report()));
    }

    void workBeforeTheFirstWaitCounts()
    {
        // start() opens a stretch: synchronous work before the event loop runs is a stall too
        StallMonitor monitor;
        monitor.start();
        spin(100);
        QVERIFY(monitor.maxStallMs() >= 100); // counted while still running
        idle(10);
        QVERIFY2(monitor.maxStallMs() >= 100, qPrintable(monitor.report()));
        QCOMPARE(monitor.maxStallAction(), QStringLiteral("work outside any event"));
    }
};

// QTEST_MAIN with the explorer's application class, which tells the monitor where events begin and end
int main(int argc, char *argv[])
{
    MonitoredApplication app(argc, argv);
    QCoreApplication::setAttribute(Qt::AA_Use96Dpi, true);
    TestStallMonitor test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_stall_monitor.moc"
