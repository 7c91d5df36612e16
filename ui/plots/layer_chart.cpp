// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/layer_chart.h"

#include <qcustomplot.h>

LayerChart::LayerChart(QWidget *parent) : IndexPlot(parent)
{
    setIncludeZero(false); // a statistic's changes across the layers, not its distance from 0
    plot()->setToolTip(tr("Click a point to show that layer's tensor · wheel: zoom · drag: pan · double-click: all"));
    connect(this, &IndexPlot::pointClicked, this, [this](int index) {
        if (index >= 0 && index < m_points.size())
            emit tensorClicked(m_points[index].tensor);
    });
}

void LayerChart::setPoints(const QVector<Point> &points, const QString &valueLabel)
{
    m_points = points;
    QVector<double> keys, values;
    for (const Point &p : points) {
        keys << p.layer;
        values << p.value;
    }
    setSeries(keys, values, tr("Layer"), valueLabel);
}

void LayerChart::showMessage(const QString &text)
{
    m_points.clear();
    IndexPlot::showMessage(text);
}

QString LayerChart::pointText(int index) const
{
    if (index < 0 || index >= m_points.size())
        return {};
    return tr("Layer %1 (%2): %3")
        .arg(m_points[index].layer)
        .arg(m_points[index].tensor, QString::number(m_points[index].value, 'g', 7));
}
