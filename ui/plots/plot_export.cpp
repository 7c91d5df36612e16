// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/plot_export.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>

#include <qcustomplot.h>

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("PlotExport", text);
}

void fail(QString *error, const QString &message)
{
    if (error)
        *error = message;
}

// CSV needs quotes around a field with a comma, quote or line break.
QString csvField(const QString &text)
{
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n'))
        return text;
    QString quoted = text;
    quoted.replace(u'"', QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

} // namespace

namespace PlotExport {

std::optional<Format> formatFor(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return Format::Png;
    if (suffix == QLatin1String("svg"))
        return Format::Svg;
    if (suffix == QLatin1String("pdf"))
        return Format::Pdf;
    return std::nullopt;
}

bool savePlot(QCustomPlot *plot, const QString &path, QString *error)
{
    const std::optional<Format> format = formatFor(path);
    if (!format) {
        fail(error, tr("Choose a file name ending in .png, .svg or .pdf."));
        return false;
    }
    const bool onScreen = plot->isVisible() && plot->width() > 100 && plot->height() > 100;
    const int width = onScreen ? plot->width() : 1200;
    const int height = onScreen ? plot->height() : 800;
    bool ok = false;
    switch (*format) {
    case Format::Png: ok = plot->savePng(path, width, height); break;
    case Format::Pdf: ok = plot->savePdf(path, width, height); break;
    case Format::Svg: {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(QSize(width, height));
        svg.setViewBox(QRect(0, 0, width, height));
        svg.setTitle(QFileInfo(path).completeBaseName());
        svg.setDescription(tr("Exported from GGUF Explorer"));
        QCPPainter painter;
        if (painter.begin(&svg)) {
            plot->toPainter(&painter, width, height);
            ok = painter.end();
        }
        ok = ok && QFileInfo(path).size() > 0;
        break;
    }
    }
    if (!ok)
        fail(error, tr("Could not write %1.").arg(path));
    return ok;
}

bool saveHistogramCsv(const QVector<HistogramPlot::Series> &series, const QString &path, QString *error)
{
    if (series.isEmpty()) {
        fail(error, tr("There is no histogram to save."));
        return false;
    }
    const HistogramPlot::Series &first = series.front();
    for (const HistogramPlot::Series &s : series) {
        if (s.values.size() != first.values.size() || s.lo != first.lo || s.hi != first.hi) {
            fail(error, tr("The histograms are not binned alike."));
            return false;
        }
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) {
        fail(error, tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    QTextStream out(&file);
    out << "bin_lo,bin_hi";
    for (const HistogramPlot::Series &s : series)
        out << ',' << csvField(s.name);
    out << '\n';
    const qsizetype bins = first.values.size();
    const double width = (first.hi - first.lo) / static_cast<double>(bins);
    for (qsizetype b = 0; b < bins; ++b) {
        const double lo = first.lo + static_cast<double>(b) * width;
        const double hi = b + 1 == bins ? first.hi : lo + width;
        out << QString::number(lo, 'g', 17) << ',' << QString::number(hi, 'g', 17);
        for (const HistogramPlot::Series &s : series)
            out << ',' << QString::number(s.values[b], 'g', 17);
        out << '\n';
    }
    out.flush();
    if (!file.commit()) {
        fail(error, tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

} // namespace PlotExport
