// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/plots/index_plot.h"

#include <QStringList>

/// A line across the layers: one point per layer of a statistic of one tensor role (an IndexPlot
/// over layer numbers), with a read-out naming the point's tensor; clicking a point names it.
class LayerChart : public IndexPlot {
    Q_OBJECT
public:
    struct Point {
        int layer = 0;
        double value = 0;
        QString tensor;
    };

    explicit LayerChart(QWidget *parent = nullptr);

    /// Shows `points` (in layer order) with `valueLabel` on the value axis.
    void setPoints(const QVector<Point> &points, const QString &valueLabel);
    void showMessage(const QString &text);
    const QVector<Point> &points() const { return m_points; }
    /// The point nearest to plot key `x`; -1 when there is none.
    int pointAt(double x) const { return indexAt(x); }
    QString pointText(int index) const override;

signals:
    /// The point of `tensor` was clicked.
    void tensorClicked(const QString &tensor);

private:
    QVector<Point> m_points;
};
