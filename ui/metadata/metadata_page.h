// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/page.h"
#include "ui/common/page_state.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <utility>

class JinjaHighlighter;
class JobProgress;
class JobTracker;
class MetadataEditor;
class MetadataFilterProxy;
class MetadataTreeModel;
class QAction;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QToolButton;
class QTreeView;

namespace gguf {
class GgufFile;
}

/// The metadata tree of a file with a filter box and a detail pane that shows the selected value
/// in full (a chat template, a long string). Selecting an item announces its byte range.
class MetadataPage : public Page {
    Q_OBJECT
public:
    explicit MetadataPage(QWidget *parent = nullptr);
    /// Cuts the editor's signals first: its undo stack still speaks while the children go.
    ~MetadataPage() override;

    /// Shows the metadata of `file` (null: empty).
    /// Shows the metadata of the model's first file.
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    void setFile(std::shared_ptr<const gguf::GgufFile> file);
    /// Filters keys, types and values (case-insensitive substring; a group or array that matches
    /// shows all it holds).
    void setFilterText(const QString &text);

    /// Puts the keyboard focus into the filter box.
    void focusFilter();
    bool focusFind() override;
    /// Selects and shows metadata pair `index` (clearing a filter that hides it).
    void selectMetadataEntry(int index);
    /// A metadata entry link: selects the entry.
    bool follow(const Link &link) override;

    QByteArray saveState() const override;
    void restoreState(const QByteArray &state) override;

    MetadataTreeModel *model() const { return m_model; }
    MetadataFilterProxy *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }
    QString detailText() const;

    // --- editing (docs/EDITING.md); the page is read-only until setEditing(true)
    MetadataEditor *editor() const { return m_editor; }
    void setEditing(bool editing);
    bool isEditing() const;
    /// Adds (or sets) `key` of type `typeName` (as `gguf-inspect set --type` reads it) with the
    /// value `text`; empty when taken, else why not.
    QString addKey(const QString &key, const QString &typeName, const QString &text);
    /// Removes the selected key; empty when taken, else why not.
    QString removeSelectedKey();
    /// Takes the detail pane's text as the new value of the selected string (a chat template).
    QString applyDetailText();
    /// The detail pane (editable for strings while editing).
    QPlainTextEdit *detailEditor() const { return m_detail; }
    /// What the live check says of the chat template in the detail pane ("" when none is shown).
    QString templateCheck() const;
    /// The pending changes as listed.
    QStringList pendingChanges() const;
    /// Saves to the file itself / to `path`.
    void save();
    void saveAs(const QString &path);

    // Links: the bytes [offset, offset + size) of the primary file that the selected item occupies
    // (in the background); a token activated (double-click, Enter): a tokenizer.ggml.*_token_id key,
    // or element `id` of the tokens, scores or token_type array.

signals:
    /// Something to tell the user in the window's message bar (an edit that was refused).
    void editMessage(const QString &text);

protected:
    void changeEvent(QEvent *event) override;

private:
    void showDetails(const QModelIndex &proxyIndex);
    /// The token a source index names (a *_token_id key or a per-token array element), if any.
    std::optional<quint64> tokenAt(const QModelIndex &index) const;
    void copy(int role);
    QWidget *createEditBar();
    /// Undo and Redo of the edits, on the tree (their tooltips say what they would undo).
    std::pair<QAction *, QAction *> createUndoActions();
    /// The tree, the pending list and the detail pane follow the edits.
    void connectEditing();
    void updateEditState();
    void updatePending();
    /// The detail pane follows the item on show: editable for strings while editing, the
    /// chat template checked and highlighted.
    void updateDetailEditing(const QModelIndex &sourceIndex);
    void checkTemplate();
    /// The bytes of the string `key` (element `element`, or -1) with the pending changes.
    std::string stringBytes(const QString &key, qint64 element) const;
    /// True when the detail pane can show `bytes` and give them back unchanged.
    static bool keepsItsBytes(const std::string &bytes);
    void chooseAddKey();
    void chooseSaveAs();
    QModelIndex currentSourceIndex() const;

    MetadataTreeModel *m_model;
    MetadataFilterProxy *m_proxy;
    QLineEdit *m_filter;
    QTreeView *m_view;
    QSplitter *m_splitter;
    QLabel *m_detailTitle;
    QPlainTextEdit *m_detail;

    MetadataEditor *m_editor;
    QToolButton *m_editButton = nullptr;
    QString m_editTip; ///< the Edit button's tooltip for a local file
    QWidget *m_editBar = nullptr;
    QPushButton *m_apply = nullptr;
    QLabel *m_templateCheck = nullptr;
    JinjaHighlighter *m_highlighter = nullptr;
    JobTracker *m_checker = nullptr;
    QLabel *m_pendingTitle = nullptr;
    QListWidget *m_pending = nullptr;
    JobProgress *m_saveProgress = nullptr;
    QString m_detailKey; ///< the key whose string the detail pane can edit ("" when none)
    qint64 m_detailElement = -1;
    PageState m_state{0}; ///< saveState()/restoreState()
};
