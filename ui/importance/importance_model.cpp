// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/importance/importance_model.h"

#include "ui/common/text_format.h"

#include <QBrush>
#include <QColor>
#include <QGuiApplication>
#include <QPalette>

#include <cmath>
#include <limits>

namespace {

QString fiveDigits(double v)
{
    return QString::number(v, 'g', 5);
}

QString percent(double share)
{
    return QString::number(100.0 * share, 'f', 2) + QLatin1Char('%');
}

} // namespace

ImportanceModel::ImportanceModel(QObject *parent) : QAbstractTableModel(parent) {}

void ImportanceModel::setReport(gguf::ImportanceReport report)
{
    beginResetModel();
    m_report = std::move(report);
    endResetModel();
}

void ImportanceModel::clear()
{
    setReport({});
}

int ImportanceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_report.tensors.size());
}

int ImportanceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ImportanceModel::display(const gguf::ImportanceStats &s, int column) const
{
    const bool figures = s.problem.empty();
    switch (column) {
    case Tensor: return QString::fromStdString(s.weight);
    case Layer: return s.layer < 0 ? QStringLiteral("—") : QString::number(s.layer);
    case Channels: return s.channels ? TextFormat::count(s.channels) : QStringLiteral("—");
    case Experts:
        return s.matrices <= 1 ? (s.matrices == 1 && s.usedMatrices == 0 ? tr("unused") : QStringLiteral("—"))
                               : tr("%1 / %2").arg(s.usedMatrices).arg(s.matrices);
    default: break;
    }
    if (!figures)
        return column == Sum ? QString::fromStdString(s.problem) : QString();
    switch (column) {
    case Sum: return fiveDigits(s.sum);
    case Share: return percent(s.share);
    case Mean: return fiveDigits(s.mean);
    case Std: return fiveDigits(s.stddev);
    case Skewness: return QString::number(s.skewness, 'f', 2);
    case Kurtosis: return QString::number(s.kurtosis, 'f', 2);
    case Entropy: return percent(s.entropyNorm);
    case Active: return percent(s.active);
    case Zd: return percent(s.zd);
    case Cosine: return s.cosinePrevious ? QString::number(*s.cosinePrevious, 'f', 4) : QStringLiteral("—");
    default: return {};
    }
}

QVariant ImportanceModel::sortValue(const gguf::ImportanceStats &s, int column) const
{
    const double none = -std::numeric_limits<double>::infinity(); // rows without the figure sort first
    const bool figures = s.problem.empty();
    switch (column) {
    case Tensor: return QString::fromStdString(s.weight);
    case Layer: return s.layer;
    case Channels: return static_cast<double>(s.channels);
    case Experts: return static_cast<double>(s.matrices) - static_cast<double>(s.usedMatrices) * 1e-9;
    case Sum: return figures ? s.sum : none;
    case Share: return figures ? s.share : none;
    case Mean: return figures ? s.mean : none;
    case Std: return figures ? s.stddev : none;
    case Skewness: return figures ? s.skewness : none;
    case Kurtosis: return figures ? s.kurtosis : none;
    case Entropy: return figures ? s.entropyNorm : none;
    case Active: return figures ? s.active : none;
    case Zd: return figures ? s.zd : none;
    case Cosine: return s.cosinePrevious.value_or(none);
    default: return {};
    }
}

QString ImportanceModel::tooltip(int row) const
{
    const gguf::ImportanceStats &s = m_report.tensors[static_cast<size_t>(row)];
    if (!s.problem.empty())
        return QString::fromStdString(s.weight + ": " + s.problem);
    const std::vector<uint64_t> &unused = s.unusedMatrices;
    if (unused.empty())
        return {};
    QStringList experts;
    for (size_t i = 0; i < unused.size() && i < 32; ++i)
        experts << QString::number(unused[i]);
    if (unused.size() > 32)
        experts << QStringLiteral("…");
    return tr("%n expert(s) never activated (count 0): %1", nullptr, static_cast<int>(unused.size()))
        .arg(experts.join(QStringLiteral(", ")));
}

QVariant ImportanceModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const gguf::ImportanceStats &s = m_report.tensors[static_cast<size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole: return display(s, index.column());
    case Qt::UserRole: return sortValue(s, index.column());
    case Qt::ToolTipRole: return tooltip(index.row());
    case Qt::TextAlignmentRole:
        return index.column() == Tensor ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (!s.problem.empty())
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case Qt::BackgroundRole:
        if (!s.problem.empty() || !s.unusedMatrices.empty())
            return QBrush(QColor(230, 140, 0, 60)); // a warning tint that reads on light and dark
        return {};
    default: return {};
    }
}

QVariant ImportanceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char *const names[ColumnCount] = {
        QT_TR_NOOP("Tensor"),       QT_TR_NOOP("Layer"),    QT_TR_NOOP("Channels"), QT_TR_NOOP("Experts used"),
        QT_TR_NOOP("Σ importance"), QT_TR_NOOP("Share"),    QT_TR_NOOP("Mean"),     QT_TR_NOOP("Std"),
        QT_TR_NOOP("Skewness"),     QT_TR_NOOP("Kurtosis"), QT_TR_NOOP("Entropy"),  QT_TR_NOOP("Active"),
        QT_TR_NOOP("ZD"),           QT_TR_NOOP("CosSim"),
    };
    static const char *const tips[ColumnCount] = {
        QT_TR_NOOP("The weight tensor the activations were collected for"),
        QT_TR_NOOP("The block (blk.N)"),
        QT_TR_NOOP("Input channels: in_sum2's ne[0]"),
        QT_TR_NOOP("Matrices (experts) whose count is not zero, of all"),
        QT_TR_NOOP("Σ of in_sum2 / counts over the channels of the used experts (llama-imatrix's Σ(Act²))"),
        QT_TR_NOOP("This tensor's Σ importance as a share of the whole file's"),
        QT_TR_NOOP("Mean importance of a channel"),
        QT_TR_NOOP("Standard deviation of the importances (population)"),
        QT_TR_NOOP("Third standardized moment: > 0 when a few channels stand out"),
        QT_TR_NOOP("Excess kurtosis (fourth standardized moment − 3): heavy tails"),
        QT_TR_NOOP("Entropy of the importances as a distribution, over log2 of their number: 100% when all "
                   "channels matter equally (llama-imatrix's E (norm))"),
        QT_TR_NOOP("Share of importances above 1e-5 (llama-imatrix's % Active)"),
        QT_TR_NOOP("Share of importances more than one standard deviation above the mean (llama-imatrix's ZD)"),
        QT_TR_NOOP("Cosine similarity of in_sum2 with the same tensor of the block before (llama-imatrix's "
                   "CosSim)"),
    };
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return tr(names[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    return {};
}
