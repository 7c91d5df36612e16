// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/merges_view.h"

#include "core/vocab/vocabulary.h"
#include "ui/common/job_tracker.h"
#include "ui/tokenizer/merges_model.h"
#include "ui/tokenizer/token_search_bar.h"

#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableView>
#include <QVBoxLayout>

namespace {

struct Found {
    std::shared_ptr<const gguf::TokenSearch::Ids> ranks;
    double milliseconds = 0;
};

} // namespace

MergesView::MergesView(QWidget *parent)
    : QWidget(parent), m_model(new MergesModel(this)), m_bar(new TokenSearchBar(TokenSearchBar::Target::Merges, this)),
      m_view(new QTableView(this)), m_status(new QLabel(this)), m_jobs(new JobTracker(this))
{
    // a table, not a tree: a QTreeView lays out every one of 500,000 rows whenever it is resized,
    // a table of fixed-height rows none
    m_view->setModel(m_model);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    const int widths[MergesModel::ColumnCount] = {70, 160, 160, 180, 180};
    for (int c = 0; c < MergesModel::ColumnCount; ++c)
        m_view->horizontalHeader()->resizeSection(c, widths[c]);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(m_bar, &TokenSearchBar::queryChanged, this, &MergesView::startSearch);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_bar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
}

MergesView::~MergesView() = default;

void MergesView::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab)
{
    m_jobs->drop();
    m_vocab = std::move(vocab);
    m_pendingSelection = -1;
    m_model->setVocabulary(m_vocab);
    startSearch();
}

void MergesView::setQuery(const gguf::TokenSearch::Query &query)
{
    m_bar->setQuery(query);
}

void MergesView::startSearch()
{
    const gguf::TokenSearch search(m_bar->query());
    m_bar->setError(TokenSearchBar::errorText(search));
    if (!search.isValid()) {
        m_jobs->drop();
        m_status->setText(TokenSearchBar::errorText(search));
        emit searchFinished();
        return;
    }
    if (!m_vocab || search.matchesAll()) {
        m_jobs->drop();
        showRows(nullptr, 0);
        return;
    }
    m_status->setText(tr("Searching…"));
    const auto work = [vocab = m_vocab, search](const gguf::ProgressFn &progress) {
        QElapsedTimer timer;
        timer.start();
        Found found;
        if (auto ranks = search.merges(*vocab, progress))
            found.ranks = std::make_shared<const gguf::TokenSearch::Ids>(std::move(*ranks));
        found.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        return found;
    };
    m_jobs->start(tr("Searching the merge rules"), work, [this](Found found) {
        if (found.ranks)
            showRows(found.ranks, found.milliseconds);
    });
}

void MergesView::showRows(std::shared_ptr<const gguf::TokenSearch::Ids> rows, double milliseconds)
{
    m_model->setRows(std::move(rows));
    const QLocale locale;
    const int total = m_model->mergeCount();
    QString text;
    if (!m_vocab || total == 0)
        text = tr("This vocabulary has no merge rules (tokenizer.ggml.merges).");
    else if (!m_model->isFiltered())
        text = tr("%1 merge rules").arg(locale.toString(total));
    else
        text = tr("%1 of %2 merge rules match").arg(locale.toString(m_model->rowCount()), locale.toString(total));
    if (milliseconds > 0)
        text += tr(" — %1 ms").arg(locale.toString(milliseconds, 'f', 1));
    m_status->setText(text);
    if (m_pendingSelection >= 0) {
        const int row = rowOf(static_cast<quint64>(m_pendingSelection));
        m_pendingSelection = -1;
        if (row >= 0)
            selectRow(row);
    }
    emit searchFinished();
}

int MergesView::rowOf(quint64 rank) const
{
    // ranks are ascending in every result
    for (int lo = 0, hi = m_model->rowCount(); lo < hi;) {
        const int mid = lo + (hi - lo) / 2;
        const quint64 at = *m_model->rankAt(mid);
        if (at == rank)
            return mid;
        if (at < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

bool MergesView::selectRank(quint64 rank)
{
    if (!m_vocab || rank >= m_vocab->mergeCount())
        return false;
    const int row = rowOf(rank);
    // a search still running replaces the rows: select the rule again when it is done
    m_pendingSelection = m_jobs->isRunning() || row < 0 ? static_cast<qint64>(rank) : -1;
    if (row >= 0)
        selectRow(row);
    else // hidden by the search: show every rule, then select it
        m_bar->setQuery(gguf::TokenSearch::Query{});
    return true;
}

void MergesView::selectRow(int row)
{
    const QModelIndex index = m_model->index(row, 0);
    m_view->setCurrentIndex(index);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

void MergesView::focusSearch()
{
    m_bar->focusSearch();
}

bool MergesView::isSearching() const
{
    return m_jobs->isRunning();
}

QString MergesView::statusText() const
{
    return m_status->text();
}
