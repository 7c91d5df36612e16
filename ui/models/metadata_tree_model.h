// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractItemModel>

#include <memory>

namespace gguf {
class GgufFile;
class Vocabulary;
} // namespace gguf

/// The metadata of one GGUF file as a tree: dotted namespaces ("general", "llama.attention",
/// "tokenizer.ggml") → keys → array elements. Array elements arrive lazily in chunks through
/// canFetchMore()/fetchMore(), so a 256k-element array costs nothing until it is scrolled through.
/// Values are read in place from the file; text is built in data() only.
class MetadataTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { KeyColumn, TypeColumn, ValueColumn, ColumnCount };
    enum Role {
        FullTextRole = Qt::UserRole + 1, ///< the whole value as text (a chat template in full)
        KeyRole,                         ///< the full key of the entry the item belongs to
        ByteOffsetRole,                  ///< quint64: first byte of the item in the file
        ByteSizeRole,                    ///< quint64: bytes of the item (a whole key/value pair for keys)
        ItemKindRole,                    ///< int(ItemKind)
    };
    enum class ItemKind { Group, Entry, Element };
    /// Array elements made visible per fetchMore().
    static constexpr int kFetchChunk = 1000;

    explicit MetadataTreeModel(QObject *parent = nullptr);
    ~MetadataTreeModel() override;

    /// Shows `file` (null: nothing). The model keeps the file alive while it shows it.
    void setFile(std::shared_ptr<const gguf::GgufFile> file);
    const gguf::GgufFile *file() const { return m_file.get(); }

    /// The index (column 0) of a key, or an invalid index.
    QModelIndex indexOfKey(const QString &key) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    struct Item;
    Item itemFor(const QModelIndex &index) const;
    const Node *nodeFor(const QModelIndex &index) const;
    QModelIndex indexOfNode(const Node *node) const;
    void build();

    std::shared_ptr<const gguf::GgufFile> m_file;
    std::unique_ptr<gguf::Vocabulary> m_vocab;
    std::unique_ptr<Node> m_root;
    // Set while the model announces a change: a fetch requested from a slot connected to that
    // announcement (a view, a proxy, a model tester) would nest one change inside another.
    bool m_changing = false;
};
