// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_search.h"

#include "core/format/gguf_file.h"
#include "ui/common/job_tracker.h"

#include <vector>

HexSearch::HexSearch(QObject *parent) : QObject(parent), m_jobs(new JobTracker(this))
{
    connect(m_jobs, &JobTracker::progressChanged, this, &HexSearch::progressChanged);
    connect(m_jobs, &JobTracker::cancelled, this, &HexSearch::cancelled);
}

// The tracker (a child) stops a search in progress without a signal; the job holds the file.
HexSearch::~HexSearch() = default;

bool HexSearch::isRunning() const
{
    return m_jobs->isRunning();
}

void HexSearch::start(std::shared_ptr<const gguf::GgufFile> file, const QByteArray &pattern, quint64 from,
                      gguf::SearchDirection direction)
{
    cancel();
    if (!file || pattern.isEmpty())
        return;
    std::vector<uint8_t> needle(pattern.begin(), pattern.end());
    const quint64 length = quint64(pattern.size());
    m_jobs->start(
        tr("Searching"),
        [file = std::move(file), needle = std::move(needle), from, direction](const gguf::ProgressFn &progress) {
            return gguf::findInFile(file->source(), needle, from, direction, progress);
        },
        [this, length, direction](std::optional<uint64_t> hit) {
            if (hit)
                emit found(*hit, length);
            else
                emit notFound(direction);
        });
}

void HexSearch::cancel()
{
    m_jobs->cancel(); // emits cancelled() when a search was running
}
