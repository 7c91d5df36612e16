// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/merges_model.h"
#include "ui/common/fixed_font.h"

#include "core/vocab/vocabulary.h"
#include "ui/common/token_text.h"

#include <QFontDatabase>

#include <algorithm>
#include <climits>

MergesModel::MergesModel(QObject *parent) : QAbstractTableModel(parent), m_fixed(fixedFont()) {}

MergesModel::~MergesModel() = default;

void MergesModel::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab)
{
    beginResetModel();
    m_vocab = std::move(vocab);
    m_rows.reset();
    endResetModel();
}

void MergesModel::setRows(std::shared_ptr<const Rows> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int MergesModel::mergeCount() const
{
    return m_vocab ? static_cast<int>(std::min<uint64_t>(m_vocab->mergeCount(), INT_MAX)) : 0;
}

std::optional<uint32_t> MergesModel::rankAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return std::nullopt;
    return m_rows ? (*m_rows)[static_cast<size_t>(row)] : static_cast<uint32_t>(row);
}

int MergesModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_vocab)
        return 0;
    return m_rows ? static_cast<int>(std::min<size_t>(m_rows->size(), INT_MAX)) : mergeCount();
}

int MergesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MergesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_vocab)
        return {};
    const uint32_t rank = *rankAt(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: {
        if (column == RankColumn)
            return role == Qt::DisplayRole ? QVariant::fromValue<quint64>(rank) : QVariant();
        const auto [left, right] = m_vocab->mergeParts(rank);
        if (column == LeftColumn)
            return TokenText::visible(left);
        if (column == RightColumn)
            return TokenText::visible(right);
        m_joined.assign(left);
        m_joined.append(right);
        if (column == ResultColumn)
            return TokenText::visible(m_joined);
        m_vocab->decodeTextInto(m_joined, m_decoded);
        if (role == Qt::ToolTipRole)
            return tr("%1 (bytes %2)").arg(TokenText::visible(m_decoded), TokenText::hex(m_decoded));
        return TokenText::visible(m_decoded);
    }
    case Qt::FontRole: return column == RankColumn ? QVariant() : QVariant(m_fixed);
    case Qt::TextAlignmentRole:
        return column == RankColumn ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case RankRole: return QVariant::fromValue<quint64>(rank);
    default: return {};
    }
}

QVariant MergesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount || role != Qt::DisplayRole)
        return {};
    static const char *const titles[ColumnCount] = {QT_TR_NOOP("Rank"), QT_TR_NOOP("Left"), QT_TR_NOOP("Right"),
                                                    QT_TR_NOOP("Result"), QT_TR_NOOP("Decoded result")};
    return tr(titles[section]);
}
