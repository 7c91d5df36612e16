// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QThreadPool>

namespace gguf::test {

/// Waits until every job of `pool` has returned, then delivers the events they posted to this
/// thread (results, progress) and those that delivering them posts in turn. A test that must show
/// that a stale result is dropped calls this instead of sleeping: afterwards nothing is left to
/// arrive. Returns false when the pool did not finish within `timeoutMs`.
inline bool settlePool(QThreadPool *pool, int timeoutMs = 10000)
{
    if (!pool->waitForDone(timeoutMs))
        return false;
    for (int round = 0; round < 4; ++round)
        QCoreApplication::sendPostedEvents();
    return true;
}

} // namespace gguf::test
