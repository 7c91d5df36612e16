// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/metadata/metadata_value_delegate.h"

#include "core/vocab/well_known_keys.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_tree_model.h"

#include <QComboBox>

namespace {

// Enum values are small: llama.cpp's file types run to the high 30s, the others to a handful.
constexpr qint64 kLowestEnum = -1, kHighestEnum = 127;

// The model's message for a refused edit (through the filter proxy the page puts in between).
QString refusalOf(const QAbstractItemModel *model)
{
    if (const auto *proxy = qobject_cast<const QSortFilterProxyModel *>(model))
        model = proxy->sourceModel();
    const auto *tree = qobject_cast<const MetadataTreeModel *>(model);
    return tree ? tree->lastEditError() : QString();
}

} // namespace

QList<QPair<qint64, QString>> MetadataValueDelegate::choices(const QModelIndex &index)
{
    QList<QPair<qint64, QString>> out;
    const std::string key = index.data(MetadataTreeModel::KeyRole).toString().toStdString();
    const bool element = index.data(MetadataTreeModel::ElementIndexRole).toLongLong() >= 0;
    const QString type = index.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString();
    if (type == QLatin1String("BOOL")) {
        out = {{0, QStringLiteral("false")}, {1, QStringLiteral("true")}};
        return out;
    }
    // token_type names belong to the array's elements; the other enums to scalar keys
    if (element != (key == "tokenizer.ggml.token_type"))
        return out;
    for (qint64 v = kLowestEnum; v <= kHighestEnum; ++v)
        if (const auto name = gguf::enumValueName(key, v))
            out.append({v, QStringLiteral("%1 (%2)").arg(QString::fromStdString(*name)).arg(v)});
    return out;
}

QWidget *MetadataValueDelegate::createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                                             const QModelIndex &index) const
{
    const auto named = choices(index);
    if (named.isEmpty())
        return QStyledItemDelegate::createEditor(parent, option, index);
    auto *combo = new QComboBox(parent);
    for (const auto &[value, text] : named)
        combo->addItem(text, value);
    // a value without a name is offered as it is, so that closing the editor never changes it
    const QString current = index.data(Qt::EditRole).toString();
    bool isNumber = false;
    const qint64 value = current.toLongLong(&isNumber);
    if (isNumber && combo->findData(value) < 0)
        combo->addItem(tr("%1 (no name)").arg(value), value);
    return combo;
}

void MetadataValueDelegate::setEditorData(QWidget *editor, const QModelIndex &index) const
{
    auto *combo = qobject_cast<QComboBox *>(editor);
    if (!combo) {
        QStyledItemDelegate::setEditorData(editor, index);
        return;
    }
    const QString current = index.data(Qt::EditRole).toString();
    const qint64 value = current == QLatin1String("true")    ? 1
                         : current == QLatin1String("false") ? 0
                                                             : current.toLongLong();
    combo->setCurrentIndex(std::max(0, combo->findData(value)));
}

void MetadataValueDelegate::setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const
{
    bool taken = true;
    if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        const bool isBool =
            index.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString() == QLatin1String("BOOL");
        const qint64 value = combo->currentData().toLongLong();
        taken =
            model->setData(index, isBool ? QString(value ? "true" : "false") : QString::number(value), Qt::EditRole);
    } else {
        const QVariant before = index.data(Qt::EditRole);
        QStyledItemDelegate::setModelData(editor, model, index);
        // QStyledItemDelegate ignores setData's answer: a refused edit leaves the value as it was
        taken = index.data(Qt::EditRole) != before || refusalOf(model).isEmpty();
    }
    if (!taken)
        emit editRefused(refusalOf(model));
}
