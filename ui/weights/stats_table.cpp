// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/weights/stats_table.h"

#include "core/stats/tensor_stats.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QHeaderView>
#include <QLocale>

namespace {

QString sevenDigits(double v)
{
    return QString::number(v, 'g', 7);
}

QString count(uint64_t n, uint64_t of)
{
    const QLocale locale;
    QString text = locale.toString(static_cast<qulonglong>(n));
    if (of == 0 || n == 0)
        return text;
    // Never round a part up to "100 %" or down to "0 %".
    const double percent = 100.0 * static_cast<double>(n) / static_cast<double>(of);
    QString share = QString::number(percent, 'g', 4);
    if (n < of && percent > 99.99)
        share = QStringLiteral("> 99.99");
    else if (percent < 0.0001)
        share = QStringLiteral("< 0.0001");
    return text + QStringLiteral(" (%1 %)").arg(share);
}

} // namespace

StatsTable::StatsTable(QWidget *parent) : QTreeWidget(parent)
{
    setColumnCount(2);
    setHeaderLabels({tr("Statistic"), tr("Value")});
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    header()->setStretchLastSection(true);
    const QStringList labels = {tr("Elements"),         tr("Finite"), tr("Min"), tr("Max"),  tr("Mean"),
                                tr("Std (population)"), tr("Zeros"),  tr("NaN"), tr("+Inf"), tr("−Inf")};
    for (const QString &label : labels)
        addTopLevelItem(new QTreeWidgetItem({label}));
    for (double level : gguf::kPercentileLevels)
        addTopLevelItem(new QTreeWidgetItem({tr("p%1").arg(level)}));
    for (const QString &label : {tr("Histogram range"), tr("Outside the range"), tr("Bins")})
        addTopLevelItem(new QTreeWidgetItem({label}));
    setMinimumWidth(240);
    auto *copy = new QAction(tr("&Copy statistics"), this);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut);
    connect(copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setText(text()); });
    addAction(copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);
}

void StatsTable::set(Row row, const QString &value, const QString &tip)
{
    QTreeWidgetItem *item = topLevelItem(static_cast<int>(row));
    item->setText(1, value);
    item->setToolTip(0, tip);
    // The value in full when the column is too narrow for it.
    item->setToolTip(1, tip.isEmpty() ? value : tip);
}

void StatsTable::setStatistics(const gguf::TensorStatistics &stats, const gguf::Histogram *histogram)
{
    const QLocale locale;
    const bool any = stats.finite > 0;
    // statistics of a sample of blocks: every figure is of the values read
    const bool sampled = stats.sampledElements > 0;
    const uint64_t read = sampled ? stats.sampledElements : stats.count;
    const QString ofSample = sampled ? tr("Of the %1 values in the sampled blocks, not of the whole tensor.")
                                           .arg(locale.toString(static_cast<qulonglong>(read)))
                                     : QString();
    const auto figure = [&](double v) {
        return !any ? QString() : sampled ? QStringLiteral("≈ %1").arg(sevenDigits(v)) : sevenDigits(v);
    };
    set(Row::Count,
        sampled ? tr("%1 (%2 read)")
                      .arg(locale.toString(static_cast<qulonglong>(stats.count)),
                           locale.toString(static_cast<qulonglong>(read)))
                : locale.toString(static_cast<qulonglong>(stats.count)),
        sampled ? tr("Only evenly spaced blocks of the tensor were read (a sample); the figures below are of those.")
                : QString());
    set(Row::Finite, count(stats.finite, read), ofSample);
    set(Row::Min, figure(stats.min), ofSample);
    set(Row::Max, figure(stats.max), ofSample);
    set(Row::Mean, figure(stats.mean), ofSample);
    set(Row::Std, figure(stats.std), ofSample);
    set(Row::Zeros, count(stats.zeros, read), ofSample);
    set(Row::NaN, count(stats.nan, read), ofSample);
    set(Row::PosInf, count(stats.posInf, read), ofSample);
    set(Row::NegInf, count(stats.negInf, read), ofSample);
    for (size_t i = 0; i < gguf::kPercentileLevels.size(); ++i) {
        const Row row = static_cast<Row>(static_cast<int>(Row::FirstPercentile) + static_cast<int>(i));
        const double error = stats.percentileError[i];
        if (!any) {
            set(row, QString());
        } else if (sampled) {
            set(row, QStringLiteral("≈ %1").arg(sevenDigits(stats.percentiles[i])), ofSample);
        } else if (error > 0) {
            const double level = gguf::kPercentileLevels[i];
            const double rank = stats.percentileRankError;
            set(row, QStringLiteral("≈ %1").arg(sevenDigits(stats.percentiles[i])),
                stats.keySampleStride > 1
                    ? tr("Estimated from the 16-bit keys of a random sample of one value in %1 (%2 values): with "
                         "probability 1 − 10⁻⁶ the estimate lies between the true p%3 and p%4, widened by ±%5.")
                          .arg(stats.keySampleStride)
                          .arg(locale.toString(static_cast<qulonglong>(stats.keysCounted)))
                          .arg(std::max(0.0, level - rank), 0, 'g', 4)
                          .arg(std::min(100.0, level + rank), 0, 'g', 4)
                          .arg(sevenDigits(error))
                    : tr("Estimated from the 16-bit key histogram; the true p%1 lies within ±%2 of it.")
                          .arg(level)
                          .arg(sevenDigits(error)));
        } else {
            set(row, sevenDigits(stats.percentiles[i]), tr("Exact"));
        }
    }
    if (histogram && !histogram->counts.empty()) {
        set(Row::Range, QStringLiteral("[%1, %2]").arg(sevenDigits(histogram->lo), sevenDigits(histogram->hi)));
        set(Row::Outside, tr("%1 below, %2 above")
                              .arg(locale.toString(static_cast<qulonglong>(histogram->below)),
                                   locale.toString(static_cast<qulonglong>(histogram->above))));
        if (sampled)
            set(Row::Bins, tr("%1, of the sample").arg(histogram->counts.size()), ofSample);
        else
            set(Row::Bins,
                histogram->exact ? tr("%1, exact counts").arg(histogram->counts.size())
                                 : tr("%1, estimated").arg(histogram->counts.size()),
                histogram->exact ? QString()
                                 : tr("Binned from the 16-bit key histogram of the first pass; exact counts follow."));
    } else {
        set(Row::Range, QString());
        set(Row::Outside, QString());
        set(Row::Bins, QString());
    }
}

void StatsTable::clearStatistics()
{
    for (int i = 0; i < topLevelItemCount(); ++i)
        set(static_cast<Row>(i), QString());
}

QString StatsTable::valueText(Row row) const
{
    return topLevelItem(static_cast<int>(row))->text(1);
}

QString StatsTable::toolTip(Row row) const
{
    return topLevelItem(static_cast<int>(row))->toolTip(1);
}

QString StatsTable::text() const
{
    QStringList lines;
    for (int i = 0; i < topLevelItemCount(); ++i)
        lines << topLevelItem(i)->text(0) + u'\t' + topLevelItem(i)->text(1);
    return lines.join(u'\n');
}
