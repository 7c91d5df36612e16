// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/job_progress.h"

#include "ui/common/job_tracker.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

JobProgress::JobProgress(QWidget *parent)
    : QWidget(parent), m_label(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this)), m_restart(new QPushButton(tr("Restart"), this))
{
    m_progress->setRange(0, 1000);
    m_progress->setTextVisible(false);
    m_progress->setMaximumWidth(240);
    m_label->setTextFormat(Qt::PlainText);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    layout->addWidget(m_restart);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_current)
            m_current->cancel();
    });
    connect(m_restart, &QPushButton::clicked, this, [this] {
        hide();
        emit restartClicked();
    });
    hide();
}

void JobProgress::track(JobTracker *tracker)
{
    connect(tracker, &JobTracker::started, this,
            [this, tracker](const QString &label) { showRunning(tracker, label); });
    connect(tracker, &JobTracker::progressChanged, this, [this, tracker](int permille) {
        if (tracker == m_current)
            m_progress->setValue(permille);
    });
    connect(tracker, &JobTracker::finished, this, [this, tracker] {
        if (tracker == m_current)
            hide();
    });
    connect(tracker, &JobTracker::dropped, this, [this, tracker] {
        if (tracker == m_current)
            hide();
    });
    connect(tracker, &JobTracker::cancelled, this, [this, tracker] {
        if (tracker == m_current)
            showCancelled();
    });
}

QString JobProgress::text() const
{
    return isHidden() ? QString() : m_label->text();
}

void JobProgress::showRunning(JobTracker *tracker, const QString &label)
{
    m_current = tracker;
    m_label->setText(label + QStringLiteral("…"));
    m_progress->setValue(0);
    m_progress->show();
    m_cancel->show();
    m_restart->hide();
    show();
}

void JobProgress::showCancelled()
{
    m_label->setText(tr("Cancelled: %1.").arg(m_current ? m_current->label() : QString()));
    m_progress->hide();
    m_cancel->hide();
    m_restart->show();
    show();
}
