// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>

namespace gguf::mapping_guard {

/// Registers a read-only file mapping with the process-wide SIGBUS guard. When the file shrinks
/// while mapped (a download still running, a file replaced), touching a page past its new end
/// raises SIGBUS; the guard's handler maps a zero page there instead, marks the slot, and lets the
/// access continue, so readers see zeros rather than the program dying. Faults anywhere else keep
/// their default action. Returns a slot number, or -1 when the table is full (then unguarded).
/// `unreadableParts`: the range is a remote file's reservation, parts of it not mapped; a read
/// there (SIGSEGV: a reader that holds no lease, a bug) is answered the same way and marked.
int add(const void *start, size_t length, bool unreadableParts = false);
/// Unregisters before the mapping is unmapped.
void remove(int slot);
/// True when a page of this slot's mapping faulted.
bool faulted(int slot);

} // namespace gguf::mapping_guard
