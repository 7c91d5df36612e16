// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/tensor_stats.h"
#include "ui/common/tensor_handle.h"
#include "ui/weights/weight_jobs.h"
#include "ui/weights/weight_view.h"

#include <QWidget>

#include <optional>

class LazyRefresh;
class HistogramPlot;
class JobProgress;
class JobTracker;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class StatsTable;

/// The histogram of one tensor with its statistics beside it. A first pass computes the
/// statistics (and an estimated histogram, shown at once); a second pass bins the chosen range
/// exactly: [min, max], clipped at two percentiles, or a range typed in. The statistics are kept
/// per tensor, so changing the bins or the range runs only the second pass. Nothing is computed
/// while the panel is hidden.
class HistogramPanel : public QWidget, public WeightView {
    Q_OBJECT
public:
    explicit HistogramPanel(QWidget *parent = nullptr);

    void setTensor(const TensorHandle &tensor) override;
    const TensorHandle &tensor() const { return m_tensor; }

    void setBins(int bins);
    int bins() const;
    void setRangeChoice(const WeightJobs::RangeChoice &choice);
    WeightJobs::RangeChoice rangeChoice() const;
    void setLogarithmic(bool logarithmic);

    /// The histogram drawn, when one is.
    const std::optional<gguf::Histogram> &histogram() const { return m_histogram; }
    /// The statistics of the tensor shown, when computed.
    const std::optional<gguf::TensorStatistics> &statistics() const { return m_stats; }

    HistogramPlot *plot() const { return m_plot; }
    StatsTable *statsTable() const { return m_table; }
    JobTracker *tracker() const override { return m_tracker; }
    QCustomPlot *shownPlot() const override;
    JobProgress *progress() const { return m_progress; }

    /// Starts the computations the current tensor and settings still need.
    void refresh();
    /// Reads the whole tensor instead of a sample (the bar's button): a large remote tensor's
    /// statistics come first from a sample of its blocks (WeightJobs::sampleBytesFor).
    void readWholeTensor();
    /// The bar that says the figures are of a sample, with its button.
    QWidget *sampleBar() const { return m_sampleBar; }
    /// Which range the plot shows and why ("Range shown: the central 99.9 % …").
    QString rangeNote() const;

private:
    void fillRangeMenu();
    void settingsChanged();
    void computeStatistics();
    void refineStatistics(uint32_t bins);
    void computeHistogram();
    void computeCentral(uint32_t bins);
    void draw(const gguf::Histogram &histogram);
    void updateRangeNote();
    /// A job's failure said where the plot is; true when it failed.
    bool showFailure(const WeightJobs::Statistics &result);

    TensorHandle m_tensor;
    std::optional<gguf::TensorStatistics> m_stats;
    std::optional<gguf::Histogram> m_histogram;
    LazyRefresh *m_lazy = nullptr;    ///< refresh() when stale and visible
    bool m_readWhole = false;         ///< the user asked for the whole tensor, not a sample
    bool m_centralShown = false;      ///< the histogram drawn is over the central 99.9 %
    bool m_centralChosen = false;     ///< ...because Automatic found outliers dominating
    bool m_percentilesChosen = false; ///< Automatic chose p1 – p99 for a sample whose outliers dominate

    QSpinBox *m_bins;
    QComboBox *m_range;
    QLineEdit *m_lo;
    QLineEdit *m_hi;
    QCheckBox *m_log;
    QLabel *m_shown;
    HistogramPlot *m_plot;
    StatsTable *m_table;
    JobTracker *m_tracker;
    JobProgress *m_progress;
    QWidget *m_sampleBar;
    QLabel *m_sampleText;
};
