// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_search.h"

#include "core/format/gguf_file.h"

#include <QPromise>
#include <QtConcurrent>

#include <vector>

HexSearch::HexSearch(QObject *parent) : QObject(parent) {}

HexSearch::~HexSearch()
{
    // the job holds the file; it stops at its next chunk and its result goes nowhere
    if (m_watcher) {
        m_watcher->disconnect(this);
        m_watcher->cancel();
    }
}

void HexSearch::start(std::shared_ptr<const gguf::GgufFile> file, const QByteArray &pattern, quint64 from,
                      gguf::SearchDirection direction)
{
    cancel();
    if (!file || pattern.isEmpty())
        return;
    std::vector<uint8_t> needle(pattern.begin(), pattern.end());
    auto *watcher = new QFutureWatcher<std::optional<quint64>>(this);
    m_watcher = watcher;
    connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher](int value) {
        if (watcher == m_watcher)
            emit progressChanged(value);
    });
    const quint64 length = quint64(pattern.size());
    connect(watcher, &QFutureWatcherBase::finished, this,
            [this, watcher, length, direction] { finish(watcher, length, direction); });
    watcher->setFuture(QtConcurrent::run([file = std::move(file), needle = std::move(needle), from,
                                          direction](QPromise<std::optional<quint64>> &promise) {
        promise.setProgressRange(0, 1000);
        const auto progress = [&promise](uint64_t done, uint64_t total) {
            promise.setProgressValue(total == 0 ? 1000 : int(double(done) / double(total) * 1000));
            return !promise.isCanceled();
        };
        const std::optional<uint64_t> hit = gguf::findInFile(file->mapped(), needle, from, direction, progress);
        if (!promise.isCanceled())
            promise.addResult(hit ? std::optional<quint64>(*hit) : std::nullopt);
    }));
}

void HexSearch::cancel()
{
    if (!m_watcher)
        return;
    QFutureWatcher<std::optional<quint64>> *watcher = m_watcher;
    m_watcher = nullptr;
    watcher->disconnect(this);
    watcher->cancel();
    // delete the watcher once its job has stopped; nothing waits for it here
    connect(watcher, &QFutureWatcherBase::finished, watcher, &QObject::deleteLater);
    if (watcher->isFinished())
        watcher->deleteLater();
    emit cancelled();
}

void HexSearch::finish(QFutureWatcher<std::optional<quint64>> *watcher, quint64 length, gguf::SearchDirection direction)
{
    if (watcher != m_watcher)
        return;
    m_watcher = nullptr;
    watcher->deleteLater();
    const QFuture<std::optional<quint64>> future = watcher->future();
    if (future.isCanceled() || future.resultCount() == 0) {
        emit cancelled();
        return;
    }
    if (const std::optional<quint64> hit = future.result())
        emit found(*hit, length);
    else
        emit notFound(direction);
}
