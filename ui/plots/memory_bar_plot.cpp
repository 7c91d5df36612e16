// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/memory_bar_plot.h"

#include "queued_plot.h"
#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace {

const char *const kPartNames[MemoryBarPlot::kParts] = {
    QT_TRANSLATE_NOOP("MemoryBarPlot", "Weights"), QT_TRANSLATE_NOOP("MemoryBarPlot", "KV cache"),
    QT_TRANSLATE_NOOP("MemoryBarPlot", "Compute"), QT_TRANSLATE_NOOP("MemoryBarPlot", "Output")};

} // namespace

MemoryBarPlot::MemoryBarPlot(QWidget *parent) : QWidget(parent), m_plot(new QueuedPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    for (int i = 0; i < kParts; ++i) {
        // bars along the x axis (bytes), one row per device on the y axis
        m_parts[size_t(i)] = new QCPBars(m_plot->yAxis, m_plot->xAxis);
        m_parts[size_t(i)]->setName(tr(kPartNames[i]));
        m_parts[size_t(i)]->setWidth(0.55);
        if (i > 0)
            m_parts[size_t(i)]->moveAbove(m_parts[size_t(i - 1)]);
    }
    m_budget = new QCPItemStraightLine(m_plot);
    m_budget->setVisible(false);
    m_plot->yAxis->grid()->setVisible(false);
    m_plot->yAxis->setRangeReversed(true);
    // the legend in a row of its own above the bars, so it never covers them
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
    m_plot->setMinimumHeight(170);
    applyPalette();
}

void MemoryBarPlot::setDevices(const QVector<Device> &devices, double budget)
{
    m_devices = devices;
    double maxTotal = budget > 0 ? budget : 0;
    for (const Device &d : devices) {
        double total = 0;
        for (const double b : d.bytes)
            total += b;
        maxTotal = std::max(maxTotal, total);
    }
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    m_scale = 1;
    int unit = 0;
    while (unit < 4 && maxTotal >= m_scale * 1024) {
        m_scale *= 1024;
        ++unit;
    }
    m_unit = QString::fromLatin1(units[unit]);
    QVector<double> keys;
    QVector<QString> labels;
    for (qsizetype i = 0; i < devices.size(); ++i) {
        keys << double(i + 1);
        labels << devices[i].label;
    }
    for (int p = 0; p < kParts; ++p) {
        QVector<double> values;
        for (const Device &d : devices)
            values << d.bytes[size_t(p)] / m_scale;
        m_parts[size_t(p)]->setData(keys, values);
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTicks(keys, labels);
    m_plot->yAxis->setTicker(ticker);
    m_plot->yAxis->setRange(0.4, double(devices.size()) + 0.6);
    m_plot->xAxis->setLabel(tr("Memory (%1)").arg(m_unit));
    m_plot->xAxis->setRange(0, maxTotal > 0 ? maxTotal / m_scale * 1.08 : 1);
    m_budget->setVisible(budget > 0);
    if (budget > 0) {
        m_budget->point1->setCoords(budget / m_scale, 0);
        m_budget->point2->setCoords(budget / m_scale, 1);
    }
    PlotStyle::redraw(m_plot);
}

double MemoryBarPlot::drawnBytes(int device, int part) const
{
    const auto bars = m_parts[size_t(part)]->data();
    if (device < 0 || device >= bars->size())
        return -1;
    return (bars->constBegin() + device)->value * m_scale;
}

QString MemoryBarPlot::unitLabel() const
{
    return m_unit;
}

void MemoryBarPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void MemoryBarPlot::applyPalette()
{
    const QPalette pal = palette();
    PlotStyle::apply(m_plot, pal);
    // four distinguishable hues, lightened with a dark theme
    const QColor colors[kParts] = {PlotStyle::categoryColor(0), PlotStyle::categoryColor(1),
                                   PlotStyle::categoryColor(4), PlotStyle::categoryColor(6)};
    for (int p = 0; p < kParts; ++p)
        PlotStyle::fillBars(m_parts[size_t(p)], colors[p], pal);
    QPen budgetPen(pal.color(QPalette::WindowText));
    budgetPen.setStyle(Qt::DashLine);
    budgetPen.setWidthF(1.5);
    m_budget->setPen(budgetPen);
    PlotStyle::redraw(m_plot);
}
