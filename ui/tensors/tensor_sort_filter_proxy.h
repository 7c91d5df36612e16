// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QRegularExpression>
#include <QSortFilterProxyModel>

/// Sorting and filtering for TensorTableModel: sorts every column by its raw SortRole value
/// (names in natural order: blk.2 before blk.10), filters tensors by a substring or a regular
/// expression matched against the name and the type, and sums the rows that are visible.
class TensorSortFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    enum class Syntax { Substring, RegularExpression };
    /// What the visible tensors add up to.
    struct Totals {
        int tensors = 0;
        quint64 elements = 0;
        quint64 bytes = 0;
    };

    explicit TensorSortFilterProxy(QObject *parent = nullptr);

    /// Sets the filter; returns false (and keeps showing everything) for an invalid regular
    /// expression, whose error errorString() then describes.
    bool setFilter(const QString &pattern, Syntax syntax);
    QString errorString() const { return m_error; }
    /// Sums of the visible tensors (group rows are not counted themselves).
    Totals visibleTotals() const;

    /// A layer group's row counts what the filter shows: "1 of 9 tensors", and the elements, bytes and
    /// bits per weight of the visible ones (the source model counts every tensor of the layer).
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    /// Natural order for names: runs of digits compare as numbers.
    static int compareNatural(const QString &a, const QString &b);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_pattern;
    Syntax m_syntax = Syntax::Substring;
    QRegularExpression m_regex;
    QString m_error;
    /// A filtered layer group's rows shown, of all, and what they add up to (by source row).
    struct GroupTotals {
        int shown = 0, all = 0;
        quint64 elements = 0, bytes = 0;
    };
    mutable QHash<int, GroupTotals> m_groupTotals;
};
