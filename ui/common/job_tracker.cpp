// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/job_tracker.h"

#include <QCoreApplication>
#include <QThreadPool>

JobTracker::JobTracker(QObject *parent, QThreadPool *pool) : QObject(parent), m_pool(pool ? pool : JobTracker::pool())
{
}

JobTracker::~JobTracker()
{
    stop();
}

QThreadPool *JobTracker::pool()
{
    // Owned by the application object: it waits for cancelled jobs to return when the program ends.
    static QThreadPool *const jobs = [] {
        auto *p = new QThreadPool(QCoreApplication::instance());
        p->setMaxThreadCount(4);
        return p;
    }();
    return jobs;
}

quint64 JobTracker::begin(const QString &label)
{
    stop();
    m_running = true;
    m_label = label;
    emit started(label);
    return m_generation;
}

void JobTracker::watch(QFutureWatcherBase *watcher, quint64 generation)
{
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, generation](int permille) {
        if (generation == m_generation && m_running)
            emit progressChanged(permille);
    });
}

bool JobTracker::settle(quint64 generation)
{
    if (generation != m_generation || !m_running)
        return false;
    m_running = false;
    m_watcher.clear();
    return true;
}

void JobTracker::cancel()
{
    if (m_cancelWaits && m_running) {
        if (m_stopRequest)
            m_stopRequest->store(true, std::memory_order_relaxed);
        return;
    }
    if (stop())
        emit cancelled();
}

void JobTracker::drop()
{
    if (stop())
        emit dropped();
}

bool JobTracker::stop()
{
    // A new generation makes whatever the old job delivers stale; cancelling its future makes the
    // core's progress callback return false, so it stops early instead of running to the end.
    ++m_generation;
    m_stopRequest.reset();
    const bool wasRunning = m_running;
    m_running = false;
    if (m_watcher)
        m_watcher->cancel();
    m_watcher.clear();
    return wasRunning;
}
