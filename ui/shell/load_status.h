// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

/// The status-bar part that shows a load in progress: what is being opened, a progress bar and
/// a Cancel button. Hidden while nothing loads.
class LoadStatus : public QWidget {
    Q_OBJECT
public:
    explicit LoadStatus(QWidget *parent = nullptr);

    void start(const QString &path);
    /// Progress 0–1000.
    void setProgress(int permille);
    void finish();

signals:
    void cancelClicked();

private:
    QLabel *m_label;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
};
