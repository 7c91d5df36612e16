// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>

namespace gguf {

/// Progress report: (units done, units total); return false to cancel.
using ProgressFn = std::function<bool(uint64_t done, uint64_t total)>;

/// Runs `work(chunk, worker)` for every chunk in [0, chunkCount) on up to `threads` workers (0: one
/// per core), handing out chunks in order from a shared counter. The calling thread is worker 0 and
/// the only one that calls `progress`, so callbacks need no locking; workers 1 … are tasks of the
/// core's one shared pool (hardware concurrency − 1 threads, started once), which may be busy with
/// other calls: then the caller does more of the chunks itself. Worker numbers are below
/// workerCount() and never run at the same time twice. Returns false when cancelled (chunks already
/// started finish; no new ones start).
bool runChunks(uint64_t chunkCount, unsigned threads, const std::function<void(uint64_t chunk, unsigned worker)> &work,
               const ProgressFn &progress);

/// Number of worker threads `runChunks` uses for a request of `threads` (0: hardware concurrency).
unsigned workerCount(unsigned threads, uint64_t chunkCount);

} // namespace gguf
