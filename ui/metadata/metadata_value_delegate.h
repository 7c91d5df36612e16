// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

/// Editors for the Metadata tree's value column: named choices for enums (`general.file_type`,
/// the elements of `tokenizer.ggml.token_type`, pooling and rope scaling types …) and for bools,
/// a line edit for the rest. An edit the model refuses is reported by editRefused().
class MetadataValueDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override;

    /// The named choices of the item's enum: (value, "NAME (value)"); empty when it has none.
    static QList<QPair<qint64, QString>> choices(const QModelIndex &index);

signals:
    /// The model refused an edit (a value out of range, a key that cannot change …).
    void editRefused(const QString &why) const;
};
