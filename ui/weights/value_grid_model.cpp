// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/value_grid_model.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"

#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <climits>
#include <cmath>

namespace {

constexpr quint64 kIntMax = static_cast<quint64>(INT_MAX);

bool isIntegerType(uint32_t typeId)
{
    using gguf::GgmlType;
    const auto t = static_cast<GgmlType>(typeId);
    return t == GgmlType::I8 || t == GgmlType::I16 || t == GgmlType::I32 || t == GgmlType::I64;
}

} // namespace

ValueGridModel::ValueGridModel(QObject *parent) : QAbstractTableModel(parent) {}

ValueGridModel::~ValueGridModel() = default;

void ValueGridModel::setTensor(std::shared_ptr<const gguf::GgufFile> file, const gguf::TensorInfo *tensor)
{
    beginResetModel();
    m_file = tensor ? std::move(file) : nullptr;
    m_tensor = m_file ? tensor : nullptr;
    m_cache.clear();
    m_index.clear();
    m_decoded = 0;
    m_firstRow = m_firstColumn = 0;
    m_rows = m_columns = 0;
    m_problem.clear();
    m_held = gguf::ByteLease();
    m_fetchFailed = false;
    if (m_tensor) {
        const gguf::TypeTraits &traits = gguf::typeTraits(m_tensor->typeId);
        m_columns = m_tensor->ne[0];
        m_rows = m_columns ? m_tensor->elements / m_columns : 0;
        m_integers = isIntegerType(m_tensor->typeId);
        // Chunks hold whole blocks, so a block is never decoded for two chunks.
        const quint64 block = std::max<quint64>(1, traits.blockSize);
        m_chunk = block * std::max<quint64>(1, (256 + block - 1) / block);
        if (!gguf::canDequantize(m_tensor->typeId))
            m_problem = tr("Values of type %1 cannot be decoded.")
                            .arg(QString::fromStdString(gguf::typeName(m_tensor->typeId)));
        else if (m_file->tensorBytes(*m_tensor).empty() && m_tensor->elements > 0)
            m_problem = m_file->breakage() && m_file->tensorInfoEnd() == 0
                            ? tr("The file is damaged: its tensor infos broke off, so where this tensor's data starts "
                                 "is unknown.")
                            : tr("The tensor's data is not inside the file.");
        if (!m_problem.isEmpty())
            m_rows = m_columns = 0;
    }
    endResetModel();
    emit pageChanged();
}

void ValueGridModel::setPageSize(quint64 rows, quint64 columns)
{
    beginResetModel();
    m_pageRows = std::clamp<quint64>(rows, 1, kIntMax);
    m_pageColumns = std::clamp<quint64>(columns, 1, kIntMax);
    m_firstRow = m_firstColumn = 0;
    endResetModel();
    emit pageChanged();
}

void ValueGridModel::showPage(quint64 row, quint64 column)
{
    const quint64 first = m_rows ? std::min(row, m_rows - 1) / m_pageRows * m_pageRows : 0;
    const quint64 firstColumn = m_columns ? std::min(column, m_columns - 1) / m_pageColumns * m_pageColumns : 0;
    if (first == m_firstRow && firstColumn == m_firstColumn)
        return;
    beginResetModel();
    m_fetchFailed = false;
    m_firstRow = first;
    m_firstColumn = firstColumn;
    endResetModel();
    emit pageChanged();
}

QModelIndex ValueGridModel::locate(quint64 row, quint64 column)
{
    if (row >= m_rows || column >= m_columns)
        return {};
    showPage(row, column);
    return index(static_cast<int>(row - m_firstRow), static_cast<int>(column - m_firstColumn));
}

QModelIndex ValueGridModel::locateElement(quint64 element)
{
    if (m_columns == 0)
        return {};
    return locate(element / m_columns, element % m_columns);
}

int ValueGridModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || m_rows == 0)
        return 0;
    return static_cast<int>(std::min(m_pageRows, m_rows - m_firstRow));
}

int ValueGridModel::columnCount(const QModelIndex &parent) const
{
    if (parent.isValid() || m_columns == 0)
        return 0;
    return static_cast<int>(std::min(m_pageColumns, m_columns - m_firstColumn));
}

void ValueGridModel::holdBytes(gguf::ByteLease bytes)
{
    m_fetchFailed = !bytes;
    m_held = std::move(bytes);
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void ValueGridModel::want(quint64 begin, quint64 end) const
{
    m_want =
        m_wantQueued ? std::pair(std::min(m_want.first, begin), std::max(m_want.second, end)) : std::pair(begin, end);
    if (m_wantQueued)
        return;
    m_wantQueued = true;
    // once the view has asked for every cell it paints: one fetch for all of them
    QMetaObject::invokeMethod(
        const_cast<ValueGridModel *>(this),
        [this] {
            m_wantQueued = false;
            emit const_cast<ValueGridModel *>(this)->bytesWanted(m_want.first, m_want.second - m_want.first);
        },
        Qt::QueuedConnection);
}

const float *ValueGridModel::valueAt(quint64 row, quint64 column, bool &pending) const
{
    pending = false;
    const quint64 chunksPerRow = (m_columns + m_chunk - 1) / m_chunk;
    const quint64 k = column / m_chunk;
    const quint64 key = row * chunksPerRow + k;
    auto found = m_index.find(key);
    if (found != m_index.end()) {
        m_cache.splice(m_cache.begin(), m_cache, found->second); // now the most recent
    } else {
        Chunk chunk;
        chunk.key = key;
        const quint64 firstColumn = k * m_chunk;
        chunk.values.resize(static_cast<size_t>(std::min(m_chunk, m_columns - firstColumn)));
        // Only the blocks holding this chunk are read; a remote file's once they have arrived.
        const gguf::TypeTraits &traits = gguf::typeTraits(m_tensor->typeId);
        const quint64 firstElement = row * m_columns + firstColumn, block = std::max<quint64>(1, traits.blockSize);
        const quint64 begin = m_tensor->fileOffset + firstElement / block * traits.typeSize;
        const quint64 end =
            m_tensor->fileOffset + (firstElement + chunk.values.size() + block - 1) / block * traits.typeSize;
        const gguf::ByteLease held = m_file->peek(begin, end - begin);
        // I2_S: every value is scaled by the one f32 after the codes, at the tensor's end
        const bool tailScale = traits.rule == gguf::SizeRule::BitNetI2S;
        const quint64 tail = m_tensor->fileOffset + m_tensor->byteSize;
        const gguf::ByteLease scale = tailScale ? m_file->peek(tail - 4, 4) : gguf::ByteLease({}, nullptr);
        if ((!held && held.error().code == "not_fetched") || (!scale && scale.error().code == "not_fetched")) {
            if (m_fetchFailed)
                return nullptr;
            want(begin, tailScale ? tail : end);
            pending = true;
            return nullptr;
        }
        chunk.ok = gguf::dequantizeRange(m_tensor->typeId, m_file->tensorBytes(*m_tensor), m_tensor->elements,
                                         row * m_columns + firstColumn, chunk.values, m_file->byteSwapped());
        ++m_decoded;
        m_cache.push_front(std::move(chunk));
        m_index[key] = m_cache.begin();
        if (m_cache.size() > kCacheChunks) {
            m_index.erase(m_cache.back().key);
            m_cache.pop_back();
        }
    }
    const Chunk &chunk = m_cache.front();
    return chunk.ok ? &chunk.values[static_cast<size_t>(column - k * m_chunk)] : nullptr;
}

QString ValueGridModel::cellText(float value) const
{
    if (std::isnan(value))
        return QStringLiteral("NaN");
    if (std::isinf(value))
        return value > 0 ? QStringLiteral("+Inf") : QStringLiteral("−Inf");
    if (m_integers)
        return QString::number(static_cast<double>(value), 'f', 0);
    return QString::number(static_cast<double>(value), 'g', 7);
}

QString ValueGridModel::indexText(quint64 row, quint64 column) const
{
    // The full index, innermost first as GGUF stores the dims: (i0, i1, i2, i3).
    QStringList parts{QString::number(column)};
    quint64 rest = row;
    for (uint32_t d = 1; d < std::min<uint32_t>(std::max<uint32_t>(m_tensor->nDims, 1), 4); ++d) {
        const quint64 n = std::max<quint64>(1, m_tensor->ne[d]);
        parts << QString::number(rest % n);
        rest /= n;
    }
    return QStringLiteral("(%1)").arg(parts.join(QStringLiteral(", ")));
}

QVariant ValueGridModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_tensor || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const quint64 row = m_firstRow + static_cast<quint64>(index.row());
    const quint64 column = m_firstColumn + static_cast<quint64>(index.column());
    switch (role) {
    case Qt::DisplayRole:
    case ValueRole:
    case Qt::ToolTipRole: {
        bool pending = false;
        const float *value = valueAt(row, column, pending);
        if (pending)
            return role == Qt::DisplayRole   ? QVariant(QStringLiteral("…"))
                   : role == Qt::ToolTipRole ? QVariant(tr("Fetching…"))
                                             : QVariant();
        if (!value)
            return role == Qt::DisplayRole ? QVariant(tr("?")) : QVariant();
        if (role == ValueRole)
            return static_cast<double>(*value);
        if (role == Qt::DisplayRole)
            return cellText(*value);
        return tr("Element %1, index %2: %3")
            .arg(QLocale().toString(row * m_columns + column), indexText(row, column),
                 QString::number(static_cast<double>(*value), 'g', 9));
    }
    case ElementRole: return QVariant::fromValue<quint64>(row * m_columns + column);
    case Qt::TextAlignmentRole: return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default: return {};
    }
}

QVariant ValueGridModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole || section < 0)
        return QAbstractTableModel::headerData(section, orientation, role);
    const quint64 first = orientation == Qt::Horizontal ? m_firstColumn : m_firstRow;
    return QString::number(first + static_cast<quint64>(section));
}
