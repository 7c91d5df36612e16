// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <optional>
#include <span>

namespace gguf {

enum class SearchDirection : uint8_t { Forward, Backward };

/// Finds `pattern` in `haystack`: forward, the first match starting at or after `from`;
/// backward, the last match starting at or before `from` (`from` is clamped to the haystack).
/// Works through the bytes in chunks of `chunkBytes` (matches across chunk borders are found),
/// reports progress in bytes after each chunk and stops when `progress` returns false.
/// nullopt when there is no match, the pattern is empty or the search was cancelled.
std::optional<uint64_t> findBytes(std::span<const uint8_t> haystack, std::span<const uint8_t> pattern, uint64_t from,
                                  SearchDirection direction, const ProgressFn &progress = {},
                                  uint64_t chunkBytes = uint64_t(16) << 20);

/// findBytes over a whole file; each window is leased while it is searched (fetched, for a remote
/// file) and its pages released afterwards, so searching a 100 GB file keeps resident memory
/// bounded. When a window cannot be fetched the search stops and `error` (if given) says why.
std::optional<uint64_t> findInFile(const ByteSource &file, std::span<const uint8_t> pattern, uint64_t from,
                                   SearchDirection direction, const ProgressFn &progress = {}, Error *error = nullptr);

} // namespace gguf
