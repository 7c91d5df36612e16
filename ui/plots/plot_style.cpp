// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/plot_style.h"

#include "queued_plot.h"

#include <QLabel>
#include <QStackedLayout>
#include <QVBoxLayout>

#include <QPalette>

#include <qcustomplot.h>

namespace {

void styleAxis(QCPAxis *axis, const QPalette &palette)
{
    const QColor text = palette.color(QPalette::WindowText);
    axis->setBasePen(QPen(text));
    axis->setTickPen(QPen(text));
    axis->setSubTickPen(QPen(text));
    axis->setTickLabelColor(text);
    axis->setLabelColor(text);
    QColor grid = text;
    grid.setAlphaF(0.15f);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setZeroLinePen(QPen(grid, 1, Qt::SolidLine));
}

} // namespace

namespace PlotStyle {

void fillBars(QCPBars *bars, const QColor &color, const QPalette &palette)
{
    const bool dark = palette.color(QPalette::Window).lightness() < 128;
    const QColor fill = dark ? color.lighter(115) : color;
    bars->setPen(QPen(fill.darker(130)));
    bars->setBrush(fill);
}

void redraw(QCustomPlot *plot)
{
    if (auto *queued = dynamic_cast<QueuedPlot *>(plot))
        queued->redraw();
    else
        plot->replot();
}

void apply(QCustomPlot *plot, const QPalette &palette)
{
    plot->setBackground(palette.brush(QPalette::Base));
    for (QCPAxis *axis : plot->axisRect()->axes())
        styleAxis(axis, palette);
    plot->legend->setBrush(palette.brush(QPalette::Base));
    plot->legend->setTextColor(palette.color(QPalette::Text));
    plot->legend->setBorderPen(QPen(palette.color(QPalette::Mid)));
}

void enableZoomAndPan(QCustomPlot *plot)
{
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeDrag(Qt::Horizontal | Qt::Vertical);
    plot->axisRect()->setRangeZoom(Qt::Horizontal | Qt::Vertical);
}

void buildFrame(QWidget *owner, QStackedLayout *stack, QCustomPlot *plot, QLabel *message, QLabel *readout)
{
    message->setAlignment(Qt::AlignCenter);
    message->setWordWrap(true);
    message->setEnabled(false);
    readout->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stack->addWidget(plot);
    stack->addWidget(message);
    auto *layout = new QVBoxLayout(owner);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(stack, 1);
    layout->addWidget(readout);
}

QColor categoryColor(int i)
{
    static const QRgb colors[] = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                  0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac};
    return QColor(colors[static_cast<size_t>(i) % std::size(colors)]);
}

} // namespace PlotStyle
