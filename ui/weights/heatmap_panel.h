// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/tensor_handle.h"
#include "ui/weights/weight_view.h"

#include <QWidget>

class LazyRefresh;
class HeatmapPlot;
class JobProgress;
class JobTracker;
class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;

/// A tensor as a heatmap of tiles (rows × columns reduced by the core to at most N × N cells)
/// showing a chosen measure per tile. Clicking a tile shows its row and column range;
/// "Show bytes" (or a double-click) asks for the bytes of the blocks of the tile's first row.
class HeatmapPanel : public QWidget, public WeightView {
    Q_OBJECT
public:
    explicit HeatmapPanel(QWidget *parent = nullptr);

    void setTensor(const TensorHandle &tensor) override;
    /// Grid size: at most `cells` × `cells` tiles.
    void setGridSize(int cells);
    void setMeasure(int measure);

    HeatmapPlot *plot() const { return m_plot; }
    JobTracker *tracker() const override { return m_tracker; }
    QCustomPlot *shownPlot() const override;
    QString tileInfo() const;

    /// The file byte range of the blocks holding the first row of tile (row, column).
    std::pair<quint64, quint64> tileBytes(int row, int column) const;

    void refresh();

signals:
    /// The user asked to see bytes [offset, offset + size) of the tensor's file.
    void byteRangeRequested(quint64 offset, quint64 size);

private:
    void showTile(int row, int column);
    void requestBytes(int row, int column);

    TensorHandle m_tensor;
    LazyRefresh *m_lazy = nullptr; ///< refresh() when stale and visible
    int m_tileRow = -1, m_tileColumn = -1;

    QComboBox *m_measure;
    QComboBox *m_grid;
    QCheckBox *m_logColors;
    HeatmapPlot *m_plot;
    QLabel *m_tile;
    QPushButton *m_showBytes;
    JobTracker *m_tracker;
    JobProgress *m_progress;
};
