// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>
#include <QWidget>

class QCPGraph;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QStackedLayout;

/// Values over ascending keys as a line (QCustomPlot): the importance of each input channel of a
/// weight, the norm of each row or column of a LoRA update, a statistic per layer (LayerChart).
/// A read-out names the point under the mouse; the value axis can be logarithmic (values ≤ 0 are
/// then left out); wheel zoom, drag pan, double-click shows everything; points are marked when
/// there are few of them.
class IndexPlot : public QWidget {
    Q_OBJECT
public:
    explicit IndexPlot(QWidget *parent = nullptr);

    /// Shows `values` at keys first, first + 1, …, with the axes labelled `keyLabel`, `valueLabel`.
    void setValues(const QVector<double> &values, const QString &keyLabel, const QString &valueLabel, int first = 0);
    /// Shows `values` at `keys` (ascending, as many as the values).
    void setSeries(const QVector<double> &keys, const QVector<double> &values, const QString &keyLabel,
                   const QString &valueLabel);
    /// Whether the linear value axis reaches down to 0 (true by default).
    void setIncludeZero(bool includeZero);
    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return m_logarithmic; }
    void showMessage(const QString &text);
    bool hasPlot() const;
    int pointCount() const { return static_cast<int>(m_values.size()); }
    const QVector<double> &values() const { return m_values; }
    const QVector<double> &keys() const { return m_keys; }
    /// The point whose key is nearest to plot key `x`; -1 when there is none.
    int indexAt(double x) const;
    /// What the read-out says about point `index`.
    virtual QString pointText(int index) const;
    void resetZoom();

    QCustomPlot *plot() const { return m_plot; }

signals:
    /// Point `index` was clicked.
    void pointClicked(int index);

protected:
    void changeEvent(QEvent *event) override;
    QString keyLabel() const { return m_keyLabel; }

private:
    void redraw();
    void applyPalette();
    void hover(QMouseEvent *event);

    QStackedLayout *m_stack;
    QCustomPlot *m_plot;
    QLabel *m_message;
    QLabel *m_readout;
    QCPGraph *m_graph;
    QVector<double> m_keys, m_values;
    QString m_keyLabel;
    bool m_logarithmic = false;
    bool m_includeZero = true;
};
