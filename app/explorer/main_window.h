// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QMainWindow>
#include <QPointer>

#include <functional>

struct Link;
class ComparePage;
class Document;
class HexPage;
class ImportancePage;
class LoadStatus;
class MessageBar;
class MetadataPage;
class OverviewPage;
class Page;
class QTabWidget;
class RecentFiles;
class TensorsPage;
class TokenizerPage;
class WeightsPage;

/// The explorer window: composes the pages around one Document and wires their signals.
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

    /// Shows what `link` (of this window's model) points at: every page but `from` follows it, and
    /// the first that shows it comes forward unless the link is followed in the background.
    void follow(const Link &link, Page *from = nullptr);

    Document *document() const { return m_document; }
    MessageBar *messageBar() const { return m_messageBar; }
    QTabWidget *pages() const { return m_tabs; }
    OverviewPage *overviewPage() const { return m_overview; }
    MetadataPage *metadataPage() const { return m_metadata; }
    TensorsPage *tensorsPage() const { return m_tensors; }
    HexPage *hexPage() const { return m_hex; }
    TokenizerPage *tokenizerPage() const { return m_tokenizer; }
    WeightsPage *weightsPage() const { return m_weights; }
    ComparePage *comparePage() const { return m_compare; }
    /// Shown only while the open file is an importance matrix.
    ImportancePage *importancePage() const { return m_importance; }
    /// The model compared with (B): its opening and its file watch.
    Document *otherDocument() const { return m_other; }
    /// The window showing B for the Compare page's links (null until one is needed).
    MainWindow *otherWindow() const { return m_otherWindow; }

signals:
    /// Every page shows the model of the load that finished (Document::loaded): the pages take it
    /// one per turn of the event loop, the page in view first, so that a model of 20,000 tensors
    /// and a 256k vocabulary never keeps the window from answering (docs/ARCHITECTURE.md §2).
    void modelShown(const QString &path);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void closeEvent(QCloseEvent *event) override;

private:
    /// Adds `page` (a QWidget that is a Page) as the next tab; `name` keys its saved state.
    template <typename PageWidget> void addPage(PageWidget *page, const QString &title, const QString &name);
    static QString settingsKey(const Page &page);
    /// A page's link: followed here, or (side B) in the window showing the compared model.
    void route(const Link &link, Page *from);
    void createMenus();
    void chooseFiles();
    void chooseCompareFile();
    /// Runs `action` on a window showing B, opening one when needed (once B's pages have it).
    void inOtherWindow(const std::function<void(MainWindow *)> &action);
    /// Runs `action` on this window once every page shows the model of `path` (at once when they
    /// do), opening `path` unless it is being opened; a newer request replaces an older one, and a
    /// load that fails or is cancelled drops it.
    void runWhenShown(const QString &path, const std::function<void(MainWindow *)> &action);
    void showLoaded(const QString &path, const QString &warning);
    void showFailure(const QString &path, const QString &message, quint64 offset);
    void showAbout();
    /// Gives the document's model to the next page waiting for it, then queues the one after;
    /// stops when a newer load took over (`generation`).
    void showModelOnNextPage(quint64 generation, const QString &path);
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
    QList<Page *> m_pageList; ///< in tab order
    MessageBar *m_messageBar;
    QTabWidget *m_tabs;
    OverviewPage *m_overview;
    MetadataPage *m_metadata;
    TensorsPage *m_tensors;
    HexPage *m_hex = nullptr;
    TokenizerPage *m_tokenizer = nullptr;
    WeightsPage *m_weights;
    ComparePage *m_compare;
    ImportancePage *m_importance = nullptr;
    Document *m_other;
    QPointer<MainWindow> m_otherWindow;
    LoadStatus *m_loadStatus;
    RecentFiles *m_recent = nullptr;
    QElapsedTimer m_loadTimer;
    QList<Page *> m_pagesWaiting; ///< pages that do not show the loaded model yet
    quint64 m_showGeneration = 0; ///< counts loads, so that an older one stops filling pages
    QString m_reselectTensor;     ///< shown before a reload of m_reselectPath: shown again after it
    QString m_reselectPath;
    bool m_barShowsBreak = false; ///< the message bar's action is showBreak(), not a reload
    bool m_shown = false;         ///< every page shows the document's model (modelShown was said)
    bool m_routing = false;       ///< a link is being followed
    std::function<void(MainWindow *)> m_whenShown;
    QString m_whenShownPath;
    QString m_savedNotice; ///< what the save that is being reloaded did
};
