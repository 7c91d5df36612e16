// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/pairing/checkpoint_compare_panel.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "ui/common/compact_rows.h"
#include "ui/common/fixed_font.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace {

QString measure(double v, char format, int precision)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QLocale().toString(v, format, precision);
}

constexpr uint32_t kDetailBins = 128;
constexpr uint32_t kDetailTiles = 64;

// A histogram as the share of its side's values per bin.
HistogramPlot::Series shareSeries(const QString &name, const gguf::Histogram &h)
{
    uint64_t total = 0;
    for (const uint64_t n : h.counts)
        total += n;
    HistogramPlot::Series series{name, h.lo, h.hi, {}};
    for (const uint64_t n : h.counts)
        series.values.append(total ? 100.0 * double(n) / double(total) : 0.0);
    return series;
}

} // namespace

/// One pair in detail, computed on a worker.
struct CheckpointComparePanel::Detail {
    int index = -1;
    gguf::StatsStatus valuesStatus = gguf::StatsStatus::NoData, differenceStatus = gguf::StatsStatus::NoData,
                      heatmapStatus = gguf::StatsStatus::NoData;
    gguf::Histogram a, b, difference;
    gguf::Heatmap heatmap;
};

CheckpointComparePanel::CheckpointComparePanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_filter(new QLineEdit(this)), m_table(new QTableWidget(this)),
      m_tracker(new JobTracker(this)), m_progress(new JobProgress(this)), m_detailTitle(new QLabel(this)),
      m_detail(new QTabWidget(this)), m_values(new HistogramPlot(this)), m_difference(new HistogramPlot(this)),
      m_heatmap(new HeatmapPlot(this)), m_detailTracker(new JobTracker(this)), m_detailProgress(new JobProgress(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter->setPlaceholderText(tr("Filter by either name"));
    m_filter->setClearButtonEnabled(true);
    m_table->setColumnCount(ColumnCount);
    setHeadings();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    m_table->setFont(fixedFont());
    setCompactRows(m_table);
    m_progress->track(m_tracker);
    m_detailProgress->track(m_detailTracker);
    m_detailTitle->setWordWrap(true);
    m_detailTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detailTitle->setText(tr("Select a pair to see its values in detail."));
    m_difference->setValueLabel(tr("a − b"));
    m_detail->addTab(m_values, tr("Values"));
    m_detail->addTab(m_difference, tr("Difference"));
    m_detail->addTab(m_heatmap, tr("Heatmap |a − b|"));
    auto *detail = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_detailTitle);
    detailLayout->addWidget(m_detailProgress);
    detailLayout->addWidget(m_detail, 1);
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_table);
    split->addWidget(detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_progress);
    layout->addWidget(m_filter);
    layout->addWidget(split, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &CheckpointComparePanel::setFilter);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) {
        const QTableWidgetItem *item = row >= 0 ? m_table->item(row, NameA) : nullptr;
        showDetail(item ? item->data(Qt::UserRole).toInt() : -1);
    });
    connect(m_detailProgress, &JobProgress::restartClicked, this, [this] { showDetail(m_detailIndex); });
    connect(m_progress, &JobProgress::restartClicked, this,
            [this] { setSides(m_model, m_checkpoint, m_checkpointIsA); });
}

void CheckpointComparePanel::setHeadings()
{
    const QString gguf = tr("GGUF"), checkpoint = tr("checkpoint");
    const QString ggufType = tr("type"), dtype = tr("dtype");
    m_table->setHorizontalHeaderLabels(
        {tr("A (%1)").arg(m_checkpointIsA ? checkpoint : gguf), tr("B (%1)").arg(m_checkpointIsA ? gguf : checkpoint),
         tr("Status"), tr("A %1").arg(m_checkpointIsA ? dtype : ggufType),
         tr("B %1").arg(m_checkpointIsA ? ggufType : dtype), tr("RMSE"), tr("max |a−b|"), tr("mean |a−b| / mean |a|"),
         tr("Cosine"), tr("SNR dB"), tr("Rel. L2"), tr("Undone")});
}

void CheckpointComparePanel::setSides(std::shared_ptr<const gguf::SplitModel> model,
                                      std::shared_ptr<const gguf::st::Checkpoint> checkpoint, bool checkpointIsA)
{
    m_tracker->drop();
    showDetail(-1);
    m_checkpointIsA = checkpointIsA;
    setHeadings();
    m_model = std::move(model);
    m_checkpoint = std::move(checkpoint);
    m_table->setRowCount(0);
    m_summary->clear();
    m_result.reset();
    if (!m_model || !m_checkpoint)
        return;
    m_summary->setText(tr("Pairing the tensors and comparing their values…"));
    m_tracker->start(
        checkpointIsA ? tr("Comparing with the GGUF") : tr("Comparing with the checkpoint"),
        [model = m_model, checkpoint = m_checkpoint, checkpointIsA](const gguf::ProgressFn &progress) {
            auto result = std::make_shared<Result>();
            result->pairing = gguf::pairWithCheckpoint(*model, *checkpoint);
            const auto &pairs = result->pairing.pairs;
            uint64_t total = 0, done = 0; // progress by elements of the GGUF tensors
            for (const gguf::CheckpointPair &p : pairs)
                total += p.paired() ? model->tensors()[size_t(p.ggufTensor)].info->elements : 0;
            for (const gguf::CheckpointPair &p : pairs) {
                const uint64_t elements = p.paired() ? model->tensors()[size_t(p.ggufTensor)].info->elements : 0;
                gguf::ValueDiffOptions options;
                options.progress = [&](uint64_t chunk, uint64_t chunks) {
                    return progress(done + (chunks ? elements * chunk / chunks : 0), std::max<uint64_t>(total, 1));
                };
                result->outcomes.push_back(
                    gguf::compareCheckpointPair(*model, *checkpoint, p, checkpointIsA, true, options));
                done += elements;
                if (!progress(done, std::max<uint64_t>(total, 1)))
                    break; // cancelled: the job's result is dropped
            }
            return result;
        },
        [this](const std::shared_ptr<Result> &result) { show(result); });
}

void CheckpointComparePanel::show(const std::shared_ptr<Result> &result)
{
    m_result = result;
    const auto &pairs = result->pairing.pairs;
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(pairs.size()));
    uint64_t paired = 0, onlyA = 0, onlyB = 0, same = 0, changed = 0;
    for (size_t i = 0; i < pairs.size() && i < result->outcomes.size(); ++i) {
        const gguf::CheckpointPair &p = pairs[i];
        const gguf::CheckpointPairOutcome &o = result->outcomes[i];
        const int row = static_cast<int>(i);
        paired += p.paired();
        onlyA += o.status == gguf::TensorDiffStatus::OnlyA;
        onlyB += o.status == gguf::TensorDiffStatus::OnlyB;
        same += o.status == gguf::TensorDiffStatus::SameValues;
        changed += o.status == gguf::TensorDiffStatus::Changed;
        const gguf::TensorInfo *info = p.ggufTensor >= 0 ? m_model->tensors()[size_t(p.ggufTensor)].info : nullptr;
        const auto set = [&](int column, const QString &text) {
            m_table->setItem(row, column, new QTableWidgetItem(text));
        };
        const QString ggufName = info ? TextFormat::fromView(info->name) : QString();
        const QString checkpointName = QString::fromStdString(p.sourceName);
        set(NameA, m_checkpointIsA ? checkpointName : ggufName);
        m_table->item(row, NameA)->setData(Qt::UserRole, row); // the pair's index, whatever the sort
        set(NameB, m_checkpointIsA ? ggufName : checkpointName);
        set(Status, QString::fromUtf8(gguf::tensorDiffStatusName(o.status).data(),
                                      static_cast<qsizetype>(gguf::tensorDiffStatusName(o.status).size())));
        const QString ggufType = info ? QString::fromStdString(gguf::typeName(info->typeId)) : QString();
        const QString dtype = p.sources.empty()
                                  ? QString()
                                  : QString::fromStdString(std::string(gguf::st::dtypeName(
                                        m_checkpoint->tensors()[size_t(p.sources.front())].entry->dtype)));
        set(TypeA, m_checkpointIsA ? dtype : ggufType);
        set(TypeB, m_checkpointIsA ? ggufType : dtype);
        if (o.compared) {
            const gguf::DiffMeasures m = o.values.measures();
            set(Rmse, measure(m.rmse, 'g', 4));
            set(MaxAbs, measure(m.maxAbs, 'g', 4));
            set(MeanRel, measure(m.meanAbsRelative, 'g', 4));
            set(Cosine, measure(m.cosine, 'f', 6));
            set(Snr, measure(m.snrDb, 'f', 2));
            set(RelL2, measure(m.relativeL2, 'g', 4));
        }
        QStringList undone;
        for (const std::string &u : p.undone)
            undone << QString::fromStdString(u);
        if (!o.problem.empty())
            undone << tr("not compared: %1").arg(QString::fromStdString(o.problem));
        set(Undone, undone.join(QStringLiteral("; ")));
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    m_summary->setText(result->pairing.known
                           ? tr("Paired by llama.cpp's conversion of %1, undone: %2 paired (%3 with every value "
                                "equal, %4 with values that differ), %5 only in A, %6 only in B.")
                                 .arg(QString::fromStdString(result->pairing.architecture), TextFormat::count(paired),
                                      TextFormat::count(same), TextFormat::count(changed), TextFormat::count(onlyA),
                                      TextFormat::count(onlyB))
                           : tr("Not paired: %1.").arg(QString::fromStdString(result->pairing.problem)));
    setFilter(m_filter->text());
    emit compared();
}

const gguf::CheckpointPairing &CheckpointComparePanel::pairing() const
{
    static const gguf::CheckpointPairing none;
    return m_result ? m_result->pairing : none;
}

const std::vector<gguf::CheckpointPairOutcome> &CheckpointComparePanel::outcomes() const
{
    static const std::vector<gguf::CheckpointPairOutcome> none;
    return m_result ? m_result->outcomes : none;
}

QString CheckpointComparePanel::summary() const
{
    return m_summary->text();
}

void CheckpointComparePanel::setFilter(const QString &text)
{
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto *a = m_table->item(row, NameA);
        const auto *b = m_table->item(row, NameB);
        const bool match = text.isEmpty() || (a && a->text().contains(text, Qt::CaseInsensitive)) ||
                           (b && b->text().contains(text, Qt::CaseInsensitive));
        m_table->setRowHidden(row, !match);
    }
}

void CheckpointComparePanel::showDetail(int index)
{
    m_detailTracker->drop();
    m_detailIndex = index;
    const auto &pairs = pairing().pairs;
    if (index < 0 || size_t(index) >= pairs.size() || !m_model || !m_checkpoint) {
        m_detailIndex = -1;
        m_detailTitle->setText(tr("Select a pair to see its values in detail."));
        for (HistogramPlot *plot : {m_values, m_difference})
            plot->showMessage(QString());
        m_heatmap->showMessage(QString());
        return;
    }
    const gguf::CheckpointPair &pair = pairs[size_t(index)];
    const QString ggufName =
        pair.ggufTensor >= 0 ? TextFormat::fromView(m_model->tensors()[size_t(pair.ggufTensor)].info->name) : QString();
    const QString sourceName = QString::fromStdString(pair.sourceName);
    const QString nameA = m_checkpointIsA ? sourceName : ggufName, nameB = m_checkpointIsA ? ggufName : sourceName;
    if (!pair.paired() || !pair.problem.empty()) {
        const QString why =
            !pair.paired() ? tr("only on one side: nothing to compare it with") : QString::fromStdString(pair.problem);
        m_detailTitle->setText(tr("%1: %2").arg(nameA.isEmpty() ? nameB : nameA, why));
        for (HistogramPlot *plot : {m_values, m_difference})
            plot->showMessage(why);
        m_heatmap->showMessage(why);
        return;
    }
    m_detailTitle->setText(tr("A: %1    B: %2").arg(nameA, nameB));
    const double maxAbs = size_t(index) < outcomes().size() && outcomes()[size_t(index)].compared
                              ? outcomes()[size_t(index)].values.maxAbsDiff
                              : 0.0;
    m_detailTracker->start(
        tr("Detail of %1").arg(ggufName),
        [model = m_model, checkpoint = m_checkpoint, pair, index, maxAbs,
         checkpointIsA = m_checkpointIsA](const gguf::ProgressFn &progress) {
            Detail d;
            d.index = index;
            const gguf::SplitModel::TensorRef &ref = model->tensors()[size_t(pair.ggufTensor)];
            const gguf::ComposedValues ggufSide =
                gguf::ComposedValues::of(gguf::tensorData(*model->shards()[ref.shard].file, *ref.info));
            const gguf::ComposedValues original = gguf::composedValues(pair, *checkpoint);
            const gguf::ComposedValues &a = checkpointIsA ? original : ggufSide,
                                       &b = checkpointIsA ? ggufSide : original;
            // four passes over both sides (the histograms take two), weighted alike
            gguf::ValueDiffOptions options;
            options.progress = gguf::progressPart(progress, 0, 2, 4);
            d.valuesStatus = gguf::commonRangeHistograms(a, b, kDetailBins, options, d.a, d.b);
            if (d.valuesStatus == gguf::StatsStatus::Cancelled)
                return d;
            // symmetric around 0, so that a bias shows as a shifted peak
            const double m = maxAbs > 0 && std::isfinite(maxAbs) ? maxAbs : 0.5;
            options.progress = gguf::progressPart(progress, 2, 1, 4);
            d.differenceStatus = gguf::computeDiffHistogram(a, b, -m, m, kDetailBins, options, d.difference);
            gguf::HeatmapOptions heat;
            heat.rows = heat.cols = kDetailTiles;
            heat.progress = gguf::progressPart(progress, 3, 1, 4);
            d.heatmapStatus = gguf::computeDiffHeatmap(a, b, ref.info->ne[0], heat, d.heatmap);
            return d;
        },
        [this](const Detail &d) { showDetailResult(d); });
}

void CheckpointComparePanel::showDetailResult(const Detail &d)
{
    if (d.valuesStatus == gguf::StatsStatus::Ok)
        m_values->setSeries({shareSeries(tr("A"), d.a), shareSeries(tr("B"), d.b)}, HistogramPlot::Scale::Shares);
    else
        m_values->showMessage(tr("The values could not be read: %1.").arg(TextFormat::statsStatus(d.valuesStatus)));
    if (d.differenceStatus == gguf::StatsStatus::Ok) {
        HistogramPlot::Series series{tr("a − b"), d.difference.lo, d.difference.hi, {}};
        for (const uint64_t n : d.difference.counts)
            series.values.append(double(n));
        m_difference->setSeries({series}, HistogramPlot::Scale::Counts);
    } else {
        m_difference->showMessage(
            tr("The difference could not be computed: %1.").arg(TextFormat::statsStatus(d.differenceStatus)));
    }
    if (d.heatmapStatus == gguf::StatsStatus::Ok)
        m_heatmap->setHeatmap(d.heatmap, gguf::TileMeasure::MeanAbs);
    else
        m_heatmap->showMessage(tr("No heatmap: %1.").arg(TextFormat::statsStatus(d.heatmapStatus)));
}
