// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/overview/kind_panel.h"

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/kind/control_vector.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/plots/layer_chart.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLocale>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace {

QString optionalCount(const std::optional<uint64_t> &n)
{
    return n ? TextFormat::count(*n) : QStringLiteral("—");
}

QString localeSixDigits(double v)
{
    return QLocale().toString(v, 'g', 6);
}

} // namespace

KindPanel::KindPanel(QWidget *parent)
    : QGroupBox(parent), m_tree(new QTreeWidget(this)),
      m_checkBase(new QPushButton(tr("Check against base model…"), this)), m_norms(new LayerChart(this)),
      m_job(new JobTracker(this))
{
    m_checkBase->setToolTip(tr("Open the base model and check every pair as llama.cpp does before applying the "
                               "adapter: the tensor exists, the shapes agree, the architectures match"));
    connect(m_checkBase, &QPushButton::clicked, this, &KindPanel::chooseBase);
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Fact"), tr("Value")});
    m_tree->setAlternatingRowColors(true);
    m_tree->setMinimumHeight(160);
    m_tree->header()->setStretchLastSection(true);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tree);
    layout->addWidget(m_checkBase, 0, Qt::AlignLeft);
    m_norms->setObjectName(QStringLiteral("directionNorms"));
    m_norms->setMinimumHeight(220);
    m_norms->setToolTip(tr("The L2 norm of each layer's direction: how far it moves that layer's output at "
                           "strength 1 (llama.cpp adds strength × direction)"));
    layout->addWidget(m_norms);
    m_norms->hide();
    hide();
}

QTreeWidgetItem *KindPanel::add(QTreeWidgetItem *parent, const QString &label, const QString &value)
{
    auto *item = parent ? new QTreeWidgetItem(parent, {label, value}) : new QTreeWidgetItem(m_tree, {label, value});
    item->setToolTip(0, label); // a long name (a base model's file) may be cut: said whole here
    item->setToolTip(1, value);
    return item;
}

QString KindPanel::valueOf(const QString &label) const
{
    const auto found = m_tree->findItems(label, Qt::MatchExactly | Qt::MatchRecursive, 0);
    return found.isEmpty() ? QString() : found.first()->text(1);
}

void KindPanel::setReport(const gguf::KindReport &report, std::shared_ptr<const gguf::GgufFile> file)
{
    m_job->drop();
    m_tree->clear();
    m_baseItem = nullptr;
    m_file = std::move(file);
    m_report = report;
    m_checkBase->setVisible(report.lora && m_file);
    m_norms->setVisible(report.controlVector && m_file);
    m_norms->showMessage(QString());
    setTitle(tr("This %1").arg(QString::fromLatin1(gguf::fileKindTitle(report.kind))));
    if (report.lora)
        showLora(*report.lora);
    else if (report.imatrix)
        showImatrix(*report.imatrix);
    else if (report.projector)
        showProjector(*report.projector);
    else if (report.controlVector)
        showControlVector(*report.controlVector);
    if (report.controlVector && m_file)
        computeNorms();
    setVisible(m_tree->topLevelItemCount() > 0);
    m_tree->resizeColumnToContents(0);
}

void KindPanel::showLora(const gguf::LoraFacts &lora)
{
    QStringList ranks, scales;
    for (const uint64_t r : lora.ranks) {
        ranks << TextFormat::count(r);
        scales << tr("%1 (rank %2)").arg(localeSixDigits(lora.scale(r)), TextFormat::count(r));
    }
    add(nullptr, tr("Adapter type"), QString::fromStdString(lora.adapterType));
    add(nullptr, tr("Rank"), ranks.isEmpty() ? QStringLiteral("—") : ranks.join(QStringLiteral(", ")));
    add(nullptr, tr("Alpha"), lora.alpha ? localeSixDigits(*lora.alpha) : tr("— (applied unscaled)"));
    add(nullptr, tr("Scale"), scales.isEmpty() ? QStringLiteral("—") : scales.join(QStringLiteral(", ")))
        ->setToolTip(1, tr("alpha / rank, times the scale the user asks for (llama.cpp's --lora-scaled)"));
    if (!lora.taskName.empty())
        add(nullptr, tr("Task"), QString::fromStdString(lora.taskName));
    if (!lora.promptPrefix.empty())
        add(nullptr, tr("Prompt prefix"), QString::fromStdString(lora.promptPrefix));
    if (lora.invocationTokens > 0)
        add(nullptr, tr("aLoRA invocation tokens"), TextFormat::count(lora.invocationTokens));
    // targets grouped by layer, and by role across the layers
    std::map<int32_t, QStringList> byLayer;
    std::map<std::string, uint64_t> byRole;
    for (const gguf::LoraPair &p : lora.pairs) {
        byLayer[p.layer] << tr("%1 (%2 → %3, rank %4)")
                                .arg(QString::fromStdString(p.role), TextFormat::count(p.nIn),
                                     TextFormat::count(p.nOut), TextFormat::count(p.rank));
        ++byRole[p.role];
    }
    QTreeWidgetItem *targets = add(nullptr, tr("Targets"), tr("%n tensor(s)", nullptr, int(lora.pairs.size())));
    for (const auto &[layer, list] : byLayer)
        add(targets, layer < 0 ? tr("outside the layers") : tr("layer %1").arg(layer), list.join(QStringLiteral("; ")));
    QTreeWidgetItem *roles = add(nullptr, tr("Roles"), tr("%n role(s)", nullptr, int(byRole.size())));
    for (const auto &[role, n] : byRole)
        add(roles, QString::fromStdString(role), tr("%n layer(s)", nullptr, int(n)));
    roles->setExpanded(true);
    if (lora.normTensors > 0)
        add(nullptr, tr("Norm tensors"),
            tr("%1 (llama.cpp does not apply them)").arg(TextFormat::count(lora.normTensors)));
}

void KindPanel::showImatrix(const gguf::ImatrixFacts &imatrix)
{
    QStringList datasets;
    for (const std::string &d : imatrix.datasets)
        datasets << QString::fromStdString(d);
    add(nullptr, tr("Datasets"), datasets.isEmpty() ? QStringLiteral("—") : datasets.join(QStringLiteral(", ")));
    add(nullptr, tr("Chunks"),
        tr("%1 of %2 tokens").arg(optionalCount(imatrix.chunkCount), optionalCount(imatrix.chunkSize)));
    add(nullptr, tr("Weights"), TextFormat::count(imatrix.entries.size()));
    uint64_t withExperts = 0;
    for (const gguf::ImatrixEntry &e : imatrix.entries)
        withExperts += e.nMat > 1 ? 1 : 0;
    if (withExperts > 0)
        add(nullptr, tr("Expert weights"), TextFormat::count(withExperts));
    QTreeWidgetItem *unused =
        add(nullptr, tr("Experts never used"),
            imatrix.unusedExperts.empty() ? tr("none") : TextFormat::count(imatrix.unusedExperts.size()));
    std::map<std::string, QStringList> byTensor;
    for (const gguf::ImatrixExpert &x : imatrix.unusedExperts)
        byTensor[x.tensor] << QString::number(x.expert);
    for (const auto &[tensor, experts] : byTensor)
        add(unused, QString::fromStdString(tensor), tr("experts %1").arg(experts.join(QStringLiteral(", "))));
    unused->setExpanded(byTensor.size() <= 16);
}

void KindPanel::showProjector(const gguf::ProjectorFacts &projector)
{
    add(nullptr, tr("Projector type"),
        projector.type.empty() ? QStringLiteral("—") : QString::fromStdString(projector.type));
    for (const auto &[name, encoder, has] : {std::tuple{tr("Vision encoder"), &projector.vision, projector.hasVision},
                                             std::tuple{tr("Audio encoder"), &projector.audio, projector.hasAudio}}) {
        if (!*encoder && !has)
            continue;
        QTreeWidgetItem *item = add(nullptr, name, has ? tr("yes") : tr("keys present, not declared"));
        if (!*encoder)
            continue;
        const gguf::EncoderFacts &e = **encoder;
        if (e.imageSize)
            add(item, tr("Image size"), TextFormat::count(*e.imageSize));
        if (e.patchSize)
            add(item, tr("Patch size"), TextFormat::count(*e.patchSize));
        add(item, tr("Embedding length"), optionalCount(e.embeddingLength));
        add(item, tr("Blocks"), optionalCount(e.blockCount));
        if (e.headCount)
            add(item, tr("Attention heads"), TextFormat::count(*e.headCount));
        if (e.feedForwardLength)
            add(item, tr("Feed-forward length"), TextFormat::count(*e.feedForwardLength));
        if (e.projectionDim)
            add(item, tr("Projection dimension"), TextFormat::count(*e.projectionDim));
        item->setExpanded(true);
    }
}

void KindPanel::showControlVector(const gguf::ControlVectorFacts &control)
{
    add(nullptr, tr("Model hint"),
        control.modelHint.empty() ? QStringLiteral("—") : QString::fromStdString(control.modelHint));
    add(nullptr, tr("Layer count"), optionalCount(control.layerCount));
    add(nullptr, tr("Embedding length"), TextFormat::count(control.embeddingLength));
    QStringList layers;
    for (const gguf::ControlDirection &d : control.directions)
        layers << QString::number(d.layer);
    add(nullptr, tr("Directions for layers"),
        layers.isEmpty() ? QStringLiteral("—") : layers.join(QStringLiteral(", ")));
}

bool KindPanel::isBusy() const
{
    return m_job->isRunning();
}

void KindPanel::computeNorms()
{
    auto file = m_file;
    auto report = std::make_shared<gguf::KindReport>(*m_report); // its directions point into the file
    m_norms->showMessage(tr("Computing the norm of each direction…"));
    m_job->start(
        tr("Norm of each control direction"),
        [file, report](const gguf::ProgressFn &progress) {
            return gguf::directionNorms(*file, *report->controlVector, progress);
        },
        [this](const std::optional<std::vector<gguf::DirectionNorm>> &norms) {
            QVector<LayerChart::Point> points;
            QString fetchError; // a remote file's bytes that could not be fetched
            if (norms)
                for (const gguf::DirectionNorm &n : *norms) {
                    if (n.ok)
                        points.push_back({int(n.layer), n.norm, QString::fromStdString(n.tensor)});
                    else if (fetchError.isEmpty() && !n.error.empty())
                        fetchError = QString::fromStdString(n.error);
                }
            std::sort(points.begin(), points.end(), [](const auto &a, const auto &b) { return a.layer < b.layer; });
            if (points.isEmpty())
                m_norms->showMessage(fetchError.isEmpty() ? tr("No direction could be decoded.")
                                                          : tr("No direction could be read: %1").arg(fetchError));
            else
                m_norms->setPoints(points, tr("‖direction‖ (L2)"));
            emit normsShown();
        });
}

void KindPanel::chooseBase()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Base model for this adapter"), QString(),
                                                      tr("GGUF files (*.gguf);;All files (*)"));
    if (!path.isEmpty())
        checkAgainstBase(path);
}

void KindPanel::checkAgainstBase(const QString &basePath)
{
    if (!m_report || !m_report->lora || !m_file)
        return;
    // the adapter's facts point into its file: the job keeps both alive
    auto adapter = m_file;
    auto report = std::make_shared<gguf::KindReport>(*m_report);
    const std::string path = QFile::encodeName(basePath).toStdString();
    struct Result {
        gguf::AdapterCheck check;
        QString error;
    };
    m_job->start(
        tr("Checking the adapter against %1").arg(QFileInfo(basePath).fileName()),
        [adapter, report, path](const gguf::ProgressFn &progress) {
            Result r;
            gguf::OpenOptions options;
            options.progress = progress;
            gguf::Error error;
            // a split base: every shard is opened, as llama.cpp loads them all
            const auto base = gguf::SplitModel::open(path, error, options);
            // a base read only in part would make every tensor after its break look missing
            if (!base || error)
                r.error = QString::fromStdString(error.message);
            else
                r.check = gguf::checkAdapterAgainstBase(*adapter, *report, *base);
            return r;
        },
        [this, basePath](const Result &r) { showBaseCheck(basePath, r.check, r.error); });
}

void KindPanel::showBaseCheck(const QString &basePath, const gguf::AdapterCheck &check, const QString &error)
{
    delete m_baseItem;
    const QString name = QFileInfo(basePath).fileName();
    if (!error.isEmpty()) {
        m_baseItem = add(nullptr, tr("Against %1").arg(name), tr("could not be opened: %1").arg(error));
        emit baseChecked();
        return;
    }
    const bool ok = check.applies();
    QStringList why;
    if (check.adapterRefusals > 0)
        why << tr("%n problem(s) of the adapter itself (see Validation)", nullptr, int(check.adapterRefusals));
    if (check.refused > 0)
        why << tr("%n pair(s) do not fit", nullptr, int(check.refused));
    if (!check.architectureOk)
        why << tr("the architectures differ");
    if (!check.baseProblems.empty())
        why << tr("%n shard(s) of the base could not be opened", nullptr, int(check.baseProblems.size()));
    m_baseItem = add(nullptr, tr("Against %1").arg(name),
                     ok ? tr("✔ llama.cpp would apply this adapter to it")
                        : tr("✘ llama.cpp would refuse: %1").arg(why.join(QStringLiteral("; "))));
    for (const std::string &problem : check.baseProblems)
        add(m_baseItem, tr("Missing shard"), QString::fromStdString(problem));
    add(m_baseItem, tr("Architecture"),
        tr("adapter %1, base %2")
            .arg(QString::fromStdString(check.adapterArchitecture), QString::fromStdString(check.baseArchitecture)));
    // the pairs that do not fit, then how many do (an adapter may have hundreds)
    constexpr int kListed = 200;
    int listed = 0;
    uint64_t fit = 0;
    for (const gguf::BaseCheck &b : check.pairs) {
        if (b.problem.empty()) {
            ++fit;
        } else if (listed++ < kListed) {
            add(m_baseItem, QString::fromStdString(b.base), QString::fromStdString(b.problem));
        }
    }
    if (listed > kListed)
        add(m_baseItem, tr("…"), tr("%n more pair(s) that do not fit", nullptr, listed - kListed));
    add(m_baseItem, tr("Pairs that fit"), QLocale().toString(qulonglong(fit)));
    m_baseItem->setExpanded(!ok);
    m_tree->resizeColumnToContents(0); // "Against <base file>" whole (#40)
    emit baseChecked();
}
