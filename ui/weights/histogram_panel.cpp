// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/histogram_panel.h"

#include "core/format/gguf_file.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/plots/histogram_plot.h"
#include "ui/weights/stats_table.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleValidator>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>
#include <numeric>

namespace {

using WeightJobs::RangeChoice;
using WeightJobs::RangeMode;
using WeightJobs::RangePreset;
// Automatic, Whole range and Central are all RangeMode::Automatic to the core (a choice saved as
// automatic comes back as Automatic); the panel tells them apart by their place in the list.
constexpr RangePreset kHistogramPresets[] = {
    {QT_TRANSLATE_NOOP("HistogramPanel", "Automatic"), RangeMode::Automatic, 0, 6},
    {QT_TRANSLATE_NOOP("HistogramPanel", "Whole range: min – max"), RangeMode::Automatic, 0, 6},
    {QT_TRANSLATE_NOOP("HistogramPanel", "Central 99.9 %"), RangeMode::Automatic, 0, 6},
    {QT_TRANSLATE_NOOP("HistogramPanel", "Clip outliers: p1 – p99"), RangeMode::Percentiles, 0, 6},
    {QT_TRANSLATE_NOOP("HistogramPanel", "Clip outliers: p5 – p95"), RangeMode::Percentiles, 1, 5},
    {QT_TRANSLATE_NOOP("HistogramPanel", "Middle half: p25 – p75"), RangeMode::Percentiles, 2, 4},
    {QT_TRANSLATE_NOOP("HistogramPanel", "Custom range"), RangeMode::Custom, 0, 6},
};
constexpr int kAutomatic = 0;
constexpr int kWhole = 1;
constexpr int kCentral = 2;
constexpr int kPercentiles = 3; // p1 – p99
constexpr int kCustom = 6;
constexpr double kCentralShare = 0.999;

// Whether a few far values squeeze the rest of the [min, max] histogram of `s`: the narrowest run
// of bins holding 99.9 % of its values spans at most 1/16 of the bins. Every value the same is one
// spike too, and the truth: no outliers there.
bool outliersDominate(const gguf::TensorStatistics &s)
{
    if (!(s.max > s.min))
        return false;
    const std::vector<uint64_t> &c = s.histogram.counts;
    const uint64_t total = std::accumulate(c.begin(), c.end(), uint64_t(0));
    if (total == 0 || c.size() < 16)
        return false;
    const auto keep = static_cast<uint64_t>(std::ceil(kCentralShare * static_cast<double>(total)));
    size_t narrowest = c.size(), left = 0;
    uint64_t sum = 0;
    for (size_t right = 0; right < c.size(); ++right) {
        sum += c[right];
        while (left < right && sum - c[left] >= keep)
            sum -= c[left++];
        if (sum >= keep)
            narrowest = std::min(narrowest, right - left + 1);
    }
    return narrowest * 16 <= c.size();
}

QVector<double> countsOf(const gguf::Histogram &h)
{
    QVector<double> v;
    v.reserve(static_cast<qsizetype>(h.counts.size()));
    for (uint64_t c : h.counts)
        v << static_cast<double>(c);
    return v;
}

} // namespace

HistogramPanel::HistogramPanel(QWidget *parent)
    : QWidget(parent), m_bins(new QSpinBox(this)), m_range(new QComboBox(this)), m_lo(new QLineEdit(this)),
      m_hi(new QLineEdit(this)), m_log(new QCheckBox(tr("&Log counts"), this)), m_shown(new QLabel(this)),
      m_plot(new HistogramPlot(this)), m_table(new StatsTable(this)), m_tracker(new JobTracker(this)),
      m_progress(new JobProgress(this)), m_sampleBar(new QWidget(this)), m_sampleText(new QLabel(m_sampleBar))
{
    m_lazy = new LazyRefresh(this, [this] { refresh(); });
    m_bins->setRange(16, 4096);
    m_bins->setValue(256);
    m_bins->setAccelerated(true);
    m_bins->setToolTip(tr("Number of histogram bins (16–4096)"));
    fillRangeMenu();
    for (QLineEdit *edit : {m_lo, m_hi}) {
        edit->setValidator(new QDoubleValidator(edit));
        edit->setMaximumWidth(110);
        edit->setEnabled(false);
        connect(edit, &QLineEdit::editingFinished, this, &HistogramPanel::settingsChanged);
    }
    m_lo->setPlaceholderText(tr("from"));
    m_hi->setPlaceholderText(tr("to"));
    auto *resetZoom = new QPushButton(tr("Whole range"), this);
    resetZoom->setToolTip(tr("Undo zoom and pan (or double-click the plot)"));

    auto *binsLabel = new QLabel(tr("&Bins:"), this);
    binsLabel->setBuddy(m_bins);
    auto *rangeLabel = new QLabel(tr("&Range:"), this);
    rangeLabel->setBuddy(m_range);
    auto *controls = new QHBoxLayout;
    controls->addWidget(binsLabel);
    controls->addWidget(m_bins);
    controls->addSpacing(12);
    controls->addWidget(rangeLabel);
    controls->addWidget(m_range);
    controls->addWidget(m_lo);
    controls->addWidget(m_hi);
    controls->addSpacing(12);
    controls->addWidget(m_log);
    controls->addStretch(1);
    controls->addWidget(resetZoom);

    auto *split = new QSplitter(this);
    split->addWidget(m_plot);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    auto *readWhole = new QPushButton(tr("Read the &whole tensor"), m_sampleBar);
    readWhole->setObjectName(QStringLiteral("readWholeTensor"));
    m_sampleText->setWordWrap(true);
    auto *sampleRow = new QHBoxLayout(m_sampleBar);
    sampleRow->setContentsMargins(0, 0, 0, 0);
    sampleRow->addWidget(m_sampleText, 1);
    sampleRow->addWidget(readWhole);
    m_sampleBar->hide();
    connect(readWhole, &QPushButton::clicked, this, &HistogramPanel::readWholeTensor);

    m_shown->setObjectName(QStringLiteral("histogramRangeShown"));
    m_shown->setWordWrap(true);
    m_shown->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_shown);
    layout->addWidget(m_sampleBar);
    layout->addWidget(split, 1);
    layout->addWidget(m_progress);
    m_progress->track(m_tracker);

    // Spin-box steps come in bursts: compute once they settle.
    // a bin count is typed a digit at a time: recompute once the typing has settled
    connect(m_bins, &QSpinBox::valueChanged, m_lazy, [this] { m_lazy->invalidateAfter(250); });
    connect(m_range, &QComboBox::currentIndexChanged, this, [this](int index) {
        const bool custom = index == kCustom;
        m_lo->setEnabled(custom);
        m_hi->setEnabled(custom);
        if (custom && m_lo->text().isEmpty() && m_histogram) {
            m_lo->setText(QString::number(m_histogram->lo, 'g', 7));
            m_hi->setText(QString::number(m_histogram->hi, 'g', 7));
        }
        settingsChanged();
    });
    connect(m_log, &QCheckBox::toggled, m_plot, &HistogramPlot::setLogarithmic);
    connect(resetZoom, &QPushButton::clicked, m_plot, &HistogramPlot::resetZoom);
    connect(m_progress, &JobProgress::restartClicked, m_lazy, &LazyRefresh::refreshNow);
    m_plot->showMessage(tr("Select a tensor to see its histogram."));
}

void HistogramPanel::fillRangeMenu()
{
    for (const RangePreset &preset : kHistogramPresets)
        m_range->addItem(tr(preset.label));
    m_range->setItemData(kAutomatic,
                         tr("min – max, or the central 99.9 % of the values when a few outliers would squeeze the rest "
                            "into one spike (the line under these controls says which)"),
                         Qt::ToolTipRole);
    m_range->setItemData(kCentral, tr("The narrowest range holding 99.9 % of the values, 0.05 % left out on each side"),
                         Qt::ToolTipRole);
}

void HistogramPanel::setTensor(const TensorHandle &tensor)
{
    if (tensor == m_tensor)
        return;
    m_tensor = tensor;
    m_stats.reset();
    m_histogram.reset();
    m_centralShown = m_percentilesChosen = false;
    m_readWhole = false;
    m_sampleBar->hide();
    m_tracker->drop();
    m_table->clearStatistics();
    m_plot->showMessage(m_tensor.isValid() ? QString() : tr("Select a tensor to see its histogram."));
    m_lazy->invalidate();
}

void HistogramPanel::setBins(int bins)
{
    m_bins->setValue(bins);
    settingsChanged();
}

int HistogramPanel::bins() const
{
    return m_bins->value();
}

void HistogramPanel::setRangeChoice(const RangeChoice &choice)
{
    int index = kCustom;
    for (int i = 0; i < kCustom && index == kCustom; ++i)
        if (kHistogramPresets[i].matches(choice))
            index = i; // the first that matches: Automatic for an automatic choice
    const QSignalBlocker block(m_range);
    m_range->setCurrentIndex(index);
    m_lo->setEnabled(index == kCustom);
    m_hi->setEnabled(index == kCustom);
    if (choice.mode == RangeMode::Custom) {
        m_lo->setText(QString::number(choice.lo, 'g', 17));
        m_hi->setText(QString::number(choice.hi, 'g', 17));
    }
    settingsChanged();
}

RangeChoice HistogramPanel::rangeChoice() const
{
    const RangePreset &preset = kHistogramPresets[std::clamp(m_range->currentIndex(), 0, kCustom)];
    RangeChoice choice = preset.choice();
    choice.lo = m_lo->text().toDouble();
    choice.hi = m_hi->text().toDouble();
    return choice;
}

void HistogramPanel::setLogarithmic(bool logarithmic)
{
    m_log->setChecked(logarithmic);
}

void HistogramPanel::settingsChanged()
{
    m_lazy->invalidate();
}

void HistogramPanel::refresh()
{
    if (!m_tensor.isValid()) {
        m_tracker->drop();
        return;
    }
    if (!m_stats)
        computeStatistics();
    else
        computeHistogram();
}

void HistogramPanel::readWholeTensor()
{
    m_readWhole = true;
    m_stats.reset();
    m_histogram.reset();
    m_centralShown = m_percentilesChosen = false;
    m_sampleBar->hide();
    m_lazy->refreshNow();
}

void HistogramPanel::computeStatistics()
{
    const TensorHandle tensor = m_tensor;
    const uint32_t bins = static_cast<uint32_t>(m_bins->value());
    const uint64_t sample = m_readWhole ? 0 : WeightJobs::sampleBytesFor(tensor);
    m_plot->showMessage(tr("Computing the statistics of %1…").arg(tensor.name()));
    m_tracker->start(
        sample ? tr("Statistics of a sample of %1").arg(tensor.name()) : tr("Statistics of %1").arg(tensor.name()),
        [tensor, bins, sample](const gguf::ProgressFn &progress) {
            return WeightJobs::statistics(tensor, bins, std::nullopt, progress, sample);
        },
        [this, bins](const WeightJobs::Statistics &result) {
            if (showFailure(result))
                return;
            m_stats = result.stats;
            const bool sampled = m_stats->sampledElements > 0;
            if (sampled) {
                // a sample stays a sample: its histogram is counted over it, and the whole
                // tensor is read only when asked for
                const QLocale locale;
                m_sampleText->setText(
                    tr("Estimates from a sample: evenly spaced blocks holding %1 of the tensor's %2 values were "
                       "fetched, not all %3.")
                        .arg(locale.toString(static_cast<qulonglong>(m_stats->sampledElements)),
                             locale.toString(static_cast<qulonglong>(m_stats->count)),
                             locale.formattedDataSize(static_cast<qint64>(m_tensor.info().byteSize))));
                m_sampleBar->show();
            }
            if (m_stats->finite == 0) {
                m_table->setStatistics(*m_stats, nullptr);
                m_plot->showMessage(sampled ? tr("The sample has no finite values.")
                                            : tr("This tensor has no finite values."));
                return;
            }
            // The first pass's histogram is shown at once; the exact one replaces it.
            if (result.stats.histogram.hi > result.stats.histogram.lo)
                draw(result.stats.histogram);
            if (sampled) {
                computeHistogram();
                return;
            }
            refineStatistics(bins);
        });
}

void HistogramPanel::refineStatistics(uint32_t bins)
{
    const TensorHandle tensor = m_tensor;
    const gguf::TensorStatistics first = *m_stats;
    m_tracker->start(
        tr("Exact statistics of %1").arg(tensor.name()),
        [tensor, bins, first](const gguf::ProgressFn &progress) {
            return WeightJobs::refined(tensor, bins, first, progress);
        },
        [this](const WeightJobs::Statistics &result) {
            if (showFailure(result))
                return;
            // exact percentiles, and the exact histogram over [min, max]
            m_stats = result.stats;
            draw(result.stats.histogram);
            computeHistogram();
        });
}

void HistogramPanel::computeHistogram()
{
    const uint32_t bins = static_cast<uint32_t>(m_bins->value());
    RangeChoice choice = rangeChoice();
    if (m_stats->finite == 0)
        return;
    if (choice.mode == RangeMode::Custom && !(choice.hi > choice.lo)) {
        m_plot->showMessage(tr("Type a range: the upper end must be above the lower end."));
        return;
    }
    // the central 99.9 %, asked for or chosen because a few outliers squeeze the rest into a spike;
    // a sample (of a remote tensor) gets p1 – p99 instead: the central range's passes would fetch
    // the sample again each time
    const int index = m_range->currentIndex();
    const bool dominated = index == kAutomatic && outliersDominate(*m_stats);
    if (index == kCentral || (dominated && m_stats->sampledElements == 0)) {
        computeCentral(bins);
        return;
    }
    m_centralShown = false;
    m_percentilesChosen = dominated;
    if (dominated)
        choice = kHistogramPresets[kPercentiles].choice();
    const std::pair<double, double> range = choice.rangeFor(*m_stats);
    // The first pass's histogram is already exact for the automatic range with this many bins.
    if (choice.mode == RangeMode::Automatic && m_histogram && m_histogram->exact &&
        m_histogram->counts.size() == bins && m_histogram->lo == range.first && m_histogram->hi == range.second) {
        updateRangeNote();
        return;
    }
    const TensorHandle tensor = m_tensor;
    const uint64_t sample = m_stats->sampledElements > 0 ? WeightJobs::sampleBytesFor(tensor) : 0;
    m_tracker->start(
        tr("Histogram of %1").arg(tensor.name()),
        [tensor, bins, range, sample](const gguf::ProgressFn &progress) {
            return WeightJobs::statistics(tensor, bins, range, progress, sample);
        },
        [this](const WeightJobs::Statistics &result) {
            if (showFailure(result))
                return;
            draw(result.stats.histogram);
        });
}

void HistogramPanel::computeCentral(uint32_t bins)
{
    const TensorHandle tensor = m_tensor;
    const gguf::TensorStatistics stats = *m_stats;
    const uint64_t sample = stats.sampledElements > 0 ? WeightJobs::sampleBytesFor(tensor) : 0;
    const bool chosen = m_range->currentIndex() == kAutomatic;
    m_tracker->start(
        tr("Central 99.9 % of %1").arg(tensor.name()),
        [tensor, bins, stats, sample](const gguf::ProgressFn &progress) {
            return WeightJobs::central(tensor, bins, stats, kCentralShare, progress, sample);
        },
        [this, chosen](const WeightJobs::Statistics &result) {
            if (showFailure(result))
                return;
            m_centralShown = true;
            m_centralChosen = chosen;
            draw(result.stats.histogram);
        });
}

bool HistogramPanel::showFailure(const WeightJobs::Statistics &result)
{
    if (result.status == gguf::StatsStatus::Ok)
        return false;
    m_plot->showMessage(
        tr("No histogram: %1.").arg(result.error.isEmpty() ? TextFormat::statsStatus(result.status) : result.error));
    return true;
}

void HistogramPanel::updateRangeNote()
{
    if (!m_histogram || !m_stats) {
        m_shown->clear();
        return;
    }
    const gguf::Histogram &h = *m_histogram;
    const QString range = tr("%1 – %2").arg(QString::number(h.lo, 'g', 6), QString::number(h.hi, 'g', 6));
    const uint64_t outside = h.below + h.above;
    const QString outsideText =
        outside == 1 ? tr("1 value lies outside it") : tr("%1 values lie outside it").arg(outside);
    const int index = m_range->currentIndex();
    if (m_centralShown) {
        m_shown->setText(
            (m_centralChosen
                 ? tr("Range shown: the central 99.9 % of the values, %1, chosen because a few outliers "
                      "would squeeze the rest into one spike; %2, from %3 to %4 (Whole range shows them all).")
                 : tr("Range shown: the central 99.9 % of the values, %1; %2, from %3 to %4."))
                .arg(range, outsideText, QString::number(m_stats->min, 'g', 6), QString::number(m_stats->max, 'g', 6)));
    } else if (m_percentilesChosen) {
        m_shown->setText(tr("Range shown: p1 – p99 of the sample, %1, chosen because a few outliers would squeeze the "
                            "rest into one spike; %2 (Whole range shows them all).")
                             .arg(range, outsideText));
    } else if ((index == kAutomatic || index == kWhole) && !(m_stats->max > m_stats->min)) {
        m_shown->setText(tr("Range shown: every value is %1, so the unit around it, %2, as NumPy bins a "
                            "constant array.")
                             .arg(QString::number(m_stats->min, 'g', 6), range));
    } else if (index == kAutomatic || index == kWhole) {
        m_shown->setText(tr("Range shown: min – max, %1 (every value).").arg(range));
    } else {
        m_shown->setText(tr("Range shown: %1, %2; %3.").arg(m_range->currentText(), range, outsideText));
    }
}

QString HistogramPanel::rangeNote() const
{
    return m_shown->text();
}

void HistogramPanel::draw(const gguf::Histogram &histogram)
{
    m_histogram = histogram;
    m_table->setStatistics(*m_stats, &*m_histogram);
    const QString name = m_stats && m_stats->sampledElements > 0 ? tr("%1 (sample)").arg(m_tensor.name())
                         : histogram.exact                       ? m_tensor.name()
                                                                 : tr("%1 (estimated)").arg(m_tensor.name());
    m_plot->setSeries({HistogramPlot::Series{name, histogram.lo, histogram.hi, countsOf(histogram)}},
                      HistogramPlot::Scale::Counts);
    updateRangeNote();
}

QCustomPlot *HistogramPanel::shownPlot() const
{
    return m_plot->hasPlot() ? m_plot->plot() : nullptr;
}
