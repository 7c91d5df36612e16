// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_weights.h"

#include "core/compare/checkpoint_pairing.h"
#include "core/quant/dequantize.h"
#include "core/safetensors/checkpoint.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_data.h"
#include "ui/common/fixed_font.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/layer_chart.h"

#include <QComboBox>
#include <QLabel>
#include <QLocale>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <regex>

using gguf::st::Checkpoint;

namespace {

constexpr uint32_t kBins = 128;

constexpr uint32_t kHeatmapCells = 256;              // per side
constexpr uint64_t kShownRows = 64, kShownCols = 16; // of the values table

struct Outcome {
    gguf::StatsStatus status = gguf::StatsStatus::NoData;
    gguf::TensorStatistics stats;
    gguf::Heatmap heatmap;     ///< of a matrix (empty otherwise)
    std::vector<float> values; ///< the first rows' first columns, row by row
    uint64_t columns = 0;      ///< of `values`
};

} // namespace

CheckpointWeights::CheckpointWeights(QWidget *parent)
    : QWidget(parent), m_tensor(new QComboBox(this)), m_description(new QLabel(this)), m_stats(new QLabel(this)),
      m_views(new QTabWidget(this)), m_plot(new HistogramPlot(this)), m_heatmap(new HeatmapPlot(this)),
      m_values(new QTableWidget(this)), m_layers(new LayerChart(this)), m_layerTracker(new JobTracker(this)),
      m_tracker(new JobTracker(this)), m_progress(new JobProgress(this))
{
    m_views->addTab(m_plot, tr("Histogram"));
    m_views->addTab(m_heatmap, tr("Heatmap"));
    m_views->addTab(m_values, tr("Values"));
    m_views->addTab(m_layers, tr("Layers"));
    connect(m_views, &QTabWidget::currentChanged, this, [this] {
        if (m_views->currentWidget() == m_layers)
            startLayers();
    });
    m_heatmap->setAxisLabels(tr("Row"), tr("Column"));
    m_values->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_values->setFont(fixedFont());
    m_tensor->setEditable(true); // type to find a name
    m_tensor->setInsertPolicy(QComboBox::NoInsert);
    m_tensor->setMaxVisibleItems(30);
    // sized by a fixed length, not by measuring every name (tens of thousands in a large checkpoint)
    m_tensor->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensor->setMinimumContentsLength(48);
    m_stats->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_stats->setWordWrap(true);
    m_progress->track(m_tracker);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tensor);
    layout->addWidget(m_description);
    layout->addWidget(m_progress);
    layout->addWidget(m_stats);
    layout->addWidget(m_views, 1);
    connect(m_tensor, &QComboBox::activated, this, &CheckpointWeights::showTensor);
    connect(m_progress, &JobProgress::restartClicked, this, [this] {
        const int again = m_shown;
        m_shown = -1;
        showTensor(again);
    });
}

void CheckpointWeights::setCheckpoint(const std::shared_ptr<const Checkpoint> &checkpoint)
{
    m_tracker->drop();
    m_layerTracker->drop();
    m_layersOf = -1;
    m_checkpoint = checkpoint;
    m_shown = -1;
    {
        const QSignalBlocker block(m_tensor);
        m_tensor->clear();
        if (checkpoint) {
            QStringList names;
            names.reserve(static_cast<qsizetype>(checkpoint->tensors().size()));
            for (const Checkpoint::TensorRef &t : checkpoint->tensors())
                names << QString::fromStdString(t.entry->name);
            m_tensor->addItems(names);
        }
    }
    m_description->clear();
    m_stats->clear();
    m_plot->showMessage(tr("Choose a tensor"));
    if (!checkpoint || checkpoint->tensors().empty())
        return;
    // the largest 2-D tensor first, as the GGUF Weights page shows its representative tensor
    int first = 0;
    uint64_t largest = 0;
    for (size_t i = 0; i < checkpoint->tensors().size(); ++i) {
        const gguf::st::TensorEntry &e = *checkpoint->tensors()[i].entry;
        if (e.shape.size() == 2 && e.elements > largest && gguf::st::ggmlTypeOf(e.dtype)) {
            largest = e.elements;
            first = static_cast<int>(i);
        }
    }
    showTensor(first);
}

void CheckpointWeights::showTensor(int index)
{
    if (!m_checkpoint || index < 0 || size_t(index) >= m_checkpoint->tensors().size() || index == m_shown)
        return;
    m_shown = index;
    if (m_views->currentWidget() == m_layers)
        QTimer::singleShot(0, this, &CheckpointWeights::startLayers);
    {
        const QSignalBlocker block(m_tensor);
        m_tensor->setCurrentIndex(index);
    }
    const Checkpoint::TensorRef &ref = m_checkpoint->tensors()[size_t(index)];
    const gguf::st::TensorEntry &e = *ref.entry;
    m_description->setText(tr("%1 %2, %3 values, in %4")
                               .arg(QString::fromStdString(std::string(gguf::st::dtypeName(e.dtype))),
                                    QString::fromStdString(gguf::st::shapeText(e.shape)), TextFormat::count(e.elements),
                                    QString::fromStdString(m_checkpoint->shards()[ref.shard].path)));
    m_stats->clear();
    m_statistics = {};
    const std::optional<gguf::TensorData> read = gguf::checkpointTensorData(*m_checkpoint, size_t(index));
    if (!read) {
        m_tracker->drop();
        m_plot->showMessage(tr("The values of dtype %1 are not read yet.")
                                .arg(QString::fromStdString(std::string(gguf::st::dtypeName(e.dtype)))));
        return;
    }
    m_plot->showMessage(tr("Computing…"));
    // the checkpoint (and so its mapping) lives as long as the job holds it
    m_tracker->start(
        tr("Statistics of %1").arg(QString::fromStdString(e.name)),
        [checkpoint = m_checkpoint, entry = &e, values = *read](const gguf::ProgressFn &progress) {
            Outcome out;
            gguf::StatsOptions options;
            options.bins = kBins;
            options.progress = progress;
            out.status = gguf::computeStatistics(values, options, out.stats);
            if (out.status == gguf::StatsStatus::Ok)
                out.status = gguf::refineStatistics(values, options, out.stats);
            if (out.status != gguf::StatsStatus::Ok)
                return out;
            // a matrix (rows of the innermost dim, the others flattened): its heatmap
            const uint64_t cols = entry->shape.size() >= 2 ? entry->shape.back() : entry->elements;
            if (entry->shape.size() >= 2 && cols > 0) {
                gguf::HeatmapOptions heat;
                heat.rows = heat.cols = kHeatmapCells;
                if (gguf::computeHeatmap(values, cols, heat, out.heatmap) != gguf::StatsStatus::Ok)
                    out.heatmap = {};
            }
            // the first rows' first columns
            out.columns = std::min(cols, kShownCols);
            const uint64_t rows = cols ? std::min(entry->elements / cols, kShownRows) : 0;
            const gguf::ElementHold hold(values, 0, std::min(entry->elements, rows * cols));
            std::vector<float> row(static_cast<size_t>(out.columns));
            for (uint64_t r = 0; hold && r < rows; ++r) {
                if (!gguf::dequantizeRange(values.typeId, values.bytes, values.elements, r * cols, row))
                    break;
                out.values.insert(out.values.end(), row.begin(), row.end());
            }
            return out;
        },
        [this](const Outcome &out) {
            showHeatmapAndValues(out.heatmap, out.values, out.columns);
            showStatistics(out.stats, out.status);
        });
}

void CheckpointWeights::showStatistics(const gguf::TensorStatistics &s, gguf::StatsStatus status)
{
    m_statistics = status == gguf::StatsStatus::Ok ? s : gguf::TensorStatistics{};
    if (status != gguf::StatsStatus::Ok) {
        m_plot->showMessage(tr("No statistics: %1").arg(TextFormat::statsStatus(status)));
        emit statisticsShown();
        return;
    }
    const QLocale locale;
    const auto number = [&](double v) { return locale.toString(v, 'g', 6); };
    QStringList percentiles;
    for (size_t i = 0; i < gguf::kPercentileLevels.size(); ++i)
        percentiles << QStringLiteral("p%1 %2").arg(gguf::kPercentileLevels[i]).arg(number(s.percentiles[i]));
    m_stats->setText(tr("min %1   max %2   mean %3   std %4   zeros %5   NaN %6   ±Inf %7\n%8")
                         .arg(number(s.min), number(s.max), number(s.mean), number(s.std), TextFormat::count(s.zeros),
                              TextFormat::count(s.nan), TextFormat::count(s.posInf + s.negInf),
                              percentiles.join(QStringLiteral("   "))));
    HistogramPlot::Series series;
    series.name = m_tensor->currentText();
    series.lo = s.histogram.lo;
    series.hi = s.histogram.hi;
    for (uint64_t c : s.histogram.counts)
        series.values.push_back(static_cast<double>(c));
    m_plot->setSeries({series}, HistogramPlot::Scale::Counts);
    emit statisticsShown();
}

namespace {

// "model.layers.12.self_attn.q_proj.weight" → layer 12 and the role "self_attn.q_proj.weight"
// (the name with its layer number taken out); -1 outside the layers.
int layerOf(const std::string &name, std::string &role)
{
    static const std::regex layer(R"((^|\.)(layers|h|blocks|block)\.(\d+)\.)");
    std::smatch m;
    if (!std::regex_search(name, m, layer))
        return -1;
    role = m.prefix().str() + m[1].str() + m[2].str() + ".#." + m.suffix().str();
    return std::stoi(m[3].str());
}

} // namespace

void CheckpointWeights::startLayers()
{
    if (!m_checkpoint || m_shown < 0 || m_layersOf == m_shown)
        return;
    m_layersOf = m_shown;
    std::string role;
    if (layerOf(m_checkpoint->tensors()[size_t(m_shown)].entry->name, role) < 0) {
        m_layerTracker->drop();
        m_layers->showMessage(tr("This tensor is not in a layer."));
        emit layersShown();
        return;
    }
    m_layers->showMessage(tr("Computing…"));
    m_layerTracker->start(
        tr("Statistics of every layer"),
        [checkpoint = m_checkpoint, role](const gguf::ProgressFn &progress) {
            std::vector<std::pair<int, size_t>> members; // layer, tensor
            for (size_t i = 0; i < checkpoint->tensors().size(); ++i) {
                std::string other;
                const int layer = layerOf(checkpoint->tensors()[i].entry->name, other);
                if (layer >= 0 && other == role)
                    members.emplace_back(layer, i);
            }
            std::sort(members.begin(), members.end());
            QVector<LayerChart::Point> points;
            for (size_t k = 0; k < members.size(); ++k) {
                const gguf::st::TensorEntry &e = *checkpoint->tensors()[members[k].second].entry;
                const std::optional<gguf::TensorData> read = gguf::checkpointTensorData(*checkpoint, members[k].second);
                if (!read)
                    continue;
                gguf::StatsOptions options;
                options.bins = 1;
                gguf::TensorStatistics stats;
                if (gguf::computeStatistics(*read, options, stats) == gguf::StatsStatus::Ok)
                    points.push_back({members[k].first, stats.std, QString::fromStdString(e.name)});
                if (!progress(k + 1, members.size()))
                    break;
            }
            return points;
        },
        [this](const QVector<LayerChart::Point> &points) {
            m_layers->setPoints(points, tr("std"));
            emit layersShown();
        });
}

void CheckpointWeights::showHeatmapAndValues(const gguf::Heatmap &heatmap, const std::vector<float> &values,
                                             uint64_t columns)
{
    if (heatmap.gridRows > 0)
        m_heatmap->setHeatmap(heatmap, gguf::TileMeasure::MeanAbs);
    else
        m_heatmap->setHeatmap(gguf::Heatmap{}, gguf::TileMeasure::MeanAbs);
    m_views->setTabEnabled(m_views->indexOf(m_heatmap), heatmap.gridRows > 0);
    const int cols = static_cast<int>(columns);
    const int rows = cols ? static_cast<int>(values.size() / size_t(cols)) : 0;
    m_values->clear();
    m_values->setColumnCount(cols);
    m_values->setRowCount(rows);
    const QLocale locale;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            m_values->setItem(r, c, new QTableWidgetItem(locale.toString(values[size_t(r * cols + c)], 'g', 6)));
    m_values->resizeColumnsToContents();
}

QString CheckpointWeights::statsText() const
{
    return m_stats->text();
}
