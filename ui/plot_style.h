// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QCustomPlot;
class QPalette;

/// Colours a QCustomPlot from a widget palette (background, axes, grid, legend), so the weight
/// charts follow light and dark themes like the overview's type-mix chart.
namespace PlotStyle {

void apply(QCustomPlot *plot, const QPalette &palette);

/// Wheel zoom and drag pan on both axes.
void enableZoomAndPan(QCustomPlot *plot);

} // namespace PlotStyle
