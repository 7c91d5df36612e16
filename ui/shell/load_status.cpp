// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/load_status.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

LoadStatus::LoadStatus(QWidget *parent)
    : QWidget(parent), m_label(new QLabel(this)), m_progress(new QProgressBar(this)),
      m_cancel(new QPushButton(tr("Cancel"), this))
{
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(200);
    m_progress->setTextVisible(false);
    m_cancel->setToolTip(tr("Stop opening this file (Esc)"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    connect(m_cancel, &QPushButton::clicked, this, &LoadStatus::cancelClicked);
    hide();
}

void LoadStatus::start(const QString &path)
{
    m_label->setText(tr("Opening %1…").arg(QFileInfo(path).fileName()));
    m_progress->setValue(0);
    show();
}

void LoadStatus::setProgress(int permille)
{
    m_progress->setValue(permille);
}

void LoadStatus::finish()
{
    hide();
}
