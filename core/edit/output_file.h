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
/// Syncs the folder `dir` (a rename in it is on the disk after this); false when it cannot.
bool syncDir(const std::string &dir);
/// A new file beside `target`, `.<name>.<pid>-<n>.gguf-explorer.tmp`, open for writing (created
/// exclusively: a leftover of an earlier run is never reused); its descriptor, or -1 with errno.
int createTempBeside(const std::string &target, std::string &temp);
/// Gives the file open as `fd` the permissions of `target` and, when this process may, its owner
/// and group; false when `target` is there and its owner could not be kept.
bool takeAttributesOf(const std::string &target, int fd);

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
    bool write(const uint8_t *p, uint64_t n);
    /// Syncs and closes the temporary.
    bool sync();
    /// Replaces the target (an edit of it): the temporary takes its name, and its permissions and
    /// owner (as far as this process may set them).
    bool replace();
    /// Gives the temporary the target's name, never over a file that appeared meanwhile.
    bool rename();

private:
    std::string m_target, m_temp;
    int m_fd = -1;
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
/// anything is written), or with `replace` the one file renamed over its target. `dataTotal`:
/// the tensor bytes of all, for the progress. A failure or a cancel leaves no file behind.
WriteOutcome writeFiles(const std::vector<std::string> &paths, bool replace, uint64_t dataTotal,
                        const ProgressFn &progress, const std::function<bool(size_t, FileFill &)> &fill);

} // namespace gguf
