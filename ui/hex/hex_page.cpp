// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_page.h"
#include "ui/common/job_tracker.h"

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "ui/common/message_bar.h"
#include "ui/common/text_format.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_find_bar.h"
#include "ui/hex/hex_inspector.h"
#include "ui/hex/hex_search.h"
#include "ui/hex/hex_text.h"
#include "ui/hex/hex_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QThreadPool>
#include <QVBoxLayout>

HexPage::HexPage(QWidget *parent)
    : Page(parent), m_bar(new HexFindBar(this)), m_message(new MessageBar(this)), m_shards(new QComboBox(this)),
      m_shardLabel(new QLabel(tr("&File:"), this)), m_splitter(new QSplitter(Qt::Horizontal, this)),
      m_view(new HexView(this)), m_inspector(new HexInspector(this)), m_search(new HexSearch(this)),
      m_annotatorJobs(new JobTracker(this, QThreadPool::globalInstance())),
      m_fetchJobs(new JobTracker(this, QThreadPool::globalInstance()))
{
    connect(m_view, &HexView::bytesWanted, this, &HexPage::fetchBytes);
    m_message->clearMessage();
    m_shardLabel->setBuddy(m_shards);
    m_shardLabel->hide();
    m_shards->setObjectName(QStringLiteral("hexShards"));
    m_shards->hide();
    connect(m_shards, &QComboBox::activated, this, &HexPage::showShard);

    connect(m_bar, &HexFindBar::goToRequested, this, &HexPage::goTo);
    connect(m_bar, &HexFindBar::findRequested, this, &HexPage::find);
    connect(m_bar, &HexFindBar::cancelRequested, this, &HexPage::cancelSearch);
    connect(m_bar, &HexFindBar::goToDataRequested, this, &HexPage::goToTensorData);
    connect(m_bar, &HexFindBar::bytesPerRowChanged, m_view, &HexView::setBytesPerRow);
    connect(m_bar, &HexFindBar::notesToggled, m_view, &HexView::setNotesVisible);

    connect(m_search, &HexSearch::progressChanged, m_bar, &HexFindBar::setSearchProgress);
    connect(m_search, &HexSearch::found, this, [this](quint64 offset, quint64 length) {
        m_bar->setSearching(false);
        m_view->select(offset, offset + length);
        showMessage(false, tr("Found at %1").arg(TextFormat::offset(offset)));
        emit searchFinished(true);
    });
    connect(m_search, &HexSearch::notFound, this, [this](gguf::SearchDirection direction) {
        m_bar->setSearching(false);
        showMessage(true, direction == gguf::SearchDirection::Forward
                              ? tr("No match after %1").arg(TextFormat::offset(m_view->cursorOffset()))
                              : tr("No match before %1").arg(TextFormat::offset(m_view->cursorOffset())));
        emit searchFinished(false);
    });
    connect(m_search, &HexSearch::cancelled, this, [this] { m_bar->setSearching(false); });

    connect(m_view, &HexView::cursorMoved, this, &HexPage::cursorMoved);
    connect(m_view, &HexView::byteClicked, this, &HexPage::byteClicked);
    connect(m_view, &HexView::byteDoubleClicked, this, &HexPage::byteDoubleClicked);
    createActions();

    // the inspector scrolls when the window is too short for it
    auto *side = new QScrollArea(this);
    side->setWidget(m_inspector);
    side->setWidgetResizable(true);
    side->setFrameShape(QFrame::NoFrame);
    side->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // a vertical scroll bar that came and went as the inspector's height changed left the
    // inspector as wide as the viewport had been without it, its right edge cut off (#40)
    side->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    m_side = side;
    fitInspector();
    // what the inspector shows (a quantized block's fields in the legend, long values) can widen it:
    // its side follows, so that nothing in it is cut (#40: a 128-byte field read "12")
    m_inspector->installEventFilter(this);
    m_splitter->addWidget(m_view);
    m_splitter->addWidget(side);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 0);
    m_splitter->setSizes({800, side->minimumWidth()});
    auto *top = new QHBoxLayout;
    top->addWidget(m_bar, 1);
    top->addWidget(m_shardLabel);
    top->addWidget(m_shards);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_message);
    layout->addWidget(m_splitter, 1);
}

HexPage::~HexPage() = default;

void HexPage::fitInspector()
{
    m_side->setMinimumWidth(m_inspector->minimumSizeHint().width() + m_side->verticalScrollBar()->sizeHint().width());
}

bool HexPage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_inspector && event->type() == QEvent::LayoutRequest)
        fitInspector();
    return Page::eventFilter(watched, event);
}

void HexPage::createActions()
{
    // copying acts where the focus is; moving around works anywhere on the page while it is shown
    const auto add = [this](const QString &text, const QKeySequence &key, Qt::ShortcutContext context, auto slot) {
        auto *action = new QAction(text, this);
        action->setShortcut(key);
        action->setShortcutContext(context);
        connect(action, &QAction::triggered, this, slot);
        addAction(action);
        m_view->addAction(action);
        return action;
    };
    const Qt::ShortcutContext focus = Qt::WidgetWithChildrenShortcut, shown = Qt::WindowShortcut;
    add(tr("&Copy as Hex"), QKeySequence::Copy, focus, [this] { copy(CopyFormat::Hex); });
    add(tr("Copy as C &Array"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C), focus,
        [this] { copy(CopyFormat::CArray); });
    auto *separator = new QAction(this);
    separator->setSeparator(true);
    m_view->addAction(separator);
    add(tr("&Go to Offset…"), QKeySequence(Qt::CTRL | Qt::Key_G), shown, [this] { focusGoTo(); });
    add(tr("Go to Tensor &Data"), QKeySequence(Qt::CTRL | Qt::Key_D), shown, [this] { goToTensorData(); });
    add(tr("Find &Next"), QKeySequence::FindNext, shown, [this] { m_bar->findNext(); });
    add(tr("Find &Previous"), QKeySequence::FindPrevious, shown, [this] { m_bar->findPrevious(); });
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
}

void HexPage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_search->cancel();
    // a byte map still being built for the previous model is dropped when it arrives
    m_annotatorJobs->drop();
    m_model = std::move(model);
    m_annotators.assign(m_model ? m_model->shards().size() : 0, nullptr);
    m_lastTensor = {};
    m_bar->setGoToDataEnabled(false);
    m_message->clearMessage();
    m_shards->clear();
    if (m_model) {
        for (const gguf::SplitModel::Shard &shard : m_model->shards())
            m_shards->addItem(QFileInfo(QString::fromStdString(shard.path)).fileName());
    }
    const bool split = m_model && m_model->isSplit();
    m_shards->setVisible(split);
    m_shardLabel->setVisible(split);
    m_shard = -1;
    showShard(0);
}

void HexPage::showShard(int shard)
{
    if (shard == m_shard)
        return;
    m_shard = shard;
    m_shards->setCurrentIndex(shard);
    m_view->setFile(currentFileShared());
    if (currentFile())
        buildAnnotator(shard);
}

const gguf::GgufFile *HexPage::currentFile() const
{
    return currentFileShared().get();
}

std::shared_ptr<const gguf::GgufFile> HexPage::currentFileShared() const
{
    if (!m_model || m_shard < 0 || size_t(m_shard) >= m_model->shards().size())
        return nullptr;
    return m_model->shards()[size_t(m_shard)].file;
}

std::shared_ptr<const HexAnnotator> HexPage::annotator() const
{
    return m_shard >= 0 && size_t(m_shard) < m_annotators.size() ? m_annotators[size_t(m_shard)] : nullptr;
}

void HexPage::buildAnnotator(int shard)
{
    if (m_annotators[size_t(shard)]) {
        m_view->setAnnotator(m_annotators[size_t(shard)]);
        cursorMoved(m_view->cursorOffset());
        emit annotationsReady();
        return;
    }
    // ~150k regions for a 20k-tensor file, plus the string-array indexes: off the GUI thread. A
    // build for a file no longer shown (a newer start, or setModel's drop) is dropped when it arrives.
    m_annotatorJobs->start(
        tr("Mapping the bytes of the file"),
        [file = currentFileShared()](const gguf::ProgressFn &) {
            return std::shared_ptr<const HexAnnotator>(std::make_shared<HexAnnotator>(file));
        },
        [this, shard](std::shared_ptr<const HexAnnotator> built) { annotatorBuilt(shard, std::move(built)); });
}

void HexPage::annotatorBuilt(int shard, std::shared_ptr<const HexAnnotator> built)
{
    if (size_t(shard) >= m_annotators.size())
        return;
    m_annotators[size_t(shard)] = std::move(built);
    if (shard == m_shard) {
        m_view->setAnnotator(m_annotators[size_t(shard)]);
        cursorMoved(m_view->cursorOffset());
        emit annotationsReady();
    }
}

void HexPage::cursorMoved(quint64 offset)
{
    const std::shared_ptr<const HexAnnotator> a = annotator();
    m_inspector->inspect(currentFile(), a.get(), offset);
}

void HexPage::byteClicked(quint64 offset)
{
    const std::shared_ptr<const HexAnnotator> a = annotator();
    if (!a)
        return;
    const HexAnnotator::Description d = a->describe(offset);
    // the pages we announce to answer by selecting; their announcement must not move us
    m_linking = true;
    if (d.item == HexAnnotator::Item::Metadata && currentFile() == &m_model->primary())
        emit linkActivated(Link::metadataEntry(int(d.index)).inBackground());
    else if (d.item == HexAnnotator::Item::Tensor) {
        setLastTensor({m_shard, int(d.index)});
        emit linkActivated(Link::tensor({m_shard, int(d.index)}).inBackground());
    }
    m_linking = false;
}

void HexPage::byteDoubleClicked(quint64 offset)
{
    const std::shared_ptr<const HexAnnotator> a = annotator();
    if (!a)
        return;
    const HexAnnotator::Description d = a->describe(offset);
    if (d.item != HexAnnotator::Item::Tensor)
        return;
    // from a tensor's data to its info record, and back
    if (d.kind == gguf::RegionKind::TensorData)
        showTensor({m_shard, int(d.index)});
    else {
        setLastTensor({m_shard, int(d.index)});
        goToTensorData();
    }
}

bool HexPage::follow(const Link &link)
{
    switch (link.target) {
    case Link::Target::Bytes:
        if (link.shard == Link::kPrimaryShard)
            showByteRange(link.offset, link.size);
        else
            showShardBytes(link.shard, link.offset, link.size);
        return true;
    case Link::Target::Tensor: showTensor(link.tensorRef()); return true;
    case Link::Target::MetadataEntry:
    case Link::Target::Token: break;
    }
    return false;
}

void HexPage::showByteRange(quint64 offset, quint64 size)
{
    if (m_linking || !m_model)
        return;
    const auto &shards = m_model->shards();
    for (size_t i = 0; i < shards.size(); ++i)
        if (shards[i].file.get() == &m_model->primary())
            showShardBytes(int(i), offset, size);
}

void HexPage::showShardBytes(int shard, quint64 offset, quint64 size)
{
    if (m_linking || !m_model || shard < 0 || size_t(shard) >= m_model->shards().size())
        return;
    showShard(shard);
    m_message->clearMessage();
    if (size == 0) {
        const auto map = annotator();
        const HexAnnotator::Description d = map ? map->describe(offset) : HexAnnotator::Description{};
        if (d.unitSize > 0) {
            m_view->select(d.unitOffset, d.unitOffset + d.unitSize);
            return;
        }
    }
    m_view->select(offset, offset + std::max<quint64>(size, 1));
}

void HexPage::showTensor(TensorRef tensor)
{
    const int shard = tensor.shard, index = tensor.index;
    if (m_linking || !m_model || shard < 0 || size_t(shard) >= m_model->shards().size())
        return;
    showShard(shard);
    const gguf::GgufFile *file = currentFile();
    if (!file || index < 0 || size_t(index) >= file->tensors().size())
        return;
    const gguf::TensorInfo &t = file->tensors()[size_t(index)];
    setLastTensor(tensor);
    m_message->clearMessage();
    m_view->select(t.infoOffset, t.infoEnd);
}

void HexPage::setLastTensor(TensorRef tensor)
{
    m_lastTensor = tensor;
    const int index = tensor.index;
    const gguf::GgufFile *file = currentFile();
    const QString name = file && size_t(index) < file->tensors().size()
                             ? QString::fromUtf8(file->tensors()[size_t(index)].name.data(),
                                                 qsizetype(file->tensors()[size_t(index)].name.size()))
                             : QString();
    m_bar->setGoToDataEnabled(true, tr("Select the data of %1 (Ctrl+D)").arg(name));
}

void HexPage::goToTensorData()
{
    if (!m_lastTensor.isValid() || !m_model)
        return;
    showShard(m_lastTensor.shard);
    const gguf::GgufFile *file = currentFile();
    if (!file || size_t(m_lastTensor.index) >= file->tensors().size())
        return;
    const gguf::TensorInfo &t = file->tensors()[size_t(m_lastTensor.index)];
    const QString name = QString::fromUtf8(t.name.data(), qsizetype(t.name.size()));
    if (file->tensorInfoEnd() == 0) {
        // a damaged file whose tensor infos broke off: the data region starts after their end
        showMessage(true, tr("Where the data of %1 starts is unknown: the file's tensor infos broke off.").arg(name));
        return;
    }
    if (!t.dataInFile || t.fileOffset >= file->fileSize()) {
        showMessage(true, tr("The data of %1 would start at %2, past the end of the file.")
                              .arg(name, TextFormat::offset(t.fileOffset)));
        return;
    }
    m_message->clearMessage();
    if (t.byteSize == 0) {
        m_view->setCursorOffset(t.fileOffset);
        showMessage(false, tr("%1 has no data bytes (a dimension is 0).").arg(name));
        return;
    }
    m_view->select(t.fileOffset, t.fileOffset + t.byteSize);
    m_view->setFocus();
}

bool HexPage::goTo(const QString &expression)
{
    const gguf::GgufFile *file = currentFile();
    if (!file)
        return false;
    const HexText::OffsetResult result =
        HexText::parseOffset(expression, file->dataOffset(), m_view->cursorOffset(), file->fileSize());
    if (!result.offset) {
        showMessage(true, result.error);
        return false;
    }
    m_message->clearMessage();
    m_view->setCursorOffset(*result.offset);
    m_view->setFocus();
    return true;
}

bool HexPage::find(const QString &text, bool hex, gguf::SearchDirection direction)
{
    const std::shared_ptr<const gguf::GgufFile> file = currentFileShared();
    if (!file)
        return false;
    QByteArray pattern;
    if (hex) {
        QString error;
        const std::optional<QByteArray> bytes = HexText::parseHexBytes(text, &error);
        if (!bytes) {
            showMessage(true, error);
            return false;
        }
        pattern = *bytes;
    } else {
        pattern = text.toUtf8();
        if (pattern.isEmpty()) {
            showMessage(true, tr("Type the text to find"));
            return false;
        }
    }
    // after a match (the selection), go on past its start; else start at the cursor itself
    const quint64 cursor = m_view->cursorOffset();
    const bool onMatch = m_view->selection().first != m_view->selection().second;
    quint64 from = cursor;
    if (direction == gguf::SearchDirection::Forward) {
        from = onMatch ? cursor + 1 : cursor;
    } else if (onMatch || cursor > 0) {
        if (cursor == 0) {
            showMessage(true, tr("No match before 0x0"));
            emit searchFinished(false);
            return true;
        }
        from = cursor - 1;
    }
    m_message->clearMessage();
    m_bar->setSearching(true);
    m_search->start(file, pattern, from, direction);
    return true;
}

void HexPage::cancelSearch()
{
    if (!m_search->isRunning())
        return;
    m_search->cancel();
    showMessage(false, tr("Search cancelled"));
}

bool HexPage::isSearching() const
{
    return m_search->isRunning();
}

void HexPage::fetchBytes(quint64 begin, quint64 end)
{
    const auto file = currentFileShared();
    if (!file)
        return;
    // a screen above and below too, so that scrolling a little shows bytes at once
    const quint64 margin = end - begin;
    const quint64 from = begin > margin ? begin - margin : 0;
    m_fetchJobs->start(
        tr("Fetching bytes %1–%2").arg(TextFormat::offset(begin), TextFormat::offset(end)),
        [file, from, size = 3 * margin](const gguf::ProgressFn &progress) {
            return file->acquire(from, size, progress);
        },
        [this, file](gguf::ByteLease bytes) {
            if (file != currentFileShared())
                return;
            if (!bytes && bytes.error().kind != gguf::ErrorKind::Cancelled)
                showMessage(true, QString::fromStdString(bytes.error().message));
            else if (bytes && messageText() == notArrivedText())
                m_message->hide(); // what was asked for has come
            m_view->holdBytes(std::move(bytes));
            cursorMoved(m_view->cursorOffset());
        });
}

QString HexPage::copyText(CopyFormat format)
{
    const gguf::GgufFile *file = currentFile();
    if (!file || file->fileSize() == 0)
        return {};
    auto [begin, end] = m_view->selection();
    if (begin == end)
        std::tie(begin, end) = m_view->cursorField();
    if (begin == end)
        std::tie(begin, end) = std::pair(m_view->cursorOffset(), m_view->cursorOffset() + 1);
    if (end - begin > kMaxCopyBytes) {
        showMessage(true, tr("%1 bytes are selected; copying is limited to %2 bytes. Select less.")
                              .arg(end - begin)
                              .arg(kMaxCopyBytes));
        return {};
    }
    const gguf::ByteLease held = file->peek(begin, end - begin);
    if (!held) {
        showMessage(true, notArrivedText());
        return {};
    }
    const std::span<const uint8_t> bytes = held.bytes();
    return format == CopyFormat::Hex ? HexText::toHex(bytes) : HexText::toCArray(bytes, begin);
}

void HexPage::copy(CopyFormat format)
{
    const QString text = copyText(format);
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

void HexPage::focusGoTo()
{
    m_bar->focusGoTo();
}

bool HexPage::focusFind()
{
    m_bar->focusFind();
    return true;
}

QString HexPage::notArrivedText()
{
    return tr("These bytes of the remote file have not arrived yet; copy again in a moment.");
}

void HexPage::showMessage(bool problem, const QString &text)
{
    m_message->showMessage(problem ? MessageBar::Kind::Warning : MessageBar::Kind::Information, text);
}

QString HexPage::messageText() const
{
    return m_message->isHidden() ? QString() : m_message->text();
}
