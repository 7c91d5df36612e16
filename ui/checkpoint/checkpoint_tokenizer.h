// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/safetensors/hf_tokenizer.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <memory>

class JobTracker;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class TokenizeView;
namespace gguf::st {
class Checkpoint;
}

/// The tokens of a tokenizer.json, one row per id.
class HfTokenModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Id, Token, Kind, Score, Bytes, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;
    void setTokenizer(std::shared_ptr<const gguf::st::HfTokenizer> tokenizer);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const gguf::st::HfTokenizer> m_tokenizer;
};

/// The Tokenizer page of a checkpoint: the vocabulary of the tokenizer.json beside it (read on a
/// worker: it can be tens of megabytes), its model type, added and special tokens and merges; a
/// filter finds tokens by their text. Tokenize: text split by that tokenizer.json as Hugging Face's
/// tokenizers library splits it (built and run on workers); a chip's click shows its token.
class CheckpointTokenizer : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointTokenizer(QWidget *parent = nullptr);
    void setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint);
    QString summary() const;
    QTableView *view() const { return m_view; }
    JobTracker *tracker() const { return m_tracker; }
    TokenizeView *tokenizeView() const { return m_tokenize; }
    QTabWidget *tabs() const { return m_tabs; }
    void setFilter(const QString &text);
    /// Shows token `id` in the vocabulary.
    void selectToken(quint64 id);

signals:
    /// The tokenizer (or why there is none) is on the page.
    void tokenizerShown();

private:
    HfTokenModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLabel *m_summary;
    QLineEdit *m_filter;
    QTableView *m_view;
    JobTracker *m_tracker;
    QTabWidget *m_tabs;
    TokenizeView *m_tokenize;
};
