// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/page.h"
#include "ui/common/tensor_handle.h"
#include "ui/common/tensor_ref.h"

#include <QList>
#include <QWidget>

#include <array>
#include <functional>
#include <memory>

class ComparePanel;
class HeatmapPanel;
class HistogramPanel;
class JobProgress;
class JobTracker;
class LayerPanel;
class LoraPanel;
class QComboBox;
class TensorNameModel;
class QLabel;
class QTabWidget;
class QToolButton;
class ValueGridView;
class WeightView;

namespace gguf {
class SplitModel;
}

/// "Seeing the weights": the current tensor's histogram and statistics, several tensors'
/// histograms compared, a heatmap, a statistic across the layers, the values themselves and, for a
/// LoRA adapter, the update ΔW = scale · B·A of a pair, one view per tab. Every computation runs on a worker with
/// progress and Cancel, only for the view on screen, and a result for a tensor the user has left is dropped. The plots
/// and histograms export to PNG/SVG/PDF/CSV and the values to .npy.
class WeightsPage : public Page {
    Q_OBJECT
public:
    enum class Mode { Histogram, Compare, Heatmap, Layers, Values, LoraDelta, Count };

    explicit WeightsPage(QWidget *parent = nullptr);

    /// Shows the weights of `model` (null: nothing), starting with a representative tensor.
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    /// Shows the tensor with info record `index` of shard `shard`.
    void showTensor(TensorRef tensor);
    /// A tensor link: shows the tensor.
    bool follow(const Link &link) override;
    void showTensor(const TensorHandle &tensor);
    const TensorHandle &tensor() const { return m_tensor; }

    void setMode(Mode mode);
    Mode mode() const;
    /// False for a view that does not apply to the tensor on show (LoRA ΔW for a plain weight).
    bool isModeAvailable(Mode mode) const;
    /// "histogram", "compare", "heatmap", "layers", "values", "lora".
    static QString modeName(Mode mode);

    /// True while any computation of the page runs.
    bool isBusy() const;

    /// Saves the current view's plot (.png, .svg or .pdf by suffix).
    bool exportPlot(const QString &path, QString *error = nullptr);
    /// Saves the current histogram (or the compared histograms) as CSV.
    bool exportHistogramCsv(const QString &path, QString *error = nullptr);
    /// Writes the current tensor's values as float32 (.npy by suffix, else raw) on a worker;
    /// valuesExported() tells how it went.
    void exportValues(const QString &path);
    QString statusText() const;

    HistogramPanel *histogramPanel() const { return m_histogram; }
    ComparePanel *comparePanel() const { return m_compare; }
    HeatmapPanel *heatmapPanel() const { return m_heatmap; }
    LayerPanel *layerPanel() const { return m_layers; }
    ValueGridView *valueGrid() const { return m_values; }
    /// ΔW of a LoRA pair; its tab is enabled only for a lora_a or lora_b tensor.
    LoraPanel *loraPanel() const { return m_lora; }
    JobTracker *exportTracker() const { return m_exportTracker; }

    // Links: the bytes of a heatmap tile in the tensor's file; a tensor the user chose here (its
    // chooser, a layer's point), in the background.

signals:
    /// No computation of the page runs any more.
    void jobsFinished();
    /// exportValues() finished: `ok`, or why not in `message`.
    void valuesExported(const QString &path, bool ok, const QString &message);

private:
    QToolButton *createExportButton();
    void chooseExportFile(const QString &title, const QString &filter, const QString &suffix,
                          const std::function<void(const QString &)> &save);
    void updateExportActions();
    void checkIdle();
    /// Every runner of the page's background work: the views' and the export's.
    QList<JobTracker *> trackers() const;
    /// Shows `tensor` because the user chose it here, and says so.
    void chooseTensor(const TensorHandle &tensor);

    std::shared_ptr<const gguf::SplitModel> m_model;
    TensorHandle m_tensor;
    QString m_lastExportPath;

    QComboBox *m_tensorChooser;
    TensorNameModel *m_tensorNames; ///< the chooser's list
    QLabel *m_description;
    QLabel *m_status;
    QTabWidget *m_modes;
    HistogramPanel *m_histogram;
    ComparePanel *m_compare;
    HeatmapPanel *m_heatmap;
    LayerPanel *m_layers;
    ValueGridView *m_values;
    LoraPanel *m_lora;
    std::array<WeightView *, static_cast<size_t>(Mode::Count)> m_views{}; ///< in Mode order
    QToolButton *m_export;
    JobTracker *m_exportTracker;
    JobProgress *m_exportProgress;
};
