// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <QTabWidget>

#include <functional>

struct Link;
class ComparePage;
class CheckpointView;
class CompareSession;
class Document;
class HexPage;
class ImportancePage;
class LoadReporter;
class MessageBar;
class ReportExporter;
class MetadataPage;
class OverviewPage;
class Page;
class PageHost;
class QMenu;
class QTabWidget;
class QStackedWidget;
class RecentFiles;
class StartView;
class TensorsPage;
class TokenizerPage;
class WeightsPage;

/// The explorer window: composes the pages (PageHost) around one Document, the message bar that
/// reports on it (LoadReporter) and the model compared with (CompareSession), and gives them menus,
/// drag and drop and saved settings.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    /// Help ▸ About's text: the version, the git revision built from, and the Qt versions.
    static QString aboutText();

    /// Opens `paths`: the first model in this window, every further model in a window of its own
    /// (the shards of a split model count as one model).
    void openFiles(const QStringList &paths);
    void openFile(const QString &path);
    /// Compares the open model (A) with the model at `path` (B) on the Compare page; B opens on a
    /// worker like any file and a failure is reported the same way.
    void compareWith(const QString &path);

    /// File ▸ Export Report… without its dialog: writes the open model's report to `path` (.md or
    /// .html) on a worker; the message bar tells the outcome.
    void exportReport(const QString &path);
    /// The exporter (null until the first export).
    ReportExporter *reportExporter() const { return m_reportExporter; }

    /// Shows what `link` (of this window's model) points at (PageHost::follow).
    void follow(const Link &link);

    Document *document() const { return m_document; }
    MessageBar *messageBar() const { return m_messageBar; }
    QTabWidget *pages() const;
    /// The page of type P (OverviewPage, HexPage…); null when the window has none.
    template <typename P> P *page() const
    {
        for (int i = 0; i < pages()->count(); ++i)
            if (auto *p = qobject_cast<P *>(pages()->widget(i)))
                return p;
        return nullptr;
    }
    /// The model compared with (B): its opening and its file watch.
    Document *otherDocument() const;
    /// The pages shown for a Hugging Face checkpoint (#43).
    CheckpointView *checkpointView() const { return m_checkpointView; }
    /// The window showing B for the Compare page's links (null until one is needed).
    MainWindow *otherWindow() const { return m_otherWindow; }

signals:
    /// Every page shows the model of the load that finished (Document::loaded): the pages take it
    /// one per turn of the event loop, the page in view first, so that a model of 20,000 tensors
    /// and a 256k vocabulary never keeps the window from answering (docs/ARCHITECTURE.md §2).
    void modelShown(const QString &path);
    /// A Hugging Face checkpoint is shown (Document::checkpointLoaded): every page of the checkpoint
    /// view has it.
    void checkpointShown(const QString &path);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    void createPages();
    void connectPages();
    void createMenus();
    QMenu *createViewMenu();
    void chooseFiles();
    void chooseUrl();
    void createStartView();
    /// The start view (ways to open a file, why the last open failed) while no model is open, else the pages.
    void showStart(bool start);
    void chooseCompareFile();
    void chooseReportFile();
    /// Runs `action` on a window showing B, opening one when needed (once B's pages have it).
    void inOtherWindow(const std::function<void(MainWindow *)> &action);
    /// Runs `action` on this window once every page shows the model of `path` (at once when they
    /// do), opening `path` unless it is being opened; a newer request replaces an older one, and a
    /// load that fails or is cancelled drops it.
    void runWhenShown(const QString &path, const std::function<void(MainWindow *)> &action);
    void showLoaded(const QString &path);
    /// Every page shows the document's model: the tensor on show before a reload is shown again,
    /// the Bytes page of a damaged file waits at the break, and a waiting action runs.
    void finishShowing();
    /// A Hugging Face checkpoint is open: its own pages replace the GGUF pages (#43).
    void showCheckpoint(const QString &path);
    /// File ▸ Open Folder: a folder holding a Hugging Face checkpoint.
    void chooseFolder();
    void showAbout();
    /// The Bytes page at the field where the damaged document's reading stopped.
    void showBreak();
    /// Opens the document's file again, keeping the tensor on show.
    void reloadDocument();
    /// True when the pending metadata edits may go (none, or the user said to discard them);
    /// false while they are being saved.
    bool mayDropEdits();
    void restoreSettings();
    void saveSettings() const;

    Document *m_document;
    MessageBar *m_messageBar;
    PageHost *m_pages;
    OverviewPage *m_overview;
    MetadataPage *m_metadata;
    TensorsPage *m_tensors;
    HexPage *m_hex;
    TokenizerPage *m_tokenizer;
    WeightsPage *m_weights;
    ComparePage *m_compare;
    ImportancePage *m_importance;
    LoadReporter *m_reporter;
    CompareSession *m_comparison;
    QPointer<MainWindow> m_otherWindow;
    RecentFiles *m_recent = nullptr;
    ReportExporter *m_reportExporter = nullptr;
    QString m_reportPath; ///< the last report written (the message bar's Open)
    QStackedWidget *m_stack;
    StartView *m_start;
    CheckpointView *m_checkpointView; ///< shown instead of the pages for a Hugging Face checkpoint (#43)
    QString m_reselectTensor;         ///< shown before a reload of m_reselectPath: shown again after it
    QString m_reselectPath;
    QString m_shownPath;  ///< the path of the model the pages are being given
    bool m_shown = false; ///< every page shows the document's model (modelShown was said)
    std::function<void(MainWindow *)> m_whenShown;
    QString m_whenShownPath;
};
