// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/layer_chart.h"

#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QLabel>
#include <QStackedLayout>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

LayerChart::LayerChart(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout), m_plot(new QCustomPlot(this)), m_message(new QLabel(this)),
      m_readout(new QLabel(this))
{
    PlotStyle::buildFrame(this, m_stack, m_plot, m_message, m_readout);
    m_plot->setMinimumSize(240, 160);
    m_plot->xAxis->setLabel(tr("Layer"));
    auto ticker = QSharedPointer<QCPAxisTicker>::create();
    ticker->setTickStepStrategy(QCPAxisTicker::tssReadability);
    m_plot->xAxis->setTicker(ticker);
    m_plot->xAxis->setNumberFormat(QStringLiteral("f"));
    m_plot->xAxis->setNumberPrecision(0);
    m_graph = m_plot->addGraph();
    m_graph->setLineStyle(QCPGraph::lsLine);
    PlotStyle::enableZoomAndPan(m_plot);
    m_plot->setToolTip(tr("Click a point to show that layer's tensor · wheel: zoom · drag: pan · double-click: all"));
    connect(m_plot, &QCustomPlot::mouseMove, this, &LayerChart::hover);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this] { resetZoom(); });
    connect(m_plot, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable *, int index) {
        if (index >= 0 && index < m_points.size())
            emit tensorClicked(m_points[index].tensor);
    });
    applyPalette();
    showMessage(QString());
}

void LayerChart::setPoints(const QVector<Point> &points, const QString &valueLabel)
{
    m_points = points;
    QVector<double> keys, values;
    for (const Point &p : points) {
        keys << p.layer;
        values << p.value;
    }
    m_graph->setData(keys, values, true);
    m_plot->yAxis->setLabel(valueLabel);
    m_stack->setCurrentWidget(m_plot);
    resetZoom();
}

void LayerChart::showMessage(const QString &text)
{
    m_points.clear();
    m_graph->data()->clear();
    m_message->setText(text);
    m_readout->clear();
    m_stack->setCurrentWidget(m_message);
}

int LayerChart::pointCount() const
{
    return m_graph->dataCount();
}

bool LayerChart::hasPlot() const
{
    return m_stack->currentWidget() == m_plot && !m_points.isEmpty();
}

int LayerChart::pointAt(double x) const
{
    int best = -1;
    double distance = 0;
    for (int i = 0; i < m_points.size(); ++i) {
        const double d = std::abs(m_points[i].layer - x);
        if (best < 0 || d < distance) {
            best = i;
            distance = d;
        }
    }
    return best;
}

void LayerChart::resetZoom()
{
    bool found = false;
    const QCPRange keys = m_graph->getKeyRange(found);
    if (!found)
        return;
    const QCPRange values = m_graph->getValueRange(found);
    m_plot->xAxis->setRange(keys.lower - 0.5, keys.upper + 0.5);
    const double margin = std::max(values.size() * 0.08, std::max(std::abs(values.upper), 1e-12) * 0.02);
    m_plot->yAxis->setRange(values.lower - margin, values.upper + margin);
    m_plot->replot();
}

void LayerChart::hover(QMouseEvent *event)
{
    if (!hasPlot())
        return;
    const int i = pointAt(m_plot->xAxis->pixelToCoord(event->position().x()));
    if (i < 0)
        return;
    m_readout->setText(tr("Layer %1 (%2): %3")
                           .arg(m_points[i].layer)
                           .arg(m_points[i].tensor, QString::number(m_points[i].value, 'g', 7)));
}

void LayerChart::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void LayerChart::applyPalette()
{
    PlotStyle::apply(m_plot, palette());
    const QColor color = palette().color(QPalette::Highlight);
    m_graph->setPen(QPen(color, 2));
    m_graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, palette().color(QPalette::Base), 7));
    m_plot->replot();
}
