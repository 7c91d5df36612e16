// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tensors/tensor_sort_filter_proxy.h"

#include "ui/common/text_format.h"
#include "ui/tensors/tensor_table_model.h"

#include <QLocale>

TensorSortFilterProxy::TensorSortFilterProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TensorTableModel::SortRole);
    // A layer group stays visible while any of its tensors matches.
    setRecursiveFilteringEnabled(true);
    // the visible totals of a group are computed once per filter and model, not at each paint
    const auto forget = [this] { m_groupTotals.clear(); };
    connect(this, &QAbstractItemModel::modelReset, this, forget);
    connect(this, &QAbstractItemModel::layoutChanged, this, forget);
    connect(this, &QAbstractItemModel::rowsInserted, this, forget);
    connect(this, &QAbstractItemModel::rowsRemoved, this, forget);
}

bool TensorSortFilterProxy::setFilter(const QString &pattern, Syntax syntax)
{
    QRegularExpression regex;
    m_error.clear();
    if (syntax == Syntax::RegularExpression && !pattern.isEmpty()) {
        regex = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!regex.isValid()) {
            m_error = tr("Invalid regular expression at character %1: %2")
                          .arg(regex.patternErrorOffset())
                          .arg(regex.errorString());
            regex = QRegularExpression();
        }
    }
    const bool valid = m_error.isEmpty();
    m_pattern = valid ? pattern : QString();
    m_syntax = syntax;
    m_regex = regex;
    m_groupTotals.clear();
    invalidateFilter();
    return valid;
}

bool TensorSortFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_pattern.isEmpty())
        return true;
    const QModelIndex name = sourceModel()->index(sourceRow, TensorTableModel::NameColumn, sourceParent);
    // Groups are shown through their matching tensors (recursive filtering), never on their own.
    if (name.data(TensorTableModel::IsGroupRole).toBool())
        return false;
    const QString type = sourceModel()->index(sourceRow, TensorTableModel::TypeColumn, sourceParent).data().toString();
    const QString text = name.data().toString();
    if (m_syntax == Syntax::RegularExpression)
        return m_regex.match(text).hasMatch() || m_regex.match(type).hasMatch();
    return text.contains(m_pattern, Qt::CaseInsensitive) || type.compare(m_pattern, Qt::CaseInsensitive) == 0;
}

int TensorSortFilterProxy::compareNatural(const QString &a, const QString &b)
{
    // Own comparison rather than QCollator: the order must not depend on the locale or on ICU.
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            const qsizetype si = i, sj = j;
            while (i < a.size() && a[i].isDigit())
                ++i;
            while (j < b.size() && b[j].isDigit())
                ++j;
            // Compare the runs as numbers of any length: skip leading zeros, then length, then digits.
            QStringView x = QStringView(a).mid(si, i - si), y = QStringView(b).mid(sj, j - sj);
            while (x.size() > 1 && x.front() == u'0')
                x = x.mid(1);
            while (y.size() > 1 && y.front() == u'0')
                y = y.mid(1);
            if (x.size() != y.size())
                return x.size() < y.size() ? -1 : 1;
            if (const int c = x.compare(y))
                return c < 0 ? -1 : 1;
            continue;
        }
        const QChar ca = a[i].toCaseFolded(), cb = b[j].toCaseFolded();
        if (ca != cb)
            return ca < cb ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size() || j < b.size())
        return i < a.size() ? 1 : -1;
    const int exact = QString::compare(a, b);
    return exact < 0 ? -1 : exact > 0 ? 1 : 0;
}

namespace {

int compareVariants(const QVariant &l, const QVariant &r)
{
    if (l.typeId() == QMetaType::QVariantList && r.typeId() == QMetaType::QVariantList) {
        const QVariantList a = l.toList(), b = r.toList();
        for (qsizetype i = 0; i < std::min(a.size(), b.size()); ++i)
            if (const int c = compareVariants(a[i], b[i]))
                return c;
        return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
    }
    if (l.typeId() == QMetaType::QString || r.typeId() == QMetaType::QString)
        return TensorSortFilterProxy::compareNatural(l.toString(), r.toString());
    if (l.typeId() == QMetaType::Double || r.typeId() == QMetaType::Double) {
        const double a = l.toDouble(), b = r.toDouble();
        return a < b ? -1 : a > b ? 1 : 0;
    }
    if (l.typeId() == QMetaType::ULongLong || r.typeId() == QMetaType::ULongLong) {
        const quint64 a = l.toULongLong(), b = r.toULongLong();
        return a < b ? -1 : a > b ? 1 : 0;
    }
    const qint64 a = l.toLongLong(), b = r.toLongLong();
    return a < b ? -1 : a > b ? 1 : 0;
}

} // namespace

bool TensorSortFilterProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (const auto *table = qobject_cast<const TensorTableModel *>(sourceModel());
        table && sortRole() == TensorTableModel::SortRole)
        if (const std::optional<bool> fast = table->tensorLessThan(left, right))
            return *fast;
    const int order = compareVariants(left.data(sortRole()), right.data(sortRole()));
    if (order != 0)
        return order < 0;
    // Equal keys keep file order, so a sort is stable and repeatable.
    return left.data(TensorTableModel::TensorRole).toInt() < right.data(TensorTableModel::TensorRole).toInt();
}

QVariant TensorSortFilterProxy::data(const QModelIndex &index, int role) const
{
    const QVariant whole = QSortFilterProxyModel::data(index, role);
    if (role != Qt::DisplayRole || !index.isValid() || index.parent().isValid() ||
        !QSortFilterProxyModel::data(index, TensorTableModel::IsGroupRole).toBool())
        return whole;
    const QModelIndex group = index.siblingAtColumn(0);
    const int sourceRow = mapToSource(group).row();
    auto cached = m_groupTotals.constFind(sourceRow);
    if (cached == m_groupTotals.constEnd()) {
        GroupTotals t;
        t.shown = rowCount(group);
        t.all = sourceModel()->rowCount(mapToSource(group));
        for (int row = 0; t.shown != t.all && row < t.shown; ++row) {
            const QModelIndex child = this->index(row, 0, group);
            t.elements += child.data(TensorTableModel::ElementsRole).toULongLong();
            t.bytes += child.data(TensorTableModel::BytesRole).toULongLong();
        }
        cached = m_groupTotals.insert(sourceRow, t);
    }
    const GroupTotals &t = *cached;
    if (t.shown == t.all)
        return whole;
    switch (index.column()) {
    case TensorTableModel::ShapeColumn: return tr("%1 of %2 tensors").arg(t.shown).arg(t.all);
    case TensorTableModel::ElementsColumn: return QLocale().toString(t.elements);
    case TensorTableModel::BytesColumn: return TextFormat::byteSize(t.bytes);
    case TensorTableModel::BitsPerWeightColumn:
        return t.elements ? QString::number(8.0 * double(t.bytes) / double(t.elements), 'f', 2) : QString();
    default: return whole;
    }
}

TensorSortFilterProxy::Totals TensorSortFilterProxy::visibleTotals() const
{
    Totals totals;
    const auto add = [&totals](const QModelIndex &index) {
        ++totals.tensors;
        totals.elements += index.data(TensorTableModel::ElementsRole).toULongLong();
        totals.bytes += index.data(TensorTableModel::BytesRole).toULongLong();
    };
    for (int row = 0; row < rowCount(); ++row) {
        const QModelIndex top = index(row, 0);
        if (top.data(TensorTableModel::BrokenRole).toBool())
            continue; // a damaged file's broken tensor info is not a tensor
        if (!top.data(TensorTableModel::IsGroupRole).toBool()) {
            add(top);
            continue;
        }
        for (int child = 0; child < rowCount(top); ++child)
            add(index(child, 0, top));
    }
    return totals;
}
