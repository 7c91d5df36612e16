// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/tensor_handle.h"
#include "ui/weights/weight_jobs.h"
#include "ui/weights/weight_view.h"

#include <QWidget>

#include <memory>

class LazyRefresh;
class HistogramPlot;
class JobProgress;
class JobTracker;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QListView;
class QSortFilterProxyModel;
class TensorNameModel;
class QSpinBox;

/// Histograms of several tensors overlaid, each normalised to the share of its own values and
/// drawn in its own colour with a legend. All of them are binned over one common range (the union
/// of their ranges) so the bins line up. Until the user picks tensors, the selection follows the
/// current tensor: its role in the first, middle and last layer.
class ComparePanel : public QWidget, public WeightView {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget *parent = nullptr);

    void setModel(std::shared_ptr<const gguf::SplitModel> model);
    /// The page's current tensor (drives the automatic selection).
    void setTensor(const TensorHandle &tensor) override;
    /// Compares exactly `names` (the user's choice from now on).
    void setCompared(const QStringList &names);
    QStringList compared() const;

    void setBins(int bins);
    void setRangeChoice(const WeightJobs::RangeChoice &choice);

    HistogramPlot *plot() const { return m_plot; }
    JobTracker *tracker() const override { return m_tracker; }
    QCustomPlot *shownPlot() const override;
    /// The last comparison drawn.
    const WeightJobs::Comparison &comparison() const { return m_result; }

    void refresh();

private:
    void fillList();
    void checkOnly(const QStringList &names);
    void pickRole(bool allLayers);
    void selectionChanged();
    void draw();

    std::shared_ptr<const gguf::SplitModel> m_model;
    TensorHandle m_tensor;
    bool m_userChose = false;
    LazyRefresh *m_lazy = nullptr; ///< refresh() when stale and visible
    WeightJobs::Comparison m_result;

    QLineEdit *m_filter;
    QListView *m_list;
    TensorNameModel *m_names;            ///< every tensor, checkable
    QSortFilterProxyModel *m_shownNames; ///< those the filter text matches
    QSpinBox *m_bins;
    QComboBox *m_range;
    QCheckBox *m_log;
    HistogramPlot *m_plot;
    JobTracker *m_tracker;
    JobProgress *m_progress;
};
