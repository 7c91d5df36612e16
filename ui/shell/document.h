// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>

class JobTracker;
class QFileSystemWatcher;

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gguf {
class ByteSource;
class SplitModel;
namespace st {
class Checkpoint;
}
} // namespace gguf

/// The model that is open, and the opening of the next one. Opening maps and parses on a worker
/// thread, run by a JobTracker on Qt's global pool (so that opening never waits behind a long
/// computation); the result, an immutable SplitModel shared with every view, comes back to the GUI
/// thread. Each open() gets a generation number: a result that arrives after a newer open() or a
/// cancel() is dropped. A failed open leaves the current model in place.
///
/// The files of the open model are watched (QFileSystemWatcher on them and their folders, and a
/// stat every two seconds for file systems without change notification): when one is truncated,
/// grown, replaced or deleted — or a view read a page past its new end — changedOnDisk() is emitted
/// once, until the next open. The mapping stays valid meanwhile (pages past the end read as zeros).
class Document : public QObject {
    Q_OBJECT
public:
    /// What a worker hands back: a model, or why there is none.
    /// loadFailed's offset when the failure is at no byte of the file.
    static constexpr quint64 kNoOffset = ~quint64(0);

    struct LoadResult {
        std::shared_ptr<const gguf::SplitModel> model;
        std::shared_ptr<const gguf::st::Checkpoint> checkpoint; ///< instead of a model: a Hugging Face checkpoint
        QString warning;    ///< with a model: shards that are missing or could not be read
        QString message;    ///< without a model: why not
        quint64 offset = 0; ///< without a model: where reading stopped
        bool cancelled = false;
    };

    explicit Document(QObject *parent = nullptr);
    ~Document() override;

    /// Starts opening `path` (any shard of a split model finds the others); cancels a load in progress.
    void open(const QString &path);
    /// Stops the load in progress, if any; the current model stays.
    void cancel();
    /// Opens path() again (after the file changed on disk).
    void reload();
    /// What changed on disk in the files of model(), one line per file; empty when nothing did.
    QString describeChangesOnDisk() const;

    bool isLoading() const;
    /// The path being opened while isLoading().
    QString loadingPath() const { return m_loadingPath; }
    /// The model that is open (null before the first successful open).
    std::shared_ptr<const gguf::SplitModel> model() const { return m_model; }
    /// The Hugging Face checkpoint that is open instead of a model (#43): a folder, an index or a
    /// .safetensors file (told by gguf::st::Checkpoint::looksLikeCheckpoint); null otherwise.
    std::shared_ptr<const gguf::st::Checkpoint> checkpoint() const { return m_checkpoint; }
    /// The path that was opened for model() or checkpoint().
    QString path() const { return m_path; }
    /// Increases with every open() and cancel().
    quint64 generation() const;

signals:
    void loadStarted(const QString &path);
    /// Progress of the load in progress, 0–1000.
    void progressChanged(int permille);
    /// model() is the newly opened model. `warning` is non-empty when a shard of a split model is
    /// missing or could not be read.
    void loaded(const QString &path, const QString &warning);
    /// Opening failed; model() is unchanged. `message` says what was wrong (without the path);
    /// `offset` is the byte where reading stopped, or kNoOffset when no byte was read (a missing,
    /// unreadable or remote file that could not be fetched).
    void loadFailed(const QString &path, const QString &message, quint64 offset);
    /// checkpoint() is the newly opened checkpoint, and model() is null. `warning` names the shards
    /// that could not be read.
    void checkpointLoaded(const QString &path, const QString &warning);
    void loadCancelled(const QString &path);
    /// A file of model() or checkpoint() changed on disk (see describeChangesOnDisk()); emitted once per
    /// open.
    void changedOnDisk(const QString &description);

private:
    void finish(const QString &path, const LoadResult &result);
    void watchModelFiles();
    /// Each shard of the model or the checkpoint open: its path, and its bytes (null: not opened).
    std::vector<std::pair<std::string, const gguf::ByteSource *>> openSources() const;
    void checkOnDisk();

    std::shared_ptr<const gguf::SplitModel> m_model;
    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
    QString m_path;
    QString m_loadingPath;
    JobTracker *m_loader;
    QFileSystemWatcher *m_watcher;
    QTimer m_recheck; ///< coalesces bursts of change notifications
    QTimer m_poll;    ///< the stat fallback
    bool m_changeReported = false;
};
