// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_metadata.h"

#include "core/safetensors/checkpoint.h"
#include "ui/common/text_format.h"

#include <QFileInfo>
#include <QHeaderView>
#include <QLineEdit>
#include <QTreeWidget>
#include <QVBoxLayout>

using gguf::json::Value;
using gguf::st::Checkpoint;

namespace {

QString kindName(Value::Kind kind)
{
    switch (kind) {
    case Value::Kind::Null: return QStringLiteral("null");
    case Value::Kind::Bool: return QStringLiteral("bool");
    case Value::Kind::Number: return QStringLiteral("number");
    case Value::Kind::String: return QStringLiteral("string");
    case Value::Kind::Array: return QStringLiteral("array");
    case Value::Kind::Object: return QStringLiteral("object");
    }
    return {};
}

QString valueText(const Value &v)
{
    switch (v.kind) {
    case Value::Kind::Null: return QStringLiteral("null");
    case Value::Kind::Bool: return v.boolean ? QStringLiteral("true") : QStringLiteral("false");
    case Value::Kind::Number: return QString::fromStdString(v.text);
    case Value::Kind::String: return QString::fromStdString(v.text);
    case Value::Kind::Array: return CheckpointMetadata::tr("%n element(s)", nullptr, static_cast<int>(v.values.size()));
    case Value::Kind::Object: return CheckpointMetadata::tr("%n key(s)", nullptr, static_cast<int>(v.values.size()));
    }
    return {};
}

// `v` under `parent` as key → value rows, objects and arrays opened up (arrays of more than 64
// scalars are summarised, as the GGUF metadata page does with long arrays).
void addJson(QTreeWidgetItem *parent, const QString &key, const Value &v, uint64_t offset)
{
    auto *item = new QTreeWidgetItem(parent, {key, kindName(v.kind), valueText(v), TextFormat::offset(offset)});
    if (v.kind == Value::Kind::Object) {
        for (size_t i = 0; i < v.values.size(); ++i)
            addJson(item, QString::fromStdString(v.keys[i].first), v.values[i], v.keys[i].second);
    } else if (v.kind == Value::Kind::Array) {
        const bool scalars = std::all_of(v.values.begin(), v.values.end(), [](const Value &e) {
            return e.kind != Value::Kind::Object && e.kind != Value::Kind::Array;
        });
        if (scalars && v.values.size() > 64) {
            QStringList head;
            for (size_t i = 0; i < 16; ++i)
                head << valueText(v.values[i]);
            item->setText(2, QStringLiteral("[%1, …] (%2)").arg(head.join(QStringLiteral(", ")), valueText(v)));
            return;
        }
        for (size_t i = 0; i < v.values.size(); ++i)
            addJson(item, QStringLiteral("[%1]").arg(i), v.values[i], v.values[i].begin);
    }
}

bool filterItem(QTreeWidgetItem *item, const QString &text)
{
    bool any = false;
    for (int i = 0; i < item->childCount(); ++i)
        any = filterItem(item->child(i), text) || any;
    const bool self = text.isEmpty() || item->text(0).contains(text, Qt::CaseInsensitive) ||
                      item->text(2).contains(text, Qt::CaseInsensitive);
    item->setHidden(!(self || any));
    return self || any;
}

} // namespace

CheckpointMetadata::CheckpointMetadata(QWidget *parent)
    : QWidget(parent), m_filter(new QLineEdit(this)), m_tree(new QTreeWidget(this))
{
    m_filter->setPlaceholderText(tr("Filter keys and values"));
    m_filter->setClearButtonEnabled(true);
    m_tree->setColumnCount(4);
    m_tree->setHeaderLabels({tr("Key"), tr("Type"), tr("Value"), tr("Offset")});
    m_tree->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    m_tree->header()->setStretchLastSection(false);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_filter);
    layout->addWidget(m_tree, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &CheckpointMetadata::setFilter);
}

void CheckpointMetadata::setCheckpoint(const std::shared_ptr<const Checkpoint> &checkpoint)
{
    m_tree->clear();
    if (!checkpoint)
        return;
    const Checkpoint &c = *checkpoint;
    if (const Value *config = c.config()) {
        addJson(m_tree->invisibleRootItem(), QStringLiteral("config.json"), *config, config->begin);
        m_tree->topLevelItem(0)->setExpanded(true);
    } else {
        auto *none =
            new QTreeWidgetItem(m_tree, {QStringLiteral("config.json"), QString(),
                                         c.configProblem().empty() ? tr("none beside the checkpoint")
                                                                   : QString::fromStdString(c.configProblem())});
        none->setDisabled(true);
    }
    for (const Checkpoint::Shard &s : c.shards()) {
        const QString name = QFileInfo(QString::fromStdString(s.path)).fileName();
        auto *shard = new QTreeWidgetItem(m_tree, {name + QStringLiteral(" __metadata__"), QStringLiteral("object")});
        if (!s.file) {
            shard->setText(2, QString::fromStdString(s.error.message));
            continue;
        }
        shard->setText(2, tr("%n key(s)", nullptr, static_cast<int>(s.file->metadata().size())));
        for (const gguf::st::MetadataItem &m : s.file->metadata())
            new QTreeWidgetItem(shard, {QString::fromStdString(m.key), QStringLiteral("string"),
                                        QString::fromStdString(m.value), TextFormat::offset(m.offset)});
        shard->setExpanded(true);
    }
    for (int i = 0; i < 4; i += 3)
        m_tree->resizeColumnToContents(i);
    setFilter(m_filter->text());
}

void CheckpointMetadata::setFilter(const QString &text)
{
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i)
        filterItem(m_tree->topLevelItem(i), text);
}
