// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/stall_monitor.h"

#include <QAbstractEventDispatcher>
#include <QEvent>
#include <QMetaEnum>
#include <QTextStream>
#include <QThread>

#include <algorithm>

StallMonitor::StallMonitor(QObject *parent) : QObject(parent)
{
    m_clock.start();
    bool ok = false;
    const int traceMs = qEnvironmentVariableIntValue("GGUF_STALL_TRACE", &ok);
    if (ok)
        m_traceNs = static_cast<qint64>(traceMs) * 1000000;
}

StallMonitor::~StallMonitor()
{
    if (auto *app = qobject_cast<MonitoredApplication *>(QCoreApplication::instance()); app) {
        StallMonitor *self = this;
        app->m_monitor.compare_exchange_strong(self, nullptr);
    }
}

void StallMonitor::start()
{
    if (m_dispatcher)
        return;
    m_dispatcher = QAbstractEventDispatcher::instance(thread());
    if (m_dispatcher)
        connect(m_dispatcher, &QAbstractEventDispatcher::aboutToBlock, this, &StallMonitor::aboutToBlock,
                Qt::DirectConnection);
    if (auto *app = qobject_cast<MonitoredApplication *>(QCoreApplication::instance()))
        app->m_monitor.store(this);
    openStretch(m_clock.nsecsElapsed());
}

void StallMonitor::openStretch(qint64 nowNs)
{
    m_running = true;
    m_stretchStartNs = nowNs;
    m_lastBoundaryNs = nowNs;
    m_excludedNs = 0;
    m_excludedAtBoundary = 0;
    m_outside = EventNote{};
    m_top = EventNote{};
    m_top.selfNs = -1;
    for (EventNote &open : m_stack)
        open.selfNs = 0;
}

void StallMonitor::charge(qint64 nowNs)
{
    const qint64 spent = nowNs - m_lastBoundaryNs - (m_excludedNs - m_excludedAtBoundary);
    (m_stack.empty() ? m_outside : m_stack.back()).selfNs += std::max<qint64>(0, spent);
    m_lastBoundaryNs = nowNs;
    m_excludedAtBoundary = m_excludedNs;
}

void StallMonitor::consider(const EventNote &note)
{
    if (note.selfNs > m_top.selfNs)
        m_top = note;
}

void StallMonitor::eventBegins(QObject *receiver, const QEvent *event)
{
    const qint64 now = m_clock.nsecsElapsed();
    // the first event after a wait opens a stretch (the glib dispatcher does not say when it wakes
    // up; the Unix one says so before it polls)
    if (!m_running)
        openStretch(now);
    else
        charge(now);
    EventNote note;
    note.type = event->type();
    note.receiverClass = receiver->metaObject()->className();
    note.receiverName = receiver->objectName();
    if (const QObject *parent = receiver->parent()) {
        note.parentClass = parent->metaObject()->className();
        if (parent->parent())
            note.grandparentClass = parent->parent()->metaObject()->className();
    }
    m_stack.push_back(std::move(note));
}

void StallMonitor::eventEnds()
{
    if (m_stack.empty())
        return;
    if (m_running) {
        charge(m_clock.nsecsElapsed());
        consider(m_stack.back());
    }
    m_stack.pop_back();
}

void StallMonitor::aboutToBlock()
{
    if (!m_running)
        return;
    const qint64 now = m_clock.nsecsElapsed();
    charge(now);
    m_running = false;
    // the events still open (the one running a nested event loop, and its callers) have their
    // time in this stretch too
    for (const EventNote &open : m_stack)
        consider(open);
    const qint64 stretch = now - m_stretchStartNs - m_excludedNs;
    const bool outside = m_outside.selfNs > m_top.selfNs || m_top.selfNs < 0;
    if (stretch > m_maxNs) {
        m_maxNs = stretch;
        m_maxAction = outside ? QStringLiteral("work outside any event") : m_top.describe();
    }
    if (m_traceNs >= 0 && stretch >= m_traceNs)
        QTextStream(stderr) << QStringLiteral("stall %1 ms at %2 ms: %3\n")
                                   .arg(qRound(static_cast<double>(stretch) / 1e6))
                                   .arg(qRound(static_cast<double>(m_stretchStartNs) / 1e6))
                                   .arg(outside ? QStringLiteral("work outside any event") : m_top.describe());
}

QString StallMonitor::EventNote::describe() const
{
    const char *typeName = QMetaEnum::fromType<QEvent::Type>().valueToKey(type);
    QString text = (typeName ? QString::fromLatin1(typeName) : QStringLiteral("event %1").arg(type)) +
                   QStringLiteral(" to ") + QString::fromLatin1(receiverClass ? receiverClass : "?");
    if (!receiverName.isEmpty())
        text += QStringLiteral(" \"%1\"").arg(receiverName);
    if (parentClass)
        text += QStringLiteral(" in ") + QString::fromLatin1(parentClass);
    if (grandparentClass)
        text += QStringLiteral(" in ") + QString::fromLatin1(grandparentClass);
    return text;
}

double StallMonitor::maxStallMs() const
{
    qint64 longest = m_maxNs;
    if (m_running)
        longest = std::max(longest, m_clock.nsecsElapsed() - m_stretchStartNs - m_excludedNs);
    return static_cast<double>(longest) / 1e6;
}

QString StallMonitor::maxStallAction() const
{
    if (m_running && m_clock.nsecsElapsed() - m_stretchStartNs - m_excludedNs > m_maxNs)
        return m_stack.empty() ? QStringLiteral("work outside any event") : m_stack.back().describe();
    return m_maxAction;
}

QString StallMonitor::report() const
{
    return QStringLiteral("max-stall-ms %1 (%2)").arg(qRound(maxStallMs())).arg(maxStallAction());
}

StallMonitor::Excluded::Excluded(StallMonitor *monitor) : m_monitor(monitor)
{
    if (m_monitor)
        m_startNs = m_monitor->m_clock.nsecsElapsed();
}

StallMonitor::Excluded::~Excluded()
{
    if (m_monitor && m_monitor->m_running)
        m_monitor->m_excludedNs += m_monitor->m_clock.nsecsElapsed() - m_startNs;
}

MonitoredApplication::MonitoredApplication(int &argc, char **argv) : QApplication(argc, argv) {}

bool MonitoredApplication::notify(QObject *receiver, QEvent *event)
{
    StallMonitor *monitor = m_monitor.load(std::memory_order_relaxed);
    if (!monitor || !receiver || QThread::currentThread() != monitor->thread())
        return QApplication::notify(receiver, event);
    monitor->eventBegins(receiver, event);
    const bool handled = QApplication::notify(receiver, event);
    monitor->eventEnds();
    return handled;
}
