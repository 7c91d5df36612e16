// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <string>

class JobTracker;

namespace gguf {
class SplitModel;
struct ReportOptions;
namespace st {
class Checkpoint;
}
} // namespace gguf

/// File ▸ Export Report… (#45): the open model's report (core/report: Markdown or one HTML page, by
/// the file's ending) made on a worker and written with QSaveFile — beside the target, synced, then
/// renamed over it — so a failure leaves the target as it was. Never writes over the model's files.
class ReportExporter : public QObject {
    Q_OBJECT
public:
    explicit ReportExporter(QObject *parent = nullptr);

    /// Starts writing the report of `model` (opened from `source`) to `path`; finished() tells how
    /// it went. A path that ends in neither .md nor .html, or names one of the model's files, is
    /// refused at once (finished() with ok false).
    void start(std::shared_ptr<const gguf::SplitModel> model, const QString &source, const QString &path);
    /// The same for a Hugging Face checkpoint (renderCheckpointReport).
    void start(std::shared_ptr<const gguf::st::Checkpoint> checkpoint, const QString &source, const QString &path);
    bool running() const;
    JobTracker *jobs() const { return m_jobs; }

signals:
    /// `message`: "Report written to …", or what failed and where.
    void finished(bool ok, const QString &path, const QString &message);

private:
    /// Refuses `path` (finished() with why) when its ending asks for no known form or it is one of
    /// `files`; else the form.
    std::optional<int> formatFor(const QString &path, const QStringList &files);
    void run(const QString &path, const QString &source, int format,
             std::function<std::string(const gguf::ReportOptions &)> render);

    JobTracker *m_jobs;
};
