// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/merges_view.h"

#include "core/vocab/vocabulary.h"
#include "ui/common/job_tracker.h"
#include "ui/tokenizer/merges_model.h"
#include "ui/tokenizer/token_search_bar.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QTableView>

namespace {

struct Found {
    std::shared_ptr<const gguf::TokenSearch::Ids> ranks;
    double milliseconds = 0;
};

} // namespace

MergesView::MergesView(QWidget *parent)
    : SearchableTable(TokenSearchBar::Target::Merges, new MergesModel, {70, 160, 160, 180, 180}, parent),
      m_model(static_cast<MergesModel *>(view()->model()))
{
    m_model->setParent(this);
}

MergesView::~MergesView() = default;

void MergesView::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab)
{
    m_jobs->drop();
    m_vocab = std::move(vocab);
    forgetSelection();
    m_model->setVocabulary(m_vocab);
    startSearch();
}

void MergesView::startSearch()
{
    const gguf::TokenSearch search(m_bar->query());
    if (refuseQuery(search))
        return;
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
    finishSearch(text);
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
    selectKey(rank);
    return true;
}
