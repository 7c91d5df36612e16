// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTreeWidget>

namespace gguf {
struct Histogram;
struct TensorStatistics;
} // namespace gguf

/// The statistics of one tensor beside its histogram: counts, min/max/mean/std, zeros, NaN, ±Inf,
/// the percentiles (marked "≈" when estimated, the error bound in the tooltip) and what the
/// histogram's range left out.
class StatsTable : public QTreeWidget {
    Q_OBJECT
public:
    enum class Row {
        Count,
        Finite,
        Min,
        Max,
        Mean,
        Std,
        Zeros,
        NaN,
        PosInf,
        NegInf,
        FirstPercentile,
        LastPercentile = FirstPercentile + 6,
        Range,
        Outside,
        Bins,
        RowCount
    };

    explicit StatsTable(QWidget *parent = nullptr);

    /// Shows `stats` of the whole tensor and, when given, the histogram drawn beside them.
    void setStatistics(const gguf::TensorStatistics &stats, const gguf::Histogram *histogram);
    void clearStatistics();

    QString valueText(Row row) const;
    QString toolTip(Row row) const;
    /// "label\tvalue" lines, for the clipboard.
    QString text() const;

private:
    void set(Row row, const QString &value, const QString &tip = {});
};
