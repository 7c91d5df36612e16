// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/layer_panel.h"

#include "core/format/split_model.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/plots/layer_chart.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace {

const char *const kLayerStatisticNames[] = {
    QT_TRANSLATE_NOOP("LayerPanel", "Mean"),      QT_TRANSLATE_NOOP("LayerPanel", "Std"),
    QT_TRANSLATE_NOOP("LayerPanel", "Min"),       QT_TRANSLATE_NOOP("LayerPanel", "Max"),
    QT_TRANSLATE_NOOP("LayerPanel", "Max |x|"),   QT_TRANSLATE_NOOP("LayerPanel", "p1 (≈)"),
    QT_TRANSLATE_NOOP("LayerPanel", "p99 (≈)"),   QT_TRANSLATE_NOOP("LayerPanel", "Zeros (%)"),
    QT_TRANSLATE_NOOP("LayerPanel", "NaN + Inf"),
};

} // namespace

LayerPanel::LayerPanel(QWidget *parent)
    : QWidget(parent), m_role(new QComboBox(this)), m_statistic(new QComboBox(this)), m_chart(new LayerChart(this)),
      m_tracker(new JobTracker(this)), m_progress(new JobProgress(this))
{
    m_lazy = new LazyRefresh(this, [this] { refresh(); });
    for (const char *name : kLayerStatisticNames)
        m_statistic->addItem(tr(name));
    m_statistic->setCurrentIndex(static_cast<int>(Statistic::Std));
    m_role->setObjectName(QStringLiteral("layerRole"));
    m_role->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto *roleLabel = new QLabel(tr("&Tensor role:"), this);
    roleLabel->setBuddy(m_role);
    auto *statisticLabel = new QLabel(tr("&Statistic:"), this);
    statisticLabel->setBuddy(m_statistic);
    auto *controls = new QHBoxLayout;
    controls->addWidget(roleLabel);
    controls->addWidget(m_role);
    controls->addSpacing(12);
    controls->addWidget(statisticLabel);
    controls->addWidget(m_statistic);
    controls->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_chart, 1);
    layout->addWidget(m_progress);
    m_progress->track(m_tracker);

    connect(m_role, &QComboBox::currentIndexChanged, this, [this] { m_lazy->invalidate(); });
    connect(m_statistic, &QComboBox::currentIndexChanged, this, &LayerPanel::draw);
    connect(m_chart, &LayerChart::tensorClicked, this, &LayerPanel::tensorClicked);
    connect(m_progress, &JobProgress::restartClicked, m_lazy, &LazyRefresh::refreshNow);
    m_chart->showMessage(tr("This model has no layers."));
}

void LayerPanel::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_model = std::move(model);
    m_tracker->drop();
    m_result = {};
    m_resultRole.clear();
    {
        const QSignalBlocker block(m_role);
        m_role->clear();
        if (m_model)
            m_role->addItems(layerRoles(*m_model));
    }
    m_chart->showMessage(m_role->count() ? QString() : tr("This model has no layers."));
    m_lazy->invalidate();
}

void LayerPanel::setTensor(const TensorHandle &tensor)
{
    const QString role = tensor.role();
    if (!role.isEmpty())
        setRole(role);
}

void LayerPanel::setRole(const QString &role)
{
    const int index = m_role->findText(role);
    if (index >= 0)
        m_role->setCurrentIndex(index);
}

QString LayerPanel::role() const
{
    return m_role->currentText();
}

void LayerPanel::setStatistic(Statistic statistic)
{
    m_statistic->setCurrentIndex(static_cast<int>(statistic));
}

double LayerPanel::valueOf(const gguf::TensorStatistics &s, Statistic statistic)
{
    switch (statistic) {
    case Statistic::Mean: return s.mean;
    case Statistic::Std: return s.std;
    case Statistic::Min: return s.min;
    case Statistic::Max: return s.max;
    case Statistic::MaxAbs: return std::max(std::abs(s.min), std::abs(s.max));
    case Statistic::P1: return s.percentiles.front();
    case Statistic::P99: return s.percentiles.back();
    // the counts of a sample are of the values read: a share of those, a count scaled to the tensor
    case Statistic::ZerosShare: {
        const uint64_t read = s.sampledElements ? s.sampledElements : s.count;
        return read ? 100.0 * static_cast<double>(s.zeros) / static_cast<double>(read) : 0.0;
    }
    case Statistic::NonFinite: {
        const double n = static_cast<double>(s.nan + s.posInf + s.negInf);
        return s.sampledElements ? n * static_cast<double>(s.count) / static_cast<double>(s.sampledElements) : n;
    }
    case Statistic::Count: break;
    }
    return 0;
}

void LayerPanel::refresh()
{
    const QString role = m_role->currentText();
    if (!m_model || role.isEmpty()) {
        m_tracker->drop();
        return;
    }
    if (role == m_resultRole && m_result.complete) {
        draw();
        return;
    }
    const QVector<TensorHandle> tensors = layerTensors(m_model, role);
    m_chart->showMessage(tr("Computing %1 in %n layer(s)…", nullptr, static_cast<int>(tensors.size())).arg(role));
    m_tracker->start(
        tr("%1 across the layers").arg(role),
        [tensors](const gguf::ProgressFn &progress) { return WeightJobs::layerStatistics(tensors, progress); },
        [this, role](const WeightJobs::LayerSeries &result) {
            m_result = result;
            m_resultRole = role;
            draw();
        });
}

void LayerPanel::draw()
{
    if (m_resultRole != m_role->currentText() || !m_result.complete)
        return;
    const auto statistic = static_cast<Statistic>(m_statistic->currentIndex());
    QVector<LayerChart::Point> points;
    QStringList skipped;
    bool sampled = false;
    for (const WeightJobs::LayerPoint &p : m_result.points) {
        sampled = sampled || p.stats.sampledElements > 0;
        if (p.status == gguf::StatsStatus::Ok && (p.stats.finite > 0 || statistic == Statistic::NonFinite))
            points << LayerChart::Point{p.layer, valueOf(p.stats, statistic), p.name};
        else
            skipped << QStringLiteral("%1: %2").arg(p.name,
                                                    p.error.isEmpty() ? TextFormat::statsStatus(p.status) : p.error);
    }
    if (points.isEmpty())
        m_chart->showMessage(tr("No values: %1").arg(skipped.join(QStringLiteral("; "))));
    else
        m_chart->setPoints(
            points,
            sampled
                ? tr("%1 — %2 (≈: remote tensors over 64 MiB sampled)").arg(m_statistic->currentText(), m_resultRole)
                : QStringLiteral("%1 — %2").arg(m_statistic->currentText(), m_resultRole));
    m_chart->setToolTip(skipped.join(u'\n'));
}

QCustomPlot *LayerPanel::shownPlot() const
{
    return m_chart->hasPlot() ? m_chart->plot() : nullptr;
}
