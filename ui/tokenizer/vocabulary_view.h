// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/tokenizer/searchable_table.h"

#include <array>
#include <memory>

class VocabularyModel;

namespace gguf {
class Vocabulary;
}

/// The vocabulary table with its search bar and a status line. Searches and sort orders run on a
/// worker over the vocabulary's index (a newer query drops the older one); the table then shows
/// the vector of matching ids. Each order is computed once per vocabulary and kept.
class VocabularyView : public SearchableTable {
    Q_OBJECT
public:
    explicit VocabularyView(QWidget *parent = nullptr);
    ~VocabularyView() override;

    /// Shows `vocab` (null: nothing); the search and the order stay as they are.
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    /// Selects token `id` and scrolls to it, clearing the search when it hides the token.
    /// False when `id` is not in the vocabulary.
    bool selectToken(quint64 id);
    /// The id of the current token, or -1.
    qint64 currentToken() const;

    VocabularyModel *model() const { return m_model; }

signals:
    /// Token `id` became the current row.
    void tokenSelected(quint64 id);

private:
    struct Outcome;
    void startSearch() override;
    int rowOf(quint64 id) const override;
    void requestSort(int column, Qt::SortOrder order);
    void showRows(std::shared_ptr<const gguf::TokenSearch::Ids> rows, bool all, double milliseconds);

    VocabularyModel *m_model;
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
    // The permutation of the ids for each gguf::TokenSearch::SortKey, once computed.
    std::array<std::shared_ptr<const gguf::TokenSearch::Ids>, 5> m_orders;
    int m_sortColumn = 0;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
};
