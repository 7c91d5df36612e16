// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/type_mix_plot.h"

#include "queued_plot.h"
#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QLabel>
#include <QStackedLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace {

// The unit of the value axis: the largest power of 1024 that keeps the biggest bar ≥ 1.
std::pair<double, QString> unitFor(double maxBytes)
{
    static const char *const names[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double scale = 1;
    int unit = 0;
    while (unit < 4 && maxBytes >= scale * 1024) {
        scale *= 1024;
        ++unit;
    }
    return {scale, QString::fromLatin1(names[unit])};
}

} // namespace

TypeMixPlot::TypeMixPlot(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout(this)), m_plot(new QueuedPlot(this)), m_empty(new QLabel(this))
{
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setEnabled(false);
    m_stack->addWidget(m_plot);
    m_stack->addWidget(m_empty);
    m_series = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_series->setWidth(0.6);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setTickLabelRotation(0);
    m_plot->setMinimumHeight(160);
    setToolTip(tr("Bytes of tensor data per tensor type"));
    applyPalette();
}

void TypeMixPlot::setBars(const QVector<Bar> &bars, const QString &emptyText)
{
    m_bars = bars;
    double maxBytes = 0;
    for (const Bar &bar : bars)
        maxBytes = std::max(maxBytes, bar.bytes);
    const auto [scale, unit] = unitFor(maxBytes);
    QVector<double> keys, values;
    QVector<QString> labels;
    for (qsizetype i = 0; i < bars.size(); ++i) {
        keys << static_cast<double>(i + 1);
        values << bars[i].bytes / scale;
        labels << bars[i].label;
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTicks(keys, labels);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setRange(0.3, static_cast<double>(bars.size()) + 0.7);
    m_plot->yAxis->setLabel(tr("Tensor data (%1)").arg(unit));
    m_plot->yAxis->setRange(0, maxBytes > 0 ? maxBytes / scale * 1.1 : 1);
    m_series->setData(keys, values);
    PlotStyle::redraw(m_plot);
    m_empty->setText(emptyText.isEmpty() ? tr("This file has no tensors.") : emptyText);
    m_stack->setCurrentWidget(bars.isEmpty() ? static_cast<QWidget *>(m_empty) : m_plot);
}

void TypeMixPlot::clear()
{
    m_bars.clear();
    m_series->data()->clear();
    m_empty->clear();
    m_stack->setCurrentWidget(m_empty);
}

void TypeMixPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void TypeMixPlot::applyPalette()
{
    const QPalette pal = palette();
    PlotStyle::apply(m_plot, pal);
    QColor fill = pal.color(QPalette::Highlight);
    m_series->setPen(QPen(fill.darker(120)));
    fill.setAlphaF(0.75f);
    m_series->setBrush(fill);
    PlotStyle::redraw(m_plot);
}
