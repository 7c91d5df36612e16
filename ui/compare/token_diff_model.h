// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/compare/tokenizer_diff.h"

#include <QAbstractTableModel>

#include <memory>

namespace gguf {
class SplitModel;
class Vocabulary;
} // namespace gguf

/// The tokens that differ between two vocabularies (core compareTokenizers), one row per id: the
/// ids whose text, type or score changed, then the ids only B has (added), then those only A has
/// (removed). Token text is drawn with its invisible characters made visible.
class TokenDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column : uint8_t { Id, Change, TokenA, TokenB, TypeA, TypeB, ScoreA, ScoreB, ColumnCount };
    /// The token id of a row (qulonglong).
    static constexpr int IdRole = Qt::UserRole + 1;

    explicit TokenDiffModel(QObject *parent = nullptr);

    void setDiff(std::shared_ptr<const gguf::SplitModel> a, std::shared_ptr<const gguf::SplitModel> b,
                 gguf::TokenizerDiff diff);
    const gguf::TokenizerDiff &diff() const { return m_diff; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gguf::SplitModel> m_a, m_b;
    std::shared_ptr<const gguf::Vocabulary> m_vocabA, m_vocabB;
    gguf::TokenizerDiff m_diff;
};
