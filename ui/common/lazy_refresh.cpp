// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/lazy_refresh.h"

#include <QEvent>
#include <QTimer>
#include <QWidget>

LazyRefresh::LazyRefresh(QWidget *widget, std::function<void()> refresh)
    : QObject(widget), m_widget(widget), m_refresh(std::move(refresh)), m_delay(new QTimer(this))
{
    m_delay->setSingleShot(true);
    connect(m_delay, &QTimer::timeout, this, [this] {
        if (m_stale && m_widget->isVisible())
            refreshNow();
    });
    widget->installEventFilter(this);
}

void LazyRefresh::invalidate()
{
    m_delay->stop();
    m_stale = true;
    if (m_widget->isVisible())
        refreshNow();
}

void LazyRefresh::invalidateAfter(int milliseconds)
{
    m_stale = true;
    m_delay->start(milliseconds);
}

void LazyRefresh::refreshNow()
{
    m_delay->stop();
    m_stale = false;
    m_refresh();
}

void LazyRefresh::clear()
{
    m_delay->stop();
    m_stale = false;
}

bool LazyRefresh::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_widget && event->type() == QEvent::Show && m_stale)
        refreshNow();
    return QObject::eventFilter(watched, event);
}
