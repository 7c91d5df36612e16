// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/util/parallel_chunks.h"

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QPromise>
#include <QString>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <atomic>
#include <memory>
#include <type_traits>
#include <utility>

class QThreadPool;

/// Runs one kind of background computation at a time, after KDAB Hotspot's jobtracker.h: every
/// start() gets a new generation number and cancels the job before it, and a result whose
/// generation is no longer the current one is dropped, so a view never shows the result for a
/// tensor the user has already left. The work runs on a worker thread (QtConcurrent::run with a
/// QPromise) and gets a core ProgressFn: it forwards (done, total) to the GUI thread as permille
/// and returns false once the job is cancelled or superseded. The GUI thread never waits.
class JobTracker : public QObject {
    Q_OBJECT
public:
    /// Jobs run on `pool`; by default on pool(), the computations' own pool.
    explicit JobTracker(QObject *parent = nullptr, QThreadPool *pool = nullptr);
    /// Cancels the running job; it stops at its next progress report and its result is dropped.
    ~JobTracker() override;

    /// Runs `work(progress)` on a worker thread; when it returns and this job is still the current
    /// one, `deliver(result)` runs on the GUI thread, then finished() is emitted. `label` says what
    /// is computed ("Histogram of blk.0.attn_q.weight"). `deliver` may start a follow-up job; the
    /// chain then finishes with its last job. Returns the job's generation.
    template <typename Work, typename Deliver> quint64 start(const QString &label, Work work, Deliver deliver);

    /// Stops the running job (if any): its result will be dropped and cancelled() is emitted.
    /// With setCancelWaits(true) a cancel only asks: the job's progress callback returns false
    /// from then on, the job stays current, and its result is delivered as usual (for work whose
    /// every outcome must be told, such as a save that may already have written its file).
    void cancel();
    void setCancelWaits(bool waits) { m_cancelWaits = waits; }
    /// Drops the running job (if any) without a signal, e.g. because its input went away.
    void drop();

    bool isRunning() const { return m_running; }
    quint64 generation() const { return m_generation; }
    QString label() const { return m_label; }
    /// The pool computations run on: a pool of their own, so a long computation never delays the
    /// opening of a file (which runs on the global pool).
    static QThreadPool *pool();

signals:
    void started(const QString &label);
    /// Progress of the current job, 0–1000.
    void progressChanged(int permille);
    /// The current job delivered its result and started no follow-up job.
    void finished();
    /// The current job was stopped by cancel().
    void cancelled();
    /// The running job was dropped by drop() or replaced by a newer start().
    void dropped();

private:
    quint64 begin(const QString &label);
    /// Makes the running job stale and cancels it; true when one was running.
    bool stop();
    void watch(QFutureWatcherBase *watcher, quint64 generation);
    /// True when the job of `generation` is still the current one; it is then no longer running.
    bool settle(quint64 generation);

    QThreadPool *m_pool;
    QPointer<QFutureWatcherBase> m_watcher;
    quint64 m_generation = 0;
    bool m_running = false;
    bool m_cancelWaits = false;
    std::shared_ptr<std::atomic<bool>> m_stopRequest; ///< the running job was asked to stop (setCancelWaits)
    QString m_label;
};

template <typename Work, typename Deliver> quint64 JobTracker::start(const QString &label, Work work, Deliver deliver)
{
    using Result = std::decay_t<std::invoke_result_t<Work &, const gguf::ProgressFn &>>;
    const quint64 generation = begin(label);
    auto stopRequest = std::make_shared<std::atomic<bool>>(false);
    m_stopRequest = stopRequest;
    QFuture<Result> future =
        QtConcurrent::run(m_pool, [work = std::move(work), stopRequest](QPromise<Result> &promise) mutable {
            gguf::enterBackground(); // yields to the GUI thread when the program asked for it
            promise.setProgressRange(0, 1000);
            const gguf::ProgressFn progress = [&promise, &stopRequest](uint64_t done, uint64_t total) {
                if (total > 0)
                    promise.setProgressValue(static_cast<int>(std::min(done, total) * 1000 / total));
                return !promise.isCanceled() && !stopRequest->load(std::memory_order_relaxed);
            };
            Result result = work(progress);
            if (!promise.isCanceled())
                promise.addResult(std::move(result));
        });
    auto *watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, generation, deliver = std::move(deliver)]() mutable {
                watcher->deleteLater();
                if (!settle(generation))
                    return; // stale: a newer job or a new input replaced it
                QFuture<Result> done = watcher->future();
                if (done.isCanceled() || done.resultCount() == 0) {
                    emit cancelled();
                    return;
                }
                deliver(done.takeResult());
                // A deliver that chains a follow-up job finishes with that job.
                if (!m_running)
                    emit finished();
            });
    watch(watcher, generation);
    watcher->setFuture(future);
    return generation;
}
