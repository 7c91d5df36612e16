// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"
#include "core/kind/importance.h"
#include "ui/common/page.h"
#include "ui/common/page_state.h"

#include <QWidget>

#include <memory>
#include <optional>

class LazyRefresh;
class HeatmapPlot;
class ImportanceModel;
class IndexPlot;
class JobProgress;
class JobTracker;
class LayerChart;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTabWidget;
class QTableView;

/// The Importance page, for an importance matrix (llama-imatrix's GGUF, docs/KINDS.md): the
/// statistics of every weight in a sortable table, and for the chosen weight the importance of each
/// input channel (one expert or their mean), an experts × channels heatmap for MoE weights, and one
/// statistic of a role across the layers. Everything is read and computed on workers.
class ImportancePage : public Page {
    Q_OBJECT
public:
    enum class Statistic { Sum, Share, Mean, Std, Skewness, Kurtosis, Entropy, Active, Zd, Cosine, Count };
    /// The views beside the table.
    enum class View { Channels, Experts, Layers };

    explicit ImportancePage(QWidget *parent = nullptr);

    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    bool focusFind() override;
    QByteArray saveState() const override;
    void restoreState(const QByteArray &state) override;

    /// True when the open file is an importance matrix (the window shows the page only then).
    bool isApplicable() const { return m_applicable; }
    /// The model shown (null: none).
    const std::shared_ptr<const gguf::SplitModel> &model() const { return m_modelHolder; }
    /// Shows the weight `name` (selects its row); false when the file has no such entry.
    bool selectWeight(const QString &name);
    QString selectedWeight() const;
    /// Channels: -1 for the mean over the used experts, else one expert.
    void setExpert(int expert);
    void setView(View view);
    void setLayerRole(const QString &role);
    void setLayerStatistic(Statistic statistic);
    bool isBusy() const;

    static double valueOf(const gguf::ImportanceStats &stats, Statistic statistic);

    const ImportanceModel *tableModel() const { return m_model; }
    QTableView *table() const { return m_table; }
    IndexPlot *channelPlot() const { return m_channels; }
    HeatmapPlot *expertPlot() const { return m_experts; }
    LayerChart *layerChart() const { return m_layers; }
    QLabel *summary() const { return m_summary; }
    JobTracker *reportTracker() const { return m_reportJob; }
    JobTracker *detailTracker() const { return m_detailJob; }

signals:
    /// The open file became (or stopped being) an importance matrix.
    void applicableChanged(bool applicable);
    /// The statistics of the whole file are shown.
    void reportShown();
    /// The chosen weight's channels (and heatmap) are shown.
    void detailShown();

private:
    struct Computed;
    struct Detail;

    void setUpTable();
    QWidget *createChannelsTab();
    QWidget *createLayersTab();
    void computeReport();
    void fitColumns();
    void showReport(Computed computed);
    void computeDetail();
    void showDetail(Detail detail);
    void fillExperts();
    void drawLayers();
    const gguf::ImatrixEntry *currentEntry() const;
    int currentRow() const;

    std::shared_ptr<const gguf::SplitModel> m_modelHolder;
    std::shared_ptr<const gguf::GgufFile> m_file;
    std::optional<gguf::ImatrixFacts> m_facts; ///< points into m_file
    bool m_applicable = false;
    LazyRefresh *m_lazy = nullptr; ///< computeReport() when stale and on screen
    int m_heatmapRow = -1;         ///< the row whose heatmap is shown

    QLabel *m_summary;
    QLineEdit *m_filter;
    ImportanceModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QSplitter *m_splitter = nullptr;
    QTabWidget *m_views;
    QComboBox *m_expert;
    QCheckBox *m_log;
    IndexPlot *m_channels;
    QLabel *m_topChannels;
    HeatmapPlot *m_experts;
    QComboBox *m_role;
    QComboBox *m_statistic;
    LayerChart *m_layers;
    JobTracker *m_reportJob;
    JobTracker *m_detailJob;
    JobProgress *m_progress;
    PageState m_state{0}; ///< saveState()/restoreState()
};
