// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How long the GUI thread went without returning to its event loop: `GGUF_STALL_REPORT=1` (and
// `--screenshot`) make gguf-explorer print `max-stall-ms N` on exit (docs/ARCHITECTURE.md §2,
// "the stall monitor").

#include <QApplication>
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <atomic>
#include <vector>

class QAbstractEventDispatcher;

/// Measures stalls of the thread it lives on (the GUI thread): a stall is the time from the first
/// event after a wait (or from start()) to the next time the event dispatcher is about to wait for
/// events again, i.e. one uninterrupted stretch of work in which no new input could be handled.
/// Nested event loops (dialogs, QEventLoop) wait in between, so they end a stretch.
///
/// The longest stretch is charged to an event: every moment goes to the innermost event being
/// handled then (its own time, without the events it sent), and the event with the most such
/// time in the stretch is named. Event boundaries come from MonitoredApplication::notify; without
/// it (another QApplication) only the figure is measured. GGUF_STALL_TRACE=MS prints every stretch
/// of at least MS milliseconds on stderr as it ends (when, how long, the event named).
class StallMonitor : public QObject {
    Q_OBJECT
public:
    explicit StallMonitor(QObject *parent = nullptr);
    ~StallMonitor() override;

    /// Starts measuring now (the work from here to the first wait counts as a stretch).
    void start();

    /// The longest stretch so far, in ms, without the time spent in Excluded scopes; the
    /// stretch still running counts up to now.
    double maxStallMs() const;
    /// "Paint to HexView in HexPage" for the event with the most time in the longest stretch.
    QString maxStallAction() const;
    /// "max-stall-ms N (ACTION)": the line printed on exit.
    QString report() const;

    /// Time in which the thread works for a tool rather than for the user (the screenshot tour
    /// encoding its PNGs): left out of the stretch it falls in.
    class Excluded {
    public:
        explicit Excluded(StallMonitor *monitor);
        ~Excluded();
        Excluded(const Excluded &) = delete;
        Excluded &operator=(const Excluded &) = delete;

    private:
        StallMonitor *m_monitor;
        qint64 m_startNs = 0;
    };

    /// MonitoredApplication calls these around each event of the monitor's thread.
    void eventBegins(QObject *receiver, const QEvent *event);
    void eventEnds();

private:
    /// An event as noted when it starts (named only when it is charged the most).
    struct EventNote {
        int type = 0;
        const char *receiverClass = nullptr;
        QString receiverName;
        const char *parentClass = nullptr;
        const char *grandparentClass = nullptr;
        qint64 selfNs = 0; ///< its own time in the current stretch
        QString describe() const;
    };

    void aboutToBlock();
    void openStretch(qint64 nowNs);
    /// Charges the time since the last boundary to the innermost event (or to no event).
    void charge(qint64 nowNs);
    /// Makes `note` the stretch's top event if it has more time than the top one.
    void consider(const EventNote &note);

    QElapsedTimer m_clock;
    QAbstractEventDispatcher *m_dispatcher = nullptr;
    bool m_running = false;      ///< inside a stretch
    qint64 m_stretchStartNs = 0; ///< when the current stretch began
    qint64 m_excludedNs = 0;     ///< excluded time inside the current stretch
    qint64 m_lastBoundaryNs = 0; ///< the last event start or end (or the stretch start)
    qint64 m_excludedAtBoundary = 0;
    qint64 m_maxNs = 0;             ///< the longest stretch so far
    QString m_maxAction;            ///< the event charged with most of it
    std::vector<EventNote> m_stack; ///< the events being handled, outermost first
    EventNote m_outside;            ///< time outside any event in the current stretch
    EventNote m_top;                ///< the event with the most time in the current stretch
    qint64 m_traceNs = -1;          ///< GGUF_STALL_TRACE=MS: every stretch of at least MS is printed (-1: none)
};

/// The explorer's QApplication: reports the start and end of every event of the GUI thread to
/// the StallMonitor that started on it (when one did; otherwise it adds nothing).
class MonitoredApplication : public QApplication {
    Q_OBJECT
public:
    MonitoredApplication(int &argc, char **argv);
    bool notify(QObject *receiver, QEvent *event) override;

private:
    friend class StallMonitor;
    std::atomic<StallMonitor *> m_monitor{nullptr}; ///< read by every thread's events
};
