// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document.h"

#include "core/split_model.h"

#include <QFile>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace {

// Builds the element index of every string (and nested) array now, on the worker, so the views
// only ever do O(1) lookups on the GUI thread.
void indexArrays(const gguf::SplitModel &model)
{
    for (const auto &shard : model.shards()) {
        if (!shard.file)
            continue;
        for (const gguf::MetadataEntry &entry : shard.file->metadata()) {
            if (entry.value.type() != gguf::ValueType::Array)
                continue;
            const gguf::ArrayRef array = entry.value.array();
            if (array.elementType() == gguf::ValueType::String || array.elementType() == gguf::ValueType::Array)
                shard.file->arrayIndex(array);
        }
    }
}

// Shards that are missing or broken; the model is shown without them.
QString describeProblems(const gguf::SplitModel &model)
{
    QStringList lines;
    for (const std::string &problem : model.problems())
        lines << QString::fromStdString(problem);
    for (const auto &shard : model.shards())
        if (shard.file && shard.file->error())
            lines << Document::tr("%1: reading stopped at byte %2: %3")
                         .arg(QString::fromStdString(shard.path))
                         .arg(shard.file->error().offset)
                         .arg(QString::fromStdString(shard.file->error().message));
    return lines.join(u'\n');
}

void loadOnWorker(QPromise<Document::LoadResult> &promise, const QString &path)
{
    promise.setProgressRange(0, 1000);
    gguf::OpenOptions options;
    options.progress = [&promise](uint64_t done, uint64_t total) {
        if (total)
            promise.setProgressValue(static_cast<int>(std::min(done, total) * 1000 / total));
        return !promise.isCanceled();
    };
    gguf::Error error;
    Document::LoadResult result;
    auto model = gguf::SplitModel::open(QFile::encodeName(path).toStdString(), error, options);
    if (error.kind == gguf::ErrorKind::Cancelled || promise.isCanceled()) {
        result.cancelled = true;
    } else if (!model || error) {
        // Reading stopped early (truncated, malformed): the file is refused as a whole, so the
        // document that is open stays; the message names the problem and its byte offset.
        result.message = QString::fromStdString(error.message);
        result.offset = error.offset;
    } else {
        indexArrays(*model);
        result.warning = describeProblems(*model);
        result.model = std::move(model);
    }
    promise.addResult(std::move(result));
}

} // namespace

Document::Document(QObject *parent) : QObject(parent) {}

Document::~Document()
{
    // The worker holds no reference to this object; it stops at its next progress check.
    if (m_loading)
        m_future.cancel();
}

void Document::open(const QString &path)
{
    if (m_loading)
        m_future.cancel();
    const quint64 generation = ++m_generation;
    m_loading = true;
    m_loadingPath = path;
    m_future = QtConcurrent::run(loadOnWorker, path);
    auto *watcher = new QFutureWatcher<LoadResult>(this);
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, generation](int value) {
        if (generation == m_generation)
            emit progressChanged(value);
    });
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
        watcher->deleteLater();
        finish(generation, path, watcher->future());
    });
    watcher->setFuture(m_future);
    emit loadStarted(path);
}

void Document::cancel()
{
    if (!m_loading)
        return;
    m_future.cancel();
    ++m_generation;
    m_loading = false;
    emit loadCancelled(m_loadingPath);
}

void Document::finish(quint64 generation, const QString &path, const QFuture<LoadResult> &future)
{
    // A newer open() or a cancel() made this result stale.
    if (generation != m_generation)
        return;
    m_loading = false;
    if (future.isCanceled() || future.resultCount() == 0) {
        emit loadCancelled(path);
        return;
    }
    const LoadResult result = future.result();
    if (result.cancelled) {
        emit loadCancelled(path);
    } else if (!result.model) {
        emit loadFailed(path, result.message, result.offset);
    } else {
        m_model = result.model;
        m_path = path;
        emit loaded(path, result.warning);
    }
}
