// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/models/metadata_tree_model.h"

#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"
#include "core/vocab/well_known_keys.h"
#include "ui/models/text_format.h"
#include "ui/models/value_text.h"

#include <QHash>

#include <climits>
#include <vector>

// Groups, keys and elements of nested arrays are nodes. Elements of a flat array are not: their
// index carries the array's node with the lowest bit set, so a huge array costs no memory per row.
struct MetadataTreeModel::Node {
    ItemKind kind = ItemKind::Group;
    Node *parent = nullptr;
    int row = 0;
    QString group;        // Group: the namespace
    uint32_t entry = 0;   // Entry, Element: index of the metadata pair
    uint64_t element = 0; // Element: position in the parent array
    gguf::Value value;    // Entry, Element
    std::vector<std::unique_ptr<Node>> children;
    int loaded = 0; // arrays: elements made visible so far

    bool isArray() const { return value.isValid() && value.type() == gguf::ValueType::Array; }
    int arraySize() const
    {
        return isArray() ? static_cast<int>(std::min<uint64_t>(value.array().size(), INT_MAX)) : 0;
    }
    bool leafChildren() const { return isArray() && value.array().elementType() != gguf::ValueType::Array; }
};

// What an index points at: a node, or element `row` of a flat array node.
struct MetadataTreeModel::Item {
    const Node *node = nullptr; // the node, or the array holding a leaf element
    bool leaf = false;
    int row = 0;
    gguf::Value value() const { return leaf ? node->value.array().at(static_cast<uint64_t>(row)) : node->value; }
    ItemKind kind() const { return leaf ? ItemKind::Element : node->kind; }
};

namespace {
constexpr quintptr kLeafBit = 1;
}

MetadataTreeModel::MetadataTreeModel(QObject *parent) : QAbstractItemModel(parent), m_root(std::make_unique<Node>()) {}

MetadataTreeModel::~MetadataTreeModel() = default;

void MetadataTreeModel::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    m_changing = true;
    beginResetModel();
    m_root = std::make_unique<Node>();
    m_vocab.reset();
    m_file = std::move(file);
    if (m_file) {
        m_vocab = std::make_unique<gguf::Vocabulary>(*m_file);
        build();
    }
    endResetModel();
    m_changing = false;
}

void MetadataTreeModel::build()
{
    QHash<QString, Node *> groups;
    for (const gguf::MetadataEntry &entry : m_file->metadata()) {
        const std::string_view ns = gguf::keyNamespace(entry.key);
        const QString name =
            ns.empty() ? tr("(no namespace)") : QString::fromUtf8(ns.data(), static_cast<qsizetype>(ns.size()));
        Node *&group = groups[name];
        if (!group) {
            auto node = std::make_unique<Node>();
            node->parent = m_root.get();
            node->row = static_cast<int>(m_root->children.size());
            node->group = name;
            group = node.get();
            m_root->children.push_back(std::move(node));
        }
        auto node = std::make_unique<Node>();
        node->kind = ItemKind::Entry;
        node->parent = group;
        node->row = static_cast<int>(group->children.size());
        node->entry = entry.index;
        node->value = entry.value;
        group->children.push_back(std::move(node));
    }
}

MetadataTreeModel::Item MetadataTreeModel::itemFor(const QModelIndex &index) const
{
    if (!index.isValid())
        return {m_root.get(), false, 0};
    const quintptr id = index.internalId();
    if (id & kLeafBit)
        return {reinterpret_cast<const Node *>(id & ~kLeafBit), true, index.row()};
    return {reinterpret_cast<const Node *>(id), false, index.row()};
}

const MetadataTreeModel::Node *MetadataTreeModel::nodeFor(const QModelIndex &index) const
{
    const Item item = itemFor(index);
    return item.leaf ? nullptr : item.node;
}

QModelIndex MetadataTreeModel::indexOfNode(const Node *node) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row, 0, node);
}

QModelIndex MetadataTreeModel::indexOfKey(const QString &key) const
{
    const std::string wanted = key.toStdString();
    for (const auto &group : m_root->children)
        for (const auto &entry : group->children)
            if (m_file->metadata()[entry->entry].key == wanted)
                return indexOfNode(entry.get());
    return {};
}

QModelIndex MetadataTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    const Node *node = nodeFor(parent);
    if (!node)
        return {};
    if (node->leafChildren())
        return createIndex(row, column, reinterpret_cast<quintptr>(node) | kLeafBit);
    return createIndex(row, column, node->children[static_cast<size_t>(row)].get());
}

QModelIndex MetadataTreeModel::parent(const QModelIndex &child) const
{
    if (!child.isValid())
        return {};
    const Item item = itemFor(child);
    return indexOfNode(item.leaf ? item.node : item.node->parent);
}

int MetadataTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return 0;
    const Node *node = nodeFor(parent);
    if (!node)
        return 0;
    return node->isArray() ? node->loaded : static_cast<int>(node->children.size());
}

int MetadataTreeModel::columnCount(const QModelIndex &parent) const
{
    return parent.column() > 0 ? 0 : ColumnCount;
}

bool MetadataTreeModel::hasChildren(const QModelIndex &parent) const
{
    if (parent.column() > 0)
        return false;
    const Node *node = nodeFor(parent);
    if (!node)
        return false;
    return node->isArray() ? node->arraySize() > 0 : !node->children.empty();
}

bool MetadataTreeModel::canFetchMore(const QModelIndex &parent) const
{
    if (m_changing || parent.column() > 0)
        return false;
    const Node *node = nodeFor(parent);
    return node && node->isArray() && node->loaded < node->arraySize();
}

void MetadataTreeModel::fetchMore(const QModelIndex &parent)
{
    if (!canFetchMore(parent))
        return;
    Node *node = const_cast<Node *>(nodeFor(parent));
    const int first = node->loaded;
    const int count = std::min(kFetchChunk, node->arraySize() - first);
    m_changing = true;
    beginInsertRows(parent, first, first + count - 1);
    if (!node->leafChildren()) {
        const gguf::ArrayRef array = node->value.array();
        for (int i = first; i < first + count; ++i) {
            auto child = std::make_unique<Node>();
            child->kind = ItemKind::Element;
            child->parent = node;
            child->row = i;
            child->entry = node->entry;
            child->element = static_cast<uint64_t>(i);
            child->value = array.at(static_cast<uint64_t>(i));
            node->children.push_back(std::move(child));
        }
    }
    node->loaded = first + count;
    endInsertRows();
    m_changing = false;
}

QVariant MetadataTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_file)
        return {};
    const Item item = itemFor(index);
    const ItemKind kind = item.kind();
    if (role == ItemKindRole)
        return static_cast<int>(kind);
    if (kind == ItemKind::Group) {
        if (role == Qt::DisplayRole && index.column() == KeyColumn)
            return item.node->group;
        if (role == Qt::DisplayRole && index.column() == TypeColumn)
            return item.node->children.size() == 1 ? tr("1 key") : tr("%1 keys").arg(item.node->children.size());
        if (role == KeyRole)
            return item.node->group;
        return {};
    }
    const uint32_t entryIndex = item.node->entry;
    const gguf::MetadataEntry &entry = m_file->metadata()[entryIndex];
    const gguf::Value value = item.value();
    const bool element = kind == ItemKind::Element;
    const uint64_t elementIndex = item.leaf ? static_cast<uint64_t>(item.row) : item.node->element;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KeyColumn: return element ? QStringLiteral("[%1]").arg(elementIndex) : ValueText::fullText(entry.key);
        case TypeColumn: return ValueText::typeName(value);
        case ValueColumn: return ValueText::display(value, entry.key, element, m_vocab.get());
        }
        return {};
    case Qt::ToolTipRole: {
        const quint64 offset = element ? value.offset() : entry.offset;
        const quint64 size = element ? value.size() : entry.end() - entry.offset;
        return tr("Bytes %1–%2 (%3)")
            .arg(TextFormat::offset(offset), TextFormat::offset(offset + size), TextFormat::byteSize(size));
    }
    case FullTextRole:
        if (value.type() == gguf::ValueType::String)
            return ValueText::fullText(value.toStringView());
        return ValueText::display(value, entry.key, element, m_vocab.get(), INT_MAX / 8);
    case KeyRole: return ValueText::fullText(entry.key);
    case ByteOffsetRole: return QVariant::fromValue<quint64>(element ? value.offset() : entry.offset);
    case ByteSizeRole: return QVariant::fromValue<quint64>(element ? value.size() : entry.end() - entry.offset);
    }
    return {};
}

QVariant MetadataTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KeyColumn: return tr("Key");
    case TypeColumn: return tr("Type");
    case ValueColumn: return tr("Value");
    }
    return {};
}
