// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/vocab/token_search.h"

#include <QWidget>

#include <array>
#include <memory>

class JobTracker;
class QLabel;
class QTableView;
class TokenSearchBar;
class VocabularyModel;

namespace gguf {
class Vocabulary;
}

/// The vocabulary table with its search bar and a status line. Searches and sort orders run on a
/// worker over the vocabulary's index (a newer query drops the older one); the table then shows
/// the vector of matching ids. Each order is computed once per vocabulary and kept.
class VocabularyView : public QWidget {
    Q_OBJECT
public:
    explicit VocabularyView(QWidget *parent = nullptr);
    ~VocabularyView() override;

    /// Shows `vocab` (null: nothing); the search and the order stay as they are.
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    /// Shows `query` in the search bar and runs it.
    void setQuery(const gguf::TokenSearch::Query &query);
    /// Selects token `id` and scrolls to it, clearing the search when it hides the token.
    /// False when `id` is not in the vocabulary.
    bool selectToken(quint64 id);
    /// The id of the current token, or -1.
    qint64 currentToken() const;
    void focusSearch();

    /// True while a search or an order is being computed.
    bool isSearching() const;
    QString statusText() const;

    VocabularyModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    TokenSearchBar *searchBar() const { return m_bar; }

signals:
    /// Token `id` became the current row.
    void tokenSelected(quint64 id);
    /// The table shows the result of the latest query (or the query was not understood).
    void searchFinished();

private:
    struct Outcome;
    void startSearch();
    void requestSort(int column, Qt::SortOrder order);
    void showRows(std::shared_ptr<const gguf::TokenSearch::Ids> rows, bool all, double milliseconds);
    void selectRow(int row);

    VocabularyModel *m_model;
    TokenSearchBar *m_bar;
    QTableView *m_view;
    QLabel *m_status;
    JobTracker *m_jobs;
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
    // The permutation of the ids for each gguf::TokenSearch::SortKey, once computed.
    std::array<std::shared_ptr<const gguf::TokenSearch::Ids>, 5> m_orders;
    int m_sortColumn = 0;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    qint64 m_pendingSelection = -1;
};
