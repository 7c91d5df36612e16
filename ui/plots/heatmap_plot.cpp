// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/heatmap_plot.h"

#include "queued_plot.h"
#include "ui/plots/plot_style.h"

#include <QEvent>
#include <QLabel>
#include <QLocale>
#include <QStackedLayout>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace {

QString measureName(gguf::TileMeasure m, const QString &symbol)
{
    switch (m) {
    case gguf::TileMeasure::Mean: return HeatmapPlot::tr("mean");
    case gguf::TileMeasure::MeanAbs: return HeatmapPlot::tr("mean |%1|").arg(symbol);
    case gguf::TileMeasure::MaxAbs: return HeatmapPlot::tr("max |%1|").arg(symbol);
    case gguf::TileMeasure::Std: return HeatmapPlot::tr("std");
    }
    return {};
}

} // namespace

HeatmapPlot::HeatmapPlot(QWidget *parent)
    : QWidget(parent), m_stack(new QStackedLayout), m_plot(new QueuedPlot(this)), m_message(new QLabel(this)),
      m_readout(new QLabel(this))
{
    PlotStyle::buildFrame(this, m_stack, m_plot, m_message, m_readout);

    m_plot->setMinimumSize(240, 160);
    m_plot->xAxis->setLabel(tr("Column (ne[0])"));
    m_plot->yAxis->setLabel(tr("Row"));
    m_plot->yAxis->setRangeReversed(true);                 // row 0 at the top, as the values are stored
    for (QCPAxis *axis : {m_plot->xAxis, m_plot->yAxis}) { // rows and columns are counted: whole ticks
        auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
        ticker->setTickStep(1);
        ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        axis->setTicker(ticker);
    }
    m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false); // cells reach half a cell beyond the first and last centres
    m_scale = new QCPColorScale(m_plot);
    m_plot->plotLayout()->addElement(0, 1, m_scale);
    m_scale->setType(QCPAxis::atRight);
    m_map->setColorScale(m_scale);
    // Keep the colour scale as tall as the plot.
    auto *group = new QCPMarginGroup(m_plot);
    m_plot->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
    m_selection = new QCPItemRect(m_plot);
    m_selection->setVisible(false);
    m_selection->setBrush(Qt::NoBrush);
    m_selection->setClipToAxisRect(true);
    PlotStyle::enableZoomAndPan(m_plot);
    m_plot->setToolTip(tr("Click: select a tile · double-click: show its bytes · wheel: zoom · drag: pan"));
    connect(m_plot, &QCustomPlot::mouseMove, this, &HeatmapPlot::hover);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) { m_pressPos = event->pos(); });
    connect(m_plot, &QCustomPlot::mouseRelease, this, &HeatmapPlot::released);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &HeatmapPlot::doubleClicked);
    applyPalette();
    showMessage(QString());
}

void HeatmapPlot::setHeatmap(const gguf::Heatmap &heatmap, gguf::TileMeasure measure)
{
    m_heatmap = heatmap;
    m_measure = measure;
    m_selection->setVisible(false);
    m_selected = QPoint(-1, -1);
    m_stack->setCurrentWidget(m_plot);
    redraw();
    resetZoom();
}

void HeatmapPlot::setMeasure(gguf::TileMeasure measure)
{
    m_measure = measure;
    redraw();
}

void HeatmapPlot::setLogarithmicColors(bool logarithmic)
{
    m_logColors = logarithmic;
    redraw();
}

void HeatmapPlot::showMessage(const QString &text)
{
    m_heatmap = {};
    m_map->data()->clear();
    m_selection->setVisible(false);
    m_selected = QPoint(-1, -1);
    m_message->setText(text);
    m_readout->clear();
    m_stack->setCurrentWidget(m_message);
}

bool HeatmapPlot::hasPlot() const
{
    return m_stack->currentWidget() == m_plot && m_heatmap.gridRows > 0;
}

void HeatmapPlot::redraw()
{
    const gguf::Heatmap &h = m_heatmap;
    if (h.gridRows == 0 || h.gridCols == 0)
        return;
    const std::vector<float> &values = h.values(m_measure);
    // Cell centres in tensor coordinates, so the axes count tensor rows and columns.
    const double cellW = static_cast<double>(h.tensorCols) / h.gridCols;
    const double cellH = static_cast<double>(h.tensorRows) / h.gridRows;
    const auto x0 = static_cast<double>(h.firstColumn), y0 = static_cast<double>(h.firstRow);
    auto *cells = new QCPColorMapData(static_cast<int>(h.gridCols), static_cast<int>(h.gridRows),
                                      QCPRange(x0 + cellW / 2, x0 + static_cast<double>(h.tensorCols) - cellW / 2),
                                      QCPRange(y0 + cellH / 2, y0 + static_cast<double>(h.tensorRows) - cellH / 2));
    double lo = 0, hi = 0, smallest = 0;
    for (float value : values) {
        const double v = value;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        if (v > 0 && (smallest == 0 || v < smallest))
            smallest = v;
    }
    // A log scale cannot show 0: such tiles get the colour of the smallest positive one.
    const bool logarithmic = m_logColors && m_measure != gguf::TileMeasure::Mean && smallest > 0 && hi > smallest;
    for (uint32_t r = 0; r < h.gridRows; ++r)
        for (uint32_t c = 0; c < h.gridCols; ++c) {
            const double v = values[size_t(r) * h.gridCols + c];
            cells->setCell(static_cast<int>(c), static_cast<int>(r), logarithmic ? std::max(v, smallest) : v);
        }
    m_map->setData(cells, false);
    m_map->setDataScaleType(logarithmic ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (logarithmic)
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
        m_scale->axis()->setTicker(QSharedPointer<QCPAxisTicker>::create());
    // The mean is signed: a diverging scale centred on zero; the other measures are ≥ 0.
    if (m_measure == gguf::TileMeasure::Mean && !m_nonNegative) {
        const double m = std::max({std::abs(lo), std::abs(hi), 1e-30});
        m_map->setGradient(QCPColorGradient::gpPolar);
        m_map->setDataRange(QCPRange(-m, m));
    } else {
        m_map->setGradient(QCPColorGradient::gpThermal);
        m_map->setDataRange(logarithmic ? QCPRange(smallest, hi) : QCPRange(0, hi > 0 ? hi : 1));
    }
    m_scale->axis()->setLabel(measureName(m_measure, m_symbol));
    PlotStyle::redraw(m_plot);
}

void HeatmapPlot::resetZoom()
{
    const auto x0 = static_cast<double>(m_heatmap.firstColumn), y0 = static_cast<double>(m_heatmap.firstRow);
    m_plot->xAxis->setRange(x0, x0 + std::max<double>(1, static_cast<double>(m_heatmap.tensorCols)));
    m_plot->yAxis->setRange(y0, y0 + std::max<double>(1, static_cast<double>(m_heatmap.tensorRows)));
    PlotStyle::redraw(m_plot);
}

void HeatmapPlot::setNonNegative(bool nonNegative)
{
    m_nonNegative = nonNegative;
    redraw();
}

void HeatmapPlot::setAxisLabels(const QString &rows, const QString &columns)
{
    m_plot->yAxis->setLabel(rows);
    m_plot->xAxis->setLabel(columns);
    PlotStyle::redraw(m_plot);
}

void HeatmapPlot::setValueSymbol(const QString &symbol)
{
    m_symbol = symbol;
    redraw();
}

QPoint HeatmapPlot::tileAt(double x, double y) const
{
    const gguf::Heatmap &h = m_heatmap;
    const auto x0 = static_cast<double>(h.firstColumn), y0 = static_cast<double>(h.firstRow);
    if (h.gridRows == 0 || x < x0 || y < y0 || x >= x0 + static_cast<double>(h.tensorCols) ||
        y >= y0 + static_cast<double>(h.tensorRows))
        return {-1, -1};
    // Tile c holds columns [colStart(c), colStart(c+1)): search, as the split need not be even.
    const auto column = static_cast<uint64_t>(x), row = static_cast<uint64_t>(y);
    uint32_t c =
        static_cast<uint32_t>(std::min<uint64_t>((column - h.firstColumn) * h.gridCols / h.tensorCols, h.gridCols - 1));
    while (c > 0 && h.colStart(c) > column)
        --c;
    while (c + 1 < h.gridCols && h.colStart(c + 1) <= column)
        ++c;
    uint32_t r =
        static_cast<uint32_t>(std::min<uint64_t>((row - h.firstRow) * h.gridRows / h.tensorRows, h.gridRows - 1));
    while (r > 0 && h.rowStart(r) > row)
        --r;
    while (r + 1 < h.gridRows && h.rowStart(r + 1) <= row)
        ++r;
    return {static_cast<int>(c), static_cast<int>(r)};
}

QString HeatmapPlot::tileText(int row, int column) const
{
    const gguf::Heatmap &h = m_heatmap;
    if (row < 0 || column < 0 || static_cast<uint32_t>(row) >= h.gridRows ||
        static_cast<uint32_t>(column) >= h.gridCols)
        return {};
    const QLocale locale;
    const auto r = static_cast<uint32_t>(row), c = static_cast<uint32_t>(column);
    const double v = h.values(m_measure)[size_t(r) * h.gridCols + c];
    return tr("Rows %1–%2, columns %3–%4: %5 %6")
        .arg(locale.toString(static_cast<qulonglong>(h.rowStart(r))),
             locale.toString(static_cast<qulonglong>(h.rowStart(r + 1) - 1)),
             locale.toString(static_cast<qulonglong>(h.colStart(c))),
             locale.toString(static_cast<qulonglong>(h.colStart(c + 1) - 1)), measureName(m_measure, m_symbol),
             QString::number(v, 'g', 6));
}

void HeatmapPlot::selectTile(int row, int column)
{
    const gguf::Heatmap &h = m_heatmap;
    if (row < 0 || column < 0 || static_cast<uint32_t>(row) >= h.gridRows ||
        static_cast<uint32_t>(column) >= h.gridCols)
        return;
    const auto r = static_cast<uint32_t>(row), c = static_cast<uint32_t>(column);
    m_selection->topLeft->setCoords(static_cast<double>(h.colStart(c)), static_cast<double>(h.rowStart(r)));
    m_selection->bottomRight->setCoords(static_cast<double>(h.colStart(c + 1)), static_cast<double>(h.rowStart(r + 1)));
    m_selection->setPen(QPen(palette().color(QPalette::Highlight), 2));
    m_selection->setVisible(true);
    m_selected = QPoint(column, row);
    m_readout->clear(); // the panel shows the selected tile's text: not twice (#40)
    PlotStyle::redraw(m_plot);
    emit tileClicked(row, column);
}

QPoint HeatmapPlot::tileUnder(QMouseEvent *event) const
{
    return tileAt(m_plot->xAxis->pixelToCoord(event->position().x()),
                  m_plot->yAxis->pixelToCoord(event->position().y()));
}

void HeatmapPlot::hover(QMouseEvent *event)
{
    if (!hasPlot())
        return;
    const QPoint tile = tileUnder(event);
    m_readout->setText(tile == m_selected ? QString() : tileText(tile.y(), tile.x()));
}

QString HeatmapPlot::readout() const
{
    return m_readout->text();
}

void HeatmapPlot::released(QMouseEvent *event)
{
    // A press and release in one place is a click; anything else was a pan.
    if (!hasPlot() || event->button() != Qt::LeftButton || (event->pos() - m_pressPos).manhattanLength() > 3)
        return;
    const QPoint tile = tileUnder(event);
    if (tile.x() >= 0)
        selectTile(tile.y(), tile.x());
}

void HeatmapPlot::doubleClicked(QMouseEvent *event)
{
    if (!hasPlot())
        return;
    const QPoint tile = tileUnder(event);
    if (tile.x() >= 0)
        emit tileActivated(tile.y(), tile.x());
}

void HeatmapPlot::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void HeatmapPlot::applyPalette()
{
    PlotStyle::apply(m_plot, palette());
    const QColor text = palette().color(QPalette::WindowText);
    m_scale->axis()->setBasePen(QPen(text));
    m_scale->axis()->setTickPen(QPen(text));
    m_scale->axis()->setSubTickPen(QPen(text));
    m_scale->axis()->setTickLabelColor(text);
    m_scale->axis()->setLabelColor(text);
    PlotStyle::redraw(m_plot);
}
