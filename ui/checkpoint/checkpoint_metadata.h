// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <memory>

class QLineEdit;
class QTreeWidget;
class QTreeWidgetItem;
namespace gguf::st {
class Checkpoint;
}

/// A checkpoint's metadata as a tree: config.json (objects and arrays opened up, each value with its
/// JSON type) and each shard's `__metadata__`, with the byte offset where each key is written; a
/// filter keeps the rows whose key or value holds its text.
class CheckpointMetadata : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointMetadata(QWidget *parent = nullptr);
    void setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint);
    QTreeWidget *tree() const { return m_tree; }
    /// Shows only the rows matching `text` (and their parents).
    void setFilter(const QString &text);

private:
    QLineEdit *m_filter;
    QTreeWidget *m_tree;
};
