// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare page's three sections as widgets (metadata, tokenizer, tensors) and their links to
// the models' own pages; compare_page.cpp runs the comparison and shows its results.
#include "ui/compare/compare_page.h"

#include "core/format/split_model.h"
#include "ui/common/compact_rows.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"
#include "ui/compare/compare_jobs.h"
#include "ui/compare/metadata_diff_model.h"
#include "ui/compare/tensor_diff_model.h"
#include "ui/compare/tensor_pair_panel.h"
#include "ui/compare/text_diff_view.h"
#include "ui/compare/token_diff_model.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

QWidget *ComparePage::buildMetadataSection()
{
    auto *section = new QWidget(this);
    m_metadataShow->addItems( // in MetadataDiffProxy::Show's order
        {tr("Differences"), tr("Every key"), tr("Added"), tr("Removed"), tr("Changed"), tr("Same")});
    m_metadataFilter->setPlaceholderText(tr("Filter keys"));
    m_metadataFilter->setClearButtonEnabled(true);
    m_metadataProxy->setSourceModel(m_metadataModel);
    m_metadataView->setModel(m_metadataProxy);
    m_metadataView->setUniformRowHeights(true);
    m_metadataView->setAlternatingRowColors(false);
    m_metadataView->header()->resizeSection(MetadataDiffModel::Key, 300);
    m_metadataView->header()->resizeSection(MetadataDiffModel::Status, 150);
    m_metadataView->header()->resizeSection(MetadataDiffModel::Type, 130);
    m_metadataView->header()->resizeSection(MetadataDiffModel::ValueA, 260);
    m_metadataView->setContextMenuPolicy(Qt::CustomContextMenu);
    m_metadataView->setToolTip(tr("Double-click: show the key in A (in B when only B has it)"));
    m_textDiff->hide();
    m_textDiffLabel->hide();
    auto *bar = new QHBoxLayout;
    auto *showLabel = new QLabel(tr("&Show:"), this);
    showLabel->setBuddy(m_metadataShow);
    bar->addWidget(showLabel);
    bar->addWidget(m_metadataShow);
    bar->addWidget(m_metadataFilter, 1);
    auto *details = new QWidget(this);
    auto *detailsLayout = new QVBoxLayout(details);
    detailsLayout->setContentsMargins(0, 0, 0, 0);
    detailsLayout->addWidget(m_textDiffLabel);
    detailsLayout->addWidget(m_textDiff, 1);
    auto *split = new QSplitter(Qt::Vertical, section);
    split->addWidget(m_metadataView);
    split->addWidget(details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(section);
    layout->addLayout(bar);
    layout->addWidget(split, 1);

    const auto refilter = [this] {
        m_metadataProxy->setFilter(m_metadataShow->currentIndex(), m_metadataFilter->text());
    };
    connect(m_metadataShow, &QComboBox::currentIndexChanged, this, refilter);
    connect(m_metadataFilter, &QLineEdit::textChanged, this, refilter);
    connect(m_metadataView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ComparePage::showMetadataDetails);
    connect(m_metadataView, &QTreeView::doubleClicked, this, [this] { activateMetadata(-1); });
    connect(m_metadataView, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const gguf::MetadataDifference *d =
            m_metadataModel->entryAt(m_metadataProxy->mapToSource(m_metadataView->indexAt(pos)));
        if (!d)
            return;
        QMenu menu;
        menu.addAction(tr("Show in &A"), this, [this] { activateMetadata(A); })->setEnabled(d->a != nullptr);
        menu.addAction(tr("Show in &B"), this, [this] { activateMetadata(B); })->setEnabled(d->b != nullptr);
        menu.exec(m_metadataView->viewport()->mapToGlobal(pos));
    });
    return section;
}

QWidget *ComparePage::buildTokenizerSection()
{
    auto *section = new QWidget(this);
    QFont bold = m_verdict->font();
    bold.setBold(true);
    m_verdict->setFont(bold);
    m_verdict->setWordWrap(true);
    m_tokenSummary->setWordWrap(true);
    m_tokenSummary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tokenView->setModel(m_tokenModel);
    m_tokenView->verticalHeader()->hide();
    setCompactRows(m_tokenView);
    m_tokenView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tokenView->horizontalHeader()->setStretchLastSection(true);
    m_tokenView->setToolTip(tr("Double-click: show the token in A (in B when only B has it)"));
    auto *layout = new QVBoxLayout(section);
    layout->addWidget(m_verdict);
    layout->addWidget(m_tokenSummary);
    layout->addWidget(m_tokenView, 1);
    connect(m_tokenView, &QTableView::doubleClicked, this, [this] { activateToken(-1); });
    return section;
}

QWidget *ComparePage::buildTensorsSection()
{
    auto *section = new QWidget(this);
    m_tensorFilter->setPlaceholderText(tr("Filter tensors"));
    m_tensorFilter->setClearButtonEnabled(true);
    m_tensorProxy->setSourceModel(m_tensorModel);
    m_tensorView->setModel(m_tensorProxy);
    m_tensorView->setSortingEnabled(true);
    m_tensorView->sortByColumn(-1, Qt::AscendingOrder); // file order until the user sorts
    m_tensorView->verticalHeader()->hide();
    setCompactRows(m_tensorView);
    m_tensorView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tensorView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tensorView->horizontalHeader()->resizeSection(TensorDiffModel::Name, 240);
    // every header readable whole, the sort mark included (#40: "mean |a−b| / mean |a|" was cut)
    QHeaderView *header = m_tensorView->horizontalHeader();
    const int mark = style()->pixelMetric(QStyle::PM_HeaderMarkSize, nullptr, header);
    for (int c = 0; c < m_tensorModel->columnCount(); ++c)
        if (c != TensorDiffModel::Name)
            header->resizeSection(c, std::max(header->sectionSize(c), header->sectionSizeHint(c) + mark));
    m_tensorView->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tensorView->setToolTip(tr("Double-click: show the tensor in A (in B when only B has it)"));
    m_valueProgress->track(m_overviewTracker);
    m_valueProgress->track(m_valueTracker);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_tensorFilter, 1);
    bar->addWidget(m_differencesOnly);
    bar->addWidget(m_compareValues);
    auto *split = new QSplitter(Qt::Vertical, section);
    // the pair's plots scroll rather than set the window's minimum height
    auto *pairArea = new QScrollArea(section);
    pairArea->setWidget(m_pair);
    pairArea->setWidgetResizable(true);
    pairArea->setFrameShape(QFrame::NoFrame);
    split->addWidget(m_tensorView);
    split->addWidget(pairArea);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({260, 420});
    auto *layout = new QVBoxLayout(section);
    layout->addLayout(bar);
    layout->addWidget(m_valueProgress);
    layout->addWidget(split, 1);

    connect(m_tensorFilter, &QLineEdit::textChanged, m_tensorProxy, &TensorDiffProxy::setNameFilter);
    connect(m_differencesOnly, &QCheckBox::toggled, m_tensorProxy, &TensorDiffProxy::setDifferencesOnly);
    connect(m_compareValues, &QPushButton::clicked, this, &ComparePage::compareValues);
    connect(m_valueProgress, &JobProgress::restartClicked, this, &ComparePage::compareValues);
    connect(m_valueTracker, &JobTracker::cancelled, this, &ComparePage::updateValueButton);
    connect(m_tensorView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (!m_updatingRows)
                    m_pair->setRow(m_tensorProxy->mapToSource(current).row());
            });
    connect(m_tensorView, &QTableView::doubleClicked, this, [this] { activateTensor(-1); });
    connect(m_tensorView, &QWidget::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex at = m_tensorView->indexAt(pos);
        const gguf::TensorPair *p = m_tensorModel->pairAt(m_tensorProxy->mapToSource(at).row());
        if (!p)
            return;
        m_tensorView->setCurrentIndex(at); // the actions act on the current row
        QMenu menu;
        menu.addAction(tr("Show in &A"), this, [this] { activateTensor(A); })->setEnabled(p->a != nullptr);
        menu.addAction(tr("Show in &B"), this, [this] { activateTensor(B); })->setEnabled(p->b != nullptr);
        menu.exec(m_tensorView->viewport()->mapToGlobal(pos));
    });
    connect(m_pair, &TensorPairPanel::linkActivated, this, &Page::linkActivated);
    connect(m_pair, &TensorPairPanel::tensorChosen, this, &ComparePage::selectTensor);
    return section;
}

void ComparePage::setMetadataFilter(int choice, const QString &text)
{
    m_metadataFilter->setText(text);
    m_metadataShow->setCurrentIndex(choice);
}

void ComparePage::showMetadataDetails()
{
    const gguf::MetadataDifference *d =
        m_metadataModel->entryAt(m_metadataProxy->mapToSource(m_metadataView->currentIndex()));
    // a changed string (the chat template above all) as a line-by-line difference
    const bool strings = d && d->a && d->b && d->a->value.type() == gguf::ValueType::String &&
                         d->b->value.type() == gguf::ValueType::String && d->status == gguf::DiffStatus::Changed;
    m_textDiff->setVisible(strings);
    m_textDiffLabel->setVisible(strings);
    if (!strings)
        return;
    m_textDiff->setTexts(d->a->value.toStringView(), d->b->value.toStringView());
    m_textDiffLabel->setText(tr("%1: %2 lines only in A (−), %3 only in B (+)")
                                 .arg(TextFormat::fromView(d->key))
                                 .arg(m_textDiff->removedLines())
                                 .arg(m_textDiff->addedLines()));
}

Link::Side ComparePage::linkSide(int side)
{
    return side == A ? Link::Side::A : Link::Side::B;
}

void ComparePage::activateMetadata(int side)
{
    const gguf::MetadataDifference *d =
        m_metadataModel->entryAt(m_metadataProxy->mapToSource(m_metadataView->currentIndex()));
    if (!d)
        return;
    if (side < 0)
        side = d->a ? A : B;
    const gguf::MetadataEntry *e = side == A ? d->a : d->b;
    if (e)
        emit linkActivated(Link::metadataEntry(static_cast<int>(e->index)).on(linkSide(side)));
}

void ComparePage::activateTensor(int side)
{
    const gguf::TensorPair *p = m_tensorModel->pairAt(m_tensorProxy->mapToSource(m_tensorView->currentIndex()).row());
    if (!p)
        return;
    if (side < 0)
        side = p->a ? A : B;
    const auto &model = side == A ? m_a : m_b;
    const int position = side == A ? p->positionA : p->positionB;
    if (!model || position < 0)
        return;
    const gguf::SplitModel::TensorRef &ref = model->tensors()[static_cast<size_t>(position)];
    emit linkActivated(
        Link::tensor(TensorRef{static_cast<int>(ref.shard), static_cast<int>(ref.info->index)}).on(linkSide(side)));
}

void ComparePage::activateToken(int side)
{
    const QModelIndex i = m_tokenView->currentIndex();
    if (!i.isValid())
        return;
    const quint64 id = i.data(TokenDiffModel::IdRole).toULongLong();
    if (side < 0)
        side = id < m_tokenModel->diff().sizeA ? A : B;
    emit linkActivated(Link::tokenId(id).on(linkSide(side)));
}
