// SPDX-License-Identifier: GPL-3.0-or-later
#include "queued_plot.h"

void QueuedPlot::resizeEvent(QResizeEvent *event)
{
    Q_UNUSED(event)
    setViewport(rect());
    redraw();
}

void QueuedPlot::redraw()
{
    m_stale = true;
    update();
}

void QueuedPlot::paintEvent(QPaintEvent *event)
{
    if (m_stale) {
        // the layers drawn into the buffers (of the new size), then shown by this paint (the
        // refresh the replot asks for is a later, cheap paint of the same buffers)
        m_stale = false;
        replot(rpQueuedRefresh);
    }
    QCustomPlot::paintEvent(event);
}
