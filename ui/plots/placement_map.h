// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QVector>
#include <QWidget>

class QCPBars;
class QCustomPlot;
class QMouseEvent;

/// Where a model's tensors go (#44): a column per layer slot (the input layer, each layer, the
/// output layer), a row per device, and in each cell a bar of the bytes that device holds of that
/// slot, stacked by what the tensors do (attention, feed-forward, experts…), all bars to one scale.
/// Hovering a cell tells its bytes by role.
class PlacementMap : public QWidget {
    Q_OBJECT
public:
    explicit PlacementMap(QWidget *parent = nullptr);

    /// `bytes[device][column][role]`; `devices` bottom to top, `roles` in stacking order.
    void setMap(const QStringList &columns, const QStringList &devices, const QStringList &roles,
                const QVector<QVector<QVector<double>>> &bytes);
    /// What hovering the cell says ("" for an empty cell or one outside the map).
    QString cellText(int column, int device) const;
    /// The bytes drawn for one role of one cell (for tests): the bar's height times the scale.
    double drawnBytes(int device, int column, int role) const;
    int columnCount() const { return int(m_columns.size()); }
    int deviceCount() const { return int(m_devices.size()); }

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();
    void hover(QMouseEvent *event);

    QCustomPlot *m_plot;
    QVector<QVector<QCPBars *>> m_bars; ///< [device][role]
    QStringList m_columns, m_devices, m_roles;
    QVector<QVector<QVector<double>>> m_bytes;
    double m_scale = 1; ///< bytes per unit of bar height
};
