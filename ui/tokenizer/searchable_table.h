// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/vocab/token_search.h"
#include "ui/tokenizer/token_search_bar.h"

#include <QWidget>

#include <initializer_list>

class JobTracker;
class QAbstractItemModel;
class QLabel;
class QTableView;

/// A table of a vocabulary's rows (tokens, merge rules) with the token search above it and a status
/// line below: the skeleton the vocabulary and the merge rules share. The search runs on a worker
/// (a newer query drops the older one); selecting a row a search hides clears the search and
/// selects it once the rows are back. A table, not a tree: a QTreeView lays out every one of
/// 256,000 rows whenever it is resized, a table of fixed-height rows none.
class SearchableTable : public QWidget {
    Q_OBJECT
public:
    /// Shows `query` in the search bar and runs it.
    void setQuery(const gguf::TokenSearch::Query &query);
    void focusSearch();
    /// True while a search (or an order) is being computed.
    bool isSearching() const;
    QString statusText() const;

    QTableView *view() const { return m_view; }
    TokenSearchBar *searchBar() const { return m_bar; }

signals:
    /// The table shows the result of the latest query (or the query was not understood).
    void searchFinished();

protected:
    /// The table shows `model`, its columns `widths` pixels wide.
    SearchableTable(TokenSearchBar::Target target, QAbstractItemModel *model, std::initializer_list<int> widths,
                    QWidget *parent);
    ~SearchableTable() override;

    /// Runs the search bar's query (the bar's queryChanged calls it).
    virtual void startSearch() = 0;
    /// The row that shows `key` (a token id, a rule's rank), or -1.
    virtual int rowOf(quint64 key) const = 0;

    /// Selects the row of `key` and scrolls to it; when a search hides it, shows every row first.
    /// Selected again when a search that runs now ends.
    void selectKey(quint64 key);
    /// The rows of the latest search are shown: says `text` and selects a key that waited for them.
    void finishSearch(const QString &text);
    /// Says why the query cannot run (or `text` when given) and ends the search; false when it can.
    bool refuseQuery(const gguf::TokenSearch &search, const QString &text = {});
    void selectRow(int row);
    /// Forgets a key waiting for the rows (new rows of another vocabulary are coming).
    void forgetSelection() { m_pendingSelection = -1; }

    TokenSearchBar *m_bar;
    QTableView *m_view;
    QLabel *m_status;
    JobTracker *m_jobs;

private:
    qint64 m_pendingSelection = -1;
};
