// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/tensor_diff_model.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "ui/common/diff_colors.h"
#include "ui/common/text_format.h"

#include <QLocale>

#include <cmath>

namespace {

using gguf::TensorDiffStatus;

QString tensorTypeText(const gguf::TensorInfo *t)
{
    return t ? QString::fromStdString(gguf::typeName(t->typeId)) : QString();
}

QString measureText(double v, int column)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    if (column == TensorDiffModel::Cosine)
        return QLocale().toString(v, 'f', 6);
    if (column == TensorDiffModel::SnrDb)
        return QLocale().toString(v, 'f', 2);
    return QLocale().toString(v, 'g', 4);
}

bool isDifference(TensorDiffStatus s)
{
    return s != TensorDiffStatus::SameBytes && s != TensorDiffStatus::SameValues;
}

} // namespace

TensorDiffModel::TensorDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void TensorDiffModel::setPairs(std::shared_ptr<const gguf::SplitModel> a, std::shared_ptr<const gguf::SplitModel> b,
                               std::vector<gguf::TensorPair> pairs)
{
    beginResetModel();
    m_a = std::move(a);
    m_b = std::move(b);
    m_pairs = std::move(pairs);
    endResetModel();
}

void TensorDiffModel::updatePairs(const std::vector<int> &rows, const std::vector<gguf::TensorPair> &pairs)
{
    int first = -1, last = -1;
    for (size_t i = 0; i < rows.size() && i < pairs.size(); ++i) {
        const int row = rows[i];
        if (row < 0 || static_cast<size_t>(row) >= m_pairs.size())
            continue;
        m_pairs[static_cast<size_t>(row)] = pairs[i];
        first = first < 0 ? row : std::min(first, row);
        last = std::max(last, row);
    }
    if (first >= 0)
        emit dataChanged(index(first, 0), index(last, ColumnCount - 1));
}

const gguf::TensorPair *TensorDiffModel::pairAt(int row) const
{
    return row >= 0 && static_cast<size_t>(row) < m_pairs.size() ? &m_pairs[static_cast<size_t>(row)] : nullptr;
}

int TensorDiffModel::rowOfName(const QString &name) const
{
    const QByteArray utf8 = name.toUtf8();
    for (size_t i = 0; i < m_pairs.size(); ++i)
        if (m_pairs[i].name == std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())))
            return static_cast<int>(i);
    return -1;
}

std::optional<double> TensorDiffModel::measure(const gguf::TensorPair &p, int column)
{
    const std::optional<gguf::DiffMeasures> m = p.measures();
    if (!m)
        return std::nullopt;
    switch (column) {
    case Rmse: return m->rmse;
    case MaxAbs: return m->maxAbs;
    case MeanAbsRel: return m->meanAbsRelative;
    case Cosine: return m->cosine;
    case SnrDb: return m->snrDb;
    case RelL2: return m->relativeL2;
    default: return std::nullopt;
    }
}

QString TensorDiffModel::statusText(TensorDiffStatus status)
{
    switch (status) {
    case TensorDiffStatus::NotCompared: return tr("not compared");
    case TensorDiffStatus::SameBytes: return tr("same bytes");
    case TensorDiffStatus::SameValues: return tr("same values");
    case TensorDiffStatus::Changed: return tr("changed");
    case TensorDiffStatus::TypeChanged: return tr("type changed");
    case TensorDiffStatus::ShapeChanged: return tr("shape changed");
    case TensorDiffStatus::OnlyA: return tr("only in A");
    case TensorDiffStatus::OnlyB: return tr("only in B");
    }
    return {};
}

int TensorDiffModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_pairs.size());
}

int TensorDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TensorDiffModel::data(const QModelIndex &index, int role) const
{
    const gguf::TensorPair *p = pairAt(index.row());
    if (!p)
        return {};
    const int column = index.column();
    if (role == StatusRole)
        return static_cast<int>(p->status);
    if (role == Qt::TextAlignmentRole && column >= Rmse)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::BackgroundRole && column == Status) {
        switch (p->status) {
        case TensorDiffStatus::SameBytes:
        case TensorDiffStatus::SameValues: return DiffColors::background(DiffColors::Shade::Green);
        case TensorDiffStatus::NotCompared: return {};
        case TensorDiffStatus::OnlyA:
        case TensorDiffStatus::OnlyB:
        case TensorDiffStatus::ShapeChanged: return DiffColors::background(DiffColors::Shade::Red);
        default: return DiffColors::background(DiffColors::Shade::Yellow);
        }
    }
    if (role == Qt::ToolTipRole && column == Status && !p->problem.empty())
        return QString::fromStdString(p->problem);
    if (role == SortRole) {
        switch (column) {
        case Name: return TextFormat::fromView(p->name);
        case Status: return static_cast<int>(p->status);
        case TypeA: return tensorTypeText(p->a);
        case TypeB: return tensorTypeText(p->b);
        case Shape: return static_cast<qulonglong>(p->a ? p->a->elements : p->b->elements);
        default: {
            const std::optional<double> m = measure(*p, column);
            return m && !std::isnan(*m) ? QVariant(*m) : QVariant();
        }
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case Name: return TextFormat::fromView(p->name);
    case Status: return statusText(p->status);
    case TypeA: return tensorTypeText(p->a);
    case TypeB: return tensorTypeText(p->b);
    case Shape: {
        const QString da = p->a ? TextFormat::dims(*p->a) : QString(), db = p->b ? TextFormat::dims(*p->b) : QString();
        return !p->a ? db : !p->b || da == db ? da : da + QStringLiteral(" → ") + db;
    }
    default: {
        const std::optional<double> m = measure(*p, column);
        return m ? measureText(*m, column) : QString();
    }
    }
}

QVariant TensorDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case Rmse: return tr("Root mean square of a − b");
        case MaxAbs: return tr("Largest |a − b|");
        case MeanAbsRel: return tr("Mean |a − b| divided by mean |a|");
        case Cosine: return tr("Cosine similarity of a and b as vectors");
        case SnrDb: return tr("Signal-to-noise ratio: 10·log10(Σa² / Σ(a − b)²)");
        case RelL2: return tr("Relative L2 error ‖a − b‖ / ‖a‖");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name: return tr("Tensor");
    case Status: return tr("Status");
    case TypeA: return tr("Type A");
    case TypeB: return tr("Type B");
    case Shape: return tr("Shape");
    case Rmse: return tr("RMSE");
    case MaxAbs: return tr("max |a−b|");
    case MeanAbsRel: return tr("mean |a−b| / mean |a|");
    case Cosine: return tr("Cosine");
    case SnrDb: return tr("SNR dB");
    case RelL2: return tr("Rel. L2");
    default: return {};
    }
}

TensorDiffProxy::TensorDiffProxy(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(TensorDiffModel::SortRole);
}

void TensorDiffProxy::setNameFilter(const QString &text)
{
    m_name = text;
    invalidateRowsFilter();
}

void TensorDiffProxy::setDifferencesOnly(bool only)
{
    m_differencesOnly = only;
    invalidateRowsFilter();
}

bool TensorDiffProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex i = sourceModel()->index(sourceRow, TensorDiffModel::Name, sourceParent);
    if (m_differencesOnly && !isDifference(static_cast<TensorDiffStatus>(i.data(TensorDiffModel::StatusRole).toInt())))
        return false;
    return m_name.isEmpty() || i.data().toString().contains(m_name, Qt::CaseInsensitive);
}

bool TensorDiffProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const QVariant l = left.data(sortRole()), r = right.data(sortRole());
    if (!l.isValid() || !r.isValid()) {
        // unmeasured rows last, whichever way the column is sorted
        if (l.isValid() == r.isValid())
            return left.row() < right.row();
        return sortOrder() == Qt::AscendingOrder ? l.isValid() : r.isValid();
    }
    return QSortFilterProxyModel::lessThan(left, right);
}
