// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_overview.h"

#include "core/compare/converted_model.h"
#include "core/memory/memory_estimate.h"

#include "core/safetensors/checkpoint.h"
#include "ui/common/text_format.h"
#include "ui/plots/type_mix_plot.h"

#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <map>

using gguf::st::Checkpoint;

namespace {

QString severityText(gguf::Severity s)
{
    switch (s) {
    case gguf::Severity::Error: return CheckpointOverview::tr("error");
    case gguf::Severity::Warning: return CheckpointOverview::tr("warning");
    default: return CheckpointOverview::tr("info");
    }
}

// config.json's value of the first of `keys` present, as text ("" when none).
QString configText(const Checkpoint &c, std::initializer_list<const char *> keys)
{
    const gguf::json::Value *config = c.config();
    if (!config)
        return {};
    for (const char *key : keys)
        if (const gguf::json::Value *v = config->find(key)) {
            if (v->kind == gguf::json::Value::Kind::Number)
                return QLocale().toString(QString::fromStdString(v->text).toDouble(), 'g', 12);
            if (v->kind == gguf::json::Value::Kind::String)
                return QString::fromStdString(v->text);
            if (v->kind == gguf::json::Value::Kind::Bool)
                return v->boolean ? QStringLiteral("true") : QStringLiteral("false");
        }
    return {};
}

QString openedAs(const Checkpoint &c)
{
    if (!c.indexPath().empty())
        return CheckpointOverview::tr("Hugging Face checkpoint: shards named by %1")
            .arg(QFileInfo(QString::fromStdString(c.indexPath())).fileName());
    if (c.shards().size() == 1)
        return CheckpointOverview::tr("Hugging Face checkpoint: one safetensors file");
    return CheckpointOverview::tr("Hugging Face checkpoint: the safetensors files of a folder");
}

} // namespace

CheckpointOverview::CheckpointOverview(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_verdict(new QLabel(this)), m_form(nullptr),
      m_plot(new TypeMixPlot(this)), m_findings(new QTreeWidget(this))
{
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.4);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setWordWrap(true);
    auto *facts = new QGroupBox(tr("Checkpoint"), this);
    m_form = new QFormLayout(facts);
    auto *mix = new QGroupBox(tr("Bytes by dtype"), this);
    (new QVBoxLayout(mix))->addWidget(m_plot);
    m_plot->setMinimumHeight(180);
    auto *findings = new QGroupBox(tr("Findings"), this);
    (new QVBoxLayout(findings))->addWidget(m_findings);
    m_findings->setColumnCount(5);
    m_findings->setHeaderLabels({tr("Severity"), tr("File"), tr("Offset"), tr("Code"), tr("Message")});
    m_findings->setRootIsDecorated(false);
    m_findings->header()->setSectionResizeMode(4, QHeaderView::Stretch);
    auto *top = new QHBoxLayout;
    top->addWidget(facts, 1);
    top->addWidget(mix, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(m_verdict);
    layout->addLayout(top);
    layout->addWidget(findings, 1);
    setCheckpoint(nullptr);
}

void CheckpointOverview::addField(const QString &label, const QString &text, const QString &toolTip)
{
    if (text.isEmpty())
        return;
    auto *value = new QLabel(text, this);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    value->setObjectName(label);
    value->setToolTip(toolTip);
    m_form->addRow(label + QLatin1Char(':'), value);
}

// What llama.cpp would need for the GGUF its converter makes of the checkpoint (docs/SAFETENSORS.md
// §9): at the trained context, every layer on one GPU, and on the CPU alone. Arithmetic on a header
// built in memory (cheap enough for the GUI thread, as the GGUF overview's estimate is).
void CheckpointOverview::addMemoryFields(const Checkpoint &c)
{
    const gguf::ConvertedModel converted = gguf::convertedModel(c);
    if (!converted.model) {
        addField(tr("llama.cpp memory"), tr("no estimate: %1").arg(QString::fromStdString(converted.problem)));
        return;
    }
    const gguf::MemoryModel memory(*converted.model);
    if (!memory.whyNoEstimate().empty()) {
        addField(tr("llama.cpp memory"), tr("no estimate: %1").arg(QString::fromStdString(memory.whyNoEstimate())));
        return;
    }
    gguf::MemoryInputs gpu;
    gguf::MemoryInputs cpu;
    cpu.gpuLayers = 0;
    const gguf::MemoryEstimate g = memory.estimate(gpu), onCpu = memory.estimate(cpu);
    const auto mib = [](uint64_t bytes) { return QString::fromStdString(gguf::mibText(bytes)); };
    QString why = tr("For the GGUF llama.cpp's converter would make of this checkpoint at its own dtype "
                     "(convert_hf_to_gguf.py): weights, KV cache, compute and output buffers at the trained "
                     "context with llama.cpp's defaults, as gguf-inspect memory CHECKPOINT gives them.");
    if (!converted.unmapped.empty())
        why += QLatin1Char(' ') + tr("%1 tensors no conversion rule maps are left out.").arg(converted.unmapped.size());
    addField(tr("llama.cpp, one GPU"),
             tr("%1 VRAM + %2 RAM at %3 tokens")
                 .arg(mib(g.gpu().total()), mib(g.cpu().total()), TextFormat::count(g.inputs.context)),
             why);
    addField(tr("llama.cpp, CPU only"), tr("%1 RAM").arg(mib(onCpu.cpu().total())), why);
}

void CheckpointOverview::setCheckpoint(const std::shared_ptr<const Checkpoint> &checkpoint)
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0);
    m_findings->clear();
    if (!checkpoint) {
        m_title->clear();
        m_verdict->clear();
        m_plot->clear();
        return;
    }
    const Checkpoint &c = *checkpoint;
    const QString arch = QString::fromStdString(c.architecture());
    m_title->setText(arch.isEmpty() ? QFileInfo(QString::fromStdString(c.path())).fileName() : arch);
    uint64_t fileBytes = 0;
    for (const Checkpoint::Shard &s : c.shards())
        if (s.file)
            fileBytes += s.file->source().size();
    addField(tr("Opened as"), openedAs(c));
    addField(tr("Folder"), QDir::toNativeSeparators(QString::fromStdString(c.folder())));
    addField(tr("Files"), tr("%1 (%2)").arg(TextFormat::count(c.shards().size()), TextFormat::byteSize(fileBytes)));
    addField(tr("Architecture"), arch);
    addField(tr("Model type"), configText(c, {"model_type"}));
    addField(tr("Dtype (config)"), configText(c, {"torch_dtype", "dtype"}));
    addField(tr("Layers"), configText(c, {"num_hidden_layers", "n_layer", "num_layers"}));
    addField(tr("Hidden size"), configText(c, {"hidden_size", "n_embd", "d_model"}));
    addField(tr("Attention heads"), configText(c, {"num_attention_heads", "n_head"}));
    addField(tr("Key/value heads"), configText(c, {"num_key_value_heads"}));
    addField(tr("Feed-forward size"), configText(c, {"intermediate_size", "n_inner"}));
    addField(tr("Experts"), configText(c, {"num_local_experts", "num_experts"}));
    addField(tr("Vocabulary"), configText(c, {"vocab_size"}));
    addField(tr("Context length"), configText(c, {"max_position_embeddings", "n_positions"}));
    addField(tr("Tensors"), TextFormat::count(c.tensors().size()));
    addField(tr("Parameters"), TextFormat::count(c.parameterCount()));
    addField(tr("Tensor bytes"), TextFormat::byteSize(c.tensorBytes()));
    if (!c.configProblem().empty())
        addField(tr("config.json"), QString::fromStdString(c.configProblem()));
    addMemoryFields(c);

    std::map<std::string, double> bytesByDtype;
    for (const Checkpoint::TensorRef &t : c.tensors())
        bytesByDtype[std::string(gguf::st::dtypeName(t.entry->dtype))] += static_cast<double>(t.entry->bytes());
    QVector<TypeMixPlot::Bar> bars;
    for (const auto &[name, bytes] : bytesByDtype)
        bars.push_back({QString::fromStdString(name), bytes});
    m_plot->setBars(bars, tr("no tensors"));

    const bool several = c.shards().size() > 1;
    QString verdict = c.referenceAccepts()
                          ? (several ? tr("The safetensors library would load every shard of this checkpoint.")
                                     : tr("The safetensors library would load this file."))
                          : (several ? tr("The safetensors library would refuse this checkpoint.")
                                     : tr("The safetensors library would refuse this file."));
    const auto addFinding = [&](const gguf::Finding &f, const std::string &file) {
        auto *item = new QTreeWidgetItem(m_findings);
        item->setText(0, severityText(f.severity));
        item->setText(1, QFileInfo(QString::fromStdString(file)).fileName());
        item->setText(2, TextFormat::offsetAndDecimal(f.offset));
        item->setText(3, QString::fromStdString(f.code));
        item->setText(4, QString::fromStdString(f.message));
    };
    for (const Checkpoint::FileFinding &f : c.findings())
        addFinding(f.finding, f.file);
    for (const Checkpoint::Shard &s : c.shards()) {
        if (!s.file) {
            gguf::Finding missing{gguf::Severity::Error, "shard_unreadable", s.error.offset, s.error.message};
            addFinding(missing, s.path);
            continue;
        }
        for (const gguf::Finding &f : s.file->findings())
            addFinding(f, s.path);
    }
    if (m_findings->topLevelItemCount() == 0)
        verdict += QLatin1Char(' ') + tr("No findings.");
    m_verdict->setText(verdict);
    const QColor color = c.referenceAccepts() ? palette().color(QPalette::WindowText) : QColor(0xc0, 0x20, 0x20);
    m_verdict->setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(color.name()));
    for (int i = 0; i < 4; ++i)
        m_findings->resizeColumnToContents(i);
}

QString CheckpointOverview::fieldText(const QString &label) const
{
    const auto *value = findChild<QLabel *>(label);
    return value ? value->text() : QString();
}

QString CheckpointOverview::verdictText() const
{
    return m_verdict->text();
}

int CheckpointOverview::findingCount() const
{
    return m_findings->topLevelItemCount();
}
