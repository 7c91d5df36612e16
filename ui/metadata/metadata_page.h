// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/page.h"

#include <QWidget>

#include <memory>
#include <optional>

class MetadataFilterProxy;
class MetadataTreeModel;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSplitter;
class QTreeView;

namespace gguf {
class GgufFile;
}

/// The metadata tree of a file with a filter box and a detail pane that shows the selected value
/// in full (a chat template, a long string). Selecting an item announces its byte range.
class MetadataPage : public QWidget, public Page {
    Q_OBJECT
public:
    explicit MetadataPage(QWidget *parent = nullptr);

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

    QByteArray saveState() const override;
    void restoreState(const QByteArray &state) override;

    MetadataTreeModel *model() const { return m_model; }
    MetadataFilterProxy *proxy() const { return m_proxy; }
    QTreeView *view() const { return m_view; }
    QString detailText() const;

signals:
    /// The selected item occupies bytes [offset, offset + size) of the file.
    void byteRangeSelected(quint64 offset, quint64 size);
    /// A token was activated (double-click, Enter): a tokenizer.ggml.*_token_id key, or element
    /// `id` of the tokens, scores or token_type array.
    void tokenActivated(quint64 id);

private:
    void showDetails(const QModelIndex &proxyIndex);
    /// The token a source index names (a *_token_id key or a per-token array element), if any.
    std::optional<quint64> tokenAt(const QModelIndex &index) const;
    void copy(int role);

    MetadataTreeModel *m_model;
    MetadataFilterProxy *m_proxy;
    QLineEdit *m_filter;
    QTreeView *m_view;
    QSplitter *m_splitter;
    QLabel *m_detailTitle;
    QPlainTextEdit *m_detail;
};
