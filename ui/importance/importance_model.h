// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/kind/importance.h"

#include <QAbstractTableModel>

/// The statistics of every weight of an importance matrix as a table (one row per weight, in file
/// order). Qt::UserRole holds each cell's value for sorting (numbers as doubles). Rows with experts
/// that were never activated are tinted and say which in their tooltip; rows without figures say why.
class ImportanceModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        Tensor,
        Layer,
        Channels,
        Experts,
        Sum,
        Share,
        Mean,
        Std,
        Skewness,
        Kurtosis,
        Entropy,
        Active,
        Zd,
        Cosine,
        ColumnCount
    };

    explicit ImportanceModel(QObject *parent = nullptr);

    void setReport(gguf::ImportanceReport report);
    void clear();
    const gguf::ImportanceReport &report() const { return m_report; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant display(const gguf::ImportanceStats &s, int column) const;
    QVariant sortValue(const gguf::ImportanceStats &s, int column) const;
    QString tooltip(int row) const;

    gguf::ImportanceReport m_report;
};
