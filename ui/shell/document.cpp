// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/document.h"

#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "ui/common/job_tracker.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QLocale>
#include <QThreadPool>

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
    for (const auto &shard : model.shards()) {
        if (!shard.file)
            continue;
        // a download cut short: the header is whole, the data is not
        const auto &findings = shard.file->findings();
        const auto cut = std::count_if(findings.begin(), findings.end(),
                                       [](const gguf::Finding &f) { return f.code == "tensor_data_past_end"; });
        if (cut > 0)
            lines << (cut == 1 ? Document::tr("%1 is truncated (%2 bytes): the data of 1 of its %3 tensors runs past "
                                              "its end, so its values cannot be shown.")
                                     .arg(QString::fromStdString(shard.path))
                                     .arg(shard.file->source().size())
                                     .arg(shard.file->tensors().size())
                               : Document::tr("%1 is truncated (%2 bytes): the data of %3 of its %4 tensors runs past "
                                              "its end, so their values cannot be shown.")
                                     .arg(QString::fromStdString(shard.path))
                                     .arg(shard.file->source().size())
                                     .arg(cut)
                                     .arg(shard.file->tensors().size()));
    }
    // (a damaged shard, whose structure broke off, gets the window's red bar instead)
    for (const auto &shard : model.shards())
        if (shard.file && shard.file->error() && !shard.file->breakage())
            lines << Document::tr("%1: reading stopped at byte %2: %3")
                         .arg(QString::fromStdString(shard.path))
                         .arg(shard.file->error().offset)
                         .arg(QString::fromStdString(shard.file->error().message));
    return lines.join(u'\n');
}

// A Hugging Face checkpoint (#43): its index, shards and config.json read on the worker.
Document::LoadResult loadCheckpoint(const std::string &path)
{
    Document::LoadResult result;
    gguf::Error error;
    auto checkpoint = gguf::st::Checkpoint::open(path, error);
    if (!checkpoint) {
        result.message = QString::fromStdString(error.message);
        result.offset = error.kind == gguf::ErrorKind::NotFound || error.kind == gguf::ErrorKind::Unreadable ||
                                error.kind == gguf::ErrorKind::Network
                            ? Document::kNoOffset
                            : error.offset;
        return result;
    }
    QStringList problems;
    for (const auto &shard : checkpoint->shards())
        if (shard.error)
            problems << Document::tr("%1: %2").arg(QString::fromStdString(shard.path),
                                                   QString::fromStdString(shard.error.message));
    result.warning = problems.join(u'\n');
    result.checkpoint = std::move(checkpoint);
    return result;
}

Document::LoadResult load(const QString &path, const gguf::ProgressFn &progress)
{
    if (const std::string name = QFile::encodeName(path).toStdString(); gguf::st::Checkpoint::looksLikeCheckpoint(name))
        return loadCheckpoint(name);
    gguf::OpenOptions options;
    options.progress = progress;
    gguf::Error error;
    Document::LoadResult result;
    auto model = gguf::SplitModel::open(QFile::encodeName(path).toStdString(), error, options);
    if (error.kind == gguf::ErrorKind::Cancelled) {
        result.cancelled = true;
    } else if (gguf::SplitModel::outcome(model.get(), error) == gguf::SplitModel::Outcome::Refused) {
        // Not a GGUF, or not read at all: the file is refused as a whole, so the document that is
        // open stays; the message names the problem and its byte offset. A damaged file (its
        // structure broke off at a field) opens with what was read before the break.
        result.message = QString::fromStdString(error.message);
        // the window says the path itself: a message that starts with it does not say it again
        const QString prefix = path + QStringLiteral(": ");
        if (result.message.startsWith(prefix))
            result.message.remove(0, prefix.size());
        const bool atAByte = error.kind != gguf::ErrorKind::NotFound && error.kind != gguf::ErrorKind::Unreadable &&
                             error.kind != gguf::ErrorKind::Network;
        result.offset = atAByte ? error.offset : Document::kNoOffset;
    } else {
        indexArrays(*model);
        result.warning = describeProblems(*model);
        result.model = std::move(model);
    }
    return result;
}

} // namespace

Document::Document(QObject *parent)
    : QObject(parent), m_loader(new JobTracker(this, QThreadPool::globalInstance())),
      m_watcher(new QFileSystemWatcher(this))
{
    connect(m_loader, &JobTracker::progressChanged, this, &Document::progressChanged);
    m_recheck.setSingleShot(true);
    m_recheck.setInterval(200);
    m_poll.setInterval(2000);
    connect(&m_recheck, &QTimer::timeout, this, &Document::checkOnDisk);
    connect(&m_poll, &QTimer::timeout, this, &Document::checkOnDisk);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, &m_recheck, qOverload<>(&QTimer::start));
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, &m_recheck, qOverload<>(&QTimer::start));
}

// The loader (a child) cancels a load in progress when it goes; the worker holds no reference to
// this object and stops at its next progress check.
Document::~Document() = default;

bool Document::isLoading() const
{
    return m_loader->isRunning();
}

quint64 Document::generation() const
{
    return m_loader->generation();
}

void Document::open(const QString &path)
{
    m_loadingPath = path;
    m_loader->start(
        tr("Opening %1").arg(QFileInfo(path).fileName()),
        [path](const gguf::ProgressFn &progress) { return load(path, progress); },
        [this, path](const LoadResult &result) { finish(path, result); });
    emit loadStarted(path);
}

void Document::reload()
{
    if (!m_path.isEmpty())
        open(m_path);
}

std::vector<std::pair<std::string, const gguf::ByteSource *>> Document::openSources() const
{
    std::vector<std::pair<std::string, const gguf::ByteSource *>> out;
    if (m_model)
        for (const auto &shard : m_model->shards())
            out.emplace_back(shard.path, shard.file ? &shard.file->source() : nullptr);
    if (m_checkpoint)
        for (const auto &shard : m_checkpoint->shards())
            out.emplace_back(shard.path, shard.file ? &shard.file->source() : nullptr);
    return out;
}

QString Document::describeChangesOnDisk() const
{
    QStringList lines;
    const QLocale locale;
    for (const auto &[shardPath, source] : openSources()) {
        if (source && source->isRemote() && source->changed()) {
            // seen when a fetch got another ETag, Last-Modified or size than at opening
            lines << tr("%1 changed on the server since it was opened: what is shown is the old file, and no more of "
                        "it can be fetched.")
                         .arg(QString::fromStdString(shardPath));
            continue;
        }
        if (!source || !source->isMapped() || !source->changed())
            continue;
        const gguf::ByteSource &mapped = *source;
        const QString path = QDir::toNativeSeparators(QFile::decodeName(shardPath.c_str()));
        const QFileInfo now(path);
        if (!now.exists()) {
            lines << tr("%1 was deleted or renamed.").arg(path);
        } else if (static_cast<quint64>(now.size()) < mapped.size()) {
            lines << tr("%1 was truncated from %2 to %3 bytes: values past its new end read as zeros.")
                         .arg(path, locale.toString(static_cast<qulonglong>(mapped.size())),
                              locale.toString(static_cast<qulonglong>(now.size())));
        } else if (static_cast<quint64>(now.size()) > mapped.size()) {
            lines << tr("%1 grew from %2 to %3 bytes.")
                         .arg(path, locale.toString(static_cast<qulonglong>(mapped.size())),
                              locale.toString(static_cast<qulonglong>(now.size())));
        } else {
            lines << tr("%1 was modified or replaced.").arg(path);
        }
    }
    return lines.join(u'\n');
}

void Document::watchModelFiles()
{
    m_changeReported = false;
    if (const QStringList old = m_watcher->files() + m_watcher->directories(); !old.isEmpty())
        m_watcher->removePaths(old);
    QStringList paths;
    for (const auto &[shardPath, source] : openSources()) {
        if (!source || !source->isMapped())
            continue;
        const QString path = QFile::decodeName(shardPath.c_str());
        paths << path << QFileInfo(path).absolutePath();
    }
    paths.removeDuplicates();
    if (!paths.isEmpty())
        m_watcher->addPaths(paths);
    m_poll.start();
}

void Document::checkOnDisk()
{
    if ((!m_model && !m_checkpoint) || m_changeReported)
        return;
    const QString description = describeChangesOnDisk();
    if (description.isEmpty())
        return;
    m_changeReported = true;
    m_poll.stop();
    emit changedOnDisk(description);
}

void Document::cancel()
{
    if (!m_loader->isRunning())
        return;
    m_loader->cancel();
    emit loadCancelled(m_loadingPath);
}

void Document::finish(const QString &path, const LoadResult &result)
{
    if (result.cancelled) {
        emit loadCancelled(path);
    } else if (result.checkpoint) {
        m_model.reset();
        m_checkpoint = result.checkpoint;
        m_path = path;
        watchModelFiles();
        emit checkpointLoaded(path, result.warning);
    } else if (!result.model) {
        emit loadFailed(path, result.message, result.offset);
    } else {
        m_checkpoint.reset();
        m_model = result.model;
        m_path = path;
        watchModelFiles();
        emit loaded(path, result.warning);
    }
}
