// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QVector>
#include <QWidget>

class QCPGraph;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QStackedLayout;

/// A line across the layers: one point per layer of a statistic of one tensor role (QCustomPlot),
/// with a read-out of the point under the mouse; clicking a point names its tensor.
class LayerChart : public QWidget {
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
    int pointCount() const;
    bool hasPlot() const;
    /// The point nearest to plot key `x`; -1 when there is none.
    int pointAt(double x) const;
    void resetZoom();

    QCustomPlot *plot() const { return m_plot; }

signals:
    /// The point of `tensor` was clicked.
    void tensorClicked(const QString &tensor);

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();
    void hover(QMouseEvent *event);

    QStackedLayout *m_stack;
    QCustomPlot *m_plot;
    QLabel *m_message;
    QLabel *m_readout;
    QCPGraph *m_graph;
    QVector<Point> m_points;
};
