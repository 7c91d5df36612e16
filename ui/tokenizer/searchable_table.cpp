// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/searchable_table.h"

#include "ui/common/compact_rows.h"
#include "ui/common/job_tracker.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

SearchableTable::SearchableTable(TokenSearchBar::Target target, QAbstractItemModel *model,
                                 std::initializer_list<int> widths, QWidget *parent)
    : QWidget(parent), m_bar(new TokenSearchBar(target, this)), m_view(new QTableView(this)),
      m_status(new QLabel(this)), m_jobs(new JobTracker(this))
{
    m_view->setModel(model);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    setCompactRows(m_view);
    QHeaderView *header = m_view->horizontalHeader();
    header->setHighlightSections(false);
    header->setStretchLastSection(true);
    header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    int column = 0;
    for (const int width : widths)
        header->resizeSection(column++, width);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_bar, &TokenSearchBar::queryChanged, this, [this] { startSearch(); });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
}

SearchableTable::~SearchableTable() = default;

void SearchableTable::setQuery(const gguf::TokenSearch::Query &query)
{
    m_bar->setQuery(query);
}

void SearchableTable::focusSearch()
{
    m_bar->focusSearch();
}

bool SearchableTable::isSearching() const
{
    return m_jobs->isRunning();
}

QString SearchableTable::statusText() const
{
    return m_status->text();
}

bool SearchableTable::refuseQuery(const gguf::TokenSearch &search, const QString &text)
{
    const QString why = TokenSearchBar::errorText(search);
    m_bar->setError(why);
    if (search.isValid() && text.isEmpty())
        return false;
    m_jobs->drop();
    m_status->setText(text.isEmpty() ? why : text);
    emit searchFinished();
    return true;
}

void SearchableTable::finishSearch(const QString &text)
{
    m_status->setText(text);
    if (m_pendingSelection >= 0) {
        const int row = rowOf(static_cast<quint64>(m_pendingSelection));
        m_pendingSelection = -1;
        if (row >= 0)
            selectRow(row);
    }
    emit searchFinished();
}

void SearchableTable::selectKey(quint64 key)
{
    const int row = rowOf(key);
    // a search still running replaces the rows: select the row again when it is done
    m_pendingSelection = m_jobs->isRunning() || row < 0 ? static_cast<qint64>(key) : -1;
    if (row >= 0)
        selectRow(row);
    else // hidden by the search: show every row, then select it
        m_bar->setQuery(gguf::TokenSearch::Query{});
}

void SearchableTable::selectRow(int row)
{
    const QModelIndex index = m_view->model()->index(row, 0);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
}
