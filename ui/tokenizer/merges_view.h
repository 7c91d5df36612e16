// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/vocab/token_search.h"

#include <QWidget>

#include <memory>

class JobTracker;
class MergesModel;
class QLabel;
class QTableView;
class TokenSearchBar;

namespace gguf {
class Vocabulary;
}

/// The merge rules table with the same search as the vocabulary (text, pattern, rank, bytes),
/// run on a worker; the table shows the vector of matching ranks.
class MergesView : public QWidget {
    Q_OBJECT
public:
    explicit MergesView(QWidget *parent = nullptr);
    ~MergesView() override;

    /// Shows the merge rules of `vocab` (null: nothing).
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    void setQuery(const gguf::TokenSearch::Query &query);
    /// Selects rule `rank`, clearing the search when it hides the rule. False when there is no such rule.
    bool selectRank(quint64 rank);
    void focusSearch();

    bool isSearching() const;
    QString statusText() const;

    MergesModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    TokenSearchBar *searchBar() const { return m_bar; }

signals:
    /// The table shows the result of the latest query (or the query was not understood).
    void searchFinished();

private:
    void startSearch();
    void showRows(std::shared_ptr<const gguf::TokenSearch::Ids> rows, double milliseconds);
    int rowOf(quint64 rank) const;
    void selectRow(int row);

    MergesModel *m_model;
    TokenSearchBar *m_bar;
    QTableView *m_view;
    QLabel *m_status;
    JobTracker *m_jobs;
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
    qint64 m_pendingSelection = -1;
};
