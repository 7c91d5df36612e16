// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/metadata_diff_model.h"

#include "core/format/split_model.h"
#include "ui/common/diff_colors.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"

namespace {

// Child rows carry their parent's row + 1 in the internal id; top-level rows carry 0.
constexpr quintptr kTopLevel = 0;

} // namespace

MetadataDiffModel::MetadataDiffModel(QObject *parent) : QAbstractItemModel(parent) {}

void MetadataDiffModel::setDiff(std::shared_ptr<const gguf::SplitModel> a, std::shared_ptr<const gguf::SplitModel> b,
                                gguf::MetadataDiff diff)
{
    beginResetModel();
    m_a = std::move(a);
    m_b = std::move(b);
    m_diff = m_a && m_b ? std::move(diff) : gguf::MetadataDiff{};
    endResetModel();
}

const gguf::MetadataDifference *MetadataDiffModel::entryAt(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    const size_t row = index.internalId() == kTopLevel ? static_cast<size_t>(index.row())
                                                       : static_cast<size_t>(index.internalId() - 1);
    return row < m_diff.entries.size() ? &m_diff.entries[row] : nullptr;
}

QModelIndex MetadataDiffModel::indexOfKey(const QString &key) const
{
    const QByteArray utf8 = key.toUtf8();
    for (size_t i = 0; i < m_diff.entries.size(); ++i)
        if (m_diff.entries[i].key == std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())))
            return index(static_cast<int>(i), 0);
    return {};
}

QModelIndex MetadataDiffModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount || row >= rowCount(parent))
        return {};
    return createIndex(row, column, parent.isValid() ? static_cast<quintptr>(parent.row()) + 1 : kTopLevel);
}

QModelIndex MetadataDiffModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kTopLevel)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int MetadataDiffModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return static_cast<int>(m_diff.entries.size());
    if (parent.internalId() != kTopLevel || parent.column() != 0)
        return 0;
    const gguf::MetadataDifference *d = entryAt(parent);
    return d ? static_cast<int>(d->firstDifferences.size()) : 0;
}

int MetadataDiffModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QString MetadataDiffModel::statusText(const gguf::MetadataDifference &d)
{
    if (d.status == gguf::DiffStatus::Changed && d.typeChanged)
        return tr("type changed");
    switch (d.status) {
    case gguf::DiffStatus::Same: return tr("same");
    case gguf::DiffStatus::Added: return tr("added");
    case gguf::DiffStatus::Removed: return tr("removed");
    case gguf::DiffStatus::Changed: return tr("changed");
    }
    return {};
}

QVariant MetadataDiffModel::entryData(const gguf::MetadataDifference &d, int column, int role) const
{
    const auto valueText = [&](const gguf::MetadataEntry *e, int maxChars) {
        return e ? ValueText::display(e->value, d.key, false, nullptr, maxChars) : QString();
    };
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Key: return TextFormat::fromView(d.key);
        case Status: {
            QString text = statusText(d);
            if (d.differingElements > 0)
                text += tr(" (%1 elements)").arg(TextFormat::count(d.differingElements));
            return text;
        }
        case Type: {
            const QString ta = d.a ? ValueText::typeName(d.a->value) : QString();
            const QString tb = d.b ? ValueText::typeName(d.b->value) : QString();
            return !d.a ? tb : !d.b || ta == tb ? ta : ta + QStringLiteral(" → ") + tb;
        }
        case ValueA: return valueText(d.a, 120);
        case ValueB: return valueText(d.b, 120);
        default: return {};
        }
    }
    if (role == Qt::ToolTipRole && (column == ValueA || column == ValueB))
        return valueText(column == ValueA ? d.a : d.b, 2000);
    return {};
}

QVariant MetadataDiffModel::data(const QModelIndex &index, int role) const
{
    const gguf::MetadataDifference *d = entryAt(index);
    if (!d)
        return {};
    if (role == StatusRole)
        return static_cast<int>(d->status);
    if (role == EntryRole)
        return QVariant::fromValue(static_cast<qulonglong>(d - m_diff.entries.data()));
    if (role == Qt::BackgroundRole) {
        switch (d->status) {
        case gguf::DiffStatus::Added: return DiffColors::background(DiffColors::Shade::Green);
        case gguf::DiffStatus::Removed: return DiffColors::background(DiffColors::Shade::Red);
        case gguf::DiffStatus::Changed: return DiffColors::background(DiffColors::Shade::Yellow);
        case gguf::DiffStatus::Same: return {};
        }
    }
    if (index.internalId() == kTopLevel)
        return entryData(*d, index.column(), role);
    // a differing element of an array
    const gguf::ElementDifference &e = d->firstDifferences[static_cast<size_t>(index.row())];
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case Key: return tr("[%1]").arg(TextFormat::count(e.index));
    case ValueA: return e.a.empty() ? tr("(none)") : QString::fromStdString(e.a);
    case ValueB: return e.b.empty() ? tr("(none)") : QString::fromStdString(e.b);
    default: return {};
    }
}

QVariant MetadataDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Key: return tr("Key");
    case Status: return tr("Status");
    case Type: return tr("Type");
    case ValueA: return tr("A");
    case ValueB: return tr("B");
    default: return {};
    }
}

void MetadataDiffProxy::setFilter(int show, const QString &text)
{
    m_show = show;
    m_text = text;
    invalidateRowsFilter();
}

bool MetadataDiffProxy::filterAcceptsRow(int row, const QModelIndex &parent) const
{
    if (parent.isValid())
        return true;
    const QModelIndex i = sourceModel()->index(row, 0, parent);
    const auto status = static_cast<gguf::DiffStatus>(i.data(MetadataDiffModel::StatusRole).toInt());
    const bool shown = m_show == All || (m_show == Differences && status != gguf::DiffStatus::Same) ||
                       (m_show == Added && status == gguf::DiffStatus::Added) ||
                       (m_show == Removed && status == gguf::DiffStatus::Removed) ||
                       (m_show == Changed && status == gguf::DiffStatus::Changed) ||
                       (m_show == Same && status == gguf::DiffStatus::Same);
    return shown && (m_text.isEmpty() || i.data().toString().contains(m_text, Qt::CaseInsensitive));
}
