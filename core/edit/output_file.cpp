// SPDX-License-Identifier: GPL-3.0-or-later
#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

namespace gguf::detail {

std::string dirOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseOf(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool writeAll(int fd, const uint8_t *p, uint64_t n, uint64_t offset)
{
    while (n > 0) {
        const ssize_t w =
            ::pwrite(fd, p, static_cast<size_t>(std::min<uint64_t>(n, uint64_t(1) << 30)), static_cast<off_t>(offset));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return false;
        }
        p += w;
        n -= static_cast<uint64_t>(w);
        offset += static_cast<uint64_t>(w);
    }
    return true;
}

bool syncDir(const std::string &dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    return synced;
}

int createTempBeside(const std::string &target, std::string &temp)
{
    static std::atomic<unsigned> counter{0};
    const std::string stem = dirOf(target) + "/." + baseOf(target) + "." + std::to_string(::getpid()) + "-";
    for (int attempt = 0; attempt < 100; ++attempt) {
        temp = stem + std::to_string(++counter) + ".gguf-explorer.tmp";
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

bool takeAttributesOf(const std::string &target, int fd)
{
    struct stat st {};
    if (::stat(target.c_str(), &st) != 0)
        return true;
    ::fchmod(fd, st.st_mode & 07777);
    const bool otherOwner = st.st_uid != ::geteuid() || st.st_gid != ::getegid();
    return !otherOwner || ::fchown(fd, st.st_uid, st.st_gid) == 0;
}

} // namespace gguf::detail

namespace gguf {

OutputFile::OutputFile(std::string target) : m_target(std::move(target))
{
    m_fd = detail::createTempBeside(m_target, m_temp);
}

OutputFile::~OutputFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_done && !m_temp.empty())
        ::unlink(m_temp.c_str());
}

bool OutputFile::write(const uint8_t *p, uint64_t n)
{
    if (!detail::writeAll(m_fd, p, n, m_written))
        return false;
    m_written += n;
    return true;
}

bool OutputFile::sync()
{
    return ::fsync(m_fd) == 0 && ::close(std::exchange(m_fd, -1)) == 0;
}

bool OutputFile::replace()
{
    if (::rename(m_temp.c_str(), m_target.c_str()) != 0)
        return false;
    m_done = true;
    return true;
}

bool OutputFile::rename()
{
    // never over a file that appeared meanwhile: link the temporary to the name, then drop it
    if (::link(m_temp.c_str(), m_target.c_str()) != 0)
        return false;
    ::unlink(m_temp.c_str());
    m_done = true;
    return true;
}

bool FileFill::write(const uint8_t *p, uint64_t n)
{
    return m_file.write(p, n) || fail(m_file.temp() + ": write failed: " + std::strerror(errno));
}

bool FileFill::data(std::span<const uint8_t> bytes)
{
    constexpr uint64_t kPiece = uint64_t(64) << 20; // bytes between progress reports
    for (uint64_t at = 0; at < bytes.size(); at += kPiece) {
        const uint64_t n = std::min<uint64_t>(kPiece, bytes.size() - at);
        if (!write(bytes.data() + at, n))
            return false;
        m_out.bytesWritten += n;
        if (m_progress && !m_progress(m_out.bytesWritten, m_total)) {
            m_out.cancelled = true;
            return fail("cancelled; nothing was written");
        }
    }
    return true;
}

bool FileFill::fail(std::string message)
{
    m_out.message = std::move(message);
    return false;
}

WriteOutcome writeFiles(const std::vector<std::string> &paths, bool replace, uint64_t dataTotal,
                        const ProgressFn &progress, const std::function<bool(size_t, FileFill &)> &fill,
                        const std::function<std::string()> &lastCheck)
{
    WriteOutcome out;
    if (paths.empty()) {
        out.message = "nothing to write";
        return out;
    }
    for (const std::string &path : paths)
        if (std::error_code ec; !replace && std::filesystem::exists(path, ec)) {
            out.message = path + " exists; nothing was written (remove it or choose another name)";
            return out;
        }
    // a read-only file stays read-only: a copy renamed over it would replace it all the same
    if (replace && ::access(paths.front().c_str(), W_OK) != 0) {
        out.message = "cannot save to " + paths.front() + ": " + std::strerror(errno) + "; it is as it was";
        return out;
    }
    std::vector<std::unique_ptr<OutputFile>> files; // they remove their temporaries unless named
    for (size_t k = 0; k < paths.size(); ++k) {
        files.push_back(std::make_unique<OutputFile>(paths[k]));
        OutputFile &file = *files.back();
        FileFill sink(file, out, dataTotal, progress);
        if (!file.valid()) {
            out.message = file.temp() + ": cannot be created: " + std::strerror(errno);
            return out;
        }
        if (replace)
            out.ownerKept = file.takeTargetAttributes();
        if (!fill(k, sink)) // (it says why)
            return out;
        if (!file.sync()) {
            out.message = file.temp() + ": could not be written to the disk: " + std::strerror(errno);
            return out;
        }
    }
    // the last moment a cancel or a change of the source can still leave everything as it was
    // (the syncs may have been long)
    if (progress && !progress(out.bytesWritten, dataTotal)) {
        out.cancelled = true;
        out.message = "cancelled; nothing was written";
        return out;
    }
    if (lastCheck)
        if (std::string why = lastCheck(); !why.empty()) {
            out.message = std::move(why);
            return out;
        }
    std::vector<std::string> dirs;
    for (size_t k = 0; k < files.size(); ++k) {
        if (!(replace ? files[k]->replace() : files[k]->rename())) {
            out.message = replace ? paths[k] + ": could not be replaced (" + std::strerror(errno) + "); it is as it was"
                                  : "a file could not be given its name (" + std::string(std::strerror(errno)) +
                                        "); the ones already named stay";
            return out;
        }
        if (std::find(dirs.begin(), dirs.end(), detail::dirOf(paths[k])) == dirs.end())
            dirs.push_back(detail::dirOf(paths[k]));
    }
    for (const std::string &dir : dirs) // the names on the disk, each folder once
        detail::syncDir(dir);
    out.ok = true;
    return out;
}

} // namespace gguf
