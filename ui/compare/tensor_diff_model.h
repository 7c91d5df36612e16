// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/compare/tensor_diff.h"

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>
#include <optional>
#include <vector>

namespace gguf {
class SplitModel;
}

/// The tensors of two models matched by name (core matchTensors), one row per name: status,
/// type and shape on each side and, once compared, the error measures. Rows are updated in place
/// as the comparison of their values arrives.
class TensorDiffModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column : uint8_t {
        Name,
        Status,
        TypeA,
        TypeB,
        Shape,
        Rmse,
        MaxAbs,
        MeanAbsRel,
        Cosine,
        SnrDb,
        RelL2,
        ColumnCount
    };
    /// The numeric value a column sorts by (measures: a double, invalid when not measured).
    static constexpr int SortRole = Qt::UserRole + 1;
    /// The row's TensorDiffStatus as an int.
    static constexpr int StatusRole = Qt::UserRole + 2;

    explicit TensorDiffModel(QObject *parent = nullptr);

    void setPairs(std::shared_ptr<const gguf::SplitModel> a, std::shared_ptr<const gguf::SplitModel> b,
                  std::vector<gguf::TensorPair> pairs);
    /// Replaces rows `rows` by `pairs` (their comparison arrived), in one dataChanged.
    void updatePairs(const std::vector<int> &rows, const std::vector<gguf::TensorPair> &pairs);
    const std::vector<gguf::TensorPair> &pairs() const { return m_pairs; }
    const gguf::TensorPair *pairAt(int row) const;
    int rowOfName(const QString &name) const;
    std::shared_ptr<const gguf::SplitModel> modelA() const { return m_a; }
    std::shared_ptr<const gguf::SplitModel> modelB() const { return m_b; }

    /// The measure a column shows for `pair`; nullopt when the pair has none (identical bytes give
    /// the measures of identical values).
    static std::optional<double> measure(const gguf::TensorPair &pair, int column);
    /// "same bytes", "same values", "changed", "type changed", "shape changed", "only in A", …
    static QString statusText(gguf::TensorDiffStatus status);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gguf::SplitModel> m_a, m_b;
    std::vector<gguf::TensorPair> m_pairs;
};

/// Filters TensorDiffModel rows by name text and by "differences only", and sorts numerically:
/// rows without a measure sort after all measured rows in either order.
class TensorDiffProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit TensorDiffProxy(QObject *parent = nullptr);
    void setNameFilter(const QString &text);
    void setDifferencesOnly(bool only);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QString m_name;
    bool m_differencesOnly = false;
};
