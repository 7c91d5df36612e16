// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/metadata/metadata_page.h"

#include "core/format/split_model.h"
#include "ui/common/fixed_font.h"
#include "ui/common/page_state.h"

#include "core/format/gguf_file.h"
#include "ui/common/job_progress.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_filter_proxy.h"
#include "ui/metadata/metadata_tree_model.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDataStream>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace {
constexpr quint32 kMetadataStateVersion = 1;
}

MetadataPage::MetadataPage(QWidget *parent)
    : Page(parent), m_model(new MetadataTreeModel(this)), m_proxy(new MetadataFilterProxy(this)),
      m_filter(new QLineEdit(this)), m_view(new QTreeView(this)), m_splitter(new QSplitter(Qt::Horizontal, this)),
      m_detailTitle(new QLabel(this)), m_detail(new QPlainTextEdit(this)), m_editor(new MetadataEditor(this))
{
    m_proxy->setSourceModel(m_model);
    m_model->setPendingChanges(&m_editor->changes());

    m_filter->setPlaceholderText(tr("Filter keys and values…"));
    m_filter->setClearButtonEnabled(true);
    // Files dropped anywhere open in the window; the filter box must not take them as text.
    m_filter->setAcceptDrops(false);
    connect(m_filter, &QLineEdit::textChanged, this, &MetadataPage::setFilterText);

    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->header()->resizeSection(MetadataTreeModel::KeyColumn, 320);
    m_view->header()->resizeSection(MetadataTreeModel::TypeColumn, 130);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { showDetails(current); });
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex &proxyIndex) {
        if (const auto id = tokenAt(m_proxy->mapToSource(proxyIndex.siblingAtColumn(0))))
            emit linkActivated(Link::tokenId(*id));
    });

    auto *copyValue = new QAction(tr("Copy &Value"), m_view);
    copyValue->setShortcut(QKeySequence::Copy);
    copyValue->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyValue, &QAction::triggered, this, [this] { copy(MetadataTreeModel::FullTextRole); });
    auto *copyKey = new QAction(tr("Copy &Key"), m_view);
    copyKey->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    copyKey->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(copyKey, &QAction::triggered, this, [this] { copy(MetadataTreeModel::KeyRole); });
    m_view->addActions({copyValue, copyKey});

    m_detailTitle->setWordWrap(true);
    m_detailTitle->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setReadOnly(true);
    m_detail->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_detail->setFont(fixedFont());
    m_detail->setPlaceholderText(tr("Select a key to see its value in full."));
    m_apply = new QPushButton(tr("&Apply Text"), this);
    m_apply->setToolTip(tr("Take the text above as the new value (a pending change until you save)"));
    m_templateCheck = new QLabel(this);
    m_templateCheck->setWordWrap(true);
    m_pendingTitle = new QLabel(this);
    m_pending = new QListWidget(this);
    m_pending->setObjectName(QStringLiteral("pendingChanges"));
    m_pending->setMaximumHeight(140);
    auto *applyRow = new QHBoxLayout;
    applyRow->addWidget(m_templateCheck, 1);
    applyRow->addWidget(m_apply);
    auto *detailPane = new QWidget(this);
    auto *detailLayout = new QVBoxLayout(detailPane);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_detailTitle);
    detailLayout->addWidget(m_detail, 1);
    detailLayout->addLayout(applyRow);
    detailLayout->addWidget(m_pendingTitle);
    detailLayout->addWidget(m_pending);

    m_splitter->addWidget(m_view);
    m_splitter->addWidget(detailPane);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    auto *top = new QHBoxLayout;
    top->addWidget(m_filter, 1);
    top->addWidget(createEditBar());
    m_saveProgress = new JobProgress(this);
    m_saveProgress->track(m_editor->saveTracker());
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_saveProgress);
    layout->addWidget(m_splitter, 1);
    updateEditState();
    // the view state kept between runs (the same layout as before PageState: old settings restore)
    m_state = PageState(kMetadataStateVersion);
    m_state.add(m_splitter).add(m_view->header());
}

void MetadataPage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    setFile(model ? model->primaryShared() : nullptr);
}

bool MetadataPage::focusFind()
{
    focusFilter();
    return true;
}

void MetadataPage::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    // a remote file is not edited here: the writer needs it on this machine (docs/REMOTE.md); nor is
    // a damaged one: the writer copies the tensor data, which lies past the break
    const bool remote = file && file->isRemote();
    const bool damaged = file && file->breakage();
    if ((remote || damaged) && isEditing())
        setEditing(false);
    m_editButton->setEnabled(!remote && !damaged);
    m_editButton->setToolTip(remote    ? tr("A remote file cannot be edited: download it, then open and edit the copy.")
                             : damaged ? tr("A damaged file cannot be edited: what follows the break is unknown.")
                                       : m_editTip);
    m_editor->setFile(file); // a new file starts without changes
    m_model->setFile(std::move(file));
    updatePending();
    m_view->expandToDepth(0);
    showDetails({});
}

void MetadataPage::setFilterText(const QString &text)
{
    if (m_filter->text() != text)
        m_filter->setText(text);
    m_proxy->setFilterText(text);
    if (!text.isEmpty())
        m_view->expandToDepth(0);
}

QString MetadataPage::detailText() const
{
    return m_detail->toPlainText();
}

void MetadataPage::showDetails(const QModelIndex &proxyIndex)
{
    const QModelIndex index = m_proxy->mapToSource(proxyIndex.siblingAtColumn(0));
    updateDetailEditing(index);
    if (!index.isValid()) {
        m_detailTitle->clear();
        m_detail->clear();
        return;
    }
    const auto kind = static_cast<MetadataTreeModel::ItemKind>(index.data(MetadataTreeModel::ItemKindRole).toInt());
    const QString type = index.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString();
    if (kind == MetadataTreeModel::ItemKind::Group) {
        m_detailTitle->setText(tr("<b>%1</b> — %2").arg(index.data().toString().toHtmlEscaped(), type));
        m_detail->clear();
        return;
    }
    const quint64 offset = index.data(MetadataTreeModel::ByteOffsetRole).toULongLong();
    const quint64 size = index.data(MetadataTreeModel::ByteSizeRole).toULongLong();
    if (size == 0 && index.data(MetadataTreeModel::PendingRole).toBool()) {
        // a key added while editing: not in the file yet, so no bytes to point at
        m_detailTitle->setText(tr("<b>%1</b> — %2<br>added; not in the file until you save")
                                   .arg(index.data().toString().toHtmlEscaped(), type));
        m_detail->setPlainText(index.data(MetadataTreeModel::FullTextRole).toString());
        return;
    }
    const QString name = kind == MetadataTreeModel::ItemKind::Element
                             ? index.data(MetadataTreeModel::KeyRole).toString() + index.data().toString()
                             : index.data().toString();
    m_detailTitle->setText(tr("<b>%1</b> — %2<br>bytes %3–%4 (%5)")
                               .arg(name.toHtmlEscaped(), type, TextFormat::offset(offset),
                                    TextFormat::offset(offset + size), TextFormat::byteSize(size)));
    m_detail->setPlainText(index.data(MetadataTreeModel::FullTextRole).toString());
    emit linkActivated(Link::bytes(Link::kPrimaryShard, offset, size).inBackground());
}

std::optional<quint64> MetadataPage::tokenAt(const QModelIndex &index) const
{
    const std::string key = index.data(MetadataTreeModel::KeyRole).toString().toStdString();
    const auto kind = static_cast<MetadataTreeModel::ItemKind>(index.data(MetadataTreeModel::ItemKindRole).toInt());
    const std::string_view k = key;
    // element N of a per-token array (its parent is the array's key) is token N
    const bool perToken =
        k == "tokenizer.ggml.tokens" || k == "tokenizer.ggml.scores" || k == "tokenizer.ggml.token_type";
    if (kind == MetadataTreeModel::ItemKind::Element && perToken &&
        index.parent().data(MetadataTreeModel::ItemKindRole).toInt() ==
            static_cast<int>(MetadataTreeModel::ItemKind::Entry))
        return static_cast<quint64>(index.row());
    const gguf::GgufFile *file = m_model->file();
    if (kind != MetadataTreeModel::ItemKind::Entry || !file || !k.starts_with("tokenizer.ggml.") ||
        !k.ends_with("_token_id"))
        return std::nullopt;
    const gguf::MetadataEntry *entry = file->findMetadata(k);
    const auto id = entry ? entry->value.toUInt() : std::nullopt;
    return id ? std::optional<quint64>(*id) : std::nullopt;
}

void MetadataPage::copy(int role)
{
    const QModelIndex index = m_view->currentIndex();
    if (index.isValid())
        QApplication::clipboard()->setText(index.siblingAtColumn(0).data(role).toString());
}

bool MetadataPage::follow(const Link &link)
{
    if (link.target != Link::Target::MetadataEntry)
        return false;
    selectMetadataEntry(link.index);
    return true;
}

void MetadataPage::selectMetadataEntry(int index)
{
    const gguf::GgufFile *file = m_model->file();
    if (!file || index < 0 || size_t(index) >= file->metadata().size())
        return;
    const gguf::MetadataEntry &entry = file->metadata()[size_t(index)];
    const QModelIndex source = m_model->indexOfKey(QString::fromUtf8(entry.key.data(), qsizetype(entry.key.size())));
    if (!m_proxy->mapFromSource(source).isValid())
        setFilterText(QString());
    const QModelIndex proxyIndex = m_proxy->mapFromSource(source);
    m_view->setCurrentIndex(proxyIndex);
    m_view->scrollTo(proxyIndex);
}

void MetadataPage::focusFilter()
{
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

QByteArray MetadataPage::saveState() const
{
    return m_state.save();
}

void MetadataPage::restoreState(const QByteArray &state)
{
    m_state.restore(state);
}
