// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/compare_panel.h"

#include "core/format/split_model.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/plots/histogram_plot.h"
#include "ui/weights/tensor_name_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>

namespace {

using WeightJobs::RangeChoice;
using WeightJobs::RangeMode;
using WeightJobs::RangePreset;
constexpr RangePreset kComparePresets[] = {
    {QT_TRANSLATE_NOOP("ComparePanel", "Union of min – max"), RangeMode::Automatic, 0, 6},
    {QT_TRANSLATE_NOOP("ComparePanel", "Union of p1 – p99"), RangeMode::Percentiles, 0, 6},
    {QT_TRANSLATE_NOOP("ComparePanel", "Union of p5 – p95"), RangeMode::Percentiles, 1, 5},
};

} // namespace

ComparePanel::ComparePanel(QWidget *parent)
    : QWidget(parent), m_filter(new QLineEdit(this)), m_list(new QListView(this)),
      m_names(new TensorNameModel(true, this)), m_shownNames(new QSortFilterProxyModel(this)),
      m_bins(new QSpinBox(this)), m_range(new QComboBox(this)), m_log(new QCheckBox(tr("&Log scale"), this)),
      m_plot(new HistogramPlot(this)), m_tracker(new JobTracker(this)), m_progress(new JobProgress(this))
{
    m_lazy = new LazyRefresh(this, [this] { refresh(); });
    m_filter->setPlaceholderText(tr("Filter tensors…"));
    m_filter->setClearButtonEnabled(true);
    m_shownNames->setSourceModel(m_names);
    m_shownNames->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_list->setModel(m_shownNames);
    m_list->setUniformItemSizes(true);
    auto *sameRole = new QPushButton(tr("First, middle, last layer"), this);
    sameRole->setToolTip(
        tr("Compare the current tensor's role (e.g. attn_q.weight) in the first, middle and last layer"));
    auto *allLayers = new QPushButton(tr("All layers"), this);
    allLayers->setToolTip(tr("Compare the current tensor's role in every layer"));
    auto *clear = new QPushButton(tr("Clear"), this);
    m_bins->setRange(16, 4096);
    m_bins->setValue(128);
    for (const RangePreset &preset : kComparePresets)
        m_range->addItem(tr(preset.label));

    auto *chooser = new QWidget(this);
    auto *chooserLayout = new QVBoxLayout(chooser);
    chooserLayout->setContentsMargins(0, 0, 0, 0);
    chooserLayout->addWidget(m_filter);
    chooserLayout->addWidget(m_list, 1);
    auto *picks = new QHBoxLayout;
    picks->addWidget(sameRole);
    picks->addWidget(allLayers);
    picks->addWidget(clear);
    chooserLayout->addLayout(picks);

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
    controls->addSpacing(12);
    controls->addWidget(m_log);
    controls->addStretch(1);
    auto *plotSide = new QWidget(this);
    auto *plotLayout = new QVBoxLayout(plotSide);
    plotLayout->setContentsMargins(0, 0, 0, 0);
    plotLayout->addLayout(controls);
    plotLayout->addWidget(m_plot, 1);

    auto *split = new QSplitter(this);
    split->addWidget(chooser);
    split->addWidget(plotSide);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addWidget(m_progress);
    m_progress->track(m_tracker);

    connect(m_filter, &QLineEdit::textChanged, m_shownNames, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_names, &TensorNameModel::checksEdited, this, [this] {
        m_userChose = true;
        selectionChanged();
    });
    connect(sameRole, &QPushButton::clicked, this, [this] { pickRole(false); });
    connect(allLayers, &QPushButton::clicked, this, [this] { pickRole(true); });
    connect(clear, &QPushButton::clicked, this, [this] {
        m_userChose = true;
        checkOnly({});
    });
    connect(m_bins, &QSpinBox::valueChanged, this, &ComparePanel::selectionChanged);
    connect(m_range, &QComboBox::currentIndexChanged, this, &ComparePanel::selectionChanged);
    connect(m_log, &QCheckBox::toggled, m_plot, &HistogramPlot::setLogarithmic);
    connect(m_progress, &JobProgress::restartClicked, m_lazy, &LazyRefresh::refreshNow);
    m_plot->showMessage(tr("Choose tensors to compare."));
}

void ComparePanel::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_model = std::move(model);
    m_tensor = {};
    m_userChose = false;
    m_result = {};
    m_tracker->drop();
    fillList();
    m_plot->showMessage(tr("Choose tensors to compare."));
}

void ComparePanel::fillList()
{
    m_names->setSplitModel(m_model);
}

void ComparePanel::setTensor(const TensorHandle &tensor)
{
    m_tensor = tensor;
    if (!m_userChose)
        pickRole(false);
}

void ComparePanel::pickRole(bool allLayers)
{
    if (!m_tensor.isValid())
        return;
    const QVector<TensorHandle> layers = layerTensors(m_tensor.model, m_tensor.role());
    QStringList names;
    if (layers.isEmpty()) {
        names << m_tensor.name();
    } else if (allLayers || layers.size() <= 3) {
        for (const TensorHandle &t : layers)
            names << t.name();
    } else {
        for (qsizetype i : {qsizetype(0), layers.size() / 2, layers.size() - 1})
            names << layers[i].name();
    }
    checkOnly(names);
}

void ComparePanel::setCompared(const QStringList &names)
{
    m_userChose = true;
    checkOnly(names);
}

void ComparePanel::checkOnly(const QStringList &names)
{
    m_names->checkOnly(names);
    selectionChanged();
}

QStringList ComparePanel::compared() const
{
    return m_names->checkedNames();
}

void ComparePanel::setBins(int bins)
{
    m_bins->setValue(bins);
}

void ComparePanel::setRangeChoice(const RangeChoice &choice)
{
    for (int i = 0; i < static_cast<int>(std::size(kComparePresets)); ++i)
        if (kComparePresets[i].matches(choice))
            m_range->setCurrentIndex(i);
}

void ComparePanel::selectionChanged()
{
    // Ticks come in bursts: compute once they settle (or at once when the panel is shown).
    m_tracker->drop();
    m_lazy->invalidateAfter(300);
}

void ComparePanel::refresh()
{
    QVector<TensorHandle> tensors;
    for (const QString &name : compared())
        if (TensorHandle t = TensorHandle::named(m_model, name); t.isValid())
            tensors << t;
    if (tensors.isEmpty()) {
        m_tracker->drop();
        m_result = {};
        m_plot->showMessage(tr("Choose tensors to compare."));
        return;
    }
    const RangePreset &preset =
        kComparePresets[std::clamp(m_range->currentIndex(), 0, int(std::size(kComparePresets)) - 1)];
    const RangeChoice choice = preset.choice();
    const uint32_t bins = static_cast<uint32_t>(m_bins->value());
    m_plot->showMessage(tr("Computing %n histogram(s)…", nullptr, static_cast<int>(tensors.size())));
    m_tracker->start(
        tr("Comparing %n tensor(s)", nullptr, static_cast<int>(tensors.size())),
        [tensors, bins, choice](const gguf::ProgressFn &progress) {
            return WeightJobs::compare(tensors, bins, choice, progress);
        },
        [this](const WeightJobs::Comparison &result) {
            m_result = result;
            draw();
        });
}

void ComparePanel::draw()
{
    QVector<HistogramPlot::Series> series;
    QStringList problems;
    for (const WeightJobs::Series &s : m_result.series) {
        if (s.status != gguf::StatsStatus::Ok || s.histogram.counts.empty()) {
            problems << QStringLiteral("%1: %2").arg(s.name,
                                                     s.error.isEmpty() ? TextFormat::statsStatus(s.status) : s.error);
            continue;
        }
        // Normalised: the percentage of the tensor's own finite values in each bin.
        QVector<double> shares;
        shares.reserve(static_cast<qsizetype>(s.histogram.counts.size()));
        const double total = s.finite > 0 ? static_cast<double>(s.finite) : 1.0;
        for (uint64_t c : s.histogram.counts)
            shares << 100.0 * static_cast<double>(c) / total;
        series << HistogramPlot::Series{s.name, s.histogram.lo, s.histogram.hi, shares};
    }
    if (series.isEmpty())
        m_plot->showMessage(tr("Nothing to compare: %1").arg(problems.join(QStringLiteral("; "))));
    else
        m_plot->setSeries(series, HistogramPlot::Scale::Shares);
    m_plot->setToolTip(problems.join(u'\n'));
}

QCustomPlot *ComparePanel::shownPlot() const
{
    return m_plot->hasPlot() ? m_plot->plot() : nullptr;
}
