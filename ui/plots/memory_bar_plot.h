// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QVector>
#include <QWidget>

#include <array>

class QCPBars;
class QCPItemStraightLine;
class QCustomPlot;

/// Horizontal stacked bars, one per device, of what running a model needs there (weights, KV
/// cache, compute, output), with an optional budget line (QCustomPlot; palette colours).
class MemoryBarPlot : public QWidget {
    Q_OBJECT
public:
    static constexpr int kParts = 4; ///< weights, KV cache, compute, output
    struct Device {
        QString label;
        std::array<double, kParts> bytes{};
    };

    explicit MemoryBarPlot(QWidget *parent = nullptr);

    /// Replaces the bars (top to bottom in the order given); `budget` ≤ 0 hides the budget line.
    void setDevices(const QVector<Device> &devices, double budget);
    /// The bytes drawn for one part of one device (for tests).
    double drawnBytes(int device, int part) const;
    QString unitLabel() const;

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();

    QCustomPlot *m_plot;
    std::array<QCPBars *, kParts> m_parts{};
    QCPItemStraightLine *m_budget;
    QVector<Device> m_devices;
    double m_scale = 1;
    QString m_unit;
};
