// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/heatmap.h"
#include "core/stats/tensor_stats.h"

#include <QWidget>

#include <memory>
#include <vector>

class HeatmapPlot;
class HistogramPlot;
class JobProgress;
class JobTracker;
class LayerChart;
class QComboBox;
class QLabel;
class QTabWidget;
class QTableWidget;
namespace gguf::st {
class Checkpoint;
}

/// One tensor of a checkpoint at a time: its exact statistics (min, max, mean, std, zeros, NaN,
/// NumPy's percentiles), its histogram, its heatmap (a matrix reduced to tiles of mean |x|) and its
/// first values, computed on a worker through the job runner with progress and Cancel, by the same
/// passes as a GGUF tensor's (every dtype).
class CheckpointWeights : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointWeights(QWidget *parent = nullptr);
    void setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint);
    /// Shows checkpoint tensor `index` (starts its statistics).
    void showTensor(int index);
    int shownTensor() const { return m_shown; }
    JobTracker *tracker() const { return m_tracker; }
    HistogramPlot *plot() const { return m_plot; }
    HeatmapPlot *heatmapPlot() const { return m_heatmap; }
    QTableWidget *valuesTable() const { return m_values; }
    QTabWidget *views() const { return m_views; }
    LayerChart *layerChart() const { return m_layers; }
    JobTracker *layerTracker() const { return m_layerTracker; }
    QString statsText() const;
    /// The statistics on the page (those of shownTensor(), once statisticsShown()).
    const gguf::TensorStatistics &statistics() const { return m_statistics; }

signals:
    /// The statistics of the tensor shown are on the page.
    void statisticsShown();
    /// The per-layer chart of the shown tensor's role is on the page.
    void layersShown();

private:
    void showStatistics(const gguf::TensorStatistics &stats, gguf::StatsStatus status);
    void showHeatmapAndValues(const gguf::Heatmap &heatmap, const std::vector<float> &values, uint64_t columns);
    /// The std of the shown tensor's role in every layer (the Layers view, computed when shown).
    void startLayers();

    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
    gguf::TensorStatistics m_statistics;
    int m_shown = -1;
    QComboBox *m_tensor;
    QLabel *m_description;
    QLabel *m_stats;
    QTabWidget *m_views;
    HistogramPlot *m_plot;
    HeatmapPlot *m_heatmap;
    QTableWidget *m_values;
    LayerChart *m_layers;
    JobTracker *m_layerTracker;
    int m_layersOf = -1; ///< the tensor whose role the chart shows
    JobTracker *m_tracker;
    JobProgress *m_progress;
};
