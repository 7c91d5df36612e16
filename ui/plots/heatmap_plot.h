// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/heatmap.h"

#include <QPoint>
#include <QWidget>

class QCPColorMap;
class QCPColorScale;
class QCPItemRect;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QStackedLayout;

/// A heatmap of a tensor reduced to tiles (QCPColorMap over the core's computeHeatmap), with a
/// colour scale, axes in tensor rows and columns (row 0 at the top), zoom and pan, a read-out of
/// the tile under the mouse, and tile selection by click.
class HeatmapPlot : public QWidget {
    Q_OBJECT
public:
    explicit HeatmapPlot(QWidget *parent = nullptr);

    void setHeatmap(const gguf::Heatmap &heatmap, gguf::TileMeasure measure);
    const gguf::Heatmap &heatmap() const { return m_heatmap; }
    void setMeasure(gguf::TileMeasure measure);
    /// What a tile's values are called in the labels: "mean |x|" by default, "mean |a−b|" with "a−b".
    void setValueSymbol(const QString &symbol);
    /// The values are never negative (importances): the mean gets the one-sided colours too.
    void setNonNegative(bool nonNegative);
    /// What a row and a column are ("Row" and "Column (ne[0])" by default; "Expert", "Channel").
    void setAxisLabels(const QString &rows, const QString &columns);
    gguf::TileMeasure measure() const { return m_measure; }
    /// Logarithmic colours for the measures that are ≥ 0 (a few huge tiles then hide nothing).
    void setLogarithmicColors(bool logarithmic);
    void showMessage(const QString &text);
    bool hasPlot() const;

    /// Outlines tile (row, column) of the grid and announces it.
    void selectTile(int row, int column);
    /// The tile at plot coordinates (column x, row y); (-1, -1) outside.
    QPoint tileAt(double x, double y) const;
    /// What the read-out says about tile (row, column).
    QString tileText(int row, int column) const;
    /// What the read-out under the pointer says (empty over the selected tile, whose text the panel
    /// shows already).
    QString readout() const;
    void resetZoom();

    QCustomPlot *plot() const { return m_plot; }
    QCPColorMap *colorMap() const { return m_map; }

signals:
    /// Tile (row, column) of the grid was clicked.
    void tileClicked(int row, int column);
    /// Tile (row, column) was double-clicked.
    void tileActivated(int row, int column);

protected:
    void changeEvent(QEvent *event) override;

private:
    void redraw();
    void applyPalette();
    void hover(QMouseEvent *event);
    void released(QMouseEvent *event);
    void doubleClicked(QMouseEvent *event);
    QPoint tileUnder(QMouseEvent *event) const;

    QStackedLayout *m_stack;
    QCustomPlot *m_plot;
    QLabel *m_message;
    QLabel *m_readout;
    QCPColorMap *m_map;
    QCPColorScale *m_scale;
    QCPItemRect *m_selection;
    QPoint m_selected{-1, -1}; ///< the selected tile: x column, y row
    gguf::Heatmap m_heatmap;
    gguf::TileMeasure m_measure = gguf::TileMeasure::MeanAbs;
    bool m_logColors = false;
    bool m_nonNegative = false;
    QString m_symbol = QStringLiteral("x");
    QPoint m_pressPos;
};
