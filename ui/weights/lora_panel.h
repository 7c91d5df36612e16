// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/kind/lora_delta.h"
#include "ui/common/tensor_handle.h"
#include "ui/weights/weight_view.h"

#include <QWidget>

#include <memory>
#include <optional>

class LazyRefresh;
class HeatmapPlot;
class HistogramPlot;
class IndexPlot;
class JobProgress;
class JobTracker;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QTimer;

/// The update a LoRA pair makes to its base tensor, ΔW = scale · B·A (docs/KINDS.md §LoRA), for
/// the pair of the page's tensor (its lora_a or lora_b): a heatmap of tiles, the norm of every row
/// (output) and column (input), and a histogram of the values, computed on workers row by row and
/// never held whole. Zooming into the heatmap computes the visible region again at full detail.
class LoraPanel : public QWidget, public WeightView {
    Q_OBJECT
public:
    enum class Norms { Rows, Columns };

    explicit LoraPanel(QWidget *parent = nullptr);

    void setTensor(const TensorHandle &tensor) override;
    JobTracker *tracker() const override { return m_tracker; }
    QList<JobTracker *> trackers() const override { return {m_tracker, m_regionTracker}; }
    QCustomPlot *shownPlot() const override;

    /// True when the tensor belongs to a complete LoRA pair (the page enables the view only then).
    bool hasPair() const { return m_pair.has_value(); }
    /// The user's adapter scale (llama.cpp's --lora-scaled), 1 by default: ΔW is multiplied by it.
    void setAdapterScale(double scale);
    void setNorms(Norms norms);
    /// Computes rows [firstRow, firstRow + rows) × columns [firstColumn, …) at full detail (what
    /// zooming does once the view settles).
    void showRegion(quint64 firstRow, quint64 rows, quint64 firstColumn, quint64 columns);
    /// Back to the whole ΔW.
    void showWhole();
    void refresh();

    HeatmapPlot *heatmap() const { return m_heatmap; }
    IndexPlot *normPlot() const { return m_norms; }
    HistogramPlot *histogram() const { return m_histogram; }
    JobTracker *regionTracker() const { return m_regionTracker; }
    QString summaryText() const;
    /// At most this many points are drawn for the norms; more are shown as the largest of each run.
    static constexpr int kMaxNormPoints = 1 << 16;
    /// The statistics of the last computation (empty before).
    const std::optional<gguf::LoraDeltaStats> &statistics() const { return m_stats; }

signals:
    /// The statistics and the whole heatmap are shown.
    void deltaShown();
    /// A zoomed region's heatmap is shown.
    void regionShown();

private:
    struct Result;
    void show(Result result);
    void drawNorms();
    void viewChanged();

    TensorHandle m_tensor;
    std::optional<gguf::LoraPairScale> m_pair;
    LazyRefresh *m_lazy = nullptr; ///< refresh() when stale and visible
    std::shared_ptr<const gguf::LoraDelta> m_delta;
    std::optional<gguf::LoraDeltaStats> m_stats;
    gguf::Heatmap m_whole;

    QLabel *m_summary;
    QDoubleSpinBox *m_scale;
    QComboBox *m_measure;
    QComboBox *m_normChoice;
    QPushButton *m_wholeButton;
    HeatmapPlot *m_heatmap;
    IndexPlot *m_norms;
    HistogramPlot *m_histogram;
    QTimer *m_settle;
    JobTracker *m_tracker;
    JobTracker *m_regionTracker;
    JobProgress *m_progress;
};
