// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>
#include <QWidget>

class QCPBars;
class QCustomPlot;
class QLabel;
class QStackedLayout;

/// A bar chart of how many bytes each tensor type takes (QCustomPlot), coloured from the
/// current palette so it follows light and dark themes.
class TypeMixPlot : public QWidget {
    Q_OBJECT
public:
    struct Bar {
        QString label; ///< type name
        double bytes = 0;
    };

    explicit TypeMixPlot(QWidget *parent = nullptr);

    /// Replaces the bars (in the order given); an empty list shows `emptyText` (by default "no
    /// tensors") instead of a chart.
    void setBars(const QVector<Bar> &bars, const QString &emptyText = {});
    /// Shows nothing (no file).
    void clear();
    int barCount() const { return static_cast<int>(m_bars.size()); }

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();

    QStackedLayout *m_stack;
    QCustomPlot *m_plot;
    QLabel *m_empty;
    QCPBars *m_series;
    QVector<Bar> m_bars;
};
