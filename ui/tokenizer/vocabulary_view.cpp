// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/vocabulary_view.h"

#include "core/vocab/vocabulary.h"
#include "ui/common/job_tracker.h"
#include "ui/tokenizer/token_search_bar.h"
#include "ui/tokenizer/vocabulary_model.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QTableView>

// What a search job hands back: the matching ids, and the order it had to compute first.
struct VocabularyView::Outcome {
    std::shared_ptr<const gguf::TokenSearch::Ids> ids;
    std::shared_ptr<const gguf::TokenSearch::Ids> order;
    int key = 0;
    bool all = false;
    double milliseconds = 0;
};

VocabularyView::VocabularyView(QWidget *parent)
    : SearchableTable(TokenSearchBar::Target::Tokens, new VocabularyModel, {64, 140, 140, 140, 56, 90, 80}, parent),
      m_model(static_cast<VocabularyModel *>(view()->model()))
{
    m_model->setParent(this);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(VocabularyModel::IdColumn, Qt::AscendingOrder);
    m_view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);

    // copying: the stored token (Ctrl+C), the decoded text, the id
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    const auto addCopy = [this](const QString &text, const QKeySequence &keys, int column, int role) {
        auto *action = new QAction(text, m_view);
        action->setShortcut(keys);
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        connect(action, &QAction::triggered, this, [this, column, role] {
            const QModelIndex index = m_view->currentIndex().siblingAtColumn(column);
            if (index.isValid())
                QApplication::clipboard()->setText(role == VocabularyModel::RawTextRole
                                                       ? QString::fromUtf8(index.data(role).toByteArray())
                                                       : index.data(role).toString());
        });
        m_view->addAction(action);
    };
    addCopy(tr("Copy &Token"), QKeySequence::Copy, VocabularyModel::TokenColumn, VocabularyModel::RawTextRole);
    addCopy(tr("Copy &Decoded Text"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), VocabularyModel::DecodedColumn,
            VocabularyModel::RawTextRole);
    addCopy(tr("Copy &Id"), QKeySequence(), VocabularyModel::IdColumn, Qt::DisplayRole);

    connect(m_model, &VocabularyModel::sortRequested, this, &VocabularyView::requestSort);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (const auto id = m_model->idAt(current.row()))
                    emit tokenSelected(*id);
            });
}

VocabularyView::~VocabularyView() = default;

void VocabularyView::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab)
{
    m_jobs->drop();
    m_vocab = std::move(vocab);
    m_orders = {};
    forgetSelection();
    m_model->setVocabulary(m_vocab);
    startSearch();
}

void VocabularyView::startSearch()
{
    const gguf::TokenSearch search(m_bar->query());
    if (refuseQuery(search, m_vocab ? QString() : tr("No tokenizer vocabulary in this file.")))
        return;
    const int key = VocabularyModel::sortKeyOf(m_sortColumn);
    const bool descending = m_sortOrder == Qt::DescendingOrder;
    const bool idOrder = key == static_cast<int>(gguf::TokenSearch::SortKey::Id);
    const auto order = idOrder ? nullptr : m_orders[static_cast<size_t>(key)];
    // Every token in an order already known: nothing to compute.
    if (search.matchesAll() && !descending && (idOrder || order)) {
        m_jobs->drop();
        showRows(order, search.matchesAll(), 0);
        return;
    }
    m_status->setText(tr("Searching…"));
    const auto work = [vocab = m_vocab, search, key, idOrder, descending, order](const gguf::ProgressFn &progress) {
        QElapsedTimer timer;
        timer.start();
        Outcome out;
        out.key = key;
        out.all = search.matchesAll();
        auto use = order;
        if (!use && !idOrder) {
            auto computed =
                gguf::TokenSearch::sortOrder(*vocab, static_cast<gguf::TokenSearch::SortKey>(key), progress);
            if (!computed)
                return out;
            use = out.order = std::make_shared<const gguf::TokenSearch::Ids>(std::move(*computed));
        }
        if (auto ids = search.tokens(*vocab, use.get(), descending, progress))
            out.ids = std::make_shared<const gguf::TokenSearch::Ids>(std::move(*ids));
        out.milliseconds = static_cast<double>(timer.nsecsElapsed()) / 1e6;
        return out;
    };
    m_jobs->start(tr("Searching the vocabulary"), work, [this](Outcome out) {
        if (out.order)
            m_orders[static_cast<size_t>(out.key)] = out.order;
        if (out.ids)
            showRows(out.ids, out.all, out.milliseconds);
    });
}

void VocabularyView::showRows(std::shared_ptr<const gguf::TokenSearch::Ids> rows, bool all, double milliseconds)
{
    m_model->setRows(std::move(rows));
    const QLocale locale;
    const int total = m_model->tokenCount();
    QString text = all ? tr("%1 tokens").arg(locale.toString(total))
                       : tr("%1 of %2 tokens match").arg(locale.toString(m_model->rowCount()), locale.toString(total));
    if (m_sortColumn != VocabularyModel::IdColumn || m_sortOrder == Qt::DescendingOrder)
        text += tr(", sorted by %1%2")
                    .arg(m_model->headerData(m_sortColumn, Qt::Horizontal).toString().toLower(),
                         m_sortOrder == Qt::DescendingOrder ? tr(" (descending)") : QString());
    if (milliseconds > 0)
        text += tr(" — %1 ms").arg(locale.toString(milliseconds, 'f', 1));
    finishSearch(text);
}

void VocabularyView::requestSort(int column, Qt::SortOrder order)
{
    if (VocabularyModel::sortKeyOf(column) < 0) {
        // Decoded text and bytes have no order of their own: the indicator goes back
        const QSignalBlocker blocker(m_view->horizontalHeader());
        m_view->horizontalHeader()->setSortIndicator(m_sortColumn, m_sortOrder);
        return;
    }
    if (column == m_sortColumn && order == m_sortOrder)
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    startSearch();
}

bool VocabularyView::selectToken(quint64 id)
{
    if (!m_vocab || id >= m_vocab->size())
        return false;
    selectKey(id);
    return true;
}

int VocabularyView::rowOf(quint64 id) const
{
    return m_model->rowOf(id);
}

qint64 VocabularyView::currentToken() const
{
    const auto id = m_model->idAt(m_view->currentIndex().row());
    return id ? static_cast<qint64>(*id) : -1;
}
