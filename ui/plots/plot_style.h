// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QColor;
class QCPBars;
class QCustomPlot;
class QLabel;
class QPalette;
class QStackedLayout;
class QWidget;

/// Colours a QCustomPlot from a widget palette (background, axes, grid, legend), so the weight
/// charts follow light and dark themes like the overview's type-mix chart.
namespace PlotStyle {

void apply(QCustomPlot *plot, const QPalette &palette);

/// Draws `plot` anew at its next paint, once however many changes come before it, and not at all
/// while it is off screen (the window's plots are QueuedPlots; any other is replotted at once).
void redraw(QCustomPlot *plot);

/// Fills `bars` with `color`, a little lighter on a dark `palette`, edged a shade darker.
void fillBars(QCPBars *bars, const QColor &color, const QPalette &palette);
/// Colour `i` (modulo 10) of Tableau's ten: distinct in hue and lightness, readable on light and
/// dark backgrounds. Blue, orange, red, teal, green, yellow, purple, pink, brown, grey.
QColor categoryColor(int i);

/// Wheel zoom and drag pan on both axes.
void enableZoomAndPan(QCustomPlot *plot);

/// Lays out a plot widget's frame in `owner`: the plot and a centred message (shown instead of the
/// plot when there is nothing to draw) in `stack`, with a selectable read-out line below.
void buildFrame(QWidget *owner, QStackedLayout *stack, QCustomPlot *plot, QLabel *message, QLabel *readout);

} // namespace PlotStyle
