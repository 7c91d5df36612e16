// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/metadata/metadata_tree_model.h"

#include "core/edit/metadata_changes.h"
#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"
#include "core/vocab/well_known_keys.h"
#include "ui/common/diff_colors.h"
#include "ui/common/text_format.h"
#include "ui/common/value_text.h"

#include <QColor>
#include <QFont>
#include <QHash>
#include <QStringBuilder>

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
    std::string added;    // Entry: the key of a pending new pair (not in the file)
    bool broken = false;  // Entry: the pair being read when a damaged file's reading stopped
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
    // the file's pairs, then the keys pending changes add
    std::vector<std::pair<std::string_view, const gguf::MetadataEntry *>> keys;
    for (const gguf::MetadataEntry &entry : m_file->metadata())
        keys.emplace_back(entry.key, &entry);
    if (m_changes)
        for (const std::string &key : m_changes->order())
            if (const gguf::KeyChange *c = m_changes->find(key);
                c->kind == gguf::KeyChange::Kind::Set && !m_file->findMetadata(key))
                keys.emplace_back(key, nullptr);
    for (const auto &[key, entry] : keys) {
        Node *group = groupOf(groups, key);
        auto node = std::make_unique<Node>();
        node->kind = ItemKind::Entry;
        node->parent = group;
        node->row = static_cast<int>(group->children.size());
        if (entry) {
            node->entry = entry->index;
            node->value = entry->value;
        } else {
            node->added = std::string(key);
        }
        group->children.push_back(std::move(node));
    }
    addBrokenEntry(groups);
}

namespace {

QFont pendingFont(bool removed)
{
    QFont font;
    font.setBold(!removed);
    font.setStrikeOut(removed);
    font.setItalic(removed);
    return font;
}

} // namespace

MetadataTreeModel::Node *MetadataTreeModel::groupNamed(QHash<QString, Node *> &groups, const QString &name)
{
    Node *&group = groups[name];
    if (!group) {
        auto node = std::make_unique<Node>();
        node->parent = m_root.get();
        node->row = static_cast<int>(m_root->children.size());
        node->group = name;
        group = node.get();
        m_root->children.push_back(std::move(node));
    }
    return group;
}

MetadataTreeModel::Node *MetadataTreeModel::groupOf(QHash<QString, Node *> &groups, std::string_view key)
{
    const std::string_view ns = gguf::keyNamespace(key);
    return groupNamed(groups, ns.empty() ? tr("(no namespace)")
                                         : QString::fromUtf8(ns.data(), static_cast<qsizetype>(ns.size())));
}

void MetadataTreeModel::addBrokenEntry(QHash<QString, Node *> &groups)
{
    const gguf::Breakage *b = m_file->breakage();
    if (!b || b->section != gguf::Breakage::Section::Metadata)
        return;
    // in its namespace when its key was read, else in a group of its own
    Node *group = b->nameRead() ? groupOf(groups, b->entry.key) : groupNamed(groups, tr("(damaged)"));
    auto node = std::make_unique<Node>();
    node->kind = ItemKind::Entry;
    node->parent = group;
    node->row = static_cast<int>(group->children.size());
    node->broken = true;
    node->entry = static_cast<uint32_t>(b->index);
    group->children.push_back(std::move(node));
}

QVariant MetadataTreeModel::brokenData(const QModelIndex &index, int role) const
{
    const gguf::Breakage &b = *m_file->breakage();
    const QString key = b.nameRead() ? ValueText::fullText(b.entry.key) : tr("(pair %1: key not read)").arg(b.index);
    const uint64_t end = std::min(b.fieldOffset + std::max<uint64_t>(b.fieldSize, 1), m_file->fileSize());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KeyColumn: return key;
        case TypeColumn: return tr("broken");
        case ValueColumn:
            return tr("✖ reading stopped at byte %1: %2")
                .arg(TextFormat::offset(b.fieldOffset), QString::fromStdString(b.expected));
        }
        return {};
    case Qt::ToolTipRole:
    case FullTextRole: return QString::fromStdString(m_file->error().message);
    case KeyRole: return b.nameRead() ? key : QString();
    case ByteOffsetRole: return QVariant::fromValue<quint64>(b.offset);
    case ByteSizeRole: return QVariant::fromValue<quint64>(end > b.offset ? end - b.offset : 0);
    case ItemKindRole: return static_cast<int>(ItemKind::Entry);
    case PendingRole: return false;
    case ElementIndexRole: return qint64(-1);
    case BrokenRole: return true;
    case Qt::FontRole: return pendingFont(false);
    case Qt::BackgroundRole: return DiffColors::background(DiffColors::Shade::Red);
    }
    return {};
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

QString MetadataTreeModel::keyOf(const Node *node) const
{
    if (node->broken)
        return ValueText::fullText(m_file->breakage()->entry.key);
    return node->added.empty() ? ValueText::fullText(m_file->metadata()[node->entry].key)
                               : QString::fromStdString(node->added);
}

QModelIndex MetadataTreeModel::indexOfKey(const QString &key) const
{
    const std::string wanted = key.toStdString();
    for (const auto &group : m_root->children)
        for (const auto &entry : group->children)
            if (!entry->broken &&
                (entry->added.empty() ? m_file->metadata()[entry->entry].key == wanted : entry->added == wanted))
                return indexOfNode(entry.get());
    return {};
}

void MetadataTreeModel::setPendingChanges(const gguf::MetadataChanges *changes)
{
    m_changes = changes;
    rebuild();
}

void MetadataTreeModel::setEditable(bool editable, EditHandler handler)
{
    m_editable = editable;
    m_editHandler = std::move(handler);
    if (m_root && !m_root->children.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void MetadataTreeModel::rebuild()
{
    m_changing = true;
    beginResetModel();
    m_root = std::make_unique<Node>();
    if (m_file)
        build();
    endResetModel();
    m_changing = false;
}

void MetadataTreeModel::pendingChanged(const QString &key)
{
    const QModelIndex entry = indexOfKey(key);
    if (!entry.isValid())
        return;
    emit dataChanged(entry, entry.siblingAtColumn(ColumnCount - 1));
    if (const int rows = rowCount(entry); rows > 0)
        emit dataChanged(index(0, 0, entry), index(rows - 1, ColumnCount - 1, entry));
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
    if (!item.leaf && item.node->broken)
        return brokenData(index, role);
    if (role == BrokenRole)
        return false;
    if (!item.leaf && !item.node->added.empty())
        return addedData(*item.node, index, role);
    if (m_changes || role == Qt::EditRole || role == PendingRole || role == ElementIndexRole)
        if (QVariant pending = pendingData(item, index, role); pending.isValid())
            return pending;
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
        case ValueColumn:
            if (!element && entry.key == gguf::kPaddingKey)
                return paddingText(value);
            return ValueText::display(value, entry.key, element, m_vocab.get());
        }
        return {};
    case Qt::ToolTipRole: {
        if (!element && entry.key == gguf::kPaddingKey)
            return paddingText(value);
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

// The program's own key, said to be so (#40): zeros that keep the data in place after an edit.
QString MetadataTreeModel::paddingText(const gguf::Value &value)
{
    const quint64 n = value.type() == gguf::ValueType::Array ? value.array().size() : 0;
    return tr("GGUF Explorer's own padding: %1 zero bytes written by an in-place save to keep the tensor "
              "data where it was after the header shrank; llama.cpp ignores this key")
        .arg(TextFormat::count(n));
}

QVariant MetadataTreeModel::addedData(const Node &node, const QModelIndex &index, int role) const
{
    const gguf::KeyChange *c = m_changes ? m_changes->find(node.added) : nullptr;
    if (!c || c->kind != gguf::KeyChange::Kind::Set)
        return {};
    const gguf::OwnedValue &v = c->value;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case KeyColumn: return QString::fromStdString(node.added);
        case TypeColumn: return ValueText::typeName(v);
        case ValueColumn: return ValueText::display(v, node.added, false, m_vocab.get());
        }
        return {};
    case Qt::EditRole: return QString::fromStdString(v.toEditText());
    case Qt::ToolTipRole: return tr("Added; not saved yet");
    case FullTextRole:
        return v.type == gguf::ValueType::String ? QString::fromStdString(v.text)
                                                 : QString::fromStdString(v.toEditText());
    case KeyRole: return QString::fromStdString(node.added);
    case ByteOffsetRole:
    case ByteSizeRole: return QVariant::fromValue<quint64>(0);
    case ItemKindRole: return static_cast<int>(ItemKind::Entry);
    case PendingRole: return true;
    case ElementIndexRole: return qint64(-1);
    case Qt::FontRole: return pendingFont(false);
    case Qt::BackgroundRole: return DiffColors::background(DiffColors::Shade::Green);
    }
    return {};
}

QVariant MetadataTreeModel::pendingData(const Item &item, const QModelIndex &index, int role) const
{
    const gguf::MetadataEntry &entry = m_file->metadata()[item.node->entry];
    const gguf::KeyChange *c = m_changes ? m_changes->find(entry.key) : nullptr;
    const ItemKind kind = item.kind();
    // only the elements of a flat array are changed one by one
    const bool topElement = item.leaf && item.node->kind == ItemKind::Entry;
    const uint64_t row = static_cast<uint64_t>(item.row);
    if (role == ElementIndexRole)
        return kind != ItemKind::Element ? qint64(-1) : static_cast<qint64>(item.leaf ? row : item.node->element);
    std::optional<gguf::OwnedValue> shown;
    bool pending = false, removed = false;
    if (c && c->kind == gguf::KeyChange::Kind::Remove) {
        removed = true;
    } else if (c && kind == ItemKind::Entry) {
        pending = true;
        if (c->kind == gguf::KeyChange::Kind::Set)
            shown = c->value;
    } else if (c && topElement) {
        if (const auto it = c->elements.find(row);
            c->kind == gguf::KeyChange::Kind::Elements && it != c->elements.end())
            shown = it->second;
        else if (c->kind == gguf::KeyChange::Kind::Set && c->value.isArray() && row < c->value.elements.size())
            shown = c->value.elements[row];
        pending = shown.has_value();
    }
    switch (role) {
    case PendingRole: return pending || removed;
    case Qt::FontRole: return pending || removed ? QVariant(pendingFont(removed)) : QVariant();
    case Qt::BackgroundRole:
        return pending || removed
                   ? QVariant(DiffColors::background(removed ? DiffColors::Shade::Red : DiffColors::Shade::Yellow))
                   : QVariant();
    case Qt::EditRole:
        if (shown)
            return QString::fromStdString(shown->toEditText());
        if (item.value().type() == gguf::ValueType::Array)
            return {};
        return QString::fromStdString(gguf::OwnedValue::fromValue(item.value()).toEditText());
    case FullTextRole:
        if (!shown)
            return {};
        return shown->type == gguf::ValueType::String ? QString::fromStdString(shown->text)
                                                      : QString::fromStdString(shown->toEditText());
    case Qt::DisplayRole:
        if (index.column() == TypeColumn && shown)
            return ValueText::typeName(*shown);
        if (index.column() != ValueColumn)
            return {};
        if (removed)
            return kind == ItemKind::Entry ? tr("(removed)") : QVariant();
        if (shown)
            return ValueText::display(*shown, entry.key, kind == ItemKind::Element, m_vocab.get());
        if (c && kind == ItemKind::Entry && c->kind == gguf::KeyChange::Kind::Elements)
            return QString(ValueText::display(entry.value, entry.key, false, m_vocab.get()) % QStringLiteral("  — ") %
                           (c->elements.size() == 1 ? tr("1 element changed")
                                                    : tr("%1 elements changed").arg(c->elements.size())));
        return {};
    }
    return {};
}

Qt::ItemFlags MetadataTreeModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = QAbstractItemModel::flags(index);
    if (!m_editable || !m_file || index.column() != ValueColumn || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return f;
    const Item item = itemFor(index);
    const ItemKind kind = item.kind();
    if (kind == ItemKind::Group || (!item.leaf && item.node->broken))
        return f;
    const std::string key = index.data(KeyRole).toString().toStdString();
    if (gguf::isStructuralKey(key) || key == gguf::kPaddingKey)
        return f;
    if (kind == ItemKind::Element && !(item.leaf && item.node->kind == ItemKind::Entry))
        return f; // an element of a nested array
    const gguf::KeyChange *c = m_changes ? m_changes->find(key) : nullptr;
    if (c && c->kind == gguf::KeyChange::Kind::Remove)
        return f;
    if (kind == ItemKind::Entry) {
        // (asked for every cell painted: read the value in place, build no text)
        const bool pending = c && c->kind == gguf::KeyChange::Kind::Set;
        const gguf::ValueType type = pending ? c->value.type : item.value().type();
        const std::string_view text = pending ? std::string_view(c->value.text) : item.value().toStringView();
        // arrays change element by element; a string of several lines (a chat template) in the detail pane
        if (type == gguf::ValueType::Array || (type == gguf::ValueType::String && text.find('\n') != text.npos))
            return f;
    }
    return f | Qt::ItemIsEditable;
}

bool MetadataTreeModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable) || !m_editHandler)
        return false;
    // an editor closed without a change is no edit (its text may not even hold the same bytes:
    // invalid UTF-8 shows as U+FFFD)
    if (value.toString() == data(index, Qt::EditRole).toString())
        return true;
    const Item item = itemFor(index);
    const QString key = index.data(KeyRole).toString();
    const qint64 element = index.data(ElementIndexRole).toLongLong();
    // the type the value is read as: the pending value's, else the file's
    gguf::ValueType type = gguf::ValueType::String;
    if (element >= 0) {
        type = item.node->value.array().elementType();
    } else if (!item.node->added.empty()) {
        type = m_changes->find(item.node->added)->value.type;
    } else {
        const gguf::KeyChange *c = m_changes ? m_changes->find(key.toStdString()) : nullptr;
        type = c && c->kind == gguf::KeyChange::Kind::Set ? c->value.type : item.value().type();
    }
    std::string error;
    const auto parsed = gguf::parseValue(type, value.toString().toStdString(), error);
    if (!parsed) {
        m_lastEditError = tr("%1: %2").arg(key, QString::fromStdString(error));
        return false;
    }
    const QString refused = m_editHandler(key, element, *parsed);
    m_lastEditError = refused;
    return refused.isEmpty();
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
