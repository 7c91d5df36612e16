// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/memory/memory_estimate.h"
#include "core/memory/offload_plan.h"

#include <QGroupBox>
#include <QTimer>

#include <memory>
#include <optional>

class GpuPanel;
class JobTracker;
class MemoryBarPlot;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QSlider;
class QSpinBox;
class QTreeWidget;

namespace gguf {
class SplitModel;
struct FitResult;
} // namespace gguf

/// The Overview's "Memory" section: what llama.cpp needs to run the model (core/memory) for a
/// context, cache types, flash attention, sequences, GPU layers and mmap, as a stacked bar per
/// device and every figure with its formula; with a budget, the largest context that fits. The
/// estimate is arithmetic on the metadata, so it follows the inputs at once on the GUI thread.
/// With GPUs listed (GpuPanel, #44) it is the plan over them (core/memory/offload_plan): a bar per
/// device, the placement map, and Fit (a search over plans, on a worker through a JobTracker).
class MemoryPanel : public QGroupBox {
    Q_OBJECT
public:
    explicit MemoryPanel(QWidget *parent = nullptr);

    /// Shows `model` with llama.cpp's default inputs (null: nothing).
    void setModel(const std::shared_ptr<const gguf::SplitModel> &model);

    const gguf::MemoryEstimate &estimate() const { return m_estimate; }
    /// The largest context for the budget (nullopt without a budget).
    std::optional<uint64_t> maxContext() const { return m_maxContext; }
    QString summaryText() const;
    const MemoryBarPlot *plot() const { return m_plot; }
    GpuPanel *gpuPanel() const { return m_gpus; }
    /// The plan over the listed GPUs (empty devices without any).
    const gguf::OffloadPlan &plan() const { return m_plan; }
    /// The llama-server command line of the current settings.
    QString commandLine() const;
    bool fitting() const;

private:
    void setUpControls();
    QGridLayout *layOutControls();
    void update();
    void redraw();
    void contextFromSlider(int steps);
    void contextFromField(int context);
    gguf::MemoryInputs inputs() const;
    void fillDetails();
    void fillPlanDetails();
    void updatePlan(const gguf::MemoryInputs &in);
    /// `html` and the settings llama.cpp would refuse as the summary; the bars and details follow.
    void showSummary(QString html);
    void fit();
    void showFit(const gguf::FitResult &fit);

    std::shared_ptr<gguf::MemoryModel> m_memory;
    std::string m_path;
    gguf::OffloadPlan m_plan;
    gguf::MemoryEstimate m_estimate;
    std::optional<uint64_t> m_maxContext;
    gguf::MemoryInputs m_searchedInputs; ///< what m_maxContext was searched for (context aside)
    uint64_t m_searchedBudget = 0;
    QLabel *m_unavailable;
    QWidget *m_body;
    QSlider *m_contextSlider;
    QSpinBox *m_context;
    QSpinBox *m_sequences;
    QComboBox *m_cacheK;
    QComboBox *m_cacheV;
    QCheckBox *m_flashAttention;
    QSpinBox *m_gpuLayers;
    QLabel *m_gpuLayersOf;
    QCheckBox *m_mmap;
    QDoubleSpinBox *m_budget;
    QLabel *m_summary;
    MemoryBarPlot *m_plot;
    QTreeWidget *m_details;
    GpuPanel *m_gpus;
    JobTracker *m_fitJobs;
    QTimer m_redraw;
};
