// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/overview/overview_page.h"

#include "core/format/ggml_types.h"
#include "core/format/model_summary.h"
#include "core/format/split_model.h"
#include "core/kind/file_kind.h"
#include "core/memory/kv_estimate.h"
#include "core/vocab/well_known_keys.h"
#include "ui/common/damage_text.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"
#include "ui/overview/kind_panel.h"
#include "ui/overview/memory_panel.h"
#include "ui/plots/type_mix_plot.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace {

// where a finding's item keeps its shard (column 0) and byte offset (column 1)
constexpr int kShardRole = Qt::UserRole + 1;

QString count(std::optional<uint64_t> value)
{
    return value ? QLocale().toString(static_cast<quint64>(*value)) : QStringLiteral("—");
}

// 8912896 → "8.91 M (8,912,896)"
QString parameters(uint64_t n)
{
    static const char *const suffixes[] = {"", " K", " M", " B", " T"};
    double value = static_cast<double>(n);
    int s = 0;
    while (s < 4 && value >= 1000) {
        value /= 1000;
        ++s;
    }
    if (s == 0)
        return QLocale().toString(static_cast<quint64>(n));
    return QStringLiteral("%1%2 (%3)")
        .arg(QLocale().toString(value, 'f', 2), QLatin1String(suffixes[s]),
             QLocale().toString(static_cast<quint64>(n)));
}

QString severityText(gguf::Severity severity)
{
    switch (severity) {
    case gguf::Severity::Info: return OverviewPage::tr("info");
    case gguf::Severity::Warning: return OverviewPage::tr("warning");
    case gguf::Severity::Error: return OverviewPage::tr("refusal");
    }
    return {};
}

} // namespace

OverviewPage::OverviewPage(QWidget *parent)
    : Page(parent), m_title(new QLabel(this)), m_verdict(new QLabel(this)), m_plot(new TypeMixPlot(this)),
      m_findings(new QTreeWidget(this)),
      m_noFindings(new QLabel(tr("No findings: nothing unusual in this file."), this)), m_memory(new MemoryPanel(this)),
      m_kindPanel(new KindPanel(this)), m_kindJob(new JobTracker(this))
{
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.5);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *fileBox = new QGroupBox(tr("File"), this);
    auto *modelBox = new QGroupBox(tr("Model"), this);
    createFields(new QFormLayout(fileBox), new QFormLayout(modelBox));

    auto *chartBox = new QGroupBox(tr("Tensor types (bytes per type)"), this);
    auto *chartLayout = new QVBoxLayout(chartBox);
    chartLayout->addWidget(m_plot);

    QGroupBox *validationBox = createValidationBox();

    auto *content = new QWidget(this);
    auto *grid = new QGridLayout(content);
    grid->addWidget(m_title, 0, 0, 1, 2);
    grid->addWidget(modelBox, 1, 0);
    grid->addWidget(fileBox, 1, 1);
    grid->addWidget(chartBox, 2, 0);
    grid->addWidget(validationBox, 2, 1);
    grid->addWidget(m_kindPanel, 3, 0, 1, 2);
    grid->addWidget(m_memory, 4, 0, 1, 2);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    grid->setRowStretch(2, 1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);
    setModel(nullptr);
}

void OverviewPage::createFields(QFormLayout *fileForm, QFormLayout *modelForm)
{
    static const char *const titles[] = {
        QT_TR_NOOP("Kind:"),
        QT_TR_NOOP("Name:"),
        QT_TR_NOOP("Architecture:"),
        QT_TR_NOOP("Path:"),
        QT_TR_NOOP("File size:"),
        QT_TR_NOOP("Files:"),
        QT_TR_NOOP("GGUF version:"),
        QT_TR_NOOP("Byte order:"),
        QT_TR_NOOP("Header layout:"),
        QT_TR_NOOP("Alignment:"),
        QT_TR_NOOP("Data offset:"),
        QT_TR_NOOP("Metadata pairs:"),
        QT_TR_NOOP("Tensors:"),
        QT_TR_NOOP("File type:"),
        QT_TR_NOOP("Parameters:"),
        QT_TR_NOOP("Bits per weight:"),
        QT_TR_NOOP("Layers:"),
        QT_TR_NOOP("Context length:"),
        QT_TR_NOOP("Embedding length:"),
        QT_TR_NOOP("Attention heads:"),
        QT_TR_NOOP("Feed-forward length:"),
        QT_TR_NOOP("Vocabulary size:"),
    };
    static_assert(std::size(titles) == static_cast<size_t>(Field::Count));
    for (size_t i = 0; i < m_fields.size(); ++i) {
        auto *label = new QLabel(this);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->setWordWrap(i == static_cast<size_t>(Field::Path));
        m_fields[i] = label;
        const bool fileField = i >= static_cast<size_t>(Field::Path) && i <= static_cast<size_t>(Field::TensorCount);
        (fileField ? fileForm : modelForm)->addRow(tr(titles[i]), label);
    }
}

QGroupBox *OverviewPage::createValidationBox()
{
    m_findings->setColumnCount(4);
    m_findings->setHeaderLabels({tr("Severity"), tr("Offset"), tr("Code"), tr("Message")});
    m_findings->setRootIsDecorated(false);
    m_findings->setAlternatingRowColors(true);
    m_findings->setMinimumHeight(120);
    m_findings->setObjectName(QStringLiteral("findings"));
    connect(m_findings, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        const QVariant shard = item->data(0, kShardRole);
        if (shard.isValid())
            emit linkActivated(Link::bytes(shard.toInt(), item->data(1, kShardRole).value<quint64>(), 0));
    });
    m_findings->header()->setStretchLastSection(true);
    auto *validationBox = new QGroupBox(tr("Validation"), this);
    auto *validationLayout = new QVBoxLayout(validationBox);
    validationLayout->addWidget(m_verdict);
    validationLayout->addWidget(m_findings, 1);
    m_noFindings->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    validationLayout->addWidget(m_noFindings, 1);
    return validationBox;
}

void OverviewPage::setField(Field field, const QString &text)
{
    m_fields[static_cast<size_t>(field)]->setText(text);
}

QString OverviewPage::fieldText(Field field) const
{
    return m_fields[static_cast<size_t>(field)]->text();
}

QString OverviewPage::titleText() const
{
    return m_title->text();
}

QString OverviewPage::verdictText() const
{
    return m_verdict->text();
}

int OverviewPage::findingCount() const
{
    return m_findings->topLevelItemCount();
}

void OverviewPage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_model = std::move(model);
    m_kindJob->drop();
    m_kindShown = false;
    m_findings->clear();
    if (!m_model) {
        m_title->setText(tr("No file open"));
        for (QLabel *label : m_fields)
            label->clear();
        m_verdict->clear();
        m_plot->clear();
        m_findings->hide();
        m_noFindings->hide();
        m_memory->setModel(nullptr);
        m_kind = {};
        m_kindPanel->setReport(m_kind);
        return;
    }
    const gguf::ModelSummary summary = gguf::summarizeModel(*m_model);
    const QString kindTitle = showKind(m_model->primary());
    showFileFields(m_model->primary(), summary);
    showModelFields(m_model->primary(), summary);
    showVerdict(*m_model);
    showFindings(*m_model);
    showTypeMix(*m_model);
    m_memory->setModel(m_model);
    std::shared_ptr<const gguf::GgufFile> primary = m_model->primaryShared();
    m_kindJob->start(
        tr("Reading what this %1 holds").arg(kindTitle),
        [primary](const gguf::ProgressFn &) { return gguf::describeKind(*primary); },
        [this, primary](gguf::KindReport report) {
            m_kind = std::move(report);
            m_kindPanel->setReport(m_kind, primary);
            m_findings->clear();
            showFindings(*m_model);
            m_kindShown = true;
            emit kindShown();
        });
}

QString OverviewPage::showKind(const gguf::GgufFile &file)
{
    const std::string name = file.name();
    const std::string arch = file.architecture();
    // the kind from names now; its facts (an imatrix's counts are tensor data) on a worker
    m_kind = {};
    m_kind.kind = gguf::detectKind(file, &m_kind.why);
    m_kind.quantizedWith = gguf::quantizedWithImatrix(file);
    const QString kindTitle = QString::fromLatin1(gguf::fileKindTitle(m_kind.kind));
    const QString title = QString::fromStdString(name.empty() ? arch : name);
    m_title->setText(m_kind.kind == gguf::FileKind::Model
                         ? title
                         : tr("%1 — %2").arg(title.isEmpty() ? tr("unnamed") : title, kindTitle));
    QString kindText = tr("%1 (%2)").arg(kindTitle, QString::fromStdString(m_kind.why));
    if (m_kind.quantizedWith)
        kindText += tr("; quantized with the importance matrix %1")
                        .arg(QString::fromStdString(m_kind.quantizedWith->file.empty() ? std::string("(unnamed)")
                                                                                       : m_kind.quantizedWith->file));
    // a damaged file: what kind it is cannot be told from what was read before the break
    const bool damaged = file.breakage() != nullptr;
    if (damaged) {
        m_title->setText(tr("%1 — damaged").arg(title.isEmpty() ? tr("unnamed") : title));
        kindText = tr("unknown: the file is damaged (reading stopped in %1)").arg(DamageText::item(*file.breakage()));
    }
    setField(Field::Kind, kindText);
    m_kindPanel->setReport(m_kind);
    // a memory estimate is for models: an adapter, a projector or a control vector runs inside one
    m_memory->setVisible(!damaged &&
                         (m_kind.kind == gguf::FileKind::Model || m_kind.kind == gguf::FileKind::Vocabulary));
    setField(Field::Name, name.empty() ? QStringLiteral("—") : QString::fromStdString(name));
    setField(Field::Architecture, arch.empty() ? QStringLiteral("—") : QString::fromStdString(arch));
    return kindTitle;
}

void OverviewPage::showFileFields(const gguf::GgufFile &file, const gguf::ModelSummary &summary)
{
    setField(Field::Path, QString::fromStdString(file.path()));
    setField(Field::FileSize, tr("%1 (%2 bytes)")
                                  .arg(TextFormat::byteSize(summary.fileSize),
                                       QLocale().toString(static_cast<quint64>(summary.fileSize))));
    setField(Field::Shards, summary.shards.size() > 1
                                ? tr("%1 shards, %2 missing").arg(summary.shards.size()).arg(summary.missingShards)
                                : tr("single file"));
    setField(Field::Version, QString::number(file.version()));
    setField(Field::ByteOrder,
             file.byteOrder() == gguf::ByteOrder::Little
                 ? tr("little-endian")
                 : tr("big-endian (byte-swapped%1)").arg(file.swappedMagic() ? tr(", magic 'FUGG'") : QString()));
    setField(Field::HeaderLayout, file.headerLayout() == gguf::HeaderLayout::Plain
                                      ? tr("plain (as ggml writes it)")
                                      : tr("extended (alignment and data offset follow the counts)"));
    setField(Field::Alignment, QString::number(file.alignment()));
    const QLocale locale;
    if (file.breakage() == nullptr) {
        setField(Field::DataOffset, TextFormat::offsetAndDecimal(file.dataOffset()));
        setField(Field::MetadataCount, locale.toString(static_cast<qulonglong>(file.metadata().size())));
        setField(Field::TensorCount, locale.toString(static_cast<qulonglong>(summary.tensorCount)));
        return;
    }
    // damaged: the counts the header declares against the items read before the break
    setField(Field::DataOffset, file.tensorInfoEnd() != 0 ? TextFormat::offsetAndDecimal(file.dataOffset())
                                                          : tr("unknown (it follows the tensor infos)"));
    // (the counts themselves are read only when the header got that far)
    const bool counted = file.headerEnd() != 0;
    const auto readOf = [&locale, counted](size_t read, uint64_t declared) {
        return counted ? tr("%1 read of %2 declared")
                             .arg(locale.toString(static_cast<qulonglong>(read)),
                                  locale.toString(static_cast<qulonglong>(declared)))
                       : tr("not read");
    };
    setField(Field::MetadataCount, readOf(file.metadata().size(), file.declaredKvCount()));
    setField(Field::TensorCount, readOf(file.tensors().size(), file.declaredTensorCount()));
}

void OverviewPage::showModelFields(const gguf::GgufFile &file, const gguf::ModelSummary &summary)
{
    const auto fileType = summary.fileType;
    const auto fileTypeName = fileType ? gguf::fileTypeName(*fileType) : std::nullopt;
    setField(Field::FileType, !fileType      ? QStringLiteral("—")
                              : fileTypeName ? QStringLiteral("%1 (%2)").arg(*fileType).arg(QString::fromUtf8(
                                                   fileTypeName->data(), static_cast<qsizetype>(fileTypeName->size())))
                                             : tr("%1 (not a llama_ftype value)").arg(*fileType));
    const uint64_t params = summary.parameters;
    setField(Field::Parameters, parameters(params));
    setField(
        Field::BitsPerWeight,
        params ? QLocale().toString(static_cast<double>(summary.tensorBytes) * 8 / static_cast<double>(params), 'f', 2)
               : QStringLiteral("—"));
    setField(Field::Layers, summary.layerSource == gguf::ModelSummary::LayerSource::None ? QStringLiteral("—")
                                                                                         : count(summary.layers));
    setField(Field::ContextLength, count(file.contextLength()));
    setField(Field::EmbeddingLength, count(file.embeddingLength()));
    const auto heads = file.headCount();
    const auto kvHeads = file.headCountKv();
    setField(Field::Heads, !heads    ? QStringLiteral("—")
                           : kvHeads ? tr("%1 (%2 key/value)").arg(count(heads), count(kvHeads))
                                     : count(heads));
    setField(Field::FeedForwardLength, count(file.feedForwardLength()));
    setField(Field::VocabularySize, count(file.vocabSize()));
}

void OverviewPage::showVerdict(const gguf::SplitModel &model)
{
    const auto refusal = model.firstRefusal();
    const bool accepts = model.llamaCppAccepts();
    // what its model loader checks first (the layer counts) refuses even a file its reader accepts
    const std::string loadRefusal = accepts ? gguf::layerCountRefusal(model.primary()) : std::string();
    QString text;
    if (accepts && !loadRefusal.empty())
        text = tr("✘ llama.cpp's reader would accept this file, but: %1.").arg(QString::fromStdString(loadRefusal));
    else if (accepts)
        text = tr("✔ llama.cpp would accept this file.");
    else if (refusal && refusal->shard)
        text = tr("✘ llama.cpp would refuse this file: %1 (at byte %2)")
                   .arg(QString::fromStdString(refusal->finding.message))
                   .arg(refusal->finding.offset);
    else if (refusal)
        text = tr("✘ llama.cpp would refuse this model: %1").arg(QString::fromStdString(refusal->finding.message));
    else
        text = tr("✘ llama.cpp would refuse this model: a file could not be read completely.");
    m_verdict->setText(text);
    const QColor color = accepts && loadRefusal.empty() ? QColor(0x27, 0xae, 0x60) : QColor(0xda, 0x44, 0x53);
    m_verdict->setStyleSheet(QStringLiteral("QLabel { color: %1; font-weight: bold; }").arg(color.name()));
}

void OverviewPage::showFindings(const gguf::SplitModel &model)
{
    // what is wrong with a split set as a whole (a missing shard): why llama.cpp refuses it
    for (const gguf::Finding &finding : model.setFindings()) {
        auto *item = new QTreeWidgetItem(m_findings, {severityText(finding.severity), QString(),
                                                      QString::fromStdString(finding.code),
                                                      QString::fromStdString(finding.message)});
        item->setToolTip(3, item->text(3));
    }
    for (size_t s = 0; s < model.shards().size(); ++s) {
        const auto &shard = model.shards()[s];
        if (!shard.file)
            continue;
        for (const gguf::Finding &finding : shard.file->findings()) {
            const QString prefix = model.isSplit() ? tr("shard %1: ").arg(s + 1) : QString();
            auto *item = new QTreeWidgetItem(
                m_findings, {severityText(finding.severity), TextFormat::offset(finding.offset),
                             QString::fromStdString(finding.code), prefix + QString::fromStdString(finding.message)});
            item->setToolTip(3, item->text(3));
            // activated (double-click, Enter): the Bytes page at the finding's field
            item->setData(0, kShardRole, int(s));
            item->setData(1, kShardRole, QVariant::fromValue<quint64>(finding.offset));
            item->setToolTip(1, tr("Double-click to see these bytes"));
        }
    }
    // what the kind's own loader in llama.cpp would object to (docs/KINDS.md), the first 500
    constexpr size_t kListed = 500;
    for (size_t i = 0; i < m_kind.findings.size() && i < kListed; ++i) {
        const gguf::KindFinding &finding = m_kind.findings[i];
        auto *item = new QTreeWidgetItem(m_findings, {finding.refusal ? tr("refusal") : tr("info"), QString(),
                                                      QString::fromStdString(finding.code),
                                                      QString::fromStdString(finding.message)});
        item->setToolTip(3, item->text(3));
    }
    if (m_kind.findings.size() > kListed)
        new QTreeWidgetItem(
            m_findings, {tr("info"), QString(), QString(),
                         tr("… and %1 more (gguf-inspect info lists them all)").arg(m_kind.findings.size() - kListed)});
    for (int c = 0; c < 3; ++c)
        m_findings->resizeColumnToContents(c);
    m_findings->setVisible(m_findings->topLevelItemCount() > 0);
    m_noFindings->setVisible(m_findings->topLevelItemCount() == 0);
}

void OverviewPage::showTypeMix(const gguf::SplitModel &model)
{
    std::map<uint32_t, double> bytesPerType;
    for (const auto &t : model.tensors())
        bytesPerType[t.info->typeId] += static_cast<double>(t.info->byteSize);
    QVector<TypeMixPlot::Bar> bars;
    for (const auto &[type, bytes] : bytesPerType)
        bars.push_back({QString::fromStdString(gguf::typeName(type)), bytes});
    std::stable_sort(bars.begin(), bars.end(), [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
    const bool damaged = model.primary().breakage() != nullptr;
    m_plot->setBars(bars, damaged ? tr("No tensor infos were read: the file is damaged.") : QString());
}
