// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/index_plot.h"

#include "queued_plot.h"
#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QLabel>
#include <QStackedLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

IndexPlot::IndexPlot(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout), m_plot(new QueuedPlot(this)), m_message(new QLabel(this)),
      m_readout(new QLabel(this))
{
    PlotStyle::buildFrame(this, m_stack, m_plot, m_message, m_readout);
    m_plot->setMinimumSize(240, 160);
    // the keys are whole numbers (an element, a layer, a channel): so are the ticks, never "0.5"
    // printed as "1" beside the real 1 (#40)
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1.0);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    ticker->setTickStepStrategy(QCPAxisTicker::tssReadability);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setNumberFormat(QStringLiteral("f"));
    m_plot->xAxis->setNumberPrecision(0);
    m_graph = m_plot->addGraph();
    m_graph->setLineStyle(QCPGraph::lsLine);
    m_graph->setAdaptiveSampling(true);
    PlotStyle::enableZoomAndPan(m_plot);
    m_plot->setToolTip(tr("Wheel: zoom · drag: pan · double-click: all"));
    connect(m_plot, &QCustomPlot::mouseMove, this, &IndexPlot::hover);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable *, int index) {
        if (index >= 0 && index < m_values.size())
            emit pointClicked(index);
    });
    applyPalette();
    showMessage(QString());
}

void IndexPlot::setValues(const QVector<double> &values, const QString &keyLabel, const QString &valueLabel, int first)
{
    QVector<double> keys(values.size());
    for (int i = 0; i < keys.size(); ++i)
        keys[i] = first + i;
    setSeries(keys, values, keyLabel, valueLabel);
}

void IndexPlot::setSeries(const QVector<double> &keys, const QVector<double> &values, const QString &keyLabel,
                          const QString &valueLabel)
{
    m_keys = keys;
    m_values = values;
    m_keys.resize(m_values.size());
    m_keyLabel = keyLabel;
    m_plot->xAxis->setLabel(keyLabel);
    m_plot->yAxis->setLabel(valueLabel);
    m_readout->clear();
    m_stack->setCurrentWidget(m_plot);
    redraw();
}

void IndexPlot::setIncludeZero(bool includeZero)
{
    m_includeZero = includeZero;
    resetZoom();
}

void IndexPlot::setLogarithmic(bool logarithmic)
{
    if (logarithmic == m_logarithmic)
        return;
    m_logarithmic = logarithmic;
    m_plot->yAxis->setScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic)
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        m_plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
    redraw();
}

void IndexPlot::redraw()
{
    QVector<double> shown(m_values.size());
    for (int i = 0; i < m_values.size(); ++i) // a logarithmic axis cannot show 0 or less: gaps
        shown[i] = m_logarithmic && !(m_values[i] > 0) ? std::numeric_limits<double>::quiet_NaN() : m_values[i];
    m_graph->setData(m_keys, shown, true);
    m_graph->setScatterStyle(m_values.size() <= 64 ? QCPScatterStyle(QCPScatterStyle::ssCircle, 7)
                                                   : QCPScatterStyle(QCPScatterStyle::ssNone));
    applyPalette();
    resetZoom();
}

void IndexPlot::showMessage(const QString &text)
{
    m_keys.clear();
    m_values.clear();
    m_graph->data()->clear();
    m_message->setText(text);
    m_readout->clear();
    m_stack->setCurrentWidget(m_message);
}

bool IndexPlot::hasPlot() const
{
    return m_stack->currentWidget() == m_plot && !m_values.isEmpty();
}

QString IndexPlot::pointText(int index) const
{
    if (index < 0 || index >= m_values.size())
        return {};
    return tr("%1 %2: %3")
        .arg(m_keyLabel, QString::number(m_keys[index], 'g', 10), QString::number(m_values[index], 'g', 6));
}

int IndexPlot::indexAt(double x) const
{
    if (m_keys.isEmpty())
        return -1;
    const auto after = std::lower_bound(m_keys.begin(), m_keys.end(), x);
    if (after == m_keys.begin())
        return 0;
    if (after == m_keys.end())
        return static_cast<int>(m_keys.size() - 1);
    const auto before = after - 1;
    return static_cast<int>((x - *before <= *after - x ? before : after) - m_keys.begin());
}

void IndexPlot::resetZoom()
{
    bool found = false;
    const QCPRange keys = m_graph->getKeyRange(found);
    if (!found)
        return;
    const QCPRange values = m_graph->getValueRange(found);
    m_plot->xAxis->setRange(keys.lower - 0.5, keys.upper + 0.5);
    if (m_logarithmic)
        m_plot->yAxis->setRange(values.lower / 1.5, values.upper * 1.5);
    else {
        // a flat line (every layer's std 0, say) gets a tenth of its value each side, or a unit
        // around 0, rather than a span of rounding noise
        const double top = std::abs(values.upper);
        const double margin = values.size() > 0 ? std::max(values.size() * 0.08, top * 0.02)
                              : top > 0         ? top * 0.1
                                                : 1.0;
        const double lower = values.lower - margin;
        m_plot->yAxis->setRange(m_includeZero ? std::min(0.0, lower) : lower, values.upper + margin);
    }
    PlotStyle::redraw(m_plot);
}

void IndexPlot::hover(QMouseEvent *event)
{
    if (!hasPlot())
        return;
    m_readout->setText(pointText(indexAt(m_plot->xAxis->pixelToCoord(event->position().x()))));
}

void IndexPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void IndexPlot::applyPalette()
{
    PlotStyle::apply(m_plot, palette());
    const QColor color = palette().color(QPalette::Highlight);
    m_graph->setPen(QPen(color, 2));
    QCPScatterStyle scatter = m_graph->scatterStyle();
    scatter.setPen(QPen(color));
    scatter.setBrush(palette().color(QPalette::Base));
    m_graph->setScatterStyle(scatter);
    PlotStyle::redraw(m_plot);
}
