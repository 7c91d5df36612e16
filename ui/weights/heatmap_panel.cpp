// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/heatmap_panel.h"

#include "core/stats/heatmap.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/weights/weight_jobs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace {

struct HeatmapResult {
    gguf::StatsStatus status = gguf::StatsStatus::NoData;
    gguf::Heatmap heatmap;
    QString error; ///< why a remote file's bytes could not be fetched
};

} // namespace

HeatmapPanel::HeatmapPanel(QWidget *parent)
    : QWidget(parent), m_measure(new QComboBox(this)), m_grid(new QComboBox(this)),
      m_logColors(new QCheckBox(tr("&Log colours"), this)), m_plot(new HeatmapPlot(this)), m_tile(new QLabel(this)),
      m_showBytes(new QPushButton(tr("Show &bytes"), this)), m_tracker(new JobTracker(this)),
      m_progress(new JobProgress(this))
{
    m_lazy = new LazyRefresh(this, [this] { refresh(); });
    m_measure->addItems({tr("Mean"), tr("Mean |x|"), tr("Max |x|"), tr("Std")});
    m_measure->setCurrentIndex(static_cast<int>(gguf::TileMeasure::MeanAbs));
    for (int cells : {64, 128, 256, 512, 1024})
        m_grid->addItem(tr("up to %1 × %1 tiles").arg(cells), cells);
    m_grid->setCurrentIndex(3);
    m_grid->setToolTip(tr("At most this many tiles per side; a small tensor gets one tile per value"));
    m_showBytes->setEnabled(false);
    m_showBytes->setToolTip(tr("Show the bytes of the blocks of the selected tile's first row"));
    m_tile->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *wholeTensor = new QPushButton(tr("Whole tensor"), this);

    auto *measureLabel = new QLabel(tr("&Measure:"), this);
    measureLabel->setBuddy(m_measure);
    auto *controls = new QHBoxLayout;
    controls->addWidget(measureLabel);
    controls->addWidget(m_measure);
    controls->addWidget(m_grid);
    controls->addWidget(m_logColors);
    controls->addStretch(1);
    controls->addWidget(wholeTensor);
    auto *tileBar = new QHBoxLayout;
    tileBar->addWidget(m_tile, 1);
    tileBar->addWidget(m_showBytes);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_plot, 1);
    layout->addLayout(tileBar);
    layout->addWidget(m_progress);
    m_progress->track(m_tracker);

    m_logColors->setToolTip(tr("Colours on a logarithmic scale, so a few large tiles do not hide the rest"));
    connect(m_logColors, &QCheckBox::toggled, m_plot, &HeatmapPlot::setLogarithmicColors);
    connect(m_measure, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_logColors->setEnabled(static_cast<gguf::TileMeasure>(index) != gguf::TileMeasure::Mean);
        m_plot->setMeasure(static_cast<gguf::TileMeasure>(index));
        showTile(m_tileRow, m_tileColumn);
    });
    connect(m_grid, &QComboBox::currentIndexChanged, this, [this] { m_lazy->invalidate(); });
    connect(wholeTensor, &QPushButton::clicked, m_plot, &HeatmapPlot::resetZoom);
    connect(m_plot, &HeatmapPlot::tileClicked, this, &HeatmapPanel::showTile);
    connect(m_plot, &HeatmapPlot::tileActivated, this, &HeatmapPanel::requestBytes);
    connect(m_showBytes, &QPushButton::clicked, this, [this] { requestBytes(m_tileRow, m_tileColumn); });
    connect(m_progress, &JobProgress::restartClicked, m_lazy, &LazyRefresh::refreshNow);
    m_plot->showMessage(tr("Select a tensor to see it as a heatmap."));
}

void HeatmapPanel::setTensor(const TensorHandle &tensor)
{
    if (tensor == m_tensor)
        return;
    m_tensor = tensor;
    m_tracker->drop();
    showTile(-1, -1);
    m_plot->showMessage(m_tensor.isValid() ? QString() : tr("Select a tensor to see it as a heatmap."));
    m_lazy->invalidate();
}

void HeatmapPanel::setGridSize(int cells)
{
    const int index = m_grid->findData(cells);
    if (index >= 0)
        m_grid->setCurrentIndex(index);
}

void HeatmapPanel::setMeasure(int measure)
{
    m_measure->setCurrentIndex(measure);
}

void HeatmapPanel::refresh()
{
    showTile(-1, -1);
    if (!m_tensor.isValid()) {
        m_tracker->drop();
        return;
    }
    const TensorHandle tensor = m_tensor;
    const uint32_t cells = static_cast<uint32_t>(m_grid->currentData().toInt());
    m_plot->showMessage(tr("Computing the heatmap of %1…").arg(tensor.name()));
    m_tracker->start(
        tr("Heatmap of %1").arg(tensor.name()),
        [tensor, cells](const gguf::ProgressFn &progress) {
            HeatmapResult result;
            gguf::HeatmapOptions options;
            options.rows = cells;
            options.cols = cells;
            options.progress = progress;
            // a remote tensor is fetched band by band as the pass reads it
            const gguf::TensorData bytes = tensor.data();
            result.status = gguf::computeHeatmap(bytes, tensor.columns(), options, result.heatmap);
            if (const std::optional<gguf::Error> e = gguf::readError(bytes); e && e->kind != gguf::ErrorKind::Cancelled)
                result.error = QString::fromStdString(e->message);
            return result;
        },
        [this](const HeatmapResult &result) {
            if (result.status != gguf::StatsStatus::Ok) {
                m_plot->showMessage(
                    tr("No heatmap: %1.")
                        .arg(result.error.isEmpty() ? TextFormat::statsStatus(result.status) : result.error));
                return;
            }
            m_plot->setHeatmap(result.heatmap, static_cast<gguf::TileMeasure>(m_measure->currentIndex()));
            showTile(-1, -1); // now says the grid drawn
        });
}

void HeatmapPanel::showTile(int row, int column)
{
    m_tileRow = row;
    m_tileColumn = column;
    const QString text = m_plot->tileText(row, column);
    // the grid drawn, which a small tensor makes smaller than the one asked for (#40: "512 × 512
    // tiles" over a 256 × 256 tensor)
    const gguf::Heatmap &h = m_plot->heatmap();
    const QString grid = h.gridRows == 0 || h.gridCols == 0 ? QString()
                                                            : tr("%1 × %2 tiles of up to %3 × %4 values. ")
                                                                  .arg(h.gridRows)
                                                                  .arg(h.gridCols)
                                                                  .arg((h.tensorRows + h.gridRows - 1) / h.gridRows)
                                                                  .arg((h.tensorCols + h.gridCols - 1) / h.gridCols);
    m_tile->setText(text.isEmpty() ? grid + tr("Click a tile to see its rows and columns.") : text);
    m_showBytes->setEnabled(!text.isEmpty());
}

QString HeatmapPanel::tileInfo() const
{
    return m_tile->text();
}

std::pair<quint64, quint64> HeatmapPanel::tileBytes(int row, int column) const
{
    return m_tensor.tileByteRange(m_plot->heatmap(), row, column);
}

void HeatmapPanel::requestBytes(int row, int column)
{
    const auto [offset, size] = tileBytes(row, column);
    if (size > 0)
        emit byteRangeRequested(offset, size);
}

QCustomPlot *HeatmapPanel::shownPlot() const
{
    return m_plot->hasPlot() ? m_plot->plot() : nullptr;
}
