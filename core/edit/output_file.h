// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every writer of core/edit shares (docs/EDITING.md §3, §6): a new file is written beside its
// target under a name of its own, synced, and only then given the target's name — over the target
// when it edits it (keeping its permissions and owner), else never over a file that is there.

#include "core/edit/shard_writer.h"

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gguf::detail {

/// The folder of `path` ("." when it names none).
std::string dirOf(const std::string &path);
/// The last part of `path`.
std::string baseOf(const std::string &path);
/// Writes all `n` bytes at `offset` (again after an interruption); false with errno (EIO when the
/// disk took nothing).
bool writeAll(int fd, const uint8_t *p, uint64_t n, uint64_t offset);
/// Syncs the folder `dir` (a rename in it is on the disk after this); false when it cannot.
bool syncDir(const std::string &dir);
/// A new file beside `target`, `.<name>.<pid>-<n>.gguf-explorer.tmp`, open for writing (created
/// exclusively: a leftover of an earlier run is never reused); its descriptor, or -1 with errno.
int createTempBeside(const std::string &target, std::string &temp);
/// Gives the file open as `fd` the permissions of `target` and, when this process may, its owner
/// and group; false when `target` is there and its owner could not be kept.
bool takeAttributesOf(const std::string &target, int fd);

/// writeFiles' last check for a writer that copies from `shards` (a SplitModel's or a
/// Checkpoint's): the files are named only when every source is still the one copied.
template <typename Shards> std::string changedSource(const Shards &shards)
{
    for (const auto &shard : shards)
        if (shard.file && shard.file->source().changed())
            return shard.path + " changed on disk while it was copied; nothing was written";
    return {};
}

} // namespace gguf::detail

namespace gguf {

/// A file being written for split, merge or a checkpoint's `set`: a temporary beside the target,
/// removed unless it was given the target's name.
class OutputFile {
public:
    explicit OutputFile(std::string target);
    ~OutputFile();
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;
    bool valid() const { return m_fd >= 0; }
    const std::string &temp() const { return m_temp; }
    /// Appends `n` bytes; false with errno.
    bool write(const uint8_t *p, uint64_t n);
    /// Gives the temporary the target's permissions and, as far as this process may, its owner
    /// (before it is written and synced, for a replace); false when the owner could not be kept.
    bool takeTargetAttributes() { return detail::takeAttributesOf(m_target, m_fd); }
    /// Syncs and closes the temporary.
    bool sync();
    /// Replaces the target (an edit of it): the temporary takes its name. The caller syncs the folder.
    bool replace();
    /// Gives the temporary the target's name, never over a file that appeared meanwhile. The caller
    /// syncs the folder.
    bool rename();

private:
    std::string m_target, m_temp;
    int m_fd = -1;
    uint64_t m_written = 0;
    bool m_done = false;
};

/// Where a writer puts one file's bytes (writeFiles): they go to the file's temporary, tensor data
/// counted in the outcome and the progress over all files.
class FileFill {
public:
    FileFill(OutputFile &file, WriteOutcome &out, uint64_t total, const ProgressFn &progress)
        : m_file(file), m_out(out), m_total(total), m_progress(progress)
    {
    }
    /// Bytes the progress does not count (a header, padding); false after a message on failure.
    bool write(const uint8_t *p, uint64_t n);
    bool write(std::string_view bytes) { return write(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()); }
    /// Tensor data, 64 MiB at a time, each counted; false after a message on a failure or a cancel.
    bool data(std::span<const uint8_t> bytes);
    /// The writer's own failure: `message` is the outcome's; false.
    bool fail(std::string message);

private:
    OutputFile &m_file;
    WriteOutcome &m_out;
    uint64_t m_total;
    const ProgressFn &m_progress;
};

/// Writes the files `paths`, each by `fill(k, sink)` into its temporary, synced, and then names
/// them all: each with link(), never over a file (a path that exists refuses everything before
/// anything is written), or with `replace` the one file renamed over its target (refused when
/// the target is read-only; its permissions and owner carry over). `dataTotal`: the tensor bytes
/// of all, for the progress. After the last sync, and before any file is named, a cancel is asked
/// for once more and `lastCheck` runs (a source changed on disk meanwhile): a message from it
/// stops the write. A failure or a cancel leaves no file behind.
WriteOutcome writeFiles(const std::vector<std::string> &paths, bool replace, uint64_t dataTotal,
                        const ProgressFn &progress, const std::function<bool(size_t, FileFill &)> &fill,
                        const std::function<std::string()> &lastCheck = {});

} // namespace gguf
