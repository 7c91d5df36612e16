// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

#include <memory>

class JobTracker;

namespace gguf {
class SplitModel;
}

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
    bool running() const;
    JobTracker *jobs() const { return m_jobs; }

signals:
    /// `message`: "Report written to …", or what failed and where.
    void finished(bool ok, const QString &path, const QString &message);

private:
    JobTracker *m_jobs;
};
