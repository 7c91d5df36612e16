// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractItemModel>

#include <memory>
#include <optional>
#include <vector>

namespace gguf {
class SplitModel;
struct TensorInfo;
} // namespace gguf

/// The tensors of a model (all shards) as a table, or grouped by layer as a tree
/// ("layer 0" → its tensors, "other tensors" last). Display text is built in data(); SortRole gives
/// the raw value of every column so a proxy sorts numbers as numbers.
class TensorTableModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        NameColumn,
        TypeColumn,
        ShapeColumn,
        ElementsColumn,
        BytesColumn,
        BitsPerWeightColumn,
        OffsetColumn,
        FileOffsetColumn,
        LayerColumn,
        ShardColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1, ///< raw value: integers, doubles, names (natural order in the proxy)
        IsGroupRole,                 ///< bool: a layer group row
        TensorRole,                  ///< int: position in SplitModel::tensors(); -1 for groups
        ElementsRole,                ///< quint64
        BytesRole,                   ///< quint64
        BrokenRole, ///< bool: the tensor info being read when a damaged file's reading stopped (last row)
    };

    explicit TensorTableModel(QObject *parent = nullptr);
    ~TensorTableModel() override;

    /// Shows the tensors of `model` (null: nothing). The model is kept alive while shown.
    void setModel(std::shared_ptr<const gguf::SplitModel> model);
    const gguf::SplitModel *model() const { return m_model.get(); }
    /// Flat table, or a tree of layer groups.
    void setGroupedByLayer(bool grouped);
    bool isGroupedByLayer() const { return m_grouped; }
    /// The tensor at `index` (column ignored), or nullptr for groups and invalid indexes.
    const gguf::TensorInfo *tensorAt(const QModelIndex &index) const;
    /// The shard (0-based) of the tensor at `index`, -1 for groups.
    int shardAt(const QModelIndex &index) const;
    /// For sorting two tensor rows by a column whose SortRole is an integer: the order of their
    /// keys (ties by position), read from the tensors without building QVariants, which a proxy
    /// sorting 20,000 rows would otherwise build a million times. nullopt for other columns and
    /// for groups (then compare SortRole).
    std::optional<bool> tensorLessThan(const QModelIndex &left, const QModelIndex &right) const;

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Group {
        int layer = -1;
        std::vector<int> tensors; // positions in SplitModel::tensors()
        quint64 elements = 0;
        quint64 bytes = 0;
    };
    void buildGroups();
    /// The shard whose tensor infos broke off (its breakage is in them), or -1: that tensor info is
    /// shown, marked, as the last row (the last top-level row when grouped).
    int brokenShard() const;
    int topLevelRows() const;
    QVariant brokenData(int column, int role) const;
    int tensorRow(const QModelIndex &index) const;
    QVariant tensorData(int tensor, int column, int role) const;
    QVariant groupData(const Group &group, int column, int role) const;

    std::shared_ptr<const gguf::SplitModel> m_model;
    bool m_grouped = false;
    std::vector<Group> m_groups;
    int m_brokenShard = -1;
};
