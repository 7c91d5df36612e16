// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <functional>

namespace gguf {

/// Progress report: (units done, units total); return false to cancel.
using ProgressFn = std::function<bool(uint64_t done, uint64_t total)>;

/// Progress of one part of a longer job: `outer` sees (before + weight · done / total) of `sum`.
/// A part reporting done == total has moved `outer` by `weight`; an unset `outer` never cancels.
ProgressFn progressPart(const ProgressFn &outer, uint64_t before, uint64_t weight, uint64_t sum);

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

/// Makes background work yield to the program's interactive thread: once set, every thread of the
/// core's worker pool, and every thread that calls enterBackground(), lowers its scheduling
/// priority (Linux: nice +10 for that thread) before its next task, so on a machine with as many
/// busy workers as cores the GUI thread still gets the CPU at once. The explorer sets it at start;
/// gguf-inspect does not (its main thread is the work). Never undone.
void setBackgroundThreadsYield(bool yield);
/// Lowers the calling thread's priority as above when setBackgroundThreadsYield(true) was called
/// (once per thread; later calls return at once). For threads of other pools that run background
/// work (Qt's).
void enterBackground();

} // namespace gguf
