// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/importance/importance_page.h"

#include "core/format/split_model.h"
#include "ui/common/compact_rows.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/page_state.h"
#include "ui/common/text_format.h"
#include "ui/importance/importance_model.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/index_plot.h"
#include "ui/plots/layer_chart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

namespace {

const char *const kImportanceStatisticNames[] = {
    QT_TRANSLATE_NOOP("ImportancePage", "Σ importance"), QT_TRANSLATE_NOOP("ImportancePage", "Share (%)"),
    QT_TRANSLATE_NOOP("ImportancePage", "Mean"),         QT_TRANSLATE_NOOP("ImportancePage", "Std"),
    QT_TRANSLATE_NOOP("ImportancePage", "Skewness"),     QT_TRANSLATE_NOOP("ImportancePage", "Kurtosis"),
    QT_TRANSLATE_NOOP("ImportancePage", "Entropy (%)"),  QT_TRANSLATE_NOOP("ImportancePage", "Active (%)"),
    QT_TRANSLATE_NOOP("ImportancePage", "ZD (%)"),       QT_TRANSLATE_NOOP("ImportancePage", "CosSim"),
};
static_assert(std::size(kImportanceStatisticNames) == static_cast<size_t>(ImportancePage::Statistic::Count));

constexpr quint32 kImportanceStateVersion = 1;
constexpr int kTopChannels = 8;

} // namespace

/// What the report job delivers: the facts of describeKind and the statistics of every weight.
struct ImportancePage::Computed {
    std::optional<gguf::ImatrixFacts> facts;
    std::optional<gguf::ImportanceReport> report;
};

/// What the detail job delivers for one weight.
struct ImportancePage::Detail {
    int row = -1;
    int expert = -1;
    QVector<double> channels;
    bool withHeatmap = false;
    gguf::Heatmap heatmap;
    bool heatmapOk = false;
};

ImportancePage::ImportancePage(QWidget *parent)
    : Page(parent), m_summary(new QLabel(this)), m_filter(new QLineEdit(this)), m_model(new ImportanceModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)), m_views(new QTabWidget(this)),
      m_expert(new QComboBox(this)), m_log(new QCheckBox(tr("&Logarithmic"), this)), m_channels(new IndexPlot(this)),
      m_topChannels(new QLabel(this)), m_experts(new HeatmapPlot(this)), m_role(new QComboBox(this)),
      m_statistic(new QComboBox(this)), m_layers(new LayerChart(this)), m_reportJob(new JobTracker(this)),
      m_detailJob(new JobTracker(this)), m_progress(new JobProgress(this))
{
    m_lazy = new LazyRefresh(this, [this] { computeReport(); });
    setUpTable();

    auto *left = new QWidget(this);
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_table, 1);

    QWidget *channelsTab = createChannelsTab();
    QWidget *layersTab = createLayersTab();
    m_experts->setValueSymbol(tr("importance"));
    m_experts->setNonNegative(true);
    m_experts->setAxisLabels(tr("Expert"), tr("Channel"));
    m_views->addTab(channelsTab, tr("Channels"));
    m_views->addTab(m_experts, tr("Experts × channels"));
    m_views->addTab(layersTab, tr("Across layers"));

    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("importanceSplitter"));
    m_splitter->addWidget(left);
    m_splitter->addWidget(m_views);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_splitter, 1);
    layout->addWidget(m_progress);
    m_progress->track(m_reportJob);
    m_progress->track(m_detailJob);

    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        fillExperts();
        computeDetail();
    });
    connect(m_expert, &QComboBox::currentIndexChanged, this, [this] { computeDetail(); });
    connect(m_log, &QCheckBox::toggled, m_channels, &IndexPlot::setLogarithmic);
    connect(m_role, &QComboBox::currentIndexChanged, this, &ImportancePage::drawLayers);
    connect(m_statistic, &QComboBox::currentIndexChanged, this, &ImportancePage::drawLayers);
    connect(m_layers, &LayerChart::tensorClicked, this, [this](const QString &name) {
        if (selectWeight(name))
            setView(View::Channels);
    });
    connect(m_progress, &JobProgress::restartClicked, this, [this] {
        if (!m_model->rowCount())
            m_lazy->refreshNow();
        else
            computeDetail();
    });
    setModel(nullptr);
    // the view state kept between runs (the same layout as before PageState: old settings restore)
    m_state = PageState(kImportanceStateVersion);
    m_state.add(m_splitter).add(m_table->horizontalHeader()).add(m_views);
}

void ImportancePage::setUpTable()
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter->setPlaceholderText(tr("Filter weights (e.g. ffn_down or blk.3.)"));
    m_filter->setClearButtonEnabled(true);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_proxy->setFilterKeyColumn(ImportanceModel::Tensor);
    m_table->setModel(m_proxy);
    m_table->setObjectName(QStringLiteral("importanceTable"));
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // file order until a header is clicked
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    setCompactRows(m_table);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
    m_table->setWordWrap(false);
}

// Channels: one expert or the mean over the used ones
QWidget *ImportancePage::createChannelsTab()
{
    auto *channelsTab = new QWidget(this);
    auto *expertLabel = new QLabel(tr("E&xpert:"), channelsTab);
    expertLabel->setBuddy(m_expert);
    m_expert->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto *channelControls = new QHBoxLayout;
    channelControls->addWidget(expertLabel);
    channelControls->addWidget(m_expert);
    channelControls->addSpacing(12);
    channelControls->addWidget(m_log);
    channelControls->addStretch(1);
    m_topChannels->setWordWrap(true);
    m_topChannels->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *channelsLayout = new QVBoxLayout(channelsTab);
    channelsLayout->addLayout(channelControls);
    channelsLayout->addWidget(m_channels, 1);
    channelsLayout->addWidget(m_topChannels);
    return channelsTab;
}

// Across layers: one statistic of a role
QWidget *ImportancePage::createLayersTab()
{
    auto *layersTab = new QWidget(this);
    for (const char *name : kImportanceStatisticNames)
        m_statistic->addItem(tr(name));
    m_role->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto *roleLabel = new QLabel(tr("&Role:"), layersTab);
    roleLabel->setBuddy(m_role);
    auto *statisticLabel = new QLabel(tr("&Statistic:"), layersTab);
    statisticLabel->setBuddy(m_statistic);
    auto *layerControls = new QHBoxLayout;
    layerControls->addWidget(roleLabel);
    layerControls->addWidget(m_role);
    layerControls->addSpacing(12);
    layerControls->addWidget(statisticLabel);
    layerControls->addWidget(m_statistic);
    layerControls->addStretch(1);
    auto *layersLayout = new QVBoxLayout(layersTab);
    layersLayout->addLayout(layerControls);
    layersLayout->addWidget(m_layers, 1);
    return layersTab;
}

void ImportancePage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_reportJob->drop();
    m_detailJob->drop();
    m_modelHolder = std::move(model);
    m_file = m_modelHolder ? m_modelHolder->primaryShared() : nullptr;
    m_facts.reset();
    m_heatmapRow = -1;
    m_model->clear();
    m_expert->clear();
    m_topChannels->clear();
    m_role->clear();
    const bool applicable = m_file && gguf::detectKind(*m_file) == gguf::FileKind::Imatrix;
    m_channels->showMessage(applicable ? tr("Choose a weight in the table.") : QString());
    m_experts->showMessage(applicable ? tr("Choose a weight in the table.") : QString());
    m_layers->showMessage(QString());
    m_summary->setText(applicable ? tr("Reading the importance matrix…")
                                  : tr("The open file is not an importance matrix."));
    if (applicable != m_applicable) {
        m_applicable = applicable;
        emit applicableChanged(applicable);
    }
    if (applicable)
        m_lazy->invalidate();
    else
        m_lazy->clear();
}

void ImportancePage::computeReport()
{
    if (!m_file)
        return;
    std::shared_ptr<const gguf::GgufFile> file = m_file;
    m_reportJob->start(
        tr("Importance of every weight"),
        [file](const gguf::ProgressFn &progress) {
            Computed c;
            gguf::KindReport kind = gguf::describeKind(*file);
            if (!kind.imatrix)
                return c;
            c.facts = std::move(kind.imatrix);
            c.report = gguf::computeImportance(*file, *c.facts, progress);
            return c;
        },
        [this](Computed computed) { showReport(std::move(computed)); });
}

// Each column as wide as its header and its first rows need, at most about 16 characters (a longer
// text, a weight's problem, is cut with its tooltip saying it whole): more of the 15 columns fit,
// and none is a wide blank whose header sits off screen (#40: the Share column and those after it)
void ImportancePage::fitColumns()
{
    QHeaderView *header = m_table->horizontalHeader();
    header->setResizeContentsPrecision(200);
    const int widest = fontMetrics().horizontalAdvance(QLatin1Char('0')) * 16 + 16;
    for (int c = 0; c < m_proxy->columnCount(); ++c) {
        m_table->resizeColumnToContents(c);
        const int least = header->sectionSizeHint(c);
        const int cap = c == ImportanceModel::Tensor ? 320 : widest;
        header->resizeSection(c, std::max(least, std::min(header->sectionSize(c), cap)));
    }
}

void ImportancePage::showReport(Computed computed)
{
    if (!computed.facts || !computed.report) {
        m_summary->setText(tr("The importance matrix could not be read."));
        return;
    }
    m_facts = std::move(computed.facts);
    const gguf::ImportanceReport &report = *computed.report;
    quint64 unusedExperts = 0, weightsWithUnused = 0, withoutFigures = 0;
    for (const gguf::ImportanceStats &s : report.tensors) {
        unusedExperts += s.matrices > 1 ? s.unusedMatrices.size() : 0;
        weightsWithUnused += s.matrices > 1 && !s.unusedMatrices.empty();
        withoutFigures += !s.problem.empty();
    }
    QStringList parts;
    parts << tr("Importance matrix of %n weight(s)", nullptr, static_cast<int>(report.tensors.size()));
    if (m_facts->chunkCount)
        parts << tr("%1 chunks of %2 tokens")
                     .arg(TextFormat::count(*m_facts->chunkCount))
                     .arg(m_facts->chunkSize ? TextFormat::count(*m_facts->chunkSize) : QStringLiteral("?"));
    if (!m_facts->datasets.empty()) {
        QStringList names;
        for (const std::string &d : m_facts->datasets)
            names << QString::fromStdString(d).toHtmlEscaped();
        parts << tr("from %1").arg(names.join(QStringLiteral(", ")));
    }
    QString text = parts.join(QStringLiteral(" · ")) + QLatin1Char('.');
    if (unusedExperts > 0)
        text += QLatin1Char(' ') + tr("<b>%1 expert(s) never activated</b> in %2 weight(s) (tinted rows): "
                                      "llama-quantize has no importance for them.")
                                       .arg(unusedExperts)
                                       .arg(weightsWithUnused);
    if (withoutFigures > 0)
        text += QLatin1Char(' ') +
                tr("%n weight(s) without figures (greyed: hover for why).", nullptr, static_cast<int>(withoutFigures));
    text += QLatin1Char(' ') + tr("Importance of a channel = in_sum2 / counts, as llama-imatrix "
                                  "--show-statistics computes it.");
    m_summary->setText(text);
    m_model->setReport(*computed.report);
    fitColumns();

    // roles across the layers, in the order of their first appearance
    {
        const QSignalBlocker block(m_role);
        m_role->clear();
        m_role->addItem(tr("All roles (weighted by size)"), QString());
        QStringList roles;
        for (const gguf::ImportanceStats &s : report.tensors)
            if (s.layer >= 0 && !roles.contains(QString::fromStdString(s.role)))
                roles << QString::fromStdString(s.role);
        for (const QString &role : roles)
            m_role->addItem(role, role);
        if (!roles.isEmpty())
            m_role->setCurrentIndex(1);
    }
    drawLayers();
    if (m_proxy->rowCount() > 0)
        m_table->selectRow(0);
    emit reportShown();
}

int ImportancePage::currentRow() const
{
    const QModelIndex current = m_proxy->mapToSource(m_table->currentIndex());
    return current.isValid() ? current.row() : -1;
}

const gguf::ImatrixEntry *ImportancePage::currentEntry() const
{
    const int row = currentRow();
    if (!m_facts || row < 0 || static_cast<size_t>(row) >= m_facts->entries.size())
        return nullptr;
    return &m_facts->entries[static_cast<size_t>(row)];
}

void ImportancePage::fillExperts()
{
    const QSignalBlocker block(m_expert);
    m_expert->clear();
    const int row = currentRow();
    if (row < 0)
        return;
    const gguf::ImportanceStats &s = m_model->report().tensors[static_cast<size_t>(row)];
    if (s.matrices <= 1) {
        m_expert->addItem(tr("(one matrix)"), -1);
        m_expert->setEnabled(false);
        return;
    }
    m_expert->setEnabled(true);
    m_expert->addItem(tr("Mean of the %1 used").arg(s.usedMatrices), -1);
    const auto &unused = s.unusedMatrices;
    for (quint64 e = 0; e < s.matrices && e < 4096; ++e)
        m_expert->addItem(std::binary_search(unused.begin(), unused.end(), e) ? tr("%1 (never activated)").arg(e)
                                                                              : QString::number(e),
                          static_cast<int>(e));
}

void ImportancePage::computeDetail()
{
    m_detailJob->drop();
    const gguf::ImatrixEntry *entry = currentEntry();
    if (!entry || !m_file) {
        m_channels->showMessage(m_applicable ? tr("Choose a weight in the table.") : QString());
        m_experts->showMessage(m_applicable ? tr("Choose a weight in the table.") : QString());
        m_topChannels->clear();
        return;
    }
    const int row = currentRow();
    const gguf::ImportanceStats &s = m_model->report().tensors[static_cast<size_t>(row)];
    const int expert = m_expert->currentData().isValid() ? m_expert->currentData().toInt() : -1;
    const bool withHeatmap = s.matrices > 1 && m_heatmapRow != row;
    std::shared_ptr<const gguf::GgufFile> file = m_file;
    const gguf::ImatrixEntry copy = *entry;
    m_detailJob->start(
        tr("Importance of %1").arg(QString::fromStdString(entry->weight)),
        [file, copy, row, expert, withHeatmap](const gguf::ProgressFn &progress) {
            Detail d;
            d.row = row;
            d.expert = expert;
            const std::vector<float> values = expert < 0 ? gguf::meanChannelImportance(*file, copy)
                                                         : gguf::channelImportance(*file, copy, uint64_t(expert));
            d.channels = QVector<double>(values.begin(), values.end());
            d.withHeatmap = withHeatmap;
            if (withHeatmap) {
                gguf::HeatmapOptions options;
                options.rows = 512;
                options.cols = 512;
                options.progress = progress;
                d.heatmapOk = gguf::importanceHeatmap(*file, copy, options, d.heatmap) == gguf::StatsStatus::Ok;
            }
            return d;
        },
        [this](Detail detail) { showDetail(std::move(detail)); });
}

void ImportancePage::showDetail(Detail detail)
{
    const gguf::ImportanceStats &s = m_model->report().tensors[static_cast<size_t>(detail.row)];
    const QString weight = QString::fromStdString(s.weight);
    if (detail.channels.isEmpty()) {
        m_channels->showMessage(
            detail.expert >= 0
                ? tr("Expert %1 of %2 was never activated: its count is 0.").arg(detail.expert).arg(weight)
                : tr("%1 has no importance: %2")
                      .arg(weight, QString::fromStdString(s.problem.empty() ? "no data" : s.problem)));
        m_topChannels->clear();
    } else {
        m_channels->setValues(detail.channels, tr("Channel"), tr("Importance (in_sum2 / counts)"));
        std::vector<int> order(static_cast<size_t>(detail.channels.size()));
        std::iota(order.begin(), order.end(), 0);
        const int top = std::min<int>(kTopChannels, static_cast<int>(order.size()));
        std::partial_sort(order.begin(), order.begin() + top, order.end(),
                          [&](int a, int b) { // NaN (a hostile in_sum2) sorts last
                              const double x = detail.channels[a], y = detail.channels[b];
                              return std::isnan(y) ? !std::isnan(x) : x > y;
                          });
        QStringList best;
        for (int i = 0; i < top; ++i)
            best << tr("%1 (%2)").arg(order[size_t(i)]).arg(QString::number(detail.channels[order[size_t(i)]], 'g', 4));
        m_topChannels->setText(tr("Most important channels: %1").arg(best.join(QStringLiteral(", "))));
    }
    if (s.matrices <= 1) {
        m_heatmapRow = -1;
        m_experts->showMessage(tr("%1 is not a mixture of experts: it has one matrix.").arg(weight));
    } else if (detail.withHeatmap) {
        m_heatmapRow = detail.row;
        if (detail.heatmapOk)
            m_experts->setHeatmap(detail.heatmap, gguf::TileMeasure::Mean);
        else
            m_experts->showMessage(tr("The importances of %1 cannot be read.").arg(weight));
    }
    emit detailShown();
}

double ImportancePage::valueOf(const gguf::ImportanceStats &s, Statistic statistic)
{
    switch (statistic) {
    case Statistic::Sum: return s.sum;
    case Statistic::Share: return 100.0 * s.share;
    case Statistic::Mean: return s.mean;
    case Statistic::Std: return s.stddev;
    case Statistic::Skewness: return s.skewness;
    case Statistic::Kurtosis: return s.kurtosis;
    case Statistic::Entropy: return 100.0 * s.entropyNorm;
    case Statistic::Active: return 100.0 * s.active;
    case Statistic::Zd: return 100.0 * s.zd;
    case Statistic::Cosine: return s.cosinePrevious.value_or(0.0);
    case Statistic::Count: break;
    }
    return 0;
}

void ImportancePage::drawLayers()
{
    const gguf::ImportanceReport &report = m_model->report();
    if (report.tensors.empty() || m_role->count() == 0) {
        m_layers->showMessage(m_applicable && m_facts ? tr("No weight of this file is inside a block.") : QString());
        return;
    }
    const QString role = m_role->currentData().toString();
    const auto statistic = static_cast<Statistic>(m_statistic->currentIndex());
    const auto counts = [statistic](const gguf::ImportanceStats &s) {
        return s.problem.empty() && (statistic != Statistic::Cosine || s.cosinePrevious);
    };
    QVector<LayerChart::Point> points;
    if (!role.isEmpty()) {
        for (const gguf::ImportanceStats &s : report.tensors)
            if (s.layer >= 0 && QString::fromStdString(s.role) == role && counts(s))
                points.push_back({s.layer, valueOf(s, statistic), QString::fromStdString(s.weight)});
        std::sort(points.begin(), points.end(), [](const auto &a, const auto &b) { return a.layer < b.layer; });
    } else {
        // llama-imatrix's per-layer averages: each weight counts by its number of importances
        std::map<int, std::pair<double, double>> byLayer; // layer → (Σ elements·value, Σ elements)
        for (const gguf::ImportanceStats &s : report.tensors)
            if (s.layer >= 0 && counts(s)) {
                auto &[weighted, elements] = byLayer[s.layer];
                weighted += double(s.elements) * valueOf(s, statistic);
                elements += double(s.elements);
            }
        for (const auto &[layer, sums] : byLayer)
            points.push_back({layer, sums.first / sums.second, QStringLiteral("blk.%1").arg(layer)});
    }
    if (points.isEmpty()) {
        m_layers->showMessage(tr("No weight of this role has this figure."));
        return;
    }
    m_layers->setPoints(points, m_statistic->currentText());
}

bool ImportancePage::selectWeight(const QString &name)
{
    const auto &tensors = m_model->report().tensors;
    for (size_t i = 0; i < tensors.size(); ++i)
        if (QString::fromStdString(tensors[i].weight) == name) {
            m_filter->clear();
            const QModelIndex index = m_proxy->mapFromSource(m_model->index(static_cast<int>(i), 0));
            m_table->setCurrentIndex(index);
            m_table->scrollTo(index);
            return true;
        }
    return false;
}

QString ImportancePage::selectedWeight() const
{
    const gguf::ImatrixEntry *entry = currentEntry();
    return entry ? QString::fromStdString(entry->weight) : QString();
}

void ImportancePage::setExpert(int expert)
{
    const int index = m_expert->findData(expert);
    if (index >= 0)
        m_expert->setCurrentIndex(index);
}

void ImportancePage::setView(View view)
{
    m_views->setCurrentIndex(static_cast<int>(view));
}

void ImportancePage::setLayerRole(const QString &role)
{
    const int index = m_role->findData(role);
    if (index >= 0)
        m_role->setCurrentIndex(index);
}

void ImportancePage::setLayerStatistic(Statistic statistic)
{
    m_statistic->setCurrentIndex(static_cast<int>(statistic));
}

bool ImportancePage::isBusy() const
{
    return m_reportJob->isRunning() || m_detailJob->isRunning() || m_lazy->isStale();
}

bool ImportancePage::focusFind()
{
    if (!m_applicable)
        return false;
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
    return true;
}

QByteArray ImportancePage::saveState() const
{
    return m_state.save();
}

void ImportancePage::restoreState(const QByteArray &state)
{
    m_state.restore(state);
}
