// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/main_window.h"
#include "app/build_info/build_info.h"

#include "core/edit/file_writer.h"
#include "core/format/split_model.h"
#include "ui/common/damage_text.h"
#include "ui/common/message_bar.h"
#include "ui/common/tensor_handle.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"
#include "ui/compare/compare_page.h"
#include "ui/hex/hex_page.h"
#include "ui/importance/importance_page.h"
#include "ui/metadata/metadata_editor.h"
#include "ui/metadata/metadata_page.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/appearance.h"
#include "ui/shell/document.h"
#include "ui/shell/drop_paths.h"
#include "ui/shell/load_status.h"
#include "ui/shell/open_url_dialog.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/remote_status.h"
#include "ui/tensors/tensors_page.h"
#include "ui/tokenizer/tokenizer_page.h"
#include "ui/weights/weights_page.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QScopedValueRollback>
#include <QSettings>
#include <QShortcut>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_document(new Document(this)), m_messageBar(new MessageBar(this)),
      m_tabs(new QTabWidget(this)), m_overview(new OverviewPage(this)), m_metadata(new MetadataPage(this)),
      m_tensors(new TensorsPage(this)), m_weights(new WeightsPage(this)), m_compare(new ComparePage(this)),
      m_other(new Document(this)), m_loadStatus(new LoadStatus(this))
{
    setWindowIcon(QIcon(QStringLiteral(":/gguf-explorer/gguf-explorer.svg")));
    setWindowTitle(tr("GGUF Explorer"));
    setAcceptDrops(true);

    m_tokenizer = new TokenizerPage(this);
    m_hex = new HexPage(this);
    m_importance = new ImportancePage(this);
    // the object names key each page's saved state
    addPage(m_overview, tr("&Overview"), QStringLiteral("overviewPage"));
    addPage(m_metadata, tr("&Metadata"), QStringLiteral("metadataPage"));
    addPage(m_tensors, tr("&Tensors"), QStringLiteral("tensorsPage"));
    addPage(m_weights, tr("&Weights"), QStringLiteral("weightsPage"));
    addPage(m_tokenizer, tr("To&kenizer"), QStringLiteral("tokenizerPage"));
    addPage(m_hex, tr("&Bytes"), QStringLiteral("bytesPage"));
    addPage(m_compare, tr("Co&mpare"), QStringLiteral("comparePage"));
    // last, so the other pages keep their Ctrl+N; shown only for an importance matrix
    addPage(m_importance, tr("&Importance"), QStringLiteral("importancePage"));
    m_tabs->setTabVisible(m_tabs->indexOf(m_importance), false);
    m_tabs->setDocumentMode(true);
    auto *central = new QWidget(this);
    auto *layout = new QVBoxLayout(central);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_messageBar);
    layout->addWidget(m_tabs, 1);
    setCentralWidget(central);
    statusBar()->addPermanentWidget(new RemoteStatus(m_document, this));
    statusBar()->addPermanentWidget(m_loadStatus);

    connect(m_document, &Document::loadStarted, this, [this](const QString &path) {
        m_shown = false;
        m_loadTimer.start();
        m_loadStatus->start(path);
    });
    connect(m_document, &Document::progressChanged, m_loadStatus, &LoadStatus::setProgress);
    connect(m_document, &Document::loaded, this, &MainWindow::showLoaded);
    connect(m_document, &Document::loadFailed, this, &MainWindow::showFailure);
    connect(m_document, &Document::loadCancelled, this, [this](const QString &path) {
        m_whenShown = {};
        m_loadStatus->finish();
        statusBar()->showMessage(tr("Opening %1 was cancelled").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(m_loadStatus, &LoadStatus::cancelClicked, m_document, &Document::cancel);
    connect(m_document, &Document::changedOnDisk, this, [this](const QString &description) {
        m_barShowsBreak = false;
        m_messageBar->showMessage(MessageBar::Kind::Warning,
                                  tr("The open file changed on disk:\n%1\nWhat the pages show may no longer match "
                                     "it. Reload to read it again.")
                                      .arg(description),
                                  tr("&Reload"));
    });
    // the bar offers two actions: the reload of a changed file, and the break of a damaged one
    connect(m_messageBar, &MessageBar::actionTriggered, this, [this] {
        if (m_barShowsBreak)
            showBreak();
        else
            reloadDocument();
    });
    auto *cancel = new QShortcut(QKeySequence(Qt::Key_Escape), this);
    connect(cancel, &QShortcut::activated, m_document, &Document::cancel);
    connect(cancel, &QShortcut::activated, m_other, &Document::cancel);

    // every page's links go to the other pages (or to the window showing B)
    for (Page *page : std::as_const(m_pageList))
        connect(page, &Page::linkActivated, this, [this, page](const Link &link) { route(link, page); });
    connect(m_importance, &ImportancePage::applicableChanged, this,
            [this](bool applicable) { m_tabs->setTabVisible(m_tabs->indexOf(m_importance), applicable); });
    // editing the metadata: refusals and failures in the message bar; a save reloads what was
    // saved (a Save As opens the new file) and says what the validation thinks of it
    connect(m_metadata, &MetadataPage::editMessage, this,
            [this](const QString &text) { m_messageBar->showMessage(MessageBar::Kind::Warning, text); });
    connect(m_metadata->editor(), &MetadataEditor::saveFailed, this, [this](const QString &message) {
        m_messageBar->showMessage(MessageBar::Kind::Error, tr("Could not save: %1").arg(message));
    });
    connect(m_metadata->editor(), &MetadataEditor::saved, this, [this](const QString &path, bool, const QString &how) {
        m_savedNotice = tr("Saved %1: %2.").arg(QDir::toNativeSeparators(path), how);
        const auto model = m_document->model();
        const QString edited = model ? QString::fromStdString(model->primary().path()) : QString();
        if (QFileInfo(path) == QFileInfo(edited))
            reloadDocument();
        else
            m_document->open(path);
    });

    // the model compared with (B): opened like any file, its failures said the same way
    connect(m_other, &Document::loadStarted, this, [this](const QString &path) {
        statusBar()->showMessage(tr("Opening %1 to compare…").arg(QFileInfo(path).fileName()));
    });
    connect(m_other, &Document::loaded, this, [this](const QString &path, const QString &warning) {
        statusBar()->clearMessage();
        m_compare->setOther(m_other->model(), path);
        m_tabs->setCurrentWidget(m_compare);
        // a damaged B is compared as far as it was read: what follows its break is not "only in A"
        QString problems = warning;
        if (const auto broken = m_other->model()->firstBreak())
            problems = tr("it is damaged, so only what was read before the break is compared. %1")
                           .arg(DamageText::where(*broken->file)) +
                       (warning.isEmpty() ? QString() : QLatin1Char('\n') + warning);
        if (!problems.isEmpty())
            m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Compared with %1: %2").arg(path, problems));
    });
    connect(m_other, &Document::loadFailed, this, [this](const QString &path, const QString &message, quint64 offset) {
        statusBar()->clearMessage();
        m_messageBar->showMessage(MessageBar::Kind::Error, tr("Could not open %1 to compare with: %2 (byte offset %3).")
                                                               .arg(QDir::toNativeSeparators(path), message)
                                                               .arg(offset));
    });
    connect(m_other, &Document::loadCancelled, this, [this](const QString &path) {
        statusBar()->showMessage(tr("Opening %1 to compare was cancelled").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(m_other, &Document::changedOnDisk, this, [this](const QString &description) {
        m_messageBar->showMessage(MessageBar::Kind::Warning,
                                  tr("The file compared with (B) changed on disk:\n%1\nThe comparison may no longer "
                                     "match it; compare with it again to read it anew.")
                                      .arg(description));
    });
    connect(m_compare, &ComparePage::compareWithRequested, this, &MainWindow::chooseCompareFile);

    createMenus();
    restoreSettings();
}

MainWindow::~MainWindow() = default;

template <typename PageWidget> void MainWindow::addPage(PageWidget *page, const QString &title, const QString &name)
{
    page->setObjectName(name);
    m_tabs->addTab(page, title);
    m_pageList << page;
}

QString MainWindow::settingsKey(const Page &page)
{
    return QStringLiteral("mainWindow/") + page.objectName();
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this,
                                    &MainWindow::chooseFiles);
    open->setShortcut(QKeySequence::Open);
    QAction *openUrl =
        file->addAction(QIcon::fromTheme(QStringLiteral("network-server")), tr("Open &URL…"), this, [this] {
            if (const QString url = OpenUrlDialog::ask(this); !url.isEmpty())
                openFile(url);
        });
    openUrl->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    openUrl->setToolTip(tr("Look inside a GGUF file on a web server or the Hugging Face hub without downloading it"));
    QMenu *recentMenu = file->addMenu(tr("Open &Recent"));
    recentMenu->setObjectName(QStringLiteral("recentMenu"));
    m_recent = new RecentFiles(recentMenu, this);
    connect(m_recent, &RecentFiles::fileChosen, this, &MainWindow::openFile);
    QAction *compare = file->addAction(tr("Compare &With…"), this, &MainWindow::chooseCompareFile);
    compare->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    compare->setToolTip(tr("Compare the open model with another (or drop one on the window holding Ctrl)"));
    QAction *reload = file->addAction(QIcon::fromTheme(QStringLiteral("view-refresh")), tr("Re&load"), this,
                                      &MainWindow::reloadDocument);
    reload->setShortcut(QKeySequence::Refresh);
    file->addSeparator();
    file->addAction(tr("&Close Window"), this, &QWidget::close)->setShortcut(QKeySequence::Close);
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *page = view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
        page->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
        if (m_tabs->widget(i) == m_importance) {
            page->setVisible(false);
            connect(m_importance, &ImportancePage::applicableChanged, page, &QAction::setVisible);
        }
    }
    view->addSeparator();
    QAction *find = view->addAction(tr("&Find"), this, [this] {
        if (m_pageList.value(m_tabs->currentIndex())->focusFind())
            return;
        // a page without a search box hands Find to the list of what it shows
        Page *list = m_tabs->currentWidget() == m_overview ? static_cast<Page *>(m_metadata) : m_tensors;
        m_tabs->setCurrentWidget(list);
        list->focusFind();
    });
    find->setShortcut(QKeySequence::Find);
    view->addSeparator();
    // the colour scheme: the system's, or light or dark whatever the desktop says (every window)
    QMenu *scheme = view->addMenu(tr("Colour &Scheme"));
    scheme->setObjectName(QStringLiteral("colorSchemeMenu"));
    auto *schemes = new QActionGroup(scheme);
    const std::pair<Appearance::Scheme, QString> choices[] = {{Appearance::Scheme::System, tr("Follow the &System")},
                                                              {Appearance::Scheme::Light, tr("&Light")},
                                                              {Appearance::Scheme::Dark, tr("&Dark")}};
    for (const auto &entry : choices) {
        const Appearance::Scheme value = entry.first;
        QAction *choice = scheme->addAction(entry.second, this, [value] { Appearance::apply(value); });
        choice->setCheckable(true);
        choice->setData(Appearance::name(value));
        schemes->addAction(choice);
    }
    connect(scheme, &QMenu::aboutToShow, scheme, [scheme] {
        for (QAction *choice : scheme->actions())
            choice->setChecked(choice->data().toString() == Appearance::name(Appearance::current()));
    });

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About GGUF Explorer"), this, &MainWindow::showAbout)->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::chooseFiles()
{
    QSettings settings;
    const QStringList paths = QFileDialog::getOpenFileNames(this, tr("Open GGUF Files"),
                                                            settings.value(QStringLiteral("lastDirectory")).toString(),
                                                            tr("GGUF models (*.gguf);;All files (*)"));
    if (paths.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(paths.first()).absolutePath());
    openFiles(paths);
}

void MainWindow::chooseCompareFile()
{
    if (!m_document->model()) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Open a model first, then compare it with another."));
        return;
    }
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Compare %1 With").arg(QFileInfo(m_document->path()).fileName()),
        settings.value(QStringLiteral("lastDirectory")).toString(), tr("GGUF models (*.gguf);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(path).absolutePath());
    compareWith(path);
}

void MainWindow::compareWith(const QString &path)
{
    m_other->open(path);
}

void MainWindow::route(const Link &link, Page *from)
{
    if (link.side == Link::Side::B)
        inOtherWindow([link](MainWindow *w) { w->follow(link.on(Link::Side::A)); });
    else
        follow(link, from);
}

void MainWindow::follow(const Link &link, Page *from)
{
    // what the pages do in answer (a table selecting the tensor it was shown) is not a new link
    if (m_routing)
        return;
    const QScopedValueRollback<bool> routing(m_routing, true);
    Page *shows = nullptr;
    for (Page *page : std::as_const(m_pageList))
        if (page != from && page->follow(link) && !shows)
            shows = page;
    if (shows && link.reveal == Link::Reveal::Go)
        m_tabs->setCurrentWidget(shows);
    if (link.target == Link::Target::Bytes && link.size > 0)
        statusBar()->showMessage(tr("Bytes %1–%2 (%3 bytes)")
                                     .arg(TextFormat::offset(link.offset), TextFormat::offset(link.offset + link.size))
                                     .arg(link.size));
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

void MainWindow::showLoaded(const QString &path, const QString &warning)
{
    m_loadStatus->finish();
    // the page in view first, then the others, one per turn of the event loop
    m_pagesWaiting = m_pageList;
    if (Page *current = qobject_cast<Page *>(m_tabs->currentWidget()); current && m_pagesWaiting.removeOne(current))
        m_pagesWaiting.prepend(current);
    showModelOnNextPage(++m_showGeneration, path);
    // a header backup beside the file: an in-place save of it was interrupted (docs/EDITING.md §3)
    const auto backup = gguf::leftoverHeaderBackup(m_document->model()->primary().path());
    QString notice; // what the bar says beside the warning, kept when the file is damaged too
    if (backup) {
        notice =
            tr("An earlier save of this file did not finish: %1 holds the file's old header. If the file is not as "
               "it should be, restore it (docs/EDITING.md §3); otherwise remove the backup. Saving in place waits "
               "until then.")
                .arg(QDir::toNativeSeparators(QString::fromStdString(*backup)));
        m_messageBar->showMessage(MessageBar::Kind::Warning, notice);
        m_savedNotice.clear();
    } else if (!m_savedNotice.isEmpty()) {
        // after a save: what llama.cpp's checks think of the file written
        const gguf::GgufFile &file = m_document->model()->primary();
        const gguf::Finding *refusal = file.firstRefusal();
        const QString verdict = refusal
                                    ? tr("llama.cpp would refuse it: %1").arg(QString::fromStdString(refusal->message))
                                    : tr("llama.cpp would load it.");
        notice = m_savedNotice + QLatin1Char(' ') + verdict;
        m_messageBar->showMessage(refusal ? MessageBar::Kind::Warning : MessageBar::Kind::Information,
                                  notice + (warning.isEmpty() ? QString() : QLatin1Char('\n') + warning));
        m_savedNotice.clear();
    } else if (warning.isEmpty()) {
        m_messageBar->clearMessage();
    } else {
        m_messageBar->showMessage(MessageBar::Kind::Warning, warning);
    }
    m_barShowsBreak = false;
    const auto broken = m_document->model()->firstBreak();
    if (broken) {
        // a damaged file: what was read is shown; the bar names the break and leads to its bytes
        const auto &shard = m_document->model()->shards()[broken->shard];
        const gguf::Error &error = broken->file->error();
        QString text = tr("%1 is damaged: reading stopped at byte %2. %3\nThe pages show what was read before the "
                          "break.")
                           .arg(QFileInfo(QString::fromStdString(shard.path)).fileName(),
                                TextFormat::offset(error.offset), QString::fromStdString(error.message));
        for (const QString &more : {notice, warning})
            if (!more.isEmpty())
                text += QLatin1Char('\n') + more;
        m_barShowsBreak = true;
        m_messageBar->showMessage(MessageBar::Kind::Error, text, tr("Show in &Bytes"), false);
    }
    setWindowTitle(broken ? tr("%1 (damaged) — GGUF Explorer").arg(QFileInfo(path).fileName())
                          : tr("%1 — GGUF Explorer").arg(QFileInfo(path).fileName()));
    setWindowFilePath(path);
    m_recent->add(path);
    statusBar()->showMessage(tr("Opened %1 in %2 ms").arg(QFileInfo(path).fileName()).arg(m_loadTimer.elapsed()), 5000);
}

void MainWindow::showModelOnNextPage(quint64 generation, const QString &path)
{
    if (generation != m_showGeneration)
        return;
    const auto model = m_document->model();
    if (!m_pagesWaiting.isEmpty()) {
        m_pagesWaiting.takeFirst()->setModel(model);
        QTimer::singleShot(0, this, [this, generation, path] { showModelOnNextPage(generation, path); });
        return;
    }
    if (!m_reselectTensor.isEmpty() && path == m_reselectPath) {
        const TensorHandle again = TensorHandle::named(model, m_reselectTensor);
        if (again.isValid())
            m_tensors->selectTensor(again.ref());
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

void MainWindow::showFailure(const QString &path, const QString &message, quint64 offset)
{
    m_whenShown = {};
    m_savedNotice.clear();
    m_loadStatus->finish();
    QString text =
        tr("Could not open %1: %2 (byte offset %3).").arg(QDir::toNativeSeparators(path), message).arg(offset);
    if (m_document->model())
        text += QLatin1Char('\n') + tr("Still showing %1.").arg(QFileInfo(m_document->path()).fileName());
    m_messageBar->showMessage(MessageBar::Kind::Error, text);
}

void MainWindow::showBreak()
{
    const auto model = m_document->model();
    const auto broken = model ? model->firstBreak() : std::nullopt;
    if (!broken)
        return;
    const auto [offset, size] = broken->file->brokenBytes();
    follow(Link::bytes(int(broken->shard), offset, size));
}

void MainWindow::reloadDocument()
{
    if (m_document->path().isEmpty() || (m_savedNotice.isEmpty() && !mayDropEdits()))
        return;
    m_reselectTensor = m_weights->tensor().isValid() ? m_weights->tensor().name() : QString();
    m_reselectPath = m_document->path();
    m_document->reload();
}

void MainWindow::showAbout()
{
    QMessageBox box(QMessageBox::NoIcon, tr("About GGUF Explorer"), aboutText(), QMessageBox::Ok, this);
    box.setObjectName(QStringLiteral("aboutBox"));
    box.setIconPixmap(windowIcon().pixmap(64, 64));
    box.exec();
}

QString MainWindow::aboutText()
{
    return tr("<h3>GGUF Explorer %1</h3>"
              "<p>Built from git revision <tt>%2</tt> with Qt %3 (running on Qt %4).</p>"
              "<p>Looks inside GGUF model files (llama.cpp's format): header, metadata, "
              "tensors and validation. Files are only read, unless you edit their metadata and "
              "save.</p>"
              "<p>Licensed under the GNU General Public License, version 3 or later. "
              "Charts by QCustomPlot (GPL-3.0-or-later).</p>")
        .arg(QString::fromLatin1(gguf::build::version()), QString::fromLatin1(gguf::build::revision()),
             QStringLiteral(QT_VERSION_STR), QString::fromLatin1(qVersion()));
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!DropPaths::localFiles(event->mimeData()).isEmpty() || !DropPaths::remoteFiles(event->mimeData()).isEmpty())
        event->acceptProposedAction();
    else
        event->ignore();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    // local files, else links (a URL dragged from a browser, or a hub name as text)
    QStringList paths = DropPaths::localFiles(event->mimeData());
    if (paths.isEmpty())
        paths = DropPaths::remoteFiles(event->mimeData());
    if (paths.isEmpty()) {
        event->ignore();
        return;
    }
    event->acceptProposedAction();
    // with Ctrl held: compare (the open model with the one dropped, or the first two dropped)
    const QStringList models = DropPaths::distinctModels(paths);
    if (event->modifiers().testFlag(Qt::ControlModifier)) {
        if (models.size() >= 2) {
            openFile(models[0]);
            compareWith(models[1]);
            return;
        }
        if (m_document->model() || m_document->isLoading()) {
            compareWith(models[0]);
            return;
        }
    }
    openFiles(paths);
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
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1100, 760);
    restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray());
    for (Page *page : m_pageList)
        page->restoreState(settings.value(settingsKey(*page)).toByteArray());
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    for (const Page *page : m_pageList)
        if (const QByteArray state = page->saveState(); !state.isEmpty())
            settings.setValue(settingsKey(*page), state);
}
