// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tensors/tensor_table_model.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "ui/common/diff_colors.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"

#include <QColor>
#include <QFont>
#include <QLocale>
#include <QStringList>

#include <climits>
#include <map>
#include <set>

// Internal id of an index: 0 for a top-level row (a tensor, or a group when grouped);
// g + 1 for a tensor inside group g. A damaged file's broken tensor info is the last top-level row.

namespace {
constexpr int kBrokenRow = -2; ///< tensorRow() of the broken tensor info's row
}

TensorTableModel::TensorTableModel(QObject *parent) : QAbstractItemModel(parent) {}

TensorTableModel::~TensorTableModel() = default;

void TensorTableModel::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    beginResetModel();
    m_model = std::move(model);
    buildGroups();
    m_brokenShard = brokenShard();
    endResetModel();
}

void TensorTableModel::setGroupedByLayer(bool grouped)
{
    if (grouped == m_grouped)
        return;
    beginResetModel();
    m_grouped = grouped;
    endResetModel();
}

void TensorTableModel::buildGroups()
{
    m_groups.clear();
    if (!m_model)
        return;
    // Layers in ascending order; tensors outside any layer (-1) form the last group.
    std::map<int, Group> byLayer;
    const auto &tensors = m_model->tensors();
    for (size_t i = 0; i < tensors.size(); ++i) {
        const gguf::TensorInfo &info = *tensors[i].info;
        const int key = info.layer < 0 ? INT_MAX : info.layer;
        Group &group = byLayer[key];
        group.layer = info.layer;
        group.tensors.push_back(static_cast<int>(i));
        group.elements += info.elements;
        group.bytes += info.byteSize;
    }
    for (auto &entry : byLayer)
        m_groups.push_back(std::move(entry.second));
}

int TensorTableModel::brokenShard() const
{
    // the break the page's bar names; its tensor info is a row only when the break is in one
    const auto broken = m_model ? m_model->firstBreak() : std::nullopt;
    return broken && broken->file->breakage()->section == gguf::Breakage::Section::TensorInfos ? int(broken->shard)
                                                                                               : -1;
}

int TensorTableModel::topLevelRows() const
{
    const size_t rows = m_grouped ? m_groups.size() : m_model->tensors().size();
    return static_cast<int>(rows) + (m_brokenShard >= 0 ? 1 : 0);
}

int TensorTableModel::tensorRow(const QModelIndex &index) const
{
    if (!index.isValid() || !m_model)
        return -1;
    const quintptr id = index.internalId();
    if (id == 0 && m_brokenShard >= 0 && index.row() == topLevelRows() - 1)
        return kBrokenRow;
    if (id == 0)
        return m_grouped ? -1 : index.row();
    return m_groups[id - 1].tensors[static_cast<size_t>(index.row())];
}

const gguf::TensorInfo *TensorTableModel::tensorAt(const QModelIndex &index) const
{
    const int row = tensorRow(index);
    return row < 0 ? nullptr : m_model->tensors()[static_cast<size_t>(row)].info;
}

int TensorTableModel::shardAt(const QModelIndex &index) const
{
    const int row = tensorRow(index);
    return row < 0 ? -1 : static_cast<int>(m_model->tensors()[static_cast<size_t>(row)].shard);
}

std::optional<bool> TensorTableModel::tensorLessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const int a = tensorRow(left), b = tensorRow(right);
    if (a < 0 || b < 0 || left.column() != right.column())
        return std::nullopt;
    const auto &ra = m_model->tensors()[static_cast<size_t>(a)];
    const auto &rb = m_model->tensors()[static_cast<size_t>(b)];
    // the same keys as SortRole in tensorData
    const auto key = [column = left.column()](const auto &ref) -> std::optional<quint64> {
        const gguf::TensorInfo &info = *ref.info;
        switch (column) {
        case IndexColumn: return (quint64(ref.shard) << 32) | info.index;
        case ElementsColumn: return info.elements;
        case BytesColumn: return info.byteSize;
        case OffsetColumn: return info.relativeOffset;
        case FileOffsetColumn: return (quint64(ref.shard) << 48) + info.fileOffset;
        case ShardColumn: return ref.shard;
        default: return std::nullopt;
        }
    };
    const std::optional<quint64> ka = key(ra), kb = key(rb);
    if (!ka || !kb)
        return std::nullopt;
    return *ka != *kb ? *ka < *kb : a < b;
}

QModelIndex TensorTableModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, quintptr(0));
    return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex TensorTableModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(static_cast<int>(child.internalId() - 1), 0, quintptr(0));
}

int TensorTableModel::rowCount(const QModelIndex &parent) const
{
    if (!m_model || parent.column() > 0)
        return 0;
    if (!parent.isValid())
        return topLevelRows();
    if (m_grouped && parent.internalId() == 0 && size_t(parent.row()) < m_groups.size())
        return static_cast<int>(m_groups[static_cast<size_t>(parent.row())].tensors.size());
    return 0;
}

int TensorTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.column() > 0 ? 0 : ColumnCount;
}

QVariant TensorTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_model)
        return {};
    const int row = tensorRow(index);
    if (row == kBrokenRow)
        return brokenData(index.column(), role);
    if (m_grouped && index.internalId() == 0)
        return groupData(m_groups[static_cast<size_t>(index.row())], index.column(), role);
    if (role == BrokenRole)
        return false;
    return tensorData(row, index.column(), role);
}

namespace {

QVariantList shapeKey(const gguf::TensorInfo &info)
{
    QVariantList dims;
    for (uint32_t d = 0; d < std::min<uint32_t>(info.nDims, 4); ++d)
        dims << QVariant::fromValue<quint64>(info.ne[d]);
    return dims;
}

double bitsPerWeight(quint64 bytes, quint64 elements)
{
    return elements ? static_cast<double>(bytes) * 8.0 / static_cast<double>(elements) : 0.0;
}

Qt::Alignment alignmentOf(int column)
{
    switch (column) {
    case TensorTableModel::IndexColumn:
    case TensorTableModel::ElementsColumn:
    case TensorTableModel::BytesColumn:
    case TensorTableModel::BitsPerWeightColumn:
    case TensorTableModel::OffsetColumn:
    case TensorTableModel::FileOffsetColumn:
    case TensorTableModel::LayerColumn:
    case TensorTableModel::ShardColumn: return Qt::AlignRight | Qt::AlignVCenter;
    }
    return Qt::AlignLeft | Qt::AlignVCenter;
}

} // namespace

QVariant TensorTableModel::tensorData(int tensor, int column, int role) const
{
    const auto &ref = m_model->tensors()[static_cast<size_t>(tensor)];
    const gguf::TensorInfo &info = *ref.info;
    const double bpw = bitsPerWeight(info.byteSize, info.elements);
    // a damaged file whose tensor infos broke off: where the data region starts is unknown
    const bool placed = m_model->shards()[ref.shard].file->tensorInfoEnd() != 0;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IndexColumn: return tensor; // the position in the whole set (shard order, then file order)
        case NameColumn: return ValueText::fullText(info.name);
        case TypeColumn: return QString::fromStdString(gguf::typeName(info.typeId));
        case ShapeColumn: return TextFormat::dims(info);
        case ElementsColumn: return QLocale().toString(static_cast<quint64>(info.elements));
        case BytesColumn: return TextFormat::byteSize(info.byteSize);
        case BitsPerWeightColumn: return info.elements ? QString::number(bpw, 'f', 2) : QString();
        case OffsetColumn: return TextFormat::offset(info.relativeOffset);
        case FileOffsetColumn: return placed ? TextFormat::offset(info.fileOffset) : tr("unknown");
        case LayerColumn: return info.layer < 0 ? QVariant() : QVariant(info.layer);
        case ShardColumn: return static_cast<int>(ref.shard) + 1;
        }
        return {};
    case SortRole:
        switch (column) {
        case IndexColumn: return QVariant::fromValue<quint64>((quint64(ref.shard) << 32) | info.index);
        case NameColumn: return ValueText::fullText(info.name);
        case TypeColumn: return QString::fromStdString(gguf::typeName(info.typeId));
        case ShapeColumn: return shapeKey(info);
        case ElementsColumn: return QVariant::fromValue<quint64>(info.elements);
        case BytesColumn: return QVariant::fromValue<quint64>(info.byteSize);
        case BitsPerWeightColumn: return bpw;
        case OffsetColumn: return QVariant::fromValue<quint64>(info.relativeOffset);
        case FileOffsetColumn: return QVariant::fromValue<quint64>((quint64(ref.shard) << 48) + info.fileOffset);
        case LayerColumn: return info.layer;
        case ShardColumn: return static_cast<int>(ref.shard);
        }
        return {};
    case Qt::ToolTipRole:
        switch (column) {
        case NameColumn: {
            // the whole name (a long one is cut in its column), and what is wrong with it
            const QString name = ValueText::fullText(info.name);
            if (!placed)
                return name + QLatin1Char('\n') +
                       tr("The tensor infos of this damaged file broke off, so where its data starts is unknown");
            return info.dataInFile ? name
                                   : name + QLatin1Char('\n') + tr("The data of this tensor lies outside the file");
        }
        case TypeColumn:
            return QString::fromUtf8(gguf::typeTraits(info.typeId).note.data(),
                                     static_cast<qsizetype>(gguf::typeTraits(info.typeId).note.size()));
        case BytesColumn:
            return tr("%1 bytes%2")
                .arg(QLocale().toString(static_cast<quint64>(info.byteSize)),
                     info.sizeInferred ? tr(" (inferred from the next tensor's offset)") : QString());
        case OffsetColumn:
            return tr("%1 bytes after the start of the data section")
                .arg(QLocale().toString(static_cast<quint64>(info.relativeOffset)));
        case FileOffsetColumn:
            return tr("byte %1 of the file").arg(QLocale().toString(static_cast<quint64>(info.fileOffset)));
        }
        return {};
    case Qt::TextAlignmentRole: return static_cast<int>(alignmentOf(column));
    case Qt::ForegroundRole: return info.dataInFile ? QVariant() : QVariant(QColor(0xda, 0x44, 0x53));
    case IsGroupRole: return false;
    case TensorRole: return tensor;
    case ElementsRole: return QVariant::fromValue<quint64>(info.elements);
    case BytesRole: return QVariant::fromValue<quint64>(info.byteSize);
    }
    return {};
}

QVariant TensorTableModel::brokenData(int column, int role) const
{
    const gguf::GgufFile &file = *m_model->shards()[size_t(m_brokenShard)].file;
    const gguf::Breakage &b = *file.breakage();
    const QString name = b.nameRead() ? ValueText::fullText(b.tensor.name) : tr("(name not read)");
    // the number of dimensions and the dimensions themselves, once they were read
    const bool dimsRead = b.tensor.dimsOffset != 0 && b.tensor.dimsOffset < b.fieldOffset;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case IndexColumn: return QVariant::fromValue<quint64>(b.index);
        case NameColumn: return name;
        case TypeColumn: return tr("broken");
        case ShapeColumn: return dimsRead ? TextFormat::dims(b.tensor) : QString();
        case FileOffsetColumn: return tr("unknown");
        case ShardColumn: return m_brokenShard + 1;
        }
        return {};
    case SortRole:
        switch (column) {
        case IndexColumn: return QVariant::fromValue<quint64>((quint64(m_brokenShard) << 32) | b.index);
        case NameColumn: return name;
        case ShardColumn: return m_brokenShard;
        }
        return {};
    case Qt::ToolTipRole:
        return tr("Reading stopped in this tensor info at byte %1: %2")
            .arg(TextFormat::offset(b.fieldOffset), QString::fromStdString(b.expected));
    case Qt::FontRole: {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    case Qt::BackgroundRole: return DiffColors::background(DiffColors::Shade::Red);
    case Qt::TextAlignmentRole: return static_cast<int>(alignmentOf(column));
    case IsGroupRole: return false;
    case BrokenRole: return true;
    case TensorRole: return INT_MAX; // after every tensor read, on equal keys
    case ElementsRole:
    case BytesRole: return QVariant::fromValue<quint64>(0);
    }
    return {};
}

QVariant TensorTableModel::groupData(const Group &group, int column, int role) const
{
    const QString name = group.layer < 0 ? tr("other tensors") : tr("layer %1").arg(group.layer);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return name;
        case TypeColumn: {
            std::set<QString> types;
            for (int t : group.tensors)
                types.insert(
                    QString::fromStdString(gguf::typeName(m_model->tensors()[static_cast<size_t>(t)].info->typeId)));
            return QStringList(types.begin(), types.end()).join(QStringLiteral(", "));
        }
        case ShapeColumn:
            return group.tensors.size() == 1 ? tr("1 tensor") : tr("%1 tensors").arg(group.tensors.size());
        case ElementsColumn: return QLocale().toString(group.elements);
        case BytesColumn: return TextFormat::byteSize(group.bytes);
        case BitsPerWeightColumn:
            return group.elements ? QString::number(bitsPerWeight(group.bytes, group.elements), 'f', 2) : QString();
        case LayerColumn: return group.layer < 0 ? QVariant() : QVariant(group.layer);
        }
        return {};
    case SortRole:
        switch (column) {
        case ShapeColumn: return static_cast<int>(group.tensors.size());
        case ElementsColumn: return QVariant::fromValue<quint64>(group.elements);
        case BytesColumn: return QVariant::fromValue<quint64>(group.bytes);
        case BitsPerWeightColumn: return bitsPerWeight(group.bytes, group.elements);
        }
        // Everything else orders groups by layer, with "other tensors" last.
        return group.layer < 0 ? INT_MAX : group.layer;
    case Qt::TextAlignmentRole: return static_cast<int>(alignmentOf(column));
    case IsGroupRole: return true;
    case TensorRole: return -1;
    case ElementsRole: return QVariant::fromValue<quint64>(group.elements);
    case BytesRole: return QVariant::fromValue<quint64>(group.bytes);
    }
    return {};
}

QVariant TensorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char *const titles[ColumnCount] = {
        QT_TR_NOOP("#"),           QT_TR_NOOP("Name"),  QT_TR_NOOP("Type"),        QT_TR_NOOP("Shape"),
        QT_TR_NOOP("Elements"),    QT_TR_NOOP("Bytes"), QT_TR_NOOP("Bits/weight"), QT_TR_NOOP("Offset"),
        QT_TR_NOOP("File offset"), QT_TR_NOOP("Layer"), QT_TR_NOOP("Shard"),
    };
    static const char *const tips[ColumnCount] = {
        QT_TR_NOOP("Index of the tensor info record in its file"),
        QT_TR_NOOP("Tensor name"),
        QT_TR_NOOP("ggml type"),
        QT_TR_NOOP("Dimensions, innermost (row length) first"),
        QT_TR_NOOP("Number of values"),
        QT_TR_NOOP("Bytes of tensor data"),
        QT_TR_NOOP("Bytes × 8 / elements"),
        QT_TR_NOOP("Offset from the start of the data section"),
        QT_TR_NOOP("Absolute offset in the file"),
        QT_TR_NOOP("N of blk.N"),
        QT_TR_NOOP("File of a split model (1-based)"),
    };
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(titles[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    if (role == Qt::TextAlignmentRole)
        return static_cast<int>(alignmentOf(section));
    return {};
}
