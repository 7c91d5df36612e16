// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/lora_panel.h"

#include "core/format/gguf_file.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/index_plot.h"
#include "ui/weights/weight_jobs.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace {

constexpr uint32_t kGrid = 512;
constexpr uint32_t kLoraBins = 200;

QString localeFiveDigits(double v)
{
    return QLocale().toString(v, 'g', 5);
}

} // namespace

/// What the main job delivers: the decoded pair, its statistics and the whole heatmap.
struct LoraPanel::Result {
    std::shared_ptr<const gguf::LoraDelta> delta;
    gguf::StatsStatus status = gguf::StatsStatus::NoData;
    gguf::LoraDeltaStats stats;
    gguf::Heatmap heatmap;
};

LoraPanel::LoraPanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_scale(new QDoubleSpinBox(this)), m_measure(new QComboBox(this)),
      m_normChoice(new QComboBox(this)), m_wholeButton(new QPushButton(tr("Whole ΔW"), this)),
      m_heatmap(new HeatmapPlot(this)), m_norms(new IndexPlot(this)), m_histogram(new HistogramPlot(this)),
      m_settle(new QTimer(this)), m_tracker(new JobTracker(this)), m_regionTracker(new JobTracker(this)),
      m_progress(new JobProgress(this))
{
    m_lazy = new LazyRefresh(this, [this] { refresh(); });
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_scale->setRange(-100, 100);
    m_scale->setDecimals(2);
    m_scale->setSingleStep(0.1);
    m_scale->setValue(1);
    m_scale->setToolTip(tr("The scale the adapter is applied with (llama.cpp's --lora-scaled FILE SCALE; "
                           "--lora is 1): ΔW is multiplied by it"));
    m_measure->addItems({tr("Mean"), tr("Mean |ΔW|"), tr("Max |ΔW|"), tr("Std")});
    m_measure->setCurrentIndex(static_cast<int>(gguf::TileMeasure::MeanAbs));
    m_normChoice->addItems({tr("Norm of each row (output)"), tr("Norm of each column (input)")});
    m_wholeButton->setEnabled(false);
    m_heatmap->setValueSymbol(QStringLiteral("ΔW"));
    m_heatmap->setAxisLabels(tr("Row (output)"), tr("Column (input)"));
    m_heatmap->plot()->setToolTip(tr("Wheel: zoom (the visible tiles are computed again in detail) · drag: pan"));
    m_histogram->setValueLabel(tr("ΔW value"));
    // two plots share the right-hand column: let each be small so the page stays as small as its others
    m_norms->plot()->setMinimumSize(200, 90);
    m_histogram->plot()->setMinimumSize(200, 90);
    m_settle->setSingleShot(true);
    m_settle->setInterval(300);

    auto *scaleLabel = new QLabel(tr("Adapter &scale:"), this);
    scaleLabel->setBuddy(m_scale);
    auto *measureLabel = new QLabel(tr("&Measure:"), this);
    measureLabel->setBuddy(m_measure);
    auto *controls = new QHBoxLayout;
    controls->addWidget(scaleLabel);
    controls->addWidget(m_scale);
    controls->addSpacing(12);
    controls->addWidget(measureLabel);
    controls->addWidget(m_measure);
    controls->addStretch(1);
    controls->addWidget(m_wholeButton);

    auto *right = new QWidget(this);
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_normChoice, 0, Qt::AlignLeft);
    rightLayout->addWidget(m_norms, 1);
    rightLayout->addWidget(m_histogram, 1);
    auto *splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_heatmap);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(controls);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_progress);
    m_progress->track(m_tracker);
    m_progress->track(m_regionTracker);

    connect(m_scale, &QDoubleSpinBox::valueChanged, this, [this] { m_lazy->invalidate(); });
    connect(m_measure, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_heatmap->setMeasure(static_cast<gguf::TileMeasure>(index)); });
    connect(m_normChoice, &QComboBox::currentIndexChanged, this, &LoraPanel::drawNorms);
    connect(m_wholeButton, &QPushButton::clicked, this, &LoraPanel::showWhole);
    connect(m_heatmap->plot()->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), m_settle,
            qOverload<>(&QTimer::start));
    connect(m_heatmap->plot()->yAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), m_settle,
            qOverload<>(&QTimer::start));
    connect(m_settle, &QTimer::timeout, this, &LoraPanel::viewChanged);
    connect(m_progress, &JobProgress::restartClicked, m_lazy, &LazyRefresh::refreshNow);
    setTensor({});
}

void LoraPanel::setTensor(const TensorHandle &tensor)
{
    m_tracker->drop();
    m_regionTracker->drop();
    m_settle->stop();
    m_tensor = tensor;
    m_pair.reset();
    m_delta.reset();
    m_stats.reset();
    m_whole = {};
    m_wholeButton->setEnabled(false);
    if (tensor.isValid())
        m_pair = gguf::loraPairFor(tensor.file(), tensor.name().toStdString());
    const QString none = tr("Choose the lora_a or lora_b tensor of a LoRA adapter to see the update it makes.");
    m_heatmap->showMessage(m_pair ? QString() : none);
    m_norms->showMessage(QString());
    m_histogram->showMessage(QString());
    m_summary->setText(m_pair ? tr("ΔW of %1…").arg(QString::fromStdString(m_pair->pair.base)) : QString());
    if (m_pair)
        m_lazy->invalidate();
    else
        m_lazy->clear();
}

void LoraPanel::setAdapterScale(double scale)
{
    m_scale->setValue(scale);
}

void LoraPanel::setNorms(Norms norms)
{
    m_normChoice->setCurrentIndex(static_cast<int>(norms));
}

void LoraPanel::refresh()
{
    if (!m_pair || !m_tensor.isValid())
        return;
    m_regionTracker->drop();
    m_delta.reset(); // until the new ΔW arrives, nothing may be zoomed into the old one
    m_stats.reset();
    m_whole = {};
    m_wholeButton->setEnabled(false);
    auto file = m_tensor.fileShared();
    const gguf::LoraPair pair = m_pair->pair; // points into `file`, which the job keeps alive
    const double scale = m_pair->scale * m_scale->value();
    m_tracker->start(
        tr("ΔW of %1").arg(QString::fromStdString(pair.base)),
        [file, pair, scale](const gguf::ProgressFn &progress) {
            Result r;
            auto delta = std::make_shared<gguf::LoraDelta>(*file, pair, scale);
            r.delta = delta;
            if (!delta->ok())
                return r;
            // the heatmap and the two statistics passes each cost one evaluation of ΔW: a third each
            const auto share = [&progress](uint64_t start, uint64_t width) -> gguf::ProgressFn {
                return [&progress, start, width](uint64_t done, uint64_t total) {
                    return !progress || progress(start + width * done / std::max<uint64_t>(1, total), 3000);
                };
            };
            gguf::HeatmapOptions options;
            options.rows = kGrid;
            options.cols = kGrid;
            options.progress = share(0, 1000);
            r.status = gguf::loraDeltaHeatmap(*delta, 0, delta->rows(), 0, delta->columns(), options, r.heatmap);
            if (r.status == gguf::StatsStatus::Ok)
                r.status = gguf::computeLoraDeltaStats(*delta, kLoraBins, share(1000, 2000), r.stats);
            return r;
        },
        [this](Result r) { show(std::move(r)); });
}

void LoraPanel::show(Result r)
{
    m_regionTracker->drop();
    const QString base = QString::fromStdString(m_pair->pair.base).toHtmlEscaped();
    if (!r.delta || !r.delta->ok() || r.status != gguf::StatsStatus::Ok) {
        m_norms->showMessage(QString());
        m_histogram->showMessage(QString());
    }
    if (!r.delta || !r.delta->ok()) {
        const QString why = r.delta ? QString::fromStdString(r.delta->error()) : QString();
        m_heatmap->showMessage(tr("ΔW of %1 cannot be formed: %2.").arg(base, why));
        m_summary->setText(tr("ΔW of %1: %2.").arg(base, why));
        emit deltaShown();
        return;
    }
    if (r.status != gguf::StatsStatus::Ok) {
        m_heatmap->showMessage(tr("No ΔW: %1.").arg(TextFormat::statsStatus(r.status)));
        m_summary->setText(tr("ΔW of %1: %2.").arg(base, TextFormat::statsStatus(r.status)));
        emit deltaShown();
        return;
    }
    m_delta = r.delta;
    const gguf::LoraDelta &d = *r.delta;
    m_stats = std::move(r.stats);
    m_whole = r.heatmap;
    m_heatmap->setHeatmap(m_whole, static_cast<gguf::TileMeasure>(m_measure->currentIndex()));
    m_wholeButton->setEnabled(false);
    QString shape =
        tr("%1 rows (outputs) × %2 columns (inputs)").arg(TextFormat::count(d.rows()), TextFormat::count(d.columns()));
    if (d.experts() > 1)
        shape += tr(", %n expert(s) stacked", nullptr, static_cast<int>(d.experts()));
    const std::optional<double> &alpha = m_pair->alpha;
    const QString scale =
        tr("%1 = %2 × adapter scale %3")
            .arg(localeFiveDigits(d.scale()),
                 alpha ? tr("alpha %1 / rank %2").arg(localeFiveDigits(*alpha), TextFormat::count(d.rank()))
                       : tr("1 (no alpha)"),
                 localeFiveDigits(m_scale->value()));
    m_summary->setText(tr("<b>ΔW = scale · B·A</b> of %1: %2, rank %3, scale %4.")
                           .arg(base, shape, TextFormat::count(d.rank()), scale) +
                       QLatin1Char(' ') +
                       tr("Frobenius norm %1 · mean %2 · std %3 · min %4 · max %5.")
                           .arg(localeFiveDigits(m_stats->frobenius), localeFiveDigits(m_stats->mean),
                                localeFiveDigits(m_stats->std), localeFiveDigits(m_stats->min),
                                localeFiveDigits(m_stats->max)));
    QVector<double> counts;
    for (const uint64_t c : m_stats->histogram.counts)
        counts << static_cast<double>(c);
    m_histogram->setSeries({HistogramPlot::Series{base, m_stats->histogram.lo, m_stats->histogram.hi, counts}},
                           HistogramPlot::Scale::Counts);
    drawNorms();
    emit deltaShown();
}

void LoraPanel::drawNorms()
{
    if (!m_stats)
        return;
    const bool rows = m_normChoice->currentIndex() == static_cast<int>(Norms::Rows);
    const std::vector<double> &norms = rows ? m_stats->rowNorms : m_stats->columnNorms;
    const QString key = rows ? tr("Row (output)") : tr("Column (input)");
    if (norms.size() <= size_t(kMaxNormPoints)) {
        m_norms->setValues(QVector<double>(norms.begin(), norms.end()), key, tr("‖ΔW‖ (L2)"));
        return;
    }
    // a few million rows: the largest norm of each run, so no spike is lost
    const size_t run = (norms.size() + kMaxNormPoints - 1) / kMaxNormPoints;
    QVector<double> keys, values;
    for (size_t first = 0; first < norms.size(); first += run) {
        keys << static_cast<double>(first);
        values << *std::max_element(norms.begin() + first, norms.begin() + std::min(norms.size(), first + run));
    }
    m_norms->setSeries(keys, values, key, tr("‖ΔW‖ (L2), largest of each %1").arg(run));
}

void LoraPanel::showWhole()
{
    m_regionTracker->drop();
    if (m_whole.gridRows == 0)
        return;
    m_heatmap->setHeatmap(m_whole, static_cast<gguf::TileMeasure>(m_measure->currentIndex()));
    m_settle->stop(); // setHeatmap moved the axes: nothing to recompute
    m_wholeButton->setEnabled(false);
}

void LoraPanel::viewChanged()
{
    const gguf::Heatmap &shown = m_heatmap->heatmap();
    if (!m_delta || shown.gridRows == 0)
        return;
    const QCPRange x = m_heatmap->plot()->xAxis->range(), y = m_heatmap->plot()->yAxis->range();
    const auto clampTo = [](double v, uint64_t limit) {
        return static_cast<uint64_t>(std::clamp(v, 0.0, static_cast<double>(limit)));
    };
    const uint64_t c0 = clampTo(std::floor(x.lower), m_delta->columns()),
                   c1 = clampTo(std::ceil(x.upper), m_delta->columns());
    const uint64_t r0 = clampTo(std::floor(y.lower), m_delta->rows()),
                   r1 = clampTo(std::ceil(y.upper), m_delta->rows());
    if (c1 <= c0 || r1 <= r0)
        return;
    // the tiles on show are as fine as they can be when each holds one value
    const bool sameRegion = r0 == shown.firstRow && r1 == shown.firstRow + shown.tensorRows &&
                            c0 == shown.firstColumn && c1 == shown.firstColumn + shown.tensorCols;
    const bool fine = shown.tensorRows <= shown.gridRows && shown.tensorCols <= shown.gridCols &&
                      r0 >= shown.firstRow && r1 <= shown.firstRow + shown.tensorRows && c0 >= shown.firstColumn &&
                      c1 <= shown.firstColumn + shown.tensorCols;
    if (sameRegion || fine)
        return;
    if (r0 == 0 && c0 == 0 && r1 == m_delta->rows() && c1 == m_delta->columns()) {
        showWhole();
        return;
    }
    showRegion(r0, r1 - r0, c0, c1 - c0);
}

void LoraPanel::showRegion(quint64 firstRow, quint64 rows, quint64 firstColumn, quint64 columns)
{
    if (!m_delta)
        return;
    std::shared_ptr<const gguf::LoraDelta> delta = m_delta;
    struct RegionResult {
        gguf::StatsStatus status = gguf::StatsStatus::NoData;
        gguf::Heatmap heatmap;
    };
    m_regionTracker->start(
        tr("ΔW rows %1–%2, columns %3–%4")
            .arg(TextFormat::count(firstRow), TextFormat::count(firstRow + rows - 1), TextFormat::count(firstColumn),
                 TextFormat::count(firstColumn + columns - 1)),
        [delta, firstRow, rows, firstColumn, columns](const gguf::ProgressFn &progress) {
            RegionResult r;
            gguf::HeatmapOptions options;
            options.rows = kGrid;
            options.cols = kGrid;
            options.progress = progress;
            r.status = gguf::loraDeltaHeatmap(*delta, firstRow, rows, firstColumn, columns, options, r.heatmap);
            return r;
        },
        [this](const RegionResult &r) {
            if (r.status == gguf::StatsStatus::Ok) {
                m_heatmap->setHeatmap(r.heatmap, static_cast<gguf::TileMeasure>(m_measure->currentIndex()));
                m_settle->stop();
                m_wholeButton->setEnabled(true);
            }
            emit regionShown();
        });
}

QCustomPlot *LoraPanel::shownPlot() const
{
    return m_heatmap->hasPlot() ? m_heatmap->plot() : nullptr;
}

QString LoraPanel::summaryText() const
{
    return m_summary->text();
}
