// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/token_diff_model.h"

#include "core/format/split_model.h"
#include "core/vocab/vocabulary.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"

#include <QLocale>

#include <limits>

namespace {

QString tokenTypeText(std::optional<int32_t> t)
{
    return t ? QString::fromLatin1(gguf::tokenTypeName(*t).data(),
                                   static_cast<qsizetype>(gguf::tokenTypeName(*t).size()))
             : QString();
}

QString scoreText(std::optional<float> s)
{
    return s ? QLocale().toString(static_cast<double>(*s), 'g', 7) : QString();
}

// Rows past the vocabulary of one side: up to the int range of a view's rows.
int clampRows(uint64_t n)
{
    return static_cast<int>(std::min<uint64_t>(n, static_cast<uint64_t>(std::numeric_limits<int>::max())));
}

} // namespace

TokenDiffModel::TokenDiffModel(QObject *parent) : QAbstractTableModel(parent) {}

void TokenDiffModel::setDiff(std::shared_ptr<const gguf::SplitModel> a, std::shared_ptr<const gguf::SplitModel> b,
                             gguf::TokenizerDiff diff)
{
    beginResetModel();
    m_a = std::move(a);
    m_b = std::move(b);
    m_vocabA = m_a ? gguf::Vocabulary::shared(m_a->primaryShared()) : nullptr;
    m_vocabB = m_b ? gguf::Vocabulary::shared(m_b->primaryShared()) : nullptr;
    m_diff = m_a && m_b ? std::move(diff) : gguf::TokenizerDiff{};
    endResetModel();
}

int TokenDiffModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid())
        return 0;
    return clampRows(m_diff.changes.size() + m_diff.added + m_diff.removed);
}

int TokenDiffModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TokenDiffModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    auto row = static_cast<uint64_t>(index.row());
    // which kind of row, and the token it is about
    gguf::TokenChange change;
    QString what;
    if (row < m_diff.changes.size()) {
        change = m_diff.changes[static_cast<size_t>(row)];
        QStringList parts;
        if (change.what & gguf::TokenChange::Text)
            parts << tr("text");
        if (change.what & gguf::TokenChange::Type)
            parts << tr("type");
        if (change.what & gguf::TokenChange::Score)
            parts << tr("score");
        what = parts.join(QStringLiteral(", "));
    } else if ((row -= m_diff.changes.size()) < m_diff.added) {
        change.id = m_diff.sizeA + row;
        if (m_vocabB) {
            change.textB = m_vocabB->token(change.id);
            change.typeB = m_vocabB->type(change.id);
            change.scoreB = m_vocabB->score(change.id);
        }
        what = tr("added");
    } else {
        change.id = m_diff.sizeB + (row - m_diff.added);
        if (m_vocabA) {
            change.textA = m_vocabA->token(change.id);
            change.typeA = m_vocabA->type(change.id);
            change.scoreA = m_vocabA->score(change.id);
        }
        what = tr("removed");
    }
    if (role == IdRole)
        return static_cast<qulonglong>(change.id);
    if (role == Qt::ToolTipRole && (index.column() == TokenA || index.column() == TokenB)) {
        const std::string_view text = index.column() == TokenA ? change.textA : change.textB;
        return TokenText::visible(text, 400) + QStringLiteral("\n") + TokenText::hex(text);
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Id: return static_cast<qulonglong>(change.id);
    case Change: return what;
    case TokenA: return TokenText::visible(change.textA, 80);
    case TokenB: return TokenText::visible(change.textB, 80);
    case TypeA: return tokenTypeText(change.typeA);
    case TypeB: return tokenTypeText(change.typeB);
    case ScoreA: return scoreText(change.scoreA);
    case ScoreB: return scoreText(change.scoreB);
    default: return {};
    }
}

QVariant TokenDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Id: return tr("Id");
    case Change: return tr("What differs");
    case TokenA: return tr("Token A");
    case TokenB: return tr("Token B");
    case TypeA: return tr("Type A");
    case TypeB: return tr("Type B");
    case ScoreA: return tr("Score A");
    case ScoreB: return tr("Score B");
    default: return {};
    }
}
