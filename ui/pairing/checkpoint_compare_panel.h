// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/compare/checkpoint_pairing.h"

#include <QWidget>

#include <memory>
#include <vector>

class HeatmapPlot;
class HistogramPlot;
class JobProgress;
class JobTracker;
class QLabel;
class QLineEdit;
class QTabWidget;
class QTableWidget;
namespace gguf {
class SplitModel;
namespace st {
class Checkpoint;
}
} // namespace gguf

/// A GGUF against a Hugging Face checkpoint (#43), for the Compare page (B the checkpoint) and the
/// checkpoint's own view (A the checkpoint): each GGUF tensor paired with the checkpoint tensors
/// llama.cpp's converter made it from, the conversion undone, and every pair's values compared on a
/// worker (progress, Cancel) — RMSE, max |a − b|, mean |a − b| / mean |a|, cosine, SNR and relative
/// L2, and what was undone; what no rule pairs is listed on its side. The selected pair in detail,
/// on a worker: both sides' histograms over one range, the histogram of a − b, and a heatmap of
/// |a − b| by tiles (the checkpoint side composed as the GGUF holds it).
class CheckpointComparePanel : public QWidget {
    Q_OBJECT
public:
    enum Column { NameA, NameB, Status, TypeA, TypeB, Rmse, MaxAbs, MeanRel, Cosine, Snr, RelL2, Undone, ColumnCount };

    explicit CheckpointComparePanel(QWidget *parent = nullptr);
    /// Pairs `model` with `checkpoint` and compares every pair's values, the checkpoint as B (or as A
    /// when `checkpointIsA`); either null: nothing.
    void setSides(std::shared_ptr<const gguf::SplitModel> model, std::shared_ptr<const gguf::st::Checkpoint> checkpoint,
                  bool checkpointIsA = false);
    QString summary() const;
    /// The GGUF side.
    const std::shared_ptr<const gguf::SplitModel> &model() const { return m_model; }
    QTableWidget *table() const { return m_table; }
    JobTracker *tracker() const { return m_tracker; }
    void setFilter(const QString &text);
    /// The pairing shown and each entry's outcome (empty until compared()).
    const gguf::CheckpointPairing &pairing() const;
    const std::vector<gguf::CheckpointPairOutcome> &outcomes() const;
    /// Shows pair `index` of pairing() in detail (what selecting its row does); -1: none.
    void showDetail(int index);
    int detailIndex() const { return m_detailIndex; }
    JobTracker *detailTracker() const { return m_detailTracker; }
    HistogramPlot *valuesPlot() const { return m_values; }
    HistogramPlot *differencePlot() const { return m_difference; }
    HeatmapPlot *heatmapPlot() const { return m_heatmap; }
    /// The detail's tabs: Values, Difference, Heatmap.
    QTabWidget *detailViews() const { return m_detail; }

signals:
    /// Every pair's values are on the page.
    void compared();

private:
    struct Result {
        gguf::CheckpointPairing pairing;
        std::vector<gguf::CheckpointPairOutcome> outcomes;
    };
    void show(const std::shared_ptr<Result> &result);
    /// The columns' headings, each side named as it is (the checkpoint as A or as B).
    void setHeadings();
    struct Detail;
    void showDetailResult(const Detail &detail);

    std::shared_ptr<const gguf::SplitModel> m_model;
    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
    std::shared_ptr<Result> m_result;
    bool m_checkpointIsA = false;
    QLabel *m_summary;
    QLineEdit *m_filter;
    QTableWidget *m_table;
    JobTracker *m_tracker;
    JobProgress *m_progress;
    QLabel *m_detailTitle;
    QTabWidget *m_detail;
    HistogramPlot *m_values, *m_difference;
    HeatmapPlot *m_heatmap;
    JobTracker *m_detailTracker;
    JobProgress *m_detailProgress;
    int m_detailIndex = -1;
};
