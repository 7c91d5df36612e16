// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPointer>
#include <QWidget>

class JobTracker;
class QLabel;
class QProgressBar;
class QPushButton;

/// A strip under a view that follows its JobTracker: what is being computed, a progress bar and a
/// Cancel button while a job runs; "Cancelled" and a Restart button after a cancel; hidden otherwise.
class JobProgress : public QWidget {
    Q_OBJECT
public:
    explicit JobProgress(QWidget *parent = nullptr);

    /// Follows `tracker` (several trackers may share one strip; it shows the last one started).
    void track(JobTracker *tracker);
    QString text() const;

signals:
    /// The user asked to run the cancelled computation again.
    void restartClicked();

private:
    void showRunning(JobTracker *tracker, const QString &label);
    void showCancelled();

    QPointer<JobTracker> m_current;
    QLabel *m_label;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QPushButton *m_restart;
};
