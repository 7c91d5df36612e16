// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/weights_page.h"

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/stats/tensor_export.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/layer_chart.h"
#include "ui/plots/plot_export.h"
#include "ui/weights/compare_panel.h"
#include "ui/weights/heatmap_panel.h"
#include "ui/weights/histogram_panel.h"
#include "ui/weights/layer_panel.h"
#include "ui/weights/lora_panel.h"
#include "ui/weights/tensor_name_model.h"
#include "ui/weights/value_grid_view.h"
#include "ui/weights/weight_jobs.h"

#include <QComboBox>
#include <QCompleter>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>

#include <QHBoxLayout>
#include <QLabel>
#include <QListView>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace {

struct ExportResult {
    bool ok = false;
    QString message;
};

// Writes next to the target and renames at the end, so a cancelled or failed export leaves no
// half-written file under the chosen name.
ExportResult writeValues(const TensorHandle &tensor, const QString &path, const gguf::ProgressFn &progress)
{
    const QString partial = path + QStringLiteral(".part");
    std::FILE *out = std::fopen(QFile::encodeName(partial).constData(), "wb");
    if (!out)
        return {false, QString::fromLocal8Bit(std::strerror(errno))};
    const gguf::TensorInfo &info = tensor.info();
    const std::span<const uint64_t> dims(info.ne.data(), std::clamp<uint32_t>(info.nDims, 1, 4));
    const auto format = path.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive) ? gguf::ExportFormat::Npy
                                                                                  : gguf::ExportFormat::RawFloat32;
    const gguf::TensorData data = tensor.data(); // a remote tensor is fetched piece by piece
    const gguf::StatsStatus status = gguf::exportFloat32(data, dims, format, out, progress);
    const bool closed = std::fclose(out) == 0;
    if (status != gguf::StatsStatus::Ok || !closed) {
        QFile::remove(partial);
        if (const std::optional<gguf::Error> e = gguf::readError(data); e && e->kind != gguf::ErrorKind::Cancelled)
            return {false, QString::fromStdString(e->message)};
        return {false, status == gguf::StatsStatus::Ok ? WeightsPage::tr("the file could not be written")
                                                       : TextFormat::statsStatus(status)};
    }
    QFile::remove(path);
    if (!QFile::rename(partial, path)) {
        QFile::remove(partial);
        return {false, WeightsPage::tr("the file could not be renamed")};
    }
    return {true, {}};
}

} // namespace

WeightsPage::WeightsPage(QWidget *parent)
    : Page(parent), m_tensorChooser(new QComboBox(this)), m_description(new QLabel(this)), m_status(new QLabel(this)),
      m_modes(new QTabWidget(this)), m_histogram(new HistogramPanel(this)), m_compare(new ComparePanel(this)),
      m_heatmap(new HeatmapPanel(this)), m_layers(new LayerPanel(this)), m_values(new ValueGridView(this)),
      m_lora(new LoraPanel(this)), m_export(createExportButton()), m_exportTracker(new JobTracker(this)),
      m_exportProgress(new JobProgress(this))
{
    // the names come from a model over the tensors (20,000 combo items would take a tenth of a second)
    m_tensorNames = new TensorNameModel(false, this);
    m_tensorChooser->setModel(m_tensorNames);
    if (auto *list = qobject_cast<QListView *>(m_tensorChooser->view()))
        list->setUniformItemSizes(true);
    m_tensorChooser->setEditable(true);
    m_tensorChooser->setInsertPolicy(QComboBox::NoInsert);
    m_tensorChooser->setMinimumContentsLength(28);
    m_tensorChooser->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tensorChooser->completer()->setFilterMode(Qt::MatchContains);
    m_tensorChooser->completer()->setCompletionMode(QCompleter::PopupCompletion);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setTextFormat(Qt::PlainText);
    // Long texts must not widen the window: they get what room there is.
    m_description->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_status->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto *chooserLabel = new QLabel(tr("Te&nsor:"), this);
    chooserLabel->setBuddy(m_tensorChooser);

    m_modes->addTab(m_histogram, tr("Histogram"));
    m_modes->addTab(m_compare, tr("Compare"));
    m_modes->addTab(m_heatmap, tr("Heatmap"));
    m_modes->addTab(m_layers, tr("Per layer"));
    m_modes->addTab(m_values, tr("Values"));
    m_modes->addTab(m_lora, tr("LoRA ΔW"));
    m_modes->setTabToolTip(
        static_cast<int>(Mode::LoraDelta),
        tr("For a LoRA adapter's lora_a or lora_b: the update scale · B·A it makes to the base tensor"));
    m_modes->setTabEnabled(static_cast<int>(Mode::LoraDelta), false);
    m_views = {m_histogram, m_compare, m_heatmap, m_layers, m_values, m_lora}; // in Mode order

    auto *header = new QHBoxLayout;
    header->addWidget(chooserLabel);
    header->addWidget(m_tensorChooser);
    header->addWidget(m_description, 2);
    header->addWidget(m_status, 1);
    header->addWidget(m_export);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_modes, 1);
    layout->addWidget(m_exportProgress);
    m_exportProgress->track(m_exportTracker);

    connect(m_tensorChooser, &QComboBox::activated, this, [this](int index) {
        chooseTensor(TensorHandle{m_model, index});
    });
    connect(m_modes, &QTabWidget::currentChanged, this, &WeightsPage::updateExportActions);
    connect(m_heatmap, &HeatmapPanel::byteRangeRequested, this, [this](quint64 offset, quint64 size) {
        // the tile's blocks, in the file (shard) that holds the tensor
        emit linkActivated(Link::bytes(m_tensor.shard(), offset, size));
    });
    connect(m_layers, &LayerPanel::tensorClicked, this, [this](const QString &name) {
        chooseTensor(TensorHandle::named(m_model, name));
        setMode(Mode::Histogram);
    });
    connect(m_exportProgress, &JobProgress::restartClicked, this, [this] { exportValues(m_lastExportPath); });
    for (JobTracker *tracker : trackers()) {
        connect(tracker, &JobTracker::finished, this, &WeightsPage::checkIdle);
        connect(tracker, &JobTracker::cancelled, this, &WeightsPage::checkIdle);
    }
    updateExportActions();
}

QToolButton *WeightsPage::createExportButton()
{
    auto *button = new QToolButton(this);
    button->setText(tr("&Export"));
    button->setPopupMode(QToolButton::InstantPopup);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    auto *menu = new QMenu(button);
    const auto plotAction = [this, menu](const QString &text, const QString &filter, const QString &suffix) {
        QAction *action = menu->addAction(text, this, [this, text, filter, suffix] {
            chooseExportFile(text, filter, suffix, [this](const QString &path) {
                QString error;
                m_status->setText(exportPlot(path, &error) ? tr("Saved %1").arg(QFileInfo(path).fileName()) : error);
            });
        });
        action->setProperty("plot", true);
    };
    plotAction(tr("Plot as &PNG…"), tr("PNG images (*.png)"), QStringLiteral("png"));
    plotAction(tr("Plot as &SVG…"), tr("SVG drawings (*.svg)"), QStringLiteral("svg"));
    plotAction(tr("Plot as P&DF…"), tr("PDF documents (*.pdf)"), QStringLiteral("pdf"));
    menu->addSeparator();
    QAction *csv = menu->addAction(tr("Histogram as &CSV…"), this, [this] {
        chooseExportFile(
            tr("Histogram as CSV"), tr("CSV files (*.csv)"), QStringLiteral("csv"), [this](const QString &path) {
                QString error;
                m_status->setText(exportHistogramCsv(path, &error) ? tr("Saved %1").arg(QFileInfo(path).fileName())
                                                                   : error);
            });
    });
    csv->setProperty("csv", true);
    menu->addAction(tr("Tensor values as &NumPy .npy…"), this, [this] {
        chooseExportFile(tr("Tensor values"), tr("NumPy arrays (*.npy);;Raw little-endian float32 (*.f32)"),
                         QStringLiteral("npy"), [this](const QString &path) { exportValues(path); });
    });
    button->setMenu(menu);
    return button;
}

void WeightsPage::chooseExportFile(const QString &title, const QString &filter, const QString &suffix,
                                   const std::function<void(const QString &)> &save)
{
    QSettings settings;
    const QString directory = settings.value(QStringLiteral("weights/exportDirectory"), QDir::homePath()).toString();
    QString name = m_tensor.isValid() ? m_tensor.name() : QStringLiteral("weights");
    if (mode() != Mode::Values && !name.isEmpty())
        name += u'-' + modeName(mode());
    QString path = QFileDialog::getSaveFileName(this, title, directory + u'/' + name + u'.' + suffix, filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += u'.' + suffix;
    settings.setValue(QStringLiteral("weights/exportDirectory"), QFileInfo(path).absolutePath());
    save(path);
}

void WeightsPage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_model = std::move(model);
    m_exportTracker->drop();
    {
        const QSignalBlocker block(m_tensorChooser);
        m_tensorNames->setSplitModel(m_model);
    }
    m_compare->setModel(m_model);
    m_layers->setModel(m_model);
    m_tensor = {};
    showTensor(TensorHandle::representative(m_model));
}

bool WeightsPage::follow(const Link &link)
{
    if (link.target != Link::Target::Tensor)
        return false;
    showTensor(link.tensorRef());
    return true;
}

void WeightsPage::showTensor(TensorRef tensor)
{
    showTensor(TensorHandle::find(m_model, tensor));
}

void WeightsPage::showTensor(const TensorHandle &tensor)
{
    if (tensor == m_tensor && tensor.isValid())
        return;
    m_tensor = tensor;
    {
        const QSignalBlocker block(m_tensorChooser);
        m_tensorChooser->setCurrentIndex(tensor.isValid() ? tensor.position : -1);
    }
    if (tensor.isValid()) {
        const gguf::TensorInfo &info = tensor.info();
        m_description->setText(tr("%1 · %2 values · %3")
                                   .arg(tensor.description(),
                                        QLocale().toString(static_cast<qulonglong>(info.elements)),
                                        TextFormat::byteSize(info.byteSize)));
        m_description->setToolTip(m_description->text());
    } else {
        m_description->clear();
    }
    m_status->clear();
    for (WeightView *view : m_views)
        view->setTensor(tensor);
    const int lora = static_cast<int>(Mode::LoraDelta);
    if (!m_lora->hasPair() && mode() == Mode::LoraDelta)
        setMode(Mode::Histogram);
    m_modes->setTabEnabled(lora, m_lora->hasPair());
    updateExportActions();
}

void WeightsPage::chooseTensor(const TensorHandle &tensor)
{
    if (!tensor.isValid())
        return;
    showTensor(tensor);
    emit linkActivated(Link::tensor(tensor.ref()).inBackground());
}

void WeightsPage::setMode(Mode mode)
{
    m_modes->setCurrentIndex(static_cast<int>(mode));
}

bool WeightsPage::isModeAvailable(Mode mode) const
{
    return m_modes->isTabEnabled(static_cast<int>(mode));
}

WeightsPage::Mode WeightsPage::mode() const
{
    return static_cast<Mode>(m_modes->currentIndex());
}

QString WeightsPage::modeName(Mode mode)
{
    static const char *const names[] = {"histogram", "compare", "heatmap", "layers", "values", "lora"};
    const auto i = static_cast<size_t>(mode);
    return i < std::size(names) ? QString::fromLatin1(names[i]) : QString();
}

QList<JobTracker *> WeightsPage::trackers() const
{
    QList<JobTracker *> all{m_exportTracker};
    for (const WeightView *view : m_views)
        all << view->trackers();
    return all;
}

bool WeightsPage::isBusy() const
{
    const QList<JobTracker *> all = trackers();
    return std::any_of(all.begin(), all.end(), [](const JobTracker *tracker) { return tracker->isRunning(); });
}

void WeightsPage::checkIdle()
{
    if (!isBusy())
        emit jobsFinished();
}

bool WeightsPage::exportPlot(const QString &path, QString *error)
{
    QCustomPlot *plot = m_views[static_cast<size_t>(mode())]->shownPlot();
    if (!plot) {
        if (error)
            *error = tr("There is no plot to save yet.");
        return false;
    }
    return PlotExport::savePlot(plot, path, error);
}

bool WeightsPage::exportHistogramCsv(const QString &path, QString *error)
{
    const HistogramPlot *plot = mode() == Mode::Compare ? m_compare->plot() : m_histogram->plot();
    return PlotExport::saveHistogramCsv(plot->series(), path, error);
}

void WeightsPage::exportValues(const QString &path)
{
    if (!m_tensor.isValid() || path.isEmpty())
        return;
    m_lastExportPath = path;
    m_status->clear();
    const TensorHandle tensor = m_tensor;
    m_exportTracker->start(
        tr("Saving the values of %1").arg(tensor.name()),
        [tensor, path](const gguf::ProgressFn &progress) { return writeValues(tensor, path, progress); },
        [this, path](const ExportResult &result) {
            m_status->setText(result.ok ? tr("Saved %1").arg(QFileInfo(path).fileName())
                                        : tr("Could not save %1: %2").arg(QFileInfo(path).fileName(), result.message));
            emit valuesExported(path, result.ok, result.message);
        });
}

QString WeightsPage::statusText() const
{
    return m_status->text();
}

void WeightsPage::updateExportActions()
{
    const Mode current = mode();
    for (QAction *action : m_export->menu()->actions()) {
        if (action->property("plot").toBool())
            action->setEnabled(current != Mode::Values);
        else if (action->property("csv").toBool())
            action->setEnabled(current == Mode::Histogram || current == Mode::Compare);
    }
    m_export->setEnabled(m_tensor.isValid());
}
