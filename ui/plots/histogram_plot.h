// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>
#include <QWidget>

class QCustomPlot;
class QLabel;
class QMouseEvent;
class QStackedLayout;

/// Histograms drawn with QCustomPlot: one series as bars, several as step lines in their own
/// colours with a legend. Linear or logarithmic value axis, zoom (wheel) and pan (drag) with a
/// double-click to reset, and a read-out of the bin under the mouse. Follows the palette.
class HistogramPlot : public QWidget {
    Q_OBJECT
public:
    /// One histogram: `values` split [lo, hi] into values.size() equal bins.
    struct Series {
        QString name;
        double lo = 0, hi = 0;
        QVector<double> values;
    };

    /// What the values are: counts of values per bin, or the percentage of a tensor's values per bin.
    enum class Scale : uint8_t { Counts, Shares };

    explicit HistogramPlot(QWidget *parent = nullptr);

    void setSeries(const QVector<Series> &series, Scale scale);
    /// The label of the value axis ("Value" by default).
    void setValueLabel(const QString &label);
    /// Shows `text` instead of a plot.
    void showMessage(const QString &text);
    const QVector<Series> &series() const { return m_series; }
    bool hasPlot() const;

    void setLogarithmic(bool logarithmic);
    bool isLogarithmic() const { return m_logarithmic; }
    /// Back to the whole range after zooming or panning.
    void resetZoom();

    /// What the read-out says about the bin(s) at key `x`.
    QString readoutAt(double x) const;
    QString readoutText() const;
    /// What the read-out says while the mouse is not over a bin.
    static QString hint();

    QCustomPlot *plot() const { return m_plot; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void showLegend(bool show);
    void rebuild();
    void applyPalette();
    void hover(QMouseEvent *event);

    QStackedLayout *m_stack;
    QCustomPlot *m_plot;
    QLabel *m_message;
    QLabel *m_readout;
    QVector<Series> m_series;
    Scale m_scale = Scale::Counts;
    bool m_logarithmic = false;
};
