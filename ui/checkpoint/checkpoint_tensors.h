// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QWidget>

#include <memory>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
namespace gguf::st {
class Checkpoint;
}

/// The tensors of a checkpoint, one row each in header order, shard by shard.
class CheckpointTensorModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Dtype, Shape, GgufDims, Elements, Bytes, Shard, DataBegin, DataEnd, ColumnCount };
    /// Sorts numbers as numbers.
    static constexpr int kSortRole = Qt::UserRole + 1;

    using QAbstractTableModel::QAbstractTableModel;
    void setCheckpoint(std::shared_ptr<const gguf::st::Checkpoint> checkpoint);
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
};

/// The Tensors page of a checkpoint: the table, sortable, with a name filter. Double-click (or
/// Enter) opens the tensor's values on the Weights page; Show Bytes its data on the Bytes page.
class CheckpointTensors : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointTensors(QWidget *parent = nullptr);
    void setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint);
    QTableView *view() const { return m_view; }
    void setFilter(const QString &text);
    /// The checkpoint index of the row selected; -1 when none.
    int currentTensor() const;

signals:
    void tensorActivated(int index);
    void bytesRequested(int index);

private:
    CheckpointTensorModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_view;
};
