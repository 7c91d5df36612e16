// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's menus and the dialogs they open (File ▸ Open…, Compare With…, Help ▸ About), and
// files dropped on it.
#include "app/build_info/build_info.h"
#include "app/explorer/main_window.h"

#include "app/explorer/load_reporter.h"
#include "app/explorer/page_host.h"
#include "ui/common/message_bar.h"
#include "ui/importance/importance_page.h"
#include "ui/metadata/metadata_page.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/appearance.h"
#include "ui/shell/document.h"
#include "ui/shell/drop_paths.h"
#include "ui/shell/open_url_dialog.h"
#include "ui/shell/recent_files.h"
#include "ui/shell/report_export.h"
#include "ui/shell/start_view.h"
#include "ui/shell/verify_dialog.h"
#include "ui/tensors/tensors_page.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDesktopServices>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStackedWidget>
#include <QTimer>
#include <QUrl>

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open…"), this,
                                    &MainWindow::chooseFiles);
    open->setShortcut(QKeySequence::Open);
    QAction *openFolder = file->addAction(QIcon::fromTheme(QStringLiteral("folder-open")), tr("Open &Folder…"), this,
                                          &MainWindow::chooseFolder);
    openFolder->setToolTip(tr("Open a folder holding a Hugging Face checkpoint (config.json and .safetensors files)"));
    QAction *openUrl = file->addAction(QIcon::fromTheme(QStringLiteral("network-server")), tr("Open &URL…"), this,
                                       &MainWindow::chooseUrl);
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
    QAction *verify = file->addAction(tr("&Verify…"), this, [this] {
        if (!m_document->model()) {
            QMessageBox::information(this, tr("Verify"), tr("Open a GGUF model first: Verify hashes its tensors."));
            return;
        }
        auto *dialog = new VerifyDialog(m_document->model(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    verify->setObjectName(QStringLiteral("verifyAction"));
    verify->setToolTip(tr("Hash every tensor as llama-gguf-hash does, and compare with a manifest"));
    QAction *report = file->addAction(tr("Export &Report…"), this, &MainWindow::chooseReportFile);
    report->setObjectName(QStringLiteral("exportReportAction"));
    report->setToolTip(tr("One document to attach to an issue: overview, verdict, metadata, tensors, type mix, "
                          "memory; Markdown or an HTML page"));
    file->addSeparator();
    file->addAction(tr("&Close Window"), this, &QWidget::close)->setShortcut(QKeySequence::Close);
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::closeAllWindows);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    createViewMenu();

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About GGUF Explorer"), this, &MainWindow::showAbout)->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::chooseFiles()
{
    QSettings settings;
    const QStringList paths = QFileDialog::getOpenFileNames(
        this, tr("Open Files"), settings.value(QStringLiteral("lastDirectory")).toString(),
        tr("GGUF models (*.gguf);;Hugging Face checkpoints (*.safetensors "
           "*.safetensors.index.json);;All files (*)"));
    if (paths.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(paths.first()).absolutePath());
    openFiles(paths);
}

void MainWindow::chooseFolder()
{
    QSettings settings;
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open a Checkpoint Folder"), settings.value(QStringLiteral("lastDirectory")).toString());
    if (folder.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(folder).absolutePath());
    openFile(folder);
}

void MainWindow::chooseUrl()
{
    if (const QString url = OpenUrlDialog::ask(this); !url.isEmpty())
        openFile(url);
}

void MainWindow::createStartView()
{
    connect(m_start, &StartView::openRequested, this, &MainWindow::chooseFiles);
    connect(m_start, &StartView::openUrlRequested, this, &MainWindow::chooseUrl);
    connect(m_start, &StartView::openFolderRequested, this, &MainWindow::chooseFolder);
    connect(m_start, &StartView::recentChosen, this, &MainWindow::openFile);
    // the pages appear (and lay themselves out) in a turn of their own, not in the event that ended the load
    connect(m_document, &Document::loaded, this, [this] {
        QTimer::singleShot(0, this, [this] {
            if (m_document->model())
                showStart(false);
        });
    });
    connect(m_reporter, &LoadReporter::failedWithNothingOpen, this, [this](const QString &path, const QString &why) {
        m_start->setFailure(path, why);
        showStart(true);
    });
    showStart(true);
}

void MainWindow::showStart(bool start)
{
    if (start)
        m_start->setRecentFiles(m_recent->files());
    else
        m_start->setFailure({}, {});
    m_stack->setCurrentWidget(start ? static_cast<QWidget *>(m_start) : m_pages);
}

void MainWindow::chooseCompareFile()
{
    if (!m_document->model() && !m_document->checkpoint()) {
        m_messageBar->showMessage(MessageBar::Kind::Warning, tr("Open a model first, then compare it with another."));
        return;
    }
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Compare %1 With").arg(QFileInfo(m_document->path()).fileName()),
        settings.value(QStringLiteral("lastDirectory")).toString(),
        tr("GGUF models (*.gguf);;Hugging Face checkpoints (*.safetensors *.safetensors.index.json);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDirectory"), QFileInfo(path).absolutePath());
    compareWith(path);
}

QMenu *MainWindow::createViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int i = 0; i < m_pages->count(); ++i) {
        QAction *page = view->addAction(m_pages->tabText(i), this, [this, i] { m_pages->setCurrentIndex(i); });
        page->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)));
        if (m_pages->widget(i) == m_importance) {
            page->setVisible(false);
            connect(m_importance, &ImportancePage::applicableChanged, page, &QAction::setVisible);
        }
    }
    view->addSeparator();
    QAction *find = view->addAction(tr("&Find"), this, [this] {
        if (m_pages->currentPage()->focusFind())
            return;
        // a page without a search box hands Find to the list of what it shows
        Page *list = m_pages->currentPage() == m_overview ? static_cast<Page *>(m_metadata) : m_tensors;
        m_pages->setCurrentWidget(list);
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
    return view;
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
        if (m_document->model() || m_document->checkpoint() || m_document->isLoading()) {
            compareWith(models[0]);
            return;
        }
    }
    openFiles(paths);
}

void MainWindow::chooseReportFile()
{
    if (!m_document->model() && !m_document->checkpoint()) {
        QMessageBox::information(this, tr("Export Report"),
                                 tr("Open a GGUF model or a checkpoint first: the report describes it."));
        return;
    }
    const QFileInfo model(m_document->path());
    QString filter;
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export Report"),
        model.absoluteDir().filePath(model.completeBaseName() + QStringLiteral("-report.md")),
        tr("Markdown for GitHub (*.md);;HTML page, readable offline (*.html)"), &filter);
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += filter.contains(QStringLiteral("*.html")) ? QStringLiteral(".html") : QStringLiteral(".md");
    exportReport(path);
}

void MainWindow::exportReport(const QString &path)
{
    if (!m_reportExporter) {
        m_reportExporter = new ReportExporter(this);
        connect(m_reportExporter, &ReportExporter::finished, this,
                [this](bool ok, const QString &written, const QString &message) {
                    if (!ok) {
                        m_messageBar->showMessage(MessageBar::Kind::Error, message);
                        return;
                    }
                    m_messageBar->showMessage(MessageBar::Kind::Information, message, tr("Open"));
                    m_reportPath = written;
                });
        connect(m_messageBar, &MessageBar::actionTriggered, this, [this] {
            if (!m_reportPath.isEmpty() && m_messageBar->text().endsWith(m_reportPath))
                QDesktopServices::openUrl(QUrl::fromLocalFile(m_reportPath));
        });
    }
    if (m_document->checkpoint())
        m_reportExporter->start(m_document->checkpoint(), m_document->path(), path);
    else
        m_reportExporter->start(m_document->model(), m_document->path(), path);
}
