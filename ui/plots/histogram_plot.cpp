// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/histogram_plot.h"

#include "queued_plot.h"
#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QLabel>
#include <QLocale>
#include <QStackedLayout>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace {

QString sixDigits(double v)
{
    return QString::number(v, 'g', 6);
}

// The bin of `x` in `s`, or -1 outside it.
qsizetype binOf(const HistogramPlot::Series &s, double x)
{
    if (s.values.isEmpty() || !(s.hi > s.lo) || x < s.lo || x > s.hi)
        return -1;
    const double width = (s.hi - s.lo) / static_cast<double>(s.values.size());
    return std::min<qsizetype>(static_cast<qsizetype>((x - s.lo) / width), s.values.size() - 1);
}

} // namespace

HistogramPlot::HistogramPlot(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout), m_plot(new QueuedPlot(this)), m_message(new QLabel(this)),
      m_readout(new QLabel(this))
{
    PlotStyle::buildFrame(this, m_stack, m_plot, m_message, m_readout);
    m_plot->setMinimumSize(240, 160);
    m_plot->setNoAntialiasingOnDrag(true);
    m_plot->xAxis->setLabel(tr("Value"));
    m_plot->legend->setVisible(false);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->legend->setWrap(4);
    PlotStyle::enableZoomAndPan(m_plot);
    connect(m_plot, &QCustomPlot::mouseMove, this, &HistogramPlot::hover);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });
    m_plot->setToolTip(tr("Wheel: zoom · drag: pan · double-click: whole range"));
    applyPalette();
    showMessage(QString());
}

void HistogramPlot::showLegend(bool show)
{
    // shown, the legend has a row of its own above the axes, its entries side by side (inside the
    // axes it covered the peak, #40); hidden, it waits in the axes' inset layout, where it takes no
    // room (and the plot's layout still owns it)
    QCPLayoutGrid *layout = m_plot->plotLayout();
    const bool above = layout->rowCount() > 1 && layout->element(0, 0) == m_plot->legend;
    if (show && !above) {
        m_plot->axisRect()->insetLayout()->take(m_plot->legend);
        layout->insertRow(0);
        layout->addElement(0, 0, m_plot->legend);
        layout->setRowStretchFactor(0, 0.001);
    } else if (!show && above) {
        layout->take(m_plot->legend);
        layout->simplify();
        m_plot->axisRect()->insetLayout()->addElement(m_plot->legend, Qt::AlignTop | Qt::AlignRight);
    }
    m_plot->legend->setVisible(show);
}

void HistogramPlot::setSeries(const QVector<Series> &series, Scale scale)
{
    m_series = series;
    m_scale = scale;
    rebuild();
    m_readout->setText(hint());
    m_stack->setCurrentWidget(m_plot);
}

void HistogramPlot::setValueLabel(const QString &label)
{
    m_plot->xAxis->setLabel(label);
    PlotStyle::redraw(m_plot);
}

void HistogramPlot::showMessage(const QString &text)
{
    m_series.clear();
    m_plot->clearPlottables();
    PlotStyle::redraw(m_plot);
    m_message->setText(text);
    m_readout->clear();
    m_stack->setCurrentWidget(m_message);
}

bool HistogramPlot::hasPlot() const
{
    return m_stack->currentWidget() == m_plot && !m_series.isEmpty();
}

void HistogramPlot::setLogarithmic(bool logarithmic)
{
    if (m_logarithmic == logarithmic)
        return;
    m_logarithmic = logarithmic;
    rebuild();
}

void HistogramPlot::rebuild()
{
    m_plot->clearPlottables();
    for (int i = 0; i < m_series.size(); ++i) {
        const Series &s = m_series[i];
        const qsizetype n = s.values.size();
        if (n == 0)
            continue;
        const double width = (s.hi - s.lo) / static_cast<double>(n);
        const QColor color = m_series.size() == 1 ? palette().color(QPalette::Highlight) : PlotStyle::categoryColor(i);
        if (m_series.size() == 1) {
            auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
            bars->setName(s.name);
            bars->setWidthType(QCPBars::wtPlotCoords);
            bars->setWidth(width);
            // axis-aligned rectangles: antialiasing only blurs their edges, and drawing thousands of
            // them antialiased was the longest paint of the Weights page (#40, the stall monitor)
            bars->setAntialiased(false);
            bars->setAntialiasedFill(false);
            QVector<double> keys(n);
            for (qsizetype b = 0; b < n; ++b)
                keys[b] = s.lo + (static_cast<double>(b) + 0.5) * width;
            bars->setData(keys, s.values, true);
            // Outlines only when the bars are wide enough for them not to hide the fill.
            bars->setPen(n <= 128 ? QPen(color.darker(130)) : QPen(Qt::NoPen));
            QColor fill = color;
            fill.setAlphaF(0.8f);
            bars->setBrush(fill);
            continue;
        }
        // Several series: step lines, the last bin closed at hi.
        auto *graph = m_plot->addGraph();
        graph->setName(s.name);
        graph->setLineStyle(QCPGraph::lsStepLeft);
        QVector<double> keys(n + 1), values(n + 1);
        for (qsizetype b = 0; b < n; ++b) {
            keys[b] = s.lo + static_cast<double>(b) * width;
            values[b] = s.values[b];
        }
        keys[n] = s.hi;
        values[n] = s.values[n - 1];
        graph->setData(keys, values, true);
        graph->setPen(QPen(color, 1.6));
        QColor fill = color;
        fill.setAlphaF(0.12f);
        graph->setBrush(fill);
    }
    showLegend(m_series.size() > 1);
    m_plot->yAxis->setLabel(m_scale == Scale::Counts ? tr("Values per bin") : tr("% of the tensor's values per bin"));
    if (m_logarithmic) {
        m_plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    } else {
        m_plot->yAxis->setScaleType(QCPAxis::stLinear);
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    }
    applyPalette();
    resetZoom();
}

void HistogramPlot::resetZoom()
{
    double lo = 0, hi = 1, top = 0, smallest = 0;
    bool first = true;
    for (const Series &s : m_series) {
        if (s.values.isEmpty())
            continue;
        lo = first ? s.lo : std::min(lo, s.lo);
        hi = first ? s.hi : std::max(hi, s.hi);
        first = false;
        for (double v : s.values) {
            top = std::max(top, v);
            if (v > 0)
                smallest = smallest > 0 ? std::min(smallest, v) : v;
        }
    }
    const double margin = (hi - lo) * 0.02;
    m_plot->xAxis->setRange(lo - margin, hi + margin);
    if (m_logarithmic)
        m_plot->yAxis->setRange(smallest > 0 ? smallest / 2 : 0.5, top > 0 ? top * 2 : 10);
    else
        m_plot->yAxis->setRange(0, top > 0 ? top * 1.05 : 1);
    PlotStyle::redraw(m_plot);
}

QString HistogramPlot::readoutAt(double x) const
{
    QStringList parts;
    const QLocale locale;
    for (const Series &s : m_series) {
        const qsizetype b = binOf(s, x);
        if (b < 0)
            continue;
        const double width = (s.hi - s.lo) / static_cast<double>(s.values.size());
        const double a = s.lo + static_cast<double>(b) * width;
        const bool last = b == s.values.size() - 1;
        const QString range = QStringLiteral("[%1, %2%3")
                                  .arg(sixDigits(a), sixDigits(last ? s.hi : a + width),
                                       last ? QStringLiteral("]") : QStringLiteral(")"));
        const QString value = m_scale == Scale::Counts ? locale.toString(static_cast<qulonglong>(s.values[b]))
                                                       : QStringLiteral("%1 %").arg(sixDigits(s.values[b]));
        if (m_series.size() == 1)
            parts << tr("Bin %1 of %2: %3 — %4 values").arg(b + 1).arg(s.values.size()).arg(range, value);
        else
            parts << QStringLiteral("%1 %2: %3").arg(s.name, range, value);
    }
    return parts.join(QStringLiteral(" · "));
}

QString HistogramPlot::readoutText() const
{
    return m_readout->text();
}

void HistogramPlot::hover(QMouseEvent *event)
{
    if (!hasPlot())
        return;
    const QString text = readoutAt(m_plot->xAxis->pixelToCoord(event->position().x()));
    m_readout->setText(text.isEmpty() ? hint() : text);
}

QString HistogramPlot::hint()
{
    return tr("Point at a bar to read its range and count.");
}

void HistogramPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        rebuild();
}

void HistogramPlot::applyPalette()
{
    PlotStyle::apply(m_plot, palette());
}
