// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractListModel>
#include <QStringList>

#include <memory>
#include <vector>

namespace gguf {
class SplitModel;
} // namespace gguf

/// The names of a model's tensors (all shards, in SplitModel::tensors() order) as a list, for the
/// tensor choosers of the Weights page; optionally with a check box per name. A row is nothing but
/// its position: names are made when a view asks for them, so a model of 20,000 tensors is set in
/// no time (a QListWidget or a QComboBox of its own items would build 20,000 item objects).
class TensorNameModel : public QAbstractListModel {
    Q_OBJECT
public:
    explicit TensorNameModel(bool checkable, QObject *parent = nullptr);

    /// Shows `model` (null: nothing); every check box is cleared.
    void setSplitModel(std::shared_ptr<const gguf::SplitModel> model);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

    /// Checks exactly the tensors named in `names` (in one change; other names are ignored).
    void checkOnly(const QStringList &names);
    /// The checked names, in model order.
    QStringList checkedNames() const;

signals:
    /// A check box changed by the user (setData), not by checkOnly.
    void checksEdited();

private:
    QString nameAt(int row) const;

    bool m_checkable;
    std::shared_ptr<const gguf::SplitModel> m_model;
    std::vector<char> m_checked; ///< per row
};
