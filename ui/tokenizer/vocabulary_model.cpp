// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/vocabulary_model.h"
#include "ui/common/fixed_font.h"

#include "core/vocab/token_search.h"
#include "core/vocab/vocabulary.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"

#include <QColor>
#include <QFontDatabase>
#include <QLocale>
#include <QStringList>

#include <algorithm>
#include <climits>

namespace {

// Readable on light and dark backgrounds alike.
const QColor kSpecialColor(0xd0, 0x5c, 0x00);

} // namespace

VocabularyModel::VocabularyModel(QObject *parent)
    : QAbstractTableModel(parent), m_fixed(fixedFont()), m_fixedBold(m_fixed)
{
    m_fixedBold.setBold(true);
    m_bold.setBold(true);
}

VocabularyModel::~VocabularyModel() = default;

void VocabularyModel::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab)
{
    beginResetModel();
    m_vocab = std::move(vocab);
    m_rows.reset();
    m_special.clear();
    if (m_vocab) {
        for (const gguf::SpecialToken &s : m_vocab->specialTokens())
            m_special.emplace_back(s.id, s.role);
        std::stable_sort(m_special.begin(), m_special.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
    }
    endResetModel();
}

void VocabularyModel::setRows(std::shared_ptr<const Rows> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int VocabularyModel::tokenCount() const
{
    return m_vocab ? static_cast<int>(std::min<uint64_t>(m_vocab->size(), INT_MAX)) : 0;
}

std::optional<uint32_t> VocabularyModel::idAt(int row) const
{
    if (row < 0 || row >= rowCount())
        return std::nullopt;
    return m_rows ? (*m_rows)[static_cast<size_t>(row)] : static_cast<uint32_t>(row);
}

int VocabularyModel::rowOf(uint64_t id) const
{
    if (!m_vocab || id >= static_cast<uint64_t>(tokenCount()))
        return -1;
    if (!m_rows)
        return static_cast<int>(id);
    const auto it = std::find(m_rows->begin(), m_rows->end(), static_cast<uint32_t>(id));
    return it == m_rows->end() ? -1 : static_cast<int>(it - m_rows->begin());
}

bool VocabularyModel::isSpecial(uint64_t id) const
{
    return std::binary_search(m_special.begin(), m_special.end(), std::pair<uint64_t, std::string_view>(id, {}),
                              [](const auto &a, const auto &b) { return a.first < b.first; });
}

QStringList VocabularyModel::specialRoles(uint64_t id) const
{
    QStringList roles;
    const auto range =
        std::equal_range(m_special.begin(), m_special.end(), std::pair<uint64_t, std::string_view>(id, {}),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto it = range.first; it != range.second; ++it)
        roles << TextFormat::fromView(it->second);
    return roles;
}

int VocabularyModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_vocab)
        return 0;
    return m_rows ? static_cast<int>(std::min<size_t>(m_rows->size(), INT_MAX)) : tokenCount();
}

int VocabularyModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VocabularyModel::displayData(uint32_t id, int column) const
{
    switch (column) {
    case IdColumn: return QVariant::fromValue<quint64>(id);
    case TokenColumn: return TokenText::visible(m_vocab->token(id));
    case DecodedColumn: m_vocab->decodedInto(id, m_scratch); return TokenText::visible(m_scratch);
    case BytesColumn: m_vocab->decodedInto(id, m_scratch); return TokenText::hex(m_scratch);
    case LengthColumn: m_vocab->decodedInto(id, m_scratch); return QVariant::fromValue<quint64>(m_scratch.size());
    case TypeColumn:
        if (const auto type = m_vocab->type(id))
            return TextFormat::fromView(gguf::tokenTypeName(*type)).replace(u'_', u'-');
        return QStringLiteral("—");
    case ScoreColumn:
        if (const auto score = m_vocab->score(id))
            return QLocale::c().toString(*score, 'g', 7);
        return QStringLiteral("—");
    default: return {};
    }
}

QString VocabularyModel::toolTip(uint32_t id) const
{
    QString tip = tr("Token %1").arg(id);
    const QStringList roles = specialRoles(id);
    if (!roles.isEmpty())
        tip += QLatin1Char('\n') + tr("Special token: %1").arg(roles.join(QStringLiteral(", ")));
    m_vocab->decodedInto(id, m_scratch);
    tip += QLatin1Char('\n') + tr("Stored: %1").arg(TokenText::visible(m_vocab->token(id), 400));
    const QString bytes = m_scratch.size() == 1 ? tr("1 byte") : tr("%1 bytes").arg(m_scratch.size());
    tip += QLatin1Char('\n') + tr("Decoded: %1 (%2)").arg(TokenText::visible(m_scratch, 400), bytes);
    return tip;
}

QVariant VocabularyModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_vocab)
        return {};
    const uint32_t id = *idAt(index.row());
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole: return displayData(id, column);
    case Qt::ToolTipRole: return toolTip(id);
    case Qt::FontRole: {
        const bool fixed = column == TokenColumn || column == DecodedColumn || column == BytesColumn;
        if (isSpecial(id))
            return fixed ? m_fixedBold : m_bold;
        return fixed ? QVariant(m_fixed) : QVariant();
    }
    case Qt::ForegroundRole: return isSpecial(id) ? QVariant(kSpecialColor) : QVariant();
    case Qt::TextAlignmentRole:
        if (column == IdColumn || column == LengthColumn || column == ScoreColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case TokenIdRole: return QVariant::fromValue<quint64>(id);
    case SpecialRolesRole: return specialRoles(id);
    case RawTextRole: {
        if (column == TokenColumn) {
            const std::string_view stored = m_vocab->token(id);
            return QByteArray(stored.data(), static_cast<qsizetype>(stored.size()));
        }
        m_vocab->decodedInto(id, m_scratch);
        return QByteArray(m_scratch.data(), static_cast<qsizetype>(m_scratch.size()));
    }
    default: return {};
    }
}

QVariant VocabularyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    static const char *const titles[ColumnCount] = {
        QT_TR_NOOP("Id"),     QT_TR_NOOP("Token"), QT_TR_NOOP("Decoded"), QT_TR_NOOP("Bytes (hex)"),
        QT_TR_NOOP("Length"), QT_TR_NOOP("Type"),  QT_TR_NOOP("Score")};
    static const char *const tips[ColumnCount] = {
        QT_TR_NOOP("Token id"),
        QT_TR_NOOP("The token as stored in tokenizer.ggml.tokens (· space, ↵ newline, → tab)"),
        QT_TR_NOOP("The text the token stands for, with the tokenizer's spelling undone"),
        QT_TR_NOOP("The decoded bytes in hex"),
        QT_TR_NOOP("Decoded length in bytes"),
        QT_TR_NOOP("tokenizer.ggml.token_type"),
        QT_TR_NOOP("tokenizer.ggml.scores")};
    if (role == Qt::DisplayRole)
        return tr(titles[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}

int VocabularyModel::sortKeyOf(int column)
{
    switch (column) {
    case IdColumn: return static_cast<int>(gguf::TokenSearch::SortKey::Id);
    case TokenColumn: return static_cast<int>(gguf::TokenSearch::SortKey::Token);
    case LengthColumn: return static_cast<int>(gguf::TokenSearch::SortKey::Length);
    case TypeColumn: return static_cast<int>(gguf::TokenSearch::SortKey::Type);
    case ScoreColumn: return static_cast<int>(gguf::TokenSearch::SortKey::Score);
    default: return -1;
    }
}

void VocabularyModel::sort(int column, Qt::SortOrder order)
{
    emit sortRequested(column, order);
}
