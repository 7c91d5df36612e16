// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

#include <functional>

class QTimer;
class QWidget;

/// "Compute when visible, after a delay": a view whose content costs a worker pass refreshes only
/// while it can be seen. invalidate() marks what it shows stale: it is refreshed at once when the
/// widget is visible (or once a burst of changes has settled), else the next time it is shown.
class LazyRefresh : public QObject {
    Q_OBJECT
public:
    /// Calls `refresh` for `widget` (which owns this object) whenever it is stale and visible.
    LazyRefresh(QWidget *widget, std::function<void()> refresh);

    /// What the widget shows is stale: refreshed now when it is visible, else when it is shown.
    void invalidate();
    /// Stale, refreshed after `milliseconds` without another call when visible (changes come in
    /// bursts), else when shown.
    void invalidateAfter(int milliseconds);
    /// Refreshes now, stale or not (a Restart button).
    void refreshNow();
    /// Nothing to refresh: not stale, and a pending delay dropped.
    void clear();
    bool isStale() const { return m_stale; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_widget;
    std::function<void()> m_refresh;
    QTimer *m_delay;
    bool m_stale = false;
};
