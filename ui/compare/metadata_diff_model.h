// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/compare/metadata_diff.h"

#include <QAbstractItemModel>
#include <QSortFilterProxyModel>

#include <memory>

namespace gguf {
class SplitModel;
}

/// The keys of two models' metadata side by side (core compareMetadata): one row per key with its
/// status, type and both values; a changed array has one child row per listed differing element.
/// Both models are kept alive by the model.
class MetadataDiffModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column : uint8_t { Key, Status, Type, ValueA, ValueB, ColumnCount };
    enum Role { StatusRole = Qt::UserRole + 1, EntryRole };

    explicit MetadataDiffModel(QObject *parent = nullptr);

    /// Shows `diff` of `a` and `b` (null models clear it).
    void setDiff(std::shared_ptr<const gguf::SplitModel> a, std::shared_ptr<const gguf::SplitModel> b,
                 gguf::MetadataDiff diff);
    const gguf::MetadataDiff &diff() const { return m_diff; }
    /// The entry of a top-level row, or of the key a child row belongs to; nullptr when none.
    const gguf::MetadataDifference *entryAt(const QModelIndex &index) const;
    /// The top-level row of `key`; invalid when absent.
    QModelIndex indexOfKey(const QString &key) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    /// "same", "added", "removed", "changed", "type changed".
    static QString statusText(const gguf::MetadataDifference &d);

private:
    QVariant entryData(const gguf::MetadataDifference &d, int column, int role) const;

    std::shared_ptr<const gguf::SplitModel> m_a, m_b;
    gguf::MetadataDiff m_diff;
};

/// Filters the rows of a MetadataDiffModel by status and key text; a key's child rows (an array's
/// differing elements) go with it.
class MetadataDiffProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    /// What to show, in the order of the Compare page's "Show" list.
    enum Show { Differences, All, Added, Removed, Changed, Same };

    using QSortFilterProxyModel::QSortFilterProxyModel;
    /// Shows the keys of `show` (a Show) whose key contains `text` (any case).
    void setFilter(int show, const QString &text);

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override;

private:
    int m_show = Differences;
    QString m_text;
};
