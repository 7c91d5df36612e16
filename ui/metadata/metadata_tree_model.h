// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractItemModel>
#include <QHash>

#include <functional>
#include <memory>
#include <string_view>

namespace gguf {
class GgufFile;
class MetadataChanges;
class Value;
struct OwnedValue;
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
        PendingRole,                     ///< bool: the item has a change not yet saved
        ElementIndexRole,                ///< qint64: an element's index in its array, -1 for other items
        BrokenRole, ///< bool: the pair being read when a damaged file's reading stopped (shown, marked, last)
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

    // --- editing (docs/EDITING.md): pending changes are shown in place and marked
    /// Takes a change and says why not (empty: taken): (key, element index or -1, new value).
    using EditHandler = std::function<QString(const QString &, qint64, const gguf::OwnedValue &)>;
    /// Shows `changes` (owned by the caller, null: none) over the file's values; keys they add
    /// appear in their namespace. Call pendingChanged() / rebuild() when they change.
    void setPendingChanges(const gguf::MetadataChanges *changes);
    /// Makes the value column editable (scalars, one-line strings, elements of flat arrays), each
    /// edit read by the value's type and handed to `handler`.
    void setEditable(bool editable, EditHandler handler = {});
    bool isEditable() const { return m_editable; }
    /// The pending change of `key` changed: its row and its visible elements are drawn anew.
    void pendingChanged(const QString &key);
    /// Keys were added or dropped: the tree is built anew.
    void rebuild();
    /// Why an edit was refused: what the last setData() that failed said.
    QString lastEditError() const { return m_lastEditError; }

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    bool hasChildren(const QModelIndex &parent = {}) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    struct Item;
    Item itemFor(const QModelIndex &index) const;
    const Node *nodeFor(const QModelIndex &index) const;
    QModelIndex indexOfNode(const Node *node) const;
    void build();
    QVariant pendingData(const Item &item, const QModelIndex &index, int role) const;
    static QString paddingText(const gguf::Value &value);
    QVariant addedData(const Node &node, const QModelIndex &index, int role) const;
    QString keyOf(const Node *node) const;
    /// The top-level group `name` (made when new), and the group of `key`'s namespace.
    Node *groupNamed(QHash<QString, Node *> &groups, const QString &name);
    Node *groupOf(QHash<QString, Node *> &groups, std::string_view key);
    /// The pair being read when a damaged file's reading stopped, as the last entry of its group.
    void addBrokenEntry(QHash<QString, Node *> &groups);
    QVariant brokenData(const QModelIndex &index, int role) const;

    std::shared_ptr<const gguf::GgufFile> m_file;
    std::unique_ptr<gguf::Vocabulary> m_vocab;
    std::unique_ptr<Node> m_root;
    const gguf::MetadataChanges *m_changes = nullptr;
    bool m_editable = false;
    EditHandler m_editHandler;
    QString m_lastEditError;
    // Set while the model announces a change: a fetch requested from a slot connected to that
    // announcement (a view, a proxy, a model tester) would nest one change inside another.
    bool m_changing = false;
};
