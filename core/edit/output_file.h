// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A file being written for split and merge (GGUF or safetensors): a temporary beside the target,
// synced, then given the target's name — never over a file that is there (docs/EDITING.md §6).

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

namespace gguf {

// A file being written: a temporary beside the target, renamed over nothing at the end.
class OutputFile {
public:
    explicit OutputFile(std::string target) : m_target(std::move(target))
    {
        m_temp = m_target + ".part";
        m_fd = ::open(m_temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    ~OutputFile()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        if (!m_done)
            ::unlink(m_temp.c_str());
    }
    OutputFile(const OutputFile &) = delete;
    OutputFile &operator=(const OutputFile &) = delete;
    bool valid() const { return m_fd >= 0; }
    const std::string &temp() const { return m_temp; }
    bool write(const uint8_t *p, uint64_t n)
    {
        while (n > 0) {
            const ssize_t w = ::write(m_fd, p, size_t(std::min<uint64_t>(n, uint64_t(1) << 30)));
            if (w <= 0)
                return false;
            p += w;
            n -= uint64_t(w);
        }
        return true;
    }
    bool sync() { return ::fsync(m_fd) == 0 && ::close(std::exchange(m_fd, -1)) == 0; }
    /// Replaces the target (an edit of it): the temporary takes its name, and `mode` its permissions.
    bool replace(mode_t mode)
    {
        if (::chmod(m_temp.c_str(), mode) != 0 || ::rename(m_temp.c_str(), m_target.c_str()) != 0)
            return false;
        m_done = true;
        return true;
    }
    bool rename()
    {
        // never over a file that appeared meanwhile: link the temporary to the name, then drop it
        if (::link(m_temp.c_str(), m_target.c_str()) != 0)
            return false;
        ::unlink(m_temp.c_str());
        m_done = true;
        return true;
    }

private:
    std::string m_target, m_temp;
    int m_fd = -1;
    bool m_done = false;
};

} // namespace gguf
