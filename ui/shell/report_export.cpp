// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/report_export.h"

#include "core/format/split_model.h"
#include "core/report/model_report.h"
#include "ui/common/job_tracker.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>

namespace {

struct ReportOutcome {
    bool ok = false;
    QString message;
};

bool writesOverModel(const gguf::SplitModel &model, const QString &path)
{
    const QFileInfo target(path);
    if (!target.exists())
        return false;
    for (const gguf::SplitModel::Shard &shard : model.shards()) {
        const QFileInfo file(QString::fromStdString(shard.path));
        if (file.exists() && file.canonicalFilePath() == target.canonicalFilePath())
            return true;
    }
    return false;
}

} // namespace

ReportExporter::ReportExporter(QObject *parent) : QObject(parent), m_jobs(new JobTracker(this)) {}

bool ReportExporter::running() const
{
    return m_jobs->isRunning();
}

void ReportExporter::start(std::shared_ptr<const gguf::SplitModel> model, const QString &source, const QString &path)
{
    const std::optional<gguf::ReportFormat> format = gguf::reportFormatForPath(path.toStdString());
    if (!model || !format || writesOverModel(*model, path)) {
        const QString why = !model ? tr("No model is open.")
                            : !format
                                ? tr("A report is written as Markdown (.md) or as an HTML page (.html): %1")
                                      .arg(QFileInfo(path).fileName())
                                : tr("%1 is the model's own file: the report is never written over it.").arg(path);
        emit finished(false, path, why);
        return;
    }
    gguf::ReportOptions options;
    options.format = *format;
    options.source = source.toStdString();
    options.generator =
        (QCoreApplication::applicationName() + QLatin1Char(' ') + QCoreApplication::applicationVersion())
            .trimmed()
            .toStdString();
    m_jobs->start(
        tr("Writing the report %1").arg(QFileInfo(path).fileName()),
        [model, options, path](const gguf::ProgressFn &) {
            const std::string text = gguf::renderReport(*model, options);
            QSaveFile file(path);
            ReportOutcome out;
            if (!file.open(QIODevice::WriteOnly) ||
                file.write(text.data(), qint64(text.size())) != qint64(text.size()) || !file.commit()) {
                out.message = tr("The report could not be written to %1: %2").arg(path, file.errorString());
                return out;
            }
            out.ok = true;
            out.message = tr("Report written to %1").arg(path);
            return out;
        },
        [this, path](const ReportOutcome &out) { emit finished(out.ok, path, out.message); });
}
