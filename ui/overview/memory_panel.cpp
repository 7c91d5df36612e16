// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/overview/memory_panel.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/memory/offload_fit.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/overview/gpu_panel.h"
#include "ui/plots/memory_bar_plot.h"
#include "ui/plots/placement_map.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace {

constexpr int kStep = 256;           // llama.cpp pads the context to 256 cells
constexpr int kMaxContext = 1 << 24; // the field's limit (16 M tokens)
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

MemoryPanel::MemoryPanel(QWidget *parent)
    : QGroupBox(tr("Memory to run it (llama.cpp)"), parent), m_unavailable(new QLabel(this)), m_body(new QWidget(this)),
      m_contextSlider(new QSlider(Qt::Horizontal, this)), m_context(new QSpinBox(this)),
      m_sequences(new QSpinBox(this)), m_cacheK(new QComboBox(this)), m_cacheV(new QComboBox(this)),
      m_flashAttention(new QCheckBox(tr("Flash attention"), this)), m_gpuLayers(new QSpinBox(this)),
      m_gpuLayersOf(new QLabel(this)), m_mmap(new QCheckBox(tr("mmap"), this)), m_budget(new QDoubleSpinBox(this)),
      m_summary(new QLabel(this)), m_plot(new MemoryBarPlot(this)), m_details(new QTreeWidget(this)),
      m_gpus(new GpuPanel(this)), m_fitJobs(new JobTracker(this))
{
    m_contextSlider->setObjectName(QStringLiteral("memoryContextSlider"));
    m_context->setObjectName(QStringLiteral("memoryContext"));
    m_sequences->setObjectName(QStringLiteral("memorySequences"));
    m_cacheK->setObjectName(QStringLiteral("memoryCacheK"));
    m_cacheV->setObjectName(QStringLiteral("memoryCacheV"));
    m_flashAttention->setObjectName(QStringLiteral("memoryFlashAttention"));
    m_gpuLayers->setObjectName(QStringLiteral("memoryGpuLayers"));
    m_mmap->setObjectName(QStringLiteral("memoryMmap"));
    m_budget->setObjectName(QStringLiteral("memoryBudget"));

    setUpControls();

    QGridLayout *controls = layOutControls();

    m_details->setColumnCount(4);
    m_details->setHeaderLabels({tr("Device / part"), tr("What"), tr("Size"), tr("How")});
    m_details->setAlternatingRowColors(true);
    m_details->setMinimumHeight(160);
    m_details->header()->setStretchLastSection(true);
    m_details->setWordWrap(false);

    auto *body = new QVBoxLayout(m_body);
    body->setContentsMargins(0, 0, 0, 0);
    body->addLayout(controls);
    body->addWidget(m_gpus);
    body->addWidget(m_summary);
    body->addWidget(m_plot);
    body->addWidget(m_details, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_unavailable);
    layout->addWidget(m_body, 1);

    connect(m_contextSlider, &QSlider::valueChanged, this, &MemoryPanel::contextFromSlider);
    connect(m_context, &QSpinBox::valueChanged, this, &MemoryPanel::contextFromField);
    for (QSpinBox *box : {m_sequences, m_gpuLayers})
        connect(box, &QSpinBox::valueChanged, this, &MemoryPanel::update);
    for (QComboBox *box : {m_cacheK, m_cacheV})
        connect(box, &QComboBox::currentIndexChanged, this, &MemoryPanel::update);
    for (QCheckBox *box : {m_flashAttention, m_mmap})
        connect(box, &QCheckBox::toggled, this, &MemoryPanel::update);
    connect(m_budget, &QDoubleSpinBox::valueChanged, this, &MemoryPanel::update);
    connect(m_gpus, &GpuPanel::changed, this, &MemoryPanel::update);
    connect(m_gpus, &GpuPanel::fitRequested, this, &MemoryPanel::fit);
    connect(m_gpus, &GpuPanel::copyRequested, this, [this] { QApplication::clipboard()->setText(commandLine()); });
    m_gpus->progress()->track(m_fitJobs);
    connect(m_gpus->progress(), &JobProgress::restartClicked, this, &MemoryPanel::fit);
    // a quantized V cache needs flash attention: llama.cpp's -fa auto turns it on, so does this
    connect(m_cacheV, &QComboBox::currentIndexChanged, this, [this] {
        if (gguf::typeTraits(m_cacheV->currentData().toUInt()).quantized)
            m_flashAttention->setChecked(true);
    });
    m_redraw.setSingleShot(true);
    m_redraw.setInterval(0);
    connect(&m_redraw, &QTimer::timeout, this, &MemoryPanel::redraw);
    setModel(nullptr);
}

void MemoryPanel::setUpControls()
{
    m_context->setRange(1, kMaxContext);
    m_context->setGroupSeparatorShown(true);
    m_context->setToolTip(tr("Context length in tokens; llama.cpp rounds it up to a multiple of 256"));
    m_contextSlider->setToolTip(m_context->toolTip());
    m_sequences->setRange(1, 256);
    m_sequences->setToolTip(tr("Parallel sequences (llama.cpp's --parallel): each gets context / sequences cells"));
    for (const uint32_t type : gguf::kvCacheTypes()) {
        const QString name = QString::fromStdString(gguf::kvCacheTypeName(type));
        m_cacheK->addItem(name, type);
        m_cacheV->addItem(name, type);
    }
    m_cacheK->setToolTip(tr("Type of the K cache (--cache-type-k)"));
    m_cacheV->setToolTip(tr("Type of the V cache (--cache-type-v); quantized V needs flash attention"));
    m_flashAttention->setToolTip(tr("With flash attention V is not stored transposed and no attention-score matrix "
                                    "is allocated"));
    m_gpuLayers->setToolTip(tr("Layers offloaded to the GPU (--gpu-layers); llama.cpp offloads the output layer "
                               "first, then the repeating layers from the last"));
    m_mmap->setToolTip(tr("Map the file (the default): the CPU weights are file pages the system can drop"));
    m_budget->setRange(0, 100000);
    m_budget->setDecimals(1);
    m_budget->setSingleStep(1);
    m_budget->setSuffix(tr(" GiB"));
    m_budget->setSpecialValueText(tr("none"));
    m_budget->setToolTip(tr("Memory you have: on the GPU when layers are offloaded, else RAM; shows the largest "
                            "context that fits"));
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_unavailable->setWordWrap(true);
}

QGridLayout *MemoryPanel::layOutControls()
{
    auto *controls = new QGridLayout;
    controls->addWidget(new QLabel(tr("Context:"), this), 0, 0);
    controls->addWidget(m_contextSlider, 0, 1, 1, 5);
    controls->addWidget(m_context, 0, 6);
    controls->addWidget(new QLabel(tr("Sequences:"), this), 0, 7);
    controls->addWidget(m_sequences, 0, 8);
    controls->addWidget(new QLabel(tr("K cache:"), this), 1, 0);
    controls->addWidget(m_cacheK, 1, 1);
    controls->addWidget(new QLabel(tr("V cache:"), this), 1, 2);
    controls->addWidget(m_cacheV, 1, 3);
    controls->addWidget(m_flashAttention, 1, 4);
    controls->addWidget(m_mmap, 1, 5);
    auto *gpu = new QHBoxLayout;
    gpu->addWidget(new QLabel(tr("GPU layers:"), this));
    gpu->addWidget(m_gpuLayers);
    gpu->addWidget(m_gpuLayersOf);
    controls->addLayout(gpu, 1, 6);
    controls->addWidget(new QLabel(tr("Budget:"), this), 1, 7);
    controls->addWidget(m_budget, 1, 8);
    controls->setColumnStretch(5, 1);
    return controls;
}

void MemoryPanel::setModel(const std::shared_ptr<const gguf::SplitModel> &model)
{
    m_fitJobs->drop();
    m_memory.reset();
    m_maxContext.reset();
    m_estimate = {};
    m_plan = {};
    m_path.clear();
    m_gpus->setStatus(QString());
    if (model) {
        m_memory = std::make_shared<gguf::MemoryModel>(*model);
        m_path = model->primary().path();
    }
    const bool runnable = m_memory && m_memory->whyNoEstimate().empty();
    m_body->setVisible(runnable);
    m_unavailable->setVisible(!runnable);
    if (!runnable) {
        const std::string refusal = m_memory ? m_memory->whyNoEstimate() : std::string();
        // (the core says why: another general.type, no architecture, no tensors, no block_count)
        m_unavailable->setText(model ? tr("No estimate: %1.").arg(QString::fromStdString(refusal)) : QString());
        return;
    }
    const gguf::ModelShape &shape = m_memory->shape();
    // llama.cpp's defaults: the trained context, one sequence, f16 caches, everything offloaded
    const int trained = int(std::min<uint64_t>(shape.trainedContext ? shape.trainedContext : 4096, kMaxContext));
    {
        const QSignalBlocker b1(m_contextSlider), b2(m_context), b3(m_sequences), b4(m_cacheK), b5(m_cacheV),
            b6(m_flashAttention), b7(m_gpuLayers), b8(m_mmap), b9(m_budget);
        m_contextSlider->setRange(1, std::max(1, (trained + kStep - 1) / kStep));
        m_contextSlider->setValue((trained + kStep - 1) / kStep);
        m_contextSlider->setPageStep(std::max(1, m_contextSlider->maximum() / 16));
        m_context->setValue(trained);
        m_sequences->setValue(1);
        m_cacheK->setCurrentIndex(m_cacheK->findData(1U));
        m_cacheV->setCurrentIndex(m_cacheV->findData(1U));
        m_flashAttention->setChecked(false);
        m_gpuLayers->setRange(0, int(shape.layers + 1));
        m_gpuLayers->setValue(int(shape.layers + 1));
        m_gpuLayersOf->setText(tr("of %1").arg(shape.layers + 1));
        m_mmap->setChecked(true);
    }
    const bool experts =
        std::any_of(m_memory->tensors().begin(), m_memory->tensors().end(),
                    [](const gguf::ModelTensor &t) { return t.name.find("_exps.") != std::string::npos; });
    m_gpus->setModel(shape.layers, experts);
    update();
}

void MemoryPanel::contextFromSlider(int steps)
{
    const QSignalBlocker block(m_context);
    m_context->setValue(steps * kStep);
    update();
}

void MemoryPanel::contextFromField(int context)
{
    const QSignalBlocker block(m_contextSlider);
    const int steps = (context + kStep - 1) / kStep;
    if (steps > m_contextSlider->maximum())
        m_contextSlider->setMaximum(steps);
    m_contextSlider->setValue(steps);
    update();
}

gguf::MemoryInputs MemoryPanel::inputs() const
{
    gguf::MemoryInputs in;
    in.context = uint64_t(m_context->value());
    in.parallel = uint32_t(m_sequences->value());
    in.typeK = m_cacheK->currentData().toUInt();
    in.typeV = m_cacheV->currentData().toUInt();
    in.flashAttention = m_flashAttention->isChecked();
    in.gpuLayers = m_gpuLayers->value();
    in.mmap = m_mmap->isChecked();
    return in;
}

void MemoryPanel::update()
{
    if (!m_memory || !m_memory->whyNoEstimate().empty())
        return;
    const gguf::MemoryInputs in = inputs();
    m_estimate = m_memory->estimate(in);
    m_budget->setEnabled(!m_gpus->active()); // a budget is for one device; Fit for several
    if (m_gpus->active()) {
        updatePlan(in);
        return;
    }
    m_plan = {};
    // the largest context for the budget does not depend on the context: searched again only
    // when another input or the budget moves, not on every step of the context slider
    const double budgetGiB = m_budget->value();
    gguf::MemoryInputs searchKey = in;
    searchKey.context = 0;
    const uint64_t budget = budgetGiB > 0 ? uint64_t(budgetGiB * kGiB) : 0;
    if (budget == 0) {
        m_maxContext.reset();
    } else if (!m_maxContext || m_searchedInputs != searchKey || m_searchedBudget != budget) {
        m_maxContext = m_memory->maxContextForBudget(in, budget);
        m_searchedInputs = searchKey;
        m_searchedBudget = budget;
    }

    const auto &cpu = m_estimate.cpu();
    const auto &gpu = m_estimate.gpu();
    QString text = tr("RAM %1, VRAM %2 for %3 tokens (%4 cells after padding).")
                       .toHtmlEscaped()
                       .arg(TextFormat::byteSize(cpu.total()), TextFormat::byteSize(gpu.total()),
                            QLocale().toString(qulonglong(m_estimate.inputs.context)),
                            QLocale().toString(qulonglong(m_estimate.kv.nCtx)));
    if (m_maxContext) {
        const bool onGpu = gguf::MemoryModel::budgetDevice(m_estimate) == gguf::MemoryDevice::Gpu;
        text += QLatin1Char(' ') +
                (*m_maxContext > 0
                     ? tr("The largest context that fits %1 of %2: %3 tokens%4.")
                           .arg(m_budget->text(), onGpu ? tr("VRAM") : tr("RAM"),
                                QLocale().toString(qulonglong(*m_maxContext)),
                                *m_maxContext == m_memory->shape().trainedContext
                                    ? tr(" (the model's trained context; no longer one was tried)")
                                    : QString())
                     : tr("Not even 256 tokens fit %1 of %2.").arg(m_budget->text(), onGpu ? tr("VRAM") : tr("RAM")));
    }
    showSummary(text);
}

void MemoryPanel::updatePlan(const gguf::MemoryInputs &in)
{
    QString error;
    const gguf::OffloadInputs offload = m_gpus->inputs(error);
    m_plan = {};
    if (error.isEmpty()) {
        m_plan = gguf::planOffload(*m_memory, in, offload);
        error = QString::fromStdString(m_plan.error);
    }
    QStringList parts;
    for (const gguf::PlannedDevice &d : m_plan.devices) {
        const QString name = &d == &m_plan.devices.front() ? tr("RAM") : QString::fromStdString(d.name);
        if (&d == &m_plan.devices.front())
            parts << tr("%1 %2").arg(name, TextFormat::byteSize(d.memory.total())).toHtmlEscaped();
        else
            parts << (d.memory.total() <= d.freeBytes ? QStringLiteral("%1") : QStringLiteral("<b>%1</b>"))
                         .arg(tr("%1 %2 of %3 free")
                                  .arg(name, TextFormat::byteSize(d.memory.total()), TextFormat::byteSize(d.freeBytes))
                                  .toHtmlEscaped());
    }
    QString text = error.isEmpty() ? tr("%1 for %2 tokens.")
                                         .arg(parts.join(QStringLiteral(", ")),
                                              QLocale().toString(qulonglong(m_estimate.inputs.context)))
                                   : QStringLiteral("<b>%1</b>").arg(error.toHtmlEscaped());
    showSummary(text);
}

void MemoryPanel::showSummary(QString text)
{
    for (const std::string &r : m_estimate.refusals)
        text += QStringLiteral("<br><b>") +
                tr("llama.cpp would refuse these settings: %1.").arg(QString::fromStdString(r).toHtmlEscaped()) +
                QStringLiteral("</b>");
    m_summary->setText(text);
    // the bars and the figures follow on the next turn of the event loop, once per burst of changes
    if (!m_redraw.isActive())
        m_redraw.start();
}

void MemoryPanel::fit()
{
    if (!m_memory || !m_gpus->active())
        return;
    QString error;
    const gguf::OffloadInputs offload = m_gpus->inputs(error);
    if (!error.isEmpty()) {
        m_gpus->setStatus(QStringLiteral("<b>%1</b>").arg(error.toHtmlEscaped()));
        return;
    }
    gguf::FitOptions options;
    options.marginBytes = m_gpus->marginBytes();
    options.maxContext = m_gpus->fitLargestContext();
    const gguf::MemoryInputs in = inputs();
    m_fitJobs->start(
        tr("Fitting the model to the GPUs"),
        [memory = m_memory, in, offload, options](const gguf::ProgressFn &progress) {
            gguf::FitOptions o = options;
            o.progress = progress;
            return gguf::fitOffload(*memory, in, offload, o);
        },
        [this](const gguf::FitResult &result) { showFit(result); });
}

void MemoryPanel::showFit(const gguf::FitResult &fit)
{
    if (fit.cancelled)
        return;
    if (!fit.plan.error.empty()) {
        m_gpus->setStatus(QStringLiteral("<b>%1</b>").arg(QString::fromStdString(fit.plan.error).toHtmlEscaped()));
        return;
    }
    {
        const QSignalBlocker b1(m_gpuLayers), b2(m_context), b3(m_contextSlider);
        m_gpuLayers->setValue(int(fit.gpuLayers));
        m_context->setValue(int(std::min<uint64_t>(fit.context, kMaxContext)));
        const int steps = (m_context->value() + kStep - 1) / kStep;
        m_contextSlider->setMaximum(std::max(m_contextSlider->maximum(), steps));
        m_contextSlider->setValue(steps);
    }
    m_gpus->setCpuMoe(fit.nCpuMoe); // recomputes the plan
    update();
    QString text = tr("Fit: %1 of %2 layers on the GPUs").arg(fit.gpuLayers).arg(fit.plan.base.maxGpuLayers);
    if (fit.experts && fit.gpuLayers > 0)
        text += fit.nCpuMoe == 0
                    ? tr(", every expert with its layer")
                    : tr(", the experts of the first %n layer(s) kept on the CPU", nullptr, int(fit.nCpuMoe));
    text += tr(", context %1.").arg(QLocale().toString(qulonglong(fit.context)));
    QString why;
    for (const std::string &w : fit.whyNotMore)
        why += QStringLiteral("<br>") + QString::fromStdString(w).toHtmlEscaped();
    m_gpus->setStatus(text.toHtmlEscaped() + why);
}

bool MemoryPanel::fitting() const
{
    return m_fitJobs->isRunning();
}

QString MemoryPanel::commandLine() const
{
    if (!m_memory)
        return {};
    QString error;
    gguf::OffloadInputs offload = m_gpus->inputs(error);
    return QString::fromStdString(gguf::llamaServerCommand(m_path, gguf::llamaArgs(*m_memory, inputs(), offload)));
}

void MemoryPanel::redraw()
{
    if (!m_memory || !m_memory->whyNoEstimate().empty())
        return;
    if (m_gpus->active()) {
        QVector<MemoryBarPlot::Device> bars;
        for (const gguf::PlannedDevice &d : m_plan.devices)
            bars.push_back(
                {&d == &m_plan.devices.front() ? tr("CPU (RAM)") : QString::fromStdString(d.name),
                 {double(d.memory.weights), double(d.memory.kv), double(d.memory.compute), double(d.memory.output)}});
        m_plot->setDevices(bars, 0);
        m_gpus->showPlan(m_plan);
        fillPlanDetails();
        return;
    }
    const double budgetGiB = m_budget->value();
    QVector<MemoryBarPlot::Device> bars;
    for (const gguf::MemoryDevice d : {gguf::MemoryDevice::Cpu, gguf::MemoryDevice::Gpu}) {
        const gguf::DeviceMemory &m = m_estimate.devices[size_t(d)];
        bars.push_back({d == gguf::MemoryDevice::Cpu ? tr("CPU (RAM)") : tr("GPU (VRAM)"),
                        {double(m.weights), double(m.kv), double(m.compute), double(m.output)}});
    }
    m_plot->setDevices(bars, budgetGiB > 0 ? budgetGiB * kGiB : 0);
    fillDetails();
}

void MemoryPanel::fillDetails()
{
    // keep which sections the user opened
    QSet<QString> expanded;
    for (int i = 0; i < m_details->topLevelItemCount(); ++i)
        if (m_details->topLevelItem(i)->isExpanded())
            expanded.insert(m_details->topLevelItem(i)->text(0));
    m_details->clear();
    const bool first = expanded.isEmpty();
    for (const gguf::MemoryDevice d : {gguf::MemoryDevice::Cpu, gguf::MemoryDevice::Gpu}) {
        const gguf::DeviceMemory &m = m_estimate.devices[size_t(d)];
        auto *device =
            new QTreeWidgetItem(m_details, {d == gguf::MemoryDevice::Cpu ? tr("CPU (RAM)") : tr("GPU (VRAM)"),
                                            tr("total"), TextFormat::byteSize(m.total()), QString()});
        for (const gguf::MemoryTerm &t : m_estimate.terms) {
            if (t.device != d || t.bytes == 0)
                continue;
            auto *item = new QTreeWidgetItem(device, {QString::fromLatin1(gguf::memoryPartName(t.part)),
                                                      QString::fromStdString(t.what), TextFormat::byteSize(t.bytes),
                                                      QString::fromStdString(t.formula)});
            item->setToolTip(3, item->text(3));
            item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        }
        device->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        device->setExpanded(first ? m.total() > 0 : expanded.contains(device->text(0)));
    }
    auto *layers = new QTreeWidgetItem(m_details, {tr("KV cache per layer"),
                                                   tr("%n layer(s)", nullptr, int(m_estimate.kv.layers.size())),
                                                   TextFormat::byteSize(m_estimate.kv.total()), QString()});
    for (const gguf::LayerKv &l : m_estimate.kv.layers) {
        const QString how = l.kind == gguf::KvLayerKind::Recurrent
                                ? tr("R %1 + S %2 values × f32 × %3 sequence(s)").arg(l.rowK).arg(l.rowV).arg(l.cells)
                            : l.kind == gguf::KvLayerKind::None ? tr("no cache of its own")
                                                                : tr("%1 cells × %2 stream(s); K %3, V %4 per cell")
                                                                      .arg(l.cells)
                                                                      .arg(m_estimate.kv.streams)
                                                                      .arg(l.rowK)
                                                                      .arg(l.rowV);
        new QTreeWidgetItem(layers, {tr("layer %1").arg(l.layer),
                                     QStringLiteral("%1, %2").arg(QString::fromLatin1(gguf::kvLayerKindName(l.kind)),
                                                                  l.onGpu ? tr("GPU") : tr("CPU")),
                                     TextFormat::byteSize(l.bytes()), how});
    }
    layers->setExpanded(expanded.contains(layers->text(0)));
    if (!m_estimate.notes.empty()) {
        auto *notes = new QTreeWidgetItem(m_details, {tr("Notes"), QString(), QString(), QString()});
        for (const std::string &n : m_estimate.notes) {
            auto *item = new QTreeWidgetItem(notes, {QString(), QString(), QString(), QString::fromStdString(n)});
            item->setToolTip(3, item->text(3));
        }
        notes->setExpanded(first || expanded.contains(notes->text(0)));
    }
    for (int c = 0; c < 3; ++c)
        m_details->resizeColumnToContents(c);
}

void MemoryPanel::fillPlanDetails()
{
    m_details->clear();
    for (size_t d = 0; d < m_plan.devices.size(); ++d) {
        const gguf::PlannedDevice &dev = m_plan.devices[d];
        const QString name = d == 0 ? tr("CPU (RAM)") : QString::fromStdString(dev.name);
        QStringList ranges;
        size_t from = 0;
        for (size_t il = 1; il <= m_plan.layerDevice.size(); ++il)
            if (il == m_plan.layerDevice.size() || m_plan.layerDevice[il] != m_plan.layerDevice[from]) {
                if (m_plan.layerDevice[from] == d)
                    ranges << (from + 1 == il ? QString::number(from) : QStringLiteral("%1–%2").arg(from).arg(il - 1));
                from = il;
            }
        auto *item = new QTreeWidgetItem(
            m_details,
            {name, d == 0 ? tr("total") : tr("total of %1 free").arg(TextFormat::byteSize(dev.freeBytes)),
             TextFormat::byteSize(dev.memory.total()),
             ranges.isEmpty() ? tr("no layer") : tr("layer slots %1").arg(ranges.join(QStringLiteral(", ")))});
        for (const gguf::MemoryPart part :
             {gguf::MemoryPart::Weights, gguf::MemoryPart::Kv, gguf::MemoryPart::Compute, gguf::MemoryPart::Output}) {
            gguf::DeviceMemory m = dev.memory;
            auto *child = new QTreeWidgetItem(item, {QString::fromLatin1(gguf::memoryPartName(part)), QString(),
                                                     TextFormat::byteSize(m[part]), QString()});
            child->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        }
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setExpanded(true);
    }
    if (!m_plan.notes.empty()) {
        auto *notes = new QTreeWidgetItem(m_details, {tr("Notes"), QString(), QString(), QString()});
        for (const std::string &n : m_plan.notes)
            new QTreeWidgetItem(notes, {QString(), QString(), QString(), QString::fromStdString(n)});
        notes->setExpanded(true);
    }
    for (int c = 0; c < 3; ++c)
        m_details->resizeColumnToContents(c);
}

QString MemoryPanel::summaryText() const
{
    return m_summary->text();
}
