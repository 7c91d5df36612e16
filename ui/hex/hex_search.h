// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_search.h"

#include <QByteArray>
#include <QObject>

#include <memory>
#include <optional>

class JobTracker;

namespace gguf {
class GgufFile;
}

/// One search for bytes in a file at a time, on a worker thread (a JobTracker), in chunks of the
/// mapping with progress and cancel. A new search cancels the one running; results of a cancelled
/// or replaced search are dropped.
class HexSearch : public QObject {
    Q_OBJECT
public:
    explicit HexSearch(QObject *parent = nullptr);
    ~HexSearch() override;

    /// Looks for `pattern` in `file` starting at `from` (forward: first match at or after it;
    /// backward: last match at or before it).
    void start(std::shared_ptr<const gguf::GgufFile> file, const QByteArray &pattern, quint64 from,
               gguf::SearchDirection direction);
    void cancel();
    bool isRunning() const;

signals:
    void progressChanged(int permille);
    /// A match of `length` bytes at `offset`.
    void found(quint64 offset, quint64 length);
    void notFound(gguf::SearchDirection direction);
    void cancelled();

private:
    JobTracker *m_jobs;
};
