// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What every writer of core/edit shares (docs/EDITING.md §3, §6): a new file is written beside its
// target under a name of its own, synced, and only then given the target's name — over the target
// when it edits it (keeping its permissions and owner), else never over a file that is there.

#include <sys/types.h>

#include <cstdint>
#include <string>

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

} // namespace gguf
