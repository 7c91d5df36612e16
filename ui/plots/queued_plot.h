// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <qcustomplot.h>

/// The QCustomPlot every chart of the window uses. QCustomPlot redraws all its layers in each
/// resize event, and a page that appears resizes its plots several times while its layout settles
/// (and a splitter drag dozens of times): each a full replot on the GUI thread, tens of ms on a busy
/// machine (#40, the stall monitor). Here a resize, or a change of what is drawn (redraw()), only
/// marks the plot, and the next paint redraws it once, whatever the number of changes before it; a
/// plot that is not on screen is not drawn at all.
class QueuedPlot : public QCustomPlot {
public:
    using QCustomPlot::QCustomPlot;

    /// Draws the plot anew at its next paint (replot() draws it now).
    void redraw();

protected:
    void resizeEvent(QResizeEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    bool m_stale = false;
};
