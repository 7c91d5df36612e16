// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/plots/histogram_plot.h"

#include <QString>
#include <QVector>

#include <optional>

class QCustomPlot;

/// Saving what the weight views show: a plot as PNG, SVG or PDF, histograms as CSV.
namespace PlotExport {

enum class Format : uint8_t { Png, Svg, Pdf };

/// The format a file name asks for by its suffix; nullopt for any other suffix.
std::optional<Format> formatFor(const QString &path);

/// Saves `plot` in the format of `path`'s suffix, at the plot's on-screen size (or 1200 × 800
/// when it is not on screen). On failure returns false and says why in `error`.
bool savePlot(QCustomPlot *plot, const QString &path, QString *error = nullptr);

/// Writes histograms binned alike as CSV: `bin_lo,bin_hi,<name>…`, one line per bin.
bool saveHistogramCsv(const QVector<HistogramPlot::Series> &series, const QString &path, QString *error = nullptr);

} // namespace PlotExport
