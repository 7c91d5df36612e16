// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/tensor_pair_panel.h"

#include "core/compare/value_diff.h"
#include "core/format/split_model.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/compare/tensor_diff_model.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/layer_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include <cmath>

namespace {

constexpr uint32_t kPairBins = 128;
constexpr uint32_t kGridCells = 256;

// Each series' bins as shares of its finite values, named by `names` in order.
QVector<HistogramPlot::Series> shares(const gguf::CommonRangeHistograms &c, const QStringList &names)
{
    QVector<HistogramPlot::Series> out;
    for (size_t i = 0; i < c.series.size(); ++i) {
        const gguf::RangeSeries &s = c.series[i];
        HistogramPlot::Series series{names.value(static_cast<qsizetype>(i)), s.histogram.lo, s.histogram.hi, {}};
        for (uint64_t n : s.histogram.counts)
            series.values.append(s.finite ? 100.0 * static_cast<double>(n) / static_cast<double>(s.finite) : 0.0);
        out.append(series);
    }
    return out;
}

} // namespace

TensorPairPanel::TensorPairPanel(TensorDiffModel *pairs, QWidget *parent)
    : QWidget(parent), m_pairs(pairs), m_title(new QLabel(this)), m_views(new QTabWidget(this)),
      m_histograms(new HistogramPlot(this)), m_difference(new HistogramPlot(this)), m_heatmap(new HeatmapPlot(this)),
      m_tile(new QLabel(this)), m_bytesA(new QPushButton(tr("Show bytes in &A"), this)),
      m_bytesB(new QPushButton(tr("Show bytes in &B"), this)), m_layerMeasure(new QComboBox(this)),
      m_layers(new LayerChart(this)), m_tracker(new JobTracker(this)), m_progress(new JobProgress(this))
{
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);

    auto *histograms = new QSplitter(Qt::Horizontal, this);
    histograms->addWidget(m_histograms);
    histograms->addWidget(m_difference);
    m_views->addTab(histograms, tr("&Histograms"));

    m_difference->setValueLabel(tr("a − b"));
    m_heatmap->setValueSymbol(QStringLiteral("a−b"));
    m_tile->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_bytesA->setEnabled(false);
    m_bytesB->setEnabled(false);
    auto *heat = new QWidget(this);
    auto *tileBar = new QHBoxLayout;
    tileBar->addWidget(m_tile, 1);
    tileBar->addWidget(m_bytesA);
    tileBar->addWidget(m_bytesB);
    auto *heatLayout = new QVBoxLayout(heat);
    heatLayout->setContentsMargins(0, 0, 0, 0);
    heatLayout->addWidget(m_heatmap, 1);
    heatLayout->addLayout(tileBar);
    m_views->addTab(heat, tr("Difference &heatmap"));

    for (int column : {TensorDiffModel::Rmse, TensorDiffModel::RelL2, TensorDiffModel::MaxAbs,
                       TensorDiffModel::MeanAbsRel, TensorDiffModel::Cosine, TensorDiffModel::SnrDb})
        m_layerMeasure->addItem(pairs->headerData(column, Qt::Horizontal).toString(), column);
    auto *layers = new QWidget(this);
    auto *layerBar = new QHBoxLayout;
    auto *measureLabel = new QLabel(tr("&Measure:"), this);
    measureLabel->setBuddy(m_layerMeasure);
    layerBar->addWidget(measureLabel);
    layerBar->addWidget(m_layerMeasure);
    layerBar->addStretch(1);
    auto *layersLayout = new QVBoxLayout(layers);
    layersLayout->setContentsMargins(0, 0, 0, 0);
    layersLayout->addLayout(layerBar);
    layersLayout->addWidget(m_layers, 1);
    m_views->addTab(layers, tr("Across &layers"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_views, 1);
    layout->addWidget(m_progress);
    m_progress->track(m_tracker);

    connect(m_heatmap, &HeatmapPlot::tileClicked, this, &TensorPairPanel::showTile);
    connect(m_heatmap, &HeatmapPlot::tileActivated, this, [this](int r, int c) {
        m_heatmap->selectTile(r, c); // outlines it and says tileClicked: showTile
        m_bytesA->click();
    });
    for (const int side : {0, 1})
        connect(side == 0 ? m_bytesA : m_bytesB, &QPushButton::clicked, this, [this, side] {
            const auto [offset, size] = tileBytes(side, m_tileRow, m_tileColumn);
            const TensorHandle &t = side == 0 ? m_a : m_b;
            if (size > 0)
                emit linkActivated(Link::bytes(t.shard(), offset, size).on(side == 0 ? Link::Side::A : Link::Side::B));
        });
    // the details when the panel is on screen; the layer chart when its tab is (a comparison
    // streaming in refreshes it after every batch)
    m_lazy = new LazyRefresh(this, [this] { compute(); });
    m_layersLazy = new LazyRefresh(m_layers->parentWidget(), [this] { drawLayers(); });
    connect(m_layerMeasure, &QComboBox::currentIndexChanged, this, &TensorPairPanel::refreshLayers);
    connect(m_layers, &LayerChart::tensorClicked, this, &TensorPairPanel::tensorChosen);
    connect(m_progress, &JobProgress::restartClicked, m_lazy, &LazyRefresh::refreshNow);
    setRow(-1);
}

void TensorPairPanel::setRow(int row)
{
    m_row = row;
    m_tracker->drop();
    m_tileRow = m_tileColumn = -1;
    m_tile->clear();
    m_bytesA->setEnabled(false);
    m_bytesB->setEnabled(false);
    const gguf::TensorPair *p = m_pairs->pairAt(row);
    m_a = p && p->a ? TensorHandle{m_pairs->modelA(), p->positionA} : TensorHandle{};
    m_b = p && p->b ? TensorHandle{m_pairs->modelB(), p->positionB} : TensorHandle{};
    updateTitle();
    refreshLayers();
    const QString why = !p ? tr("Select a tensor.")
                        : !p->comparable()
                            ? tr("The values of %1 cannot be compared: %2.")
                                  .arg(TextFormat::fromView(p->name), TensorDiffModel::statusText(p->status))
                            : QString();
    if (!why.isEmpty()) {
        m_lazy->clear();
        m_histograms->showMessage(why);
        m_difference->showMessage(why);
        m_heatmap->showMessage(why);
        return;
    }
    m_lazy->invalidate();
}

void TensorPairPanel::updateTitle()
{
    const gguf::TensorPair *p = m_pairs->pairAt(m_row);
    if (!p) {
        m_title->setText(tr("Select a tensor to compare its values in detail."));
        return;
    }
    QString title = QStringLiteral("<b>%1</b> — %2")
                        .arg(TextFormat::fromView(p->name).toHtmlEscaped(), TensorDiffModel::statusText(p->status));
    if (m_a.isValid())
        title += tr(" · A: %1").arg(m_a.description().toHtmlEscaped());
    if (m_b.isValid())
        title += tr(" · B: %1").arg(m_b.description().toHtmlEscaped());
    m_title->setText(title);
}

void TensorPairPanel::compute()
{
    const gguf::TensorPair *p = m_pairs->pairAt(m_row);
    if (!p || !p->comparable() || !m_a.isValid() || !m_b.isValid())
        return;
    const QString wait = tr("Comparing…");
    m_histograms->showMessage(wait);
    m_difference->showMessage(wait);
    m_heatmap->showMessage(wait);
    // the range of the difference histogram, ±max |a − b|: known once the pair was measured (0 for
    // equal values), else measured first, in the same job and with the same Cancel
    std::optional<double> maxAbs;
    if (p->valuesCompared)
        maxAbs = p->values.maxAbsDiff;
    else if (p->status == gguf::TensorDiffStatus::SameBytes || p->status == gguf::TensorDiffStatus::SameValues)
        maxAbs = 0.0;
    const TensorHandle a = m_a, b = m_b;
    m_tracker->start(
        tr("Comparing %1").arg(a.name()),
        [a, b, maxAbs](const gguf::ProgressFn &progress) {
            double m = maxAbs.value_or(0.0);
            uint64_t before = 0, parts = 1;
            if (!maxAbs) {
                parts = 2; // the measuring pass, then the detail
                gguf::ValueDiffOptions options;
                options.progress = gguf::progressPart(progress, 0, 1000, 2000);
                gguf::ValueDiff v;
                const gguf::StatsStatus s = gguf::compareValues(a.data(), b.data(), options, v);
                if (s == gguf::StatsStatus::Cancelled)
                    return CompareJobs::PairDetail{};
                m = v.maxAbsDiff;
                before = 1000;
            }
            return CompareJobs::pairDetail(a, b, m, kPairBins, kGridCells,
                                           gguf::progressPart(progress, before, 1000, 1000 * parts));
        },
        [this](const CompareJobs::PairDetail &detail) { show(detail); });
}

void TensorPairPanel::show(const CompareJobs::PairDetail &detail)
{
    if (detail.histograms.series.size() == 2 && detail.histograms.series[0].status == gguf::StatsStatus::Ok &&
        detail.histograms.series[1].status == gguf::StatsStatus::Ok)
        m_histograms->setSeries(
            shares(detail.histograms, {QStringLiteral("A: ") + m_a.name(), QStringLiteral("B: ") + m_b.name()}),
            HistogramPlot::Scale::Shares);
    else
        m_histograms->showMessage(tr("The values could not be decoded."));
    if (detail.differenceStatus == gguf::StatsStatus::Ok) {
        const gguf::Histogram &h = detail.difference;
        const bool allZero = std::all_of(h.counts.begin(), h.counts.end(), [](uint64_t n) { return n == 0; });
        HistogramPlot::Series series{tr("a − b"), h.lo, h.hi, {}};
        for (uint64_t n : h.counts)
            series.values.append(static_cast<double>(n));
        if (allZero && h.below + h.above == 0)
            m_difference->showMessage(tr("No finite pair of values to compare."));
        else
            m_difference->setSeries({series}, HistogramPlot::Scale::Counts);
    } else {
        m_difference->showMessage(tr("The difference could not be computed: %1.")
                                      .arg(detail.differenceError.isEmpty()
                                               ? TextFormat::statsStatus(detail.differenceStatus)
                                               : detail.differenceError));
    }
    if (detail.heatmapStatus == gguf::StatsStatus::Ok)
        m_heatmap->setHeatmap(detail.heatmap, gguf::TileMeasure::MeanAbs);
    else
        m_heatmap->showMessage(tr("No heatmap: %1.")
                                   .arg(detail.heatmapError.isEmpty() ? TextFormat::statsStatus(detail.heatmapStatus)
                                                                      : detail.heatmapError));
}

void TensorPairPanel::showTile(int row, int column)
{
    const gguf::Heatmap &h = m_heatmap->heatmap();
    if (row < 0 || column < 0 || static_cast<uint32_t>(row) >= h.gridRows ||
        static_cast<uint32_t>(column) >= h.gridCols) {
        m_tile->clear();
        return;
    }
    m_tileRow = row;
    m_tileColumn = column;
    m_tile->setText(m_heatmap->tileText(row, column));
    m_bytesA->setEnabled(tileBytes(0, row, column).second > 0);
    m_bytesB->setEnabled(tileBytes(1, row, column).second > 0);
}

QString TensorPairPanel::tileText() const
{
    return m_tile->text();
}

std::pair<quint64, quint64> TensorPairPanel::tileBytes(int side, int row, int column) const
{
    return (side == 0 ? m_a : m_b).tileByteRange(m_heatmap->heatmap(), row, column);
}

void TensorPairPanel::refreshLayers()
{
    m_layersLazy->invalidate();
}

void TensorPairPanel::drawLayers()
{
    const gguf::TensorPair *p = m_pairs->pairAt(m_row);
    const QString role = p ? tensorRole(TextFormat::fromView(p->name)) : QString();
    const int column = m_layerMeasure->currentData().toInt();
    if (role.isEmpty()) {
        m_layers->showMessage(p ? tr("%1 is not part of a layer.").arg(TextFormat::fromView(p->name))
                                : tr("Select a tensor of a layer."));
        return;
    }
    QVector<LayerChart::Point> points;
    for (const gguf::TensorPair &other : m_pairs->pairs()) {
        const gguf::TensorInfo *info = other.a ? other.a : other.b;
        const QString name = TextFormat::fromView(other.name);
        if (info->layer < 0 || tensorRole(name) != role)
            continue;
        const std::optional<double> m = TensorDiffModel::measure(other, column);
        if (m && std::isfinite(*m))
            points.append({info->layer, *m, name});
    }
    std::sort(points.begin(), points.end(), [](const auto &x, const auto &y) { return x.layer < y.layer; });
    const QString measure = m_layerMeasure->currentText();
    if (points.isEmpty())
        m_layers->showMessage(tr("No %1 of %2 yet: compare the values first.").arg(measure, role));
    else
        m_layers->setPoints(points, tr("%1 of %2").arg(measure, role));
}
