// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/link.h"
#include "ui/common/tensor_handle.h"
#include "ui/compare/compare_jobs.h"

#include <QWidget>

class LazyRefresh;
class HeatmapPlot;
class HistogramPlot;
class JobProgress;
class JobTracker;
class LayerChart;
class QComboBox;
class QLabel;
class QPushButton;
class QTabWidget;
class TensorDiffModel;

/// One tensor pair of a comparison in detail: the histograms of A and B overlaid on one range,
/// the histogram of a − b, a heatmap of |a − b| by tiles (a click shows the tile's rows and
/// columns; "Show bytes" opens its blocks in either file), and one error measure of the pair's
/// role across the layers. The computations run on a worker, for the pair on show only.
class TensorPairPanel : public QWidget {
    Q_OBJECT
public:
    explicit TensorPairPanel(TensorDiffModel *pairs, QWidget *parent = nullptr);

    /// Shows row `row` of the pairs model (-1: nothing).
    void setRow(int row);
    int row() const { return m_row; }
    /// The layer chart again (new measures arrived); when it is not on screen, once it is.
    void refreshLayers();
    /// The title line again (the pair's status changed).
    void updateTitle();

    JobTracker *tracker() const { return m_tracker; }
    QTabWidget *views() const { return m_views; }
    HistogramPlot *histograms() const { return m_histograms; }
    HistogramPlot *differenceHistogram() const { return m_difference; }
    HeatmapPlot *heatmap() const { return m_heatmap; }
    LayerChart *layers() const { return m_layers; }
    QString tileText() const;
    /// The file byte range of the blocks of the first row of tile (row, column) in side 0 (A) or 1 (B).
    std::pair<quint64, quint64> tileBytes(int side, int row, int column) const;

signals:
    /// The user asked for the bytes of a tile in the tensor of side A or B (a Link::bytes link).
    void linkActivated(const Link &link);
    /// A point of the layer chart was clicked: show that tensor's pair.
    void tensorChosen(const QString &name);

private:
    void compute();
    void drawLayers();
    void show(const CompareJobs::PairDetail &detail);
    void showTile(int row, int column);

    TensorDiffModel *m_pairs;
    int m_row = -1;
    LazyRefresh *m_lazy = nullptr;       ///< compute() when stale and on screen
    LazyRefresh *m_layersLazy = nullptr; ///< drawLayers() when stale and its tab is on screen
    TensorHandle m_a, m_b;
    int m_tileRow = -1, m_tileColumn = -1;
    QLabel *m_title;
    QTabWidget *m_views;
    HistogramPlot *m_histograms;
    HistogramPlot *m_difference;
    HeatmapPlot *m_heatmap;
    QLabel *m_tile;
    QPushButton *m_bytesA;
    QPushButton *m_bytesB;
    QComboBox *m_layerMeasure;
    LayerChart *m_layers;
    JobTracker *m_tracker;
    JobProgress *m_progress;
};
