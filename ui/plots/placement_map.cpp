// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/placement_map.h"

#include "queued_plot.h"
#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace {

constexpr double kCellHeight = 0.8; // of a row: the tallest cell's bar

QString bytesText(double bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 2, QLocale::DataSizeTraditionalFormat);
}

} // namespace

PlacementMap::PlacementMap(QWidget *parent) : QWidget(parent), m_plot(new QueuedPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setMinimumHeight(150);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->legend->setVisible(true);
    m_plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    m_plot->plotLayout()->insertRow(0);
    m_plot->plotLayout()->addElement(0, 0, m_plot->legend);
    m_plot->plotLayout()->setRowStretchFactor(0, 0.001);
    m_plot->legend->setMargins(QMargins(4, 2, 4, 2));
    m_plot->setMouseTracking(true);
    connect(m_plot, &QCustomPlot::mouseMove, this, &PlacementMap::hover);
    applyPalette();
}

void PlacementMap::setMap(const QStringList &columns, const QStringList &devices, const QStringList &roles,
                          const QVector<QVector<QVector<double>>> &bytes)
{
    m_columns = columns;
    m_devices = devices;
    m_roles = roles;
    m_bytes = bytes;
    // one QCPBars per device and role, stacked within the device's row from its base line
    for (const QVector<QCPBars *> &row : m_bars)
        for (QCPBars *b : row)
            m_plot->removePlottable(b);
    m_bars.clear();
    double tallest = 0;
    for (const auto &device : bytes)
        for (const auto &cell : device) {
            double sum = 0;
            for (const double b : cell)
                sum += b;
            tallest = std::max(tallest, sum);
        }
    m_scale = tallest > 0 ? tallest / kCellHeight : 1;
    QVector<double> keys;
    for (qsizetype c = 0; c < columns.size(); ++c)
        keys << double(c);
    for (qsizetype d = 0; d < devices.size(); ++d) {
        QVector<QCPBars *> row;
        for (qsizetype r = 0; r < roles.size(); ++r) {
            auto *bars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
            bars->setWidth(0.75);
            bars->setBaseValue(double(d) + 0.1);
            bars->setName(roles[r]);
            // the legend names each role once
            if (d > 0)
                m_plot->legend->removeItem(m_plot->legend->itemCount() - 1);
            // only the cells that hold some of this role: an empty bar would still draw its edge
            QVector<double> at, values;
            for (qsizetype c = 0; c < columns.size(); ++c) {
                const double b =
                    d < bytes.size() && c < bytes[d].size() && r < bytes[d][c].size() ? bytes[d][c][r] : 0.0;
                if (b > 0) {
                    at << keys[c];
                    values << b / m_scale;
                }
            }
            bars->setData(at, values, true);
            if (!row.isEmpty())
                bars->moveAbove(row.back());
            row << bars;
        }
        m_bars << row;
    }
    // rows: devices upwards; columns: a tick for the input, every few layers, and the output
    auto rowTicker = QSharedPointer<QCPAxisTickerText>::create();
    for (qsizetype d = 0; d < devices.size(); ++d)
        rowTicker->addTick(double(d) + 0.5, devices[d]);
    m_plot->yAxis->setTicker(rowTicker);
    m_plot->yAxis->setRange(0, double(std::max<qsizetype>(1, devices.size())));
    m_plot->yAxis->grid()->setVisible(true);
    auto columnTicker = QSharedPointer<QCPAxisTickerText>::create();
    const qsizetype every = std::max<qsizetype>(1, columns.size() / 16);
    for (qsizetype c = 0; c < columns.size(); ++c)
        if (c == 0 || c + 1 == columns.size() || c % every == 0)
            columnTicker->addTick(double(c), columns[c]);
    m_plot->xAxis->setTicker(columnTicker);
    m_plot->xAxis->setRange(-0.6, double(columns.size()) - 0.4);
    m_plot->xAxis->setLabel(tr("Layer"));
    applyPalette();
}

QString PlacementMap::cellText(int column, int device) const
{
    if (device < 0 || device >= m_bytes.size() || column < 0 || column >= m_bytes[device].size())
        return {};
    const QVector<double> &cell = m_bytes[device][column];
    double total = 0;
    QStringList parts;
    for (qsizetype r = 0; r < cell.size() && r < m_roles.size(); ++r)
        if (cell[r] > 0) {
            total += cell[r];
            parts << tr("%1 %2").arg(m_roles[r], bytesText(cell[r]));
        }
    if (total <= 0)
        return {};
    return tr("%1 on %2: %3 (%4)")
        .arg(m_columns.value(column), m_devices.value(device), bytesText(total), parts.join(QStringLiteral(", ")));
}

double PlacementMap::drawnBytes(int device, int column, int role) const
{
    if (device < 0 || device >= m_bars.size() || role < 0 || role >= m_bars[device].size())
        return -1;
    if (column < 0 || column >= m_columns.size())
        return -1;
    const auto bars = m_bars[device][role]->data();
    const auto at = bars->findBegin(double(column), false);
    return at != bars->constEnd() && at->key == double(column) ? at->value * m_scale : 0.0;
}

void PlacementMap::hover(QMouseEvent *event)
{
    const double x = m_plot->xAxis->pixelToCoord(event->position().x());
    const double y = m_plot->yAxis->pixelToCoord(event->position().y());
    const QString text = cellText(int(std::lround(x)), int(std::floor(y)));
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, m_plot);
}

void PlacementMap::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void PlacementMap::applyPalette()
{
    const QPalette pal = palette();
    PlotStyle::apply(m_plot, pal);
    // a hue per role, from the common ten in this order (blue, green, orange, red, then the rest)
    static constexpr int kHue[] = {0, 4, 1, 2, 3, 5, 6, 7, 8, 9};
    for (const QVector<QCPBars *> &row : m_bars)
        for (qsizetype r = 0; r < row.size(); ++r)
            PlotStyle::fillBars(row[r], PlotStyle::categoryColor(kHue[size_t(r) % std::size(kHue)]), pal);
    PlotStyle::redraw(m_plot);
}
