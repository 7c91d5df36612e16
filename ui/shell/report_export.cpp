// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/report_export.h"

#include "core/format/split_model.h"
#include "core/report/model_report.h"
#include "core/safetensors/checkpoint.h"
#include "ui/common/job_tracker.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>

namespace {

struct ReportOutcome {
    bool ok = false;
    QString message;
};

bool isOneOf(const QStringList &files, const QString &path)
{
    const QFileInfo target(path);
    if (!target.exists())
        return false;
    for (const QString &f : files) {
        const QFileInfo file(f);
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

std::optional<int> ReportExporter::formatFor(const QString &path, const QStringList &files)
{
    const std::optional<gguf::ReportFormat> format = gguf::reportFormatForPath(path.toStdString());
    if (!format) {
        emit finished(
            false, path,
            tr("A report is written as Markdown (.md) or as an HTML page (.html): %1").arg(QFileInfo(path).fileName()));
        return std::nullopt;
    }
    if (isOneOf(files, path)) {
        emit finished(false, path, tr("%1 is the model's own file: the report is never written over it.").arg(path));
        return std::nullopt;
    }
    return static_cast<int>(*format);
}

void ReportExporter::start(std::shared_ptr<const gguf::SplitModel> model, const QString &source, const QString &path)
{
    if (!model) {
        emit finished(false, path, tr("No model is open."));
        return;
    }
    QStringList files;
    for (const gguf::SplitModel::Shard &shard : model->shards())
        files << QString::fromStdString(shard.path);
    if (const auto format = formatFor(path, files))
        run(path, source, *format, [model](const gguf::ReportOptions &o) { return gguf::renderReport(*model, o); });
}

void ReportExporter::start(std::shared_ptr<const gguf::st::Checkpoint> checkpoint, const QString &source,
                           const QString &path)
{
    if (!checkpoint) {
        emit finished(false, path, tr("No checkpoint is open."));
        return;
    }
    QStringList files;
    for (const gguf::st::Checkpoint::Shard &shard : checkpoint->shards())
        files << QString::fromStdString(shard.path);
    if (!checkpoint->indexPath().empty())
        files << QString::fromStdString(checkpoint->indexPath());
    if (const auto format = formatFor(path, files))
        run(path, source, *format,
            [checkpoint](const gguf::ReportOptions &o) { return gguf::renderCheckpointReport(*checkpoint, o); });
}

void ReportExporter::run(const QString &path, const QString &source, int format,
                         std::function<std::string(const gguf::ReportOptions &)> render)
{
    gguf::ReportOptions options;
    options.format = static_cast<gguf::ReportFormat>(format);
    options.source = source.toStdString();
    options.generator =
        (QCoreApplication::applicationName() + QLatin1Char(' ') + QCoreApplication::applicationVersion())
            .trimmed()
            .toStdString();
    m_jobs->start(
        tr("Writing the report %1").arg(QFileInfo(path).fileName()),
        [render = std::move(render), options, path](const gguf::ProgressFn &) {
            const std::string text = render(options);
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
