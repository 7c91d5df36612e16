// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/tensor_handle.h"
#include "ui/weights/weight_jobs.h"
#include "ui/weights/weight_view.h"

#include <QWidget>

#include <memory>

class LazyRefresh;
class JobProgress;
class JobTracker;
class LayerChart;
class QComboBox;

/// One tensor role (attn_q.weight, ffn_down.weight, … — the name without "blk.N.") across the
/// layers: a chosen statistic of each layer's tensor as a line. The statistics of a role are
/// computed once; switching the statistic only redraws.
class LayerPanel : public QWidget, public WeightView {
    Q_OBJECT
public:
    enum class Statistic { Mean, Std, Min, Max, MaxAbs, P1, P99, ZerosShare, NonFinite, Count };

    explicit LayerPanel(QWidget *parent = nullptr);

    void setModel(std::shared_ptr<const gguf::SplitModel> model);
    /// Follows the page's tensor: shows its role.
    void setTensor(const TensorHandle &tensor) override;
    void setRole(const QString &role);
    QString role() const;
    void setStatistic(Statistic statistic);

    LayerChart *chart() const { return m_chart; }
    JobTracker *tracker() const override { return m_tracker; }
    QCustomPlot *shownPlot() const override;

    static double valueOf(const gguf::TensorStatistics &stats, Statistic statistic);
    void refresh();

signals:
    /// The point of a layer's tensor was clicked.
    void tensorClicked(const QString &name);

private:
    void draw();

    std::shared_ptr<const gguf::SplitModel> m_model;
    LazyRefresh *m_lazy = nullptr; ///< refresh() when stale and visible
    WeightJobs::LayerSeries m_result;
    QString m_resultRole;

    QComboBox *m_role;
    QComboBox *m_statistic;
    LayerChart *m_chart;
    JobTracker *m_tracker;
    JobProgress *m_progress;
};
