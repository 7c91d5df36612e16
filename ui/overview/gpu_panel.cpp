// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/overview/gpu_panel.h"

#include "ui/common/job_progress.h"
#include "ui/plots/placement_map.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <map>

namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
// the map's roles, in stacking order (offload_plan.cpp's roleOf)
const char *const kRoles[] = {"attention", "feed-forward", "experts", "shared expert", "router",
                              "norm",      "input",        "output",  "other"};

} // namespace

GpuPanel::GpuPanel(QWidget *parent)
    : QWidget(parent), m_devices(new QTableWidget(0, 2, this)), m_add(new QPushButton(tr("Add GPU"), this)),
      m_remove(new QPushButton(tr("Remove"), this)), m_split(new QLineEdit(this)), m_mode(new QComboBox(this)),
      m_mainGpu(new QSpinBox(this)), m_overrides(new QLineEdit(this)), m_nCpuMoe(new QSpinBox(this)),
      m_cpuMoe(new QCheckBox(tr("All experts on the CPU"), this)), m_margin(new QSpinBox(this)),
      m_largestContext(new QCheckBox(tr("Largest context"), this)), m_fit(new QPushButton(tr("&Fit"), this)),
      m_copy(new QPushButton(tr("Copy command line"), this)), m_status(new QLabel(this)),
      m_progress(new JobProgress(this)), m_map(new PlacementMap(this)), m_planBox(new QWidget(this))
{
    m_devices->setObjectName(QStringLiteral("gpuDevices"));
    m_split->setObjectName(QStringLiteral("gpuTensorSplit"));
    m_mode->setObjectName(QStringLiteral("gpuSplitMode"));
    m_overrides->setObjectName(QStringLiteral("gpuOverrides"));
    m_nCpuMoe->setObjectName(QStringLiteral("gpuNCpuMoe"));
    m_fit->setObjectName(QStringLiteral("gpuFit"));
    m_margin->setObjectName(QStringLiteral("gpuMargin"));
    m_copy->setObjectName(QStringLiteral("gpuCopyCommand"));
    m_map->setObjectName(QStringLiteral("gpuPlacementMap"));

    m_devices->setHorizontalHeaderLabels({tr("GPU"), tr("Free GiB")});
    m_devices->horizontalHeader()->setStretchLastSection(true);
    m_devices->verticalHeader()->setVisible(false);
    m_devices->setMaximumHeight(110);
    m_devices->setToolTip(tr("Each GPU by llama.cpp's name for it (CUDA0, Vulkan1…) and the memory free on it; "
                             "with none, one GPU takes the offloaded layers"));
    m_split->setPlaceholderText(tr("by free memory"));
    m_split->setToolTip(tr("--tensor-split: each GPU's share of the offloaded layers, e.g. 3,1"));
    m_mode->addItem(tr("layer"), int(gguf::SplitMode::Layer));
    m_mode->addItem(tr("row"), int(gguf::SplitMode::Row));
    m_mode->addItem(tr("none"), int(gguf::SplitMode::None));
    m_mode->setToolTip(tr("--split-mode: whole layers per GPU, matrices split by rows (an estimate), or "
                          "every layer on the main GPU"));
    m_mainGpu->setToolTip(tr("--main-gpu: the GPU of split mode none"));
    m_overrides->setPlaceholderText(tr("REGEX=BUF, … e.g. exps=CPU"));
    m_overrides->setToolTip(tr("-ot: tensors whose name the regex finds go to CPU or a GPU; the first rule that "
                               "matches wins"));
    m_nCpuMoe->setToolTip(tr("--n-cpu-moe: the experts of the first N layers stay on the CPU"));
    m_cpuMoe->setToolTip(tr("--cpu-moe: every layer's experts stay on the CPU"));
    m_margin->setRange(0, 1 << 20);
    m_margin->setValue(1024);
    m_margin->setSuffix(tr(" MiB"));
    m_margin->setToolTip(tr("Memory Fit leaves free on each GPU (llama.cpp's fit: 1024 MiB)"));
    m_largestContext->setToolTip(tr("Fit also finds the largest context, after the layers and the experts"));
    m_fit->setToolTip(tr("The most layers on the GPUs, then the fewest experts kept on the CPU, then the context"));
    m_copy->setToolTip(tr("The llama-server command line of these settings"));
    m_status->setWordWrap(true);
    m_status->setTextFormat(Qt::RichText);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *plan = new QVBoxLayout(m_planBox);
    plan->setContentsMargins(0, 0, 0, 0);
    plan->addWidget(m_map);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(makeDeviceBox());
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_planBox);
    m_planBox->setVisible(false);

    connect(m_add, &QPushButton::clicked, this, &GpuPanel::addDevice);
    connect(m_remove, &QPushButton::clicked, this, &GpuPanel::removeDevice);
    connect(m_devices, &QTableWidget::itemChanged, this, &GpuPanel::changed);
    for (QLineEdit *edit : {m_split, m_overrides})
        connect(edit, &QLineEdit::textChanged, this, &GpuPanel::changed);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &GpuPanel::changed);
    for (QSpinBox *box : {m_mainGpu, m_nCpuMoe})
        connect(box, &QSpinBox::valueChanged, this, &GpuPanel::changed);
    connect(m_cpuMoe, &QCheckBox::toggled, this, &GpuPanel::changed);
    connect(m_fit, &QPushButton::clicked, this, &GpuPanel::fitRequested);
    connect(m_copy, &QPushButton::clicked, this, &GpuPanel::copyRequested);
    setModel(0, false);
}

QWidget *GpuPanel::makeDeviceBox()
{
    auto *box = new QWidget(this);
    auto *grid = new QGridLayout(box);
    grid->setContentsMargins(0, 0, 0, 0);
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    grid->addWidget(m_devices, 0, 0, 3, 1);
    grid->addLayout(buttons, 0, 1, 3, 1);
    grid->addWidget(new QLabel(tr("Tensor split:"), box), 0, 2);
    grid->addWidget(m_split, 0, 3);
    grid->addWidget(new QLabel(tr("Split mode:"), box), 0, 4);
    grid->addWidget(m_mode, 0, 5);
    grid->addWidget(new QLabel(tr("Main GPU:"), box), 0, 6);
    grid->addWidget(m_mainGpu, 0, 7);
    grid->addWidget(new QLabel(tr("Overrides (-ot):"), box), 1, 2);
    grid->addWidget(m_overrides, 1, 3, 1, 3);
    grid->addWidget(new QLabel(tr("Experts on the CPU:"), box), 1, 6);
    grid->addWidget(m_nCpuMoe, 1, 7);
    grid->addWidget(m_cpuMoe, 1, 8);
    auto *actions = new QHBoxLayout;
    actions->addWidget(m_fit);
    actions->addWidget(new QLabel(tr("keeping"), box));
    actions->addWidget(m_margin);
    actions->addWidget(new QLabel(tr("free,"), box));
    actions->addWidget(m_largestContext);
    actions->addStretch(1);
    actions->addWidget(m_copy);
    grid->addLayout(actions, 2, 2, 1, 7);
    grid->setColumnStretch(3, 1);
    return box;
}

void GpuPanel::setModel(uint64_t layers, bool experts)
{
    m_nCpuMoe->setRange(0, int(layers));
    m_nCpuMoe->setEnabled(experts);
    m_cpuMoe->setEnabled(experts);
}

bool GpuPanel::active() const
{
    return m_devices->rowCount() > 0;
}

void GpuPanel::addDevice()
{
    const int row = m_devices->rowCount();
    {
        const QSignalBlocker block(m_devices);
        m_devices->insertRow(row);
        m_devices->setItem(row, 0, new QTableWidgetItem(QStringLiteral("CUDA%1").arg(row)));
        m_devices->setItem(row, 1, new QTableWidgetItem(QStringLiteral("24")));
    }
    m_mainGpu->setRange(0, std::max(0, m_devices->rowCount() - 1));
    m_planBox->setVisible(true);
    emit changed();
}

void GpuPanel::removeDevice()
{
    const int row = m_devices->currentRow() >= 0 ? m_devices->currentRow() : m_devices->rowCount() - 1;
    if (row < 0)
        return;
    m_devices->removeRow(row);
    m_mainGpu->setRange(0, std::max(0, m_devices->rowCount() - 1));
    m_planBox->setVisible(active());
    emit changed();
}

void GpuPanel::setDevices(const QVector<QPair<QString, double>> &devices)
{
    {
        const QSignalBlocker block(m_devices);
        m_devices->setRowCount(0);
        for (const auto &[name, gib] : devices) {
            const int row = m_devices->rowCount();
            m_devices->insertRow(row);
            m_devices->setItem(row, 0, new QTableWidgetItem(name));
            // shown to four significant digits, kept exact until edited
            auto *free = new QTableWidgetItem(QString::number(gib, 'g', 4));
            free->setData(Qt::UserRole, gib);
            free->setData(Qt::UserRole + 1, free->text());
            m_devices->setItem(row, 1, free);
        }
    }
    m_mainGpu->setRange(0, std::max(0, m_devices->rowCount() - 1));
    m_planBox->setVisible(active());
    emit changed();
}

void GpuPanel::setCpuMoe(uint32_t layers)
{
    m_nCpuMoe->setValue(int(layers));
}

uint64_t GpuPanel::marginBytes() const
{
    return uint64_t(m_margin->value()) << 20;
}

bool GpuPanel::fitLargestContext() const
{
    return m_largestContext->isChecked();
}

gguf::OffloadInputs GpuPanel::inputs(QString &error) const
{
    gguf::OffloadInputs in;
    error.clear();
    for (int row = 0; row < m_devices->rowCount(); ++row) {
        const QString name = m_devices->item(row, 0) ? m_devices->item(row, 0)->text().trimmed() : QString();
        bool ok = false;
        const QTableWidgetItem *free = m_devices->item(row, 1);
        double gib = free ? free->text().toDouble(&ok) : 0.0;
        if (ok && free->data(Qt::UserRole + 1).toString() == free->text())
            gib = free->data(Qt::UserRole).toDouble();
        if (name.isEmpty() || name == QLatin1String("CPU") || !ok || gib < 0 || gib > 1e6) {
            error = tr("GPU %1 needs a name (not CPU) and its free memory in GiB").arg(row + 1);
            return in;
        }
        in.devices.push_back({name.toStdString(), uint64_t(gib * kBytesPerGiB)});
    }
    if (const QString split = m_split->text().trimmed(); !split.isEmpty()) {
        const auto weights = gguf::parseTensorSplit(split.toStdString());
        if (!weights) {
            error = tr("The tensor split needs numbers separated by commas, like 3,1");
            return in;
        }
        in.tensorSplit = *weights;
    }
    in.splitMode = gguf::SplitMode(m_mode->currentData().toInt());
    in.mainGpu = uint32_t(m_mainGpu->value());
    if (const QString rules = m_overrides->text().trimmed(); !rules.isEmpty()) {
        std::string bad;
        const auto parsed = gguf::parseOverrides(rules.toStdString(), bad);
        if (!parsed) {
            error = tr("An override is REGEX=BUFFER, like exps=CPU, not \"%1\"").arg(QString::fromStdString(bad));
            return in;
        }
        in.overrides = *parsed;
    }
    in.nCpuMoe = m_nCpuMoe->isEnabled() ? uint32_t(m_nCpuMoe->value()) : 0;
    in.cpuMoe = m_cpuMoe->isEnabled() && m_cpuMoe->isChecked();
    return in;
}

void GpuPanel::showPlan(const gguf::OffloadPlan &plan)
{
    QStringList columns{tr("input")}, devices, roles;
    const size_t layers = plan.layerDevice.empty() ? 0 : plan.layerDevice.size() - 1;
    for (size_t il = 0; il < layers; ++il)
        columns << QString::number(il);
    columns << tr("output");
    std::map<std::string, int> roleIndex;
    for (const char *r : kRoles) {
        roleIndex[r] = int(roles.size());
        roles << tr(r);
    }
    for (const gguf::PlannedDevice &d : plan.devices)
        devices << (devices.isEmpty() ? tr("CPU") : QString::fromStdString(d.name));
    QVector<QVector<QVector<double>>> bytes(
        devices.size(), QVector<QVector<double>>(columns.size(), QVector<double>(roles.size(), 0.0)));
    if (plan.error.empty())
        for (const gguf::TensorPlacement &p : plan.placement) {
            // the input layer first, blk.N at N + 1, what lies outside any layer with the first, the
            // output layer last
            qsizetype column = columns.size() - 1;
            if (p.role == "input")
                column = 0;
            else if (p.layer >= 0 && size_t(p.layer) < layers)
                column = qsizetype(p.layer) + 1;
            else if (p.role == "other" && p.layer < 0 && layers > 0)
                column = 1; // with the first layer
            const auto role = roleIndex.find(p.role);
            bytes[qsizetype(p.device)][column][role == roleIndex.end() ? roles.size() - 1 : role->second] +=
                double(p.bytes);
        }
    m_map->setMap(columns, devices, roles, bytes);
}

void GpuPanel::setStatus(const QString &html)
{
    m_status->setText(html);
    m_status->setVisible(!html.isEmpty());
}
