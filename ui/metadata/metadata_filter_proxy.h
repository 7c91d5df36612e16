// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

/// Filtering for MetadataTreeModel: a case-insensitive substring matched against key, type and
/// value; a matching group or array shows everything it holds, and the groups of matching keys
/// stay visible (recursive filtering). Lazy arrays are never fetched while a filter is applied.
class MetadataFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit MetadataFilterProxy(QObject *parent = nullptr);

    void setFilterText(const QString &text);
    QString filterText() const { return m_text; }

    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

private:
    QString m_text;
    // Set while the filter is re-applied: a fetch asked for by a slot connected to one of the
    // resulting signals would insert rows into the middle of that change.
    bool m_filtering = false;
};
