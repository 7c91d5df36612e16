// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/main_window.h"
#include "app/build_info/build_info.h"

#include "app/explorer/compare_session.h"
#include "app/explorer/load_reporter.h"
#include "app/explorer/page_host.h"
#include "core/format/split_model.h"
#include "ui/checkpoint/checkpoint_view.h"
#include "ui/common/message_bar.h"
#include "ui/common/tensor_handle.h"
#include "ui/compare/compare_page.h"
#include "ui/hex/hex_page.h"
#include "ui/importance/importance_page.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_page.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/document.h"
#include "ui/shell/drop_paths.h"
#include "ui/shell/load_status.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/remote_status.h"
#include "ui/shell/start_view.h"
#include "ui/tensors/tensors_page.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/weights/weights_page.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QShortcut>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_document(new Document(this)), m_messageBar(new MessageBar(this)),
      m_pages(new PageHost(this)), m_stack(new QStackedWidget(this)), m_start(new StartView(this)),
      m_checkpointView(new CheckpointView(this))
{
    setWindowIcon(QIcon(QStringLiteral(":/gguf-explorer/gguf-explorer.svg")));
    setWindowTitle(tr("GGUF Explorer"));
    setAcceptDrops(true);
    createPages();
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_messageBar);
    m_stack->addWidget(m_start);
    m_stack->addWidget(m_pages);
    m_stack->addWidget(m_checkpointView);
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);
    auto *progress = new LoadStatus(this);
    statusBar()->addPermanentWidget(new RemoteStatus(m_document, this));
    statusBar()->addPermanentWidget(progress);
    m_reporter = new LoadReporter(m_document, m_messageBar, statusBar(), progress, this);
    m_comparison = new CompareSession(m_compare, m_messageBar, statusBar(), this);
    m_comparison->setCheckpointView(m_checkpointView);

    connect(m_document, &Document::loadStarted, this, [this] { m_shown = false; });
    connect(m_document, &Document::loaded, this, &MainWindow::showLoaded);
    connect(m_document, &Document::checkpointLoaded, this, &MainWindow::showCheckpoint);
    // a failed or cancelled load drops what was to run once it was shown
    connect(m_document, &Document::loadFailed, this, [this] { m_whenShown = {}; });
    connect(m_document, &Document::loadCancelled, this, [this] { m_whenShown = {}; });
    connect(m_reporter, &LoadReporter::reloadRequested, this, &MainWindow::reloadDocument);
    connect(m_reporter, &LoadReporter::breakRequested, this, &MainWindow::showBreak);
    auto *cancel = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(cancel, &QShortcut::activated, m_document, &Document::cancel);
    connect(cancel, &QShortcut::activated, m_comparison->document(), &Document::cancel);
    connectPages();
    createMenus();
    createStartView();
    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::createPages()
{
    m_overview = new OverviewPage(this);
    m_metadata = new MetadataPage(this);
    m_tensors = new TensorsPage(this);
    m_weights = new WeightsPage(this);
    m_tokenizer = new TokenizerPage(this);
    m_hex = new HexPage(this);
    m_compare = new ComparePage(this);
    m_importance = new ImportancePage(this);
    // the object names key each page's saved state
    m_pages->addPage(m_overview, tr("&Overview"), QStringLiteral("overviewPage"));
    m_pages->addPage(m_metadata, tr("&Metadata"), QStringLiteral("metadataPage"));
    m_pages->addPage(m_tensors, tr("&Tensors"), QStringLiteral("tensorsPage"));
    m_pages->addPage(m_weights, tr("&Weights"), QStringLiteral("weightsPage"));
    m_pages->addPage(m_tokenizer, tr("To&kenizer"), QStringLiteral("tokenizerPage"));
    m_pages->addPage(m_hex, tr("&Bytes"), QStringLiteral("bytesPage"));
    m_pages->addPage(m_compare, tr("Co&mpare"), QStringLiteral("comparePage"));
    // last, so the other pages keep their Ctrl+N; shown only for an importance matrix
    m_pages->addPage(m_importance, tr("&Importance"), QStringLiteral("importancePage"));
    m_pages->setTabVisible(m_pages->indexOf(m_importance), false);
}

void MainWindow::connectPages()
{
    connect(m_pages, &PageHost::modelShown, this, &MainWindow::finishShowing);
    connect(m_pages, &PageHost::statusMessage, this, [this](const QString &text) { statusBar()->showMessage(text); });
    // a link to the model compared with acts on a window showing B
    connect(m_pages, &PageHost::otherSideLink, this,
            [this](const Link &link) { inOtherWindow([link](MainWindow *w) { w->follow(link.on(Link::Side::A)); }); });
    connect(m_importance, &ImportancePage::applicableChanged, this,
            [this](bool applicable) { m_pages->setTabVisible(m_pages->indexOf(m_importance), applicable); });
    connect(m_compare, &ComparePage::compareWithRequested, this, &MainWindow::chooseCompareFile);
    connect(m_comparison, &CompareSession::comparisonShown, this, [this] { m_pages->setCurrentWidget(m_compare); });
    connect(m_comparison, &CompareSession::checkpointComparisonShown, m_checkpointView,
            &CheckpointView::showComparison);
    connect(m_checkpointView, &CheckpointView::compareWithRequested, this, &MainWindow::chooseCompareFile);
    connect(m_checkpointView, &CheckpointView::checkpointShown, this, [this] {
        if (m_document->checkpoint() && m_checkpointView->checkpoint() == m_document->checkpoint())
            emit checkpointShown(m_shownPath);
    });
    // editing the metadata: refusals and failures in the message bar; a save reloads what was
    // saved (a Save As opens the new file) and says what the validation thinks of it
    connect(m_metadata, &MetadataPage::editMessage, this,
            [this](const QString &text) { m_messageBar->showMessage(MessageBar::Kind::Warning, text); });
    connect(m_metadata->editor(), &MetadataEditor::saveFailed, this, [this](const QString &message) {
        m_messageBar->showMessage(MessageBar::Kind::Error, tr("Could not save: %1").arg(message));
    });
    connect(m_metadata->editor(), &MetadataEditor::saved, this, [this](const QString &path, bool, const QString &how) {
        m_reporter->setSavedNotice(tr("Saved %1: %2.").arg(QDir::toNativeSeparators(path), how));
        const auto model = m_document->model();
        const QString edited = model ? QString::fromStdString(model->primary().path()) : QString();
        if (QFileInfo(path) == QFileInfo(edited))
            reloadDocument();
        else
            m_document->open(path);
    });
}

QTabWidget *MainWindow::pages() const
{
    return m_pages;
}

Document *MainWindow::otherDocument() const
{
    return m_comparison->document();
}

void MainWindow::follow(const Link &link)
{
    m_pages->follow(link);
}

void MainWindow::compareWith(const QString &path)
{
    m_comparison->compareWith(path);
}

void MainWindow::inOtherWindow(const std::function<void(MainWindow *)> &action)
{
    const QString path = m_compare->otherPath();
    if (path.isEmpty())
        return;
    if (!m_otherWindow) {
        m_otherWindow = new MainWindow;
        m_otherWindow->setAttribute(Qt::WA_DeleteOnClose);
        m_otherWindow->show();
    }
    m_otherWindow->runWhenShown(path, action);
    m_otherWindow->raise();
    m_otherWindow->activateWindow();
}

void MainWindow::runWhenShown(const QString &path, const std::function<void(MainWindow *)> &action)
{
    if (m_shown && m_document->path() == path && !m_document->isLoading()) {
        action(this);
        return;
    }
    m_whenShown = action;
    m_whenShownPath = path;
    if (!(m_document->isLoading() && m_document->loadingPath() == path))
        openFile(path);
}

void MainWindow::openFiles(const QStringList &paths)
{
    const QStringList models = DropPaths::distinctModels(paths);
    for (qsizetype i = 0; i < models.size(); ++i) {
        if (i == 0) {
            openFile(models[i]);
            continue;
        }
        auto *window = new MainWindow;
        window->setAttribute(Qt::WA_DeleteOnClose);
        window->show();
        window->openFile(models[i]);
    }
}

void MainWindow::openFile(const QString &path)
{
    if (mayDropEdits())
        m_document->open(path);
}

bool MainWindow::mayDropEdits()
{
    MetadataEditor *editor = m_metadata->editor();
    if (!editor->hasChanges() || editor->isSaving())
        return !editor->isSaving();
    const auto answer = QMessageBox::question(
        this, tr("Unsaved Changes"),
        tr("The metadata has changes that are not saved (%1). Discard them?").arg(editor->changes().size()),
        QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
    return answer == QMessageBox::Discard;
}

void MainWindow::showLoaded(const QString &path)
{
    m_shownPath = path;
    m_checkpointView->setCheckpoint(nullptr); // a GGUF in place of a checkpoint
    m_pages->showModel(m_document->model());
    setWindowTitle(m_document->model()->firstBreak()
                       ? tr("%1 (damaged) — GGUF Explorer").arg(QFileInfo(path).fileName())
                       : tr("%1 — GGUF Explorer").arg(QFileInfo(path).fileName()));
    setWindowFilePath(path);
    m_recent->add(path);
}

void MainWindow::showCheckpoint(const QString &path)
{
    m_shownPath = path;
    m_whenShown = {};
    m_pages->showModel(nullptr); // the GGUF pages let go of the model they showed
    if (m_compare->other())      // a GGUF compared with before: now against the checkpoint
        m_checkpointView->setOther(m_compare->other(), m_compare->otherPath());
    m_checkpointView->setCheckpoint(m_document->checkpoint());
    m_stack->setCurrentWidget(m_checkpointView);
    setWindowTitle(tr("%1 — GGUF Explorer").arg(QFileInfo(path).fileName()));
    setWindowFilePath(path);
    m_recent->add(path);
    // checkpointShown once every page has it (CheckpointView fills them one per turn)
}

void MainWindow::finishShowing()
{
    const auto model = m_document->model();
    if (!model) // the pages let go of a model when a checkpoint took its place (showCheckpoint)
        return;
    const QString path = m_shownPath;
    if (!m_reselectTensor.isEmpty() && path == m_reselectPath) {
        if (const TensorHandle again = TensorHandle::named(model, m_reselectTensor); again.isValid())
            m_pages->follow(Link::tensor(again.ref()).inBackground());
    }
    m_reselectTensor.clear();
    // the Bytes page of a damaged file waits at the break, its field selected
    if (const auto broken = model->firstBreak()) {
        const auto [offset, size] = broken->file->brokenBytes();
        m_hex->showShardBytes(int(broken->shard), offset, size);
    }
    m_shown = true;
    emit modelShown(path);
    if (m_whenShown && path == m_whenShownPath) {
        const auto action = std::move(m_whenShown);
        m_whenShown = {};
        action(this);
    }
}

void MainWindow::showBreak()
{
    const auto model = m_document->model();
    if (const auto broken = model ? model->firstBreak() : std::nullopt) {
        const auto [offset, size] = broken->file->brokenBytes();
        follow(Link::bytes(int(broken->shard), offset, size));
    }
}

void MainWindow::reloadDocument()
{
    if (m_document->path().isEmpty() || (!m_reporter->hasSavedNotice() && !mayDropEdits()))
        return;
    m_reselectTensor = m_weights->tensor().isValid() ? m_weights->tensor().name() : QString();
    m_reselectPath = m_document->path();
    m_document->reload();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!mayDropEdits()) {
        event->ignore();
        return;
    }
    saveSettings();
    QMainWindow::closeEvent(event);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    // the first-start size, also for a saved size larger than the screen (saved by a window that a
    // bug once made hundreds of thousands of pixels tall)
    const QScreen *screen = QGuiApplication::primaryScreen();
    const bool restored = restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray());
    if (!restored ||
        (screen && (width() > screen->availableSize().width() * 2 || height() > screen->availableSize().height() * 2)))
        resize(1100, 760);
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    m_pages->restorePages(settings);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    m_pages->savePages(settings);
}
