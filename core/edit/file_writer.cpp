// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/edit/file_writer.h"

#include "core/format/gguf_file.h"

#include "output_file.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gguf {
namespace {

using detail::baseOf;
using detail::createTempBeside;
using detail::dirOf;
using detail::syncDir;
using detail::takeAttributesOf;
using detail::writeAll;

constexpr uint64_t kCopyChunk = uint64_t(64) << 20; // bytes between progress reports
constexpr size_t kBufferSize = size_t(8) << 20;     // the read/write fallback's buffer
constexpr uint64_t kPage = 4096;                    // copies of whole pages are the fast ones

class Fd {
public:
    explicit Fd(int fd = -1) : m_fd(fd) {}
    ~Fd() { reset(); }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    /// Takes ownership of `fd`, closing what it held.
    void adopt(int fd)
    {
        reset();
        m_fd = fd;
    }
    int get() const { return m_fd; }
    bool valid() const { return m_fd >= 0; }
    /// Closes now, reporting close's error (a delayed write error can surface here).
    bool close()
    {
        const int fd = m_fd;
        m_fd = -1;
        return fd < 0 || ::close(fd) == 0;
    }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd;
};

std::string errnoText()
{
    return std::strerror(errno);
}

// false with errno 0 when the file ended early
bool readAll(int fd, uint8_t *p, uint64_t n, uint64_t offset)
{
    while (n > 0) {
        const ssize_t r =
            ::pread(fd, p, static_cast<size_t>(std::min<uint64_t>(n, uint64_t(1) << 30)), static_cast<off_t>(offset));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = 0;
            return false;
        }
        p += r;
        n -= static_cast<uint64_t>(r);
        offset += static_cast<uint64_t>(r);
    }
    return true;
}

std::string realPath(const std::string &path)
{
    char buf[PATH_MAX];
    return ::realpath(path.c_str(), buf) ? std::string(buf) : std::string();
}

// The target with symlinks resolved (a link keeps pointing at the saved file); empty when its
// folder does not exist.
std::string resolveTarget(const std::string &target)
{
    if (std::string real = realPath(target); !real.empty())
        return real;
    const std::string dir = realPath(dirOf(target));
    return dir.empty() ? std::string() : (dir == "/" ? "" : dir) + "/" + baseOf(target);
}

class Writer {
public:
    Writer(const GgufFile &file, const HeaderPlan &plan, const SaveHooks &hooks)
        : m_file(file), m_plan(plan), m_hooks(hooks)
    {
    }

    SaveResult run(const std::string &target, bool allowInPlace);

private:
    bool fail(std::string message)
    {
        m_result.message = std::move(message);
        return false;
    }
    void step(SaveStep s) const
    {
        if (m_hooks.step)
            m_hooks.step(s);
    }
    bool checkUnchanged(int fd);
    bool inPlace(int fd);
    bool copy(int src, const std::string &target);
    bool copyData(int src, int dst);
    bool copyRange(int src, int dst, uint64_t from, uint64_t to, uint64_t shift);
    /// Asks the progress callback once more; true (and the result says so) when it cancels.
    bool cancelled();
    /// Tells the progress callback how much is copied; false when it cancels.
    bool reportCopied();

    const GgufFile &m_file;
    const HeaderPlan &m_plan;
    const SaveHooks &m_hooks;
    SaveResult m_result;
    std::vector<uint8_t> m_oldHeader;
    uint64_t m_copied = 0;
    uint64_t m_copyFrom = 0; ///< where the copy of the old file starts (the data region, or the page it begins in)
};

bool Writer::checkUnchanged(int fd)
{
    const std::string &path = m_file.path();
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return fail("cannot read the state of " + path + ": " + errnoText());
    const auto changed = [&] {
        return fail(path + " changed on disk since it was opened; reload it and make the changes again");
    };
    if (m_file.source().changed() || static_cast<uint64_t>(st.st_size) != m_file.fileSize())
        return changed();
    // what is on the disk now is what was parsed (a change that kept size and time shows here)
    m_oldHeader.resize(m_plan.oldDataOffset);
    if (!readAll(fd, m_oldHeader.data(), m_oldHeader.size(), 0))
        return errno ? fail("cannot read " + path + ": " + errnoText()) : changed();
    const auto parsed = m_file.bytes(0, m_plan.oldDataOffset);
    if (parsed.size() != m_oldHeader.size() || !std::equal(parsed.begin(), parsed.end(), m_oldHeader.begin()))
        return changed();
    return true;
}

SaveResult Writer::run(const std::string &target, bool allowInPlace)
{
    const std::string &source = m_file.path();
    const std::string resolved = resolveTarget(target);
    m_result.path = resolved.empty() ? target : resolved;
    if (m_file.isRemote()) {
        fail("editing needs the file on this machine: " + source + " is remote; download it, then edit the copy");
        return m_result;
    }
    if (resolved.empty()) {
        fail("cannot save to " + target + ": its folder does not exist");
        return m_result;
    }
    struct stat srcStat {
    }, dstStat{};
    const bool targetExists = ::stat(resolved.c_str(), &dstStat) == 0;
    if (targetExists && S_ISDIR(dstStat.st_mode)) {
        fail("cannot save to " + target + ": it is a folder");
        return m_result;
    }
    // A header backup beside the target: an in-place save of it was interrupted. Until it is dealt
    // with no save goes there — after a copy the backup would no longer fit the file.
    if (const auto backup = leftoverHeaderBackup(resolved)) {
        fail("a header backup from an earlier save that did not finish is at " + *backup +
             ": restore it (docs/EDITING.md §3) or remove it, then save again");
        return m_result;
    }
    // a read-only file stays read-only: a copy renamed over it would replace it all the same
    if (targetExists && ::access(resolved.c_str(), W_OK) != 0) {
        fail("cannot save to " + target + ": " + errnoText() + "; nothing was changed");
        return m_result;
    }
    if (::stat(source.c_str(), &srcStat) != 0) {
        fail("cannot read " + source + ": " + errnoText());
        return m_result;
    }
    const bool sameFile = targetExists && srcStat.st_dev == dstStat.st_dev && srcStat.st_ino == dstStat.st_ino;
    m_result.inPlace = sameFile && allowInPlace && m_plan.fitsInPlace;

    Fd src(::open(source.c_str(), (m_result.inPlace ? O_RDWR : O_RDONLY) | O_CLOEXEC));
    if (!src.valid()) {
        fail(std::string(m_result.inPlace ? "cannot open " + source + " for writing: "
                                          : "cannot read " + source + ": ") +
             errnoText());
        return m_result;
    }
    if (!checkUnchanged(src.get()))
        return m_result;
    step(SaveStep::Checked);
    m_result.ok = m_result.inPlace ? inPlace(src.get()) : copy(src.get(), resolved);
    return m_result;
}

bool Writer::inPlace(int fd)
{
    const std::string &path = m_file.path();
    const std::string backup = headerBackupPath(m_result.path);
    {
        Fd b(::open(backup.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (!b.valid())
            return fail(errno == EEXIST ? "a header backup appeared at " + backup + " while saving; nothing was changed"
                                        : "cannot write the header backup " + backup + ": " + errnoText());
        if (!writeAll(b.get(), m_oldHeader.data(), m_oldHeader.size(), 0) || ::fsync(b.get()) != 0 || !b.close()) {
            const std::string why = errnoText();
            ::unlink(backup.c_str());
            return fail("cannot write the header backup " + backup + ": " + why + "; " + path + " is unchanged");
        }
    }
    syncDir(dirOf(backup));
    step(SaveStep::BackupWritten);

    const bool written = writeAll(fd, m_plan.bytes.data(), m_plan.bytes.size(), 0);
    if (written)
        step(SaveStep::HeaderWritten);
    if (!written || ::fsync(fd) != 0) {
        const std::string why = errnoText();
        // put the old header back; the backup stays when even that fails
        if (writeAll(fd, m_oldHeader.data(), m_oldHeader.size(), 0) && ::fsync(fd) == 0) {
            ::unlink(backup.c_str());
            return fail("cannot write the new header to " + path + ": " + why + "; the old header was put back");
        }
        return fail("cannot write the new header to " + path + ": " + why + "; the old header is kept in " + backup +
                    " (docs/EDITING.md §3 says how to restore it)");
    }
    m_result.bytesWritten = m_plan.bytes.size();
    step(SaveStep::HeaderSynced);
    ::unlink(backup.c_str());
    syncDir(dirOf(backup));
    step(SaveStep::BackupRemoved);
    return true;
}

bool Writer::copyRange(int src, int dst, uint64_t from, uint64_t to, uint64_t shift)
{
    static thread_local std::vector<uint8_t> buffer;
    bool kernelCopy = true;
    while (from < to) {
        const uint64_t n = std::min(to - from, kCopyChunk);
        uint64_t done = 0;
        while (done < n) {
            loff_t in = static_cast<loff_t>(from + done), out = static_cast<loff_t>(from + done + shift);
            ssize_t r = -1;
            if (kernelCopy) {
                r = ::copy_file_range(src, &in, dst, &out, static_cast<size_t>(n - done), 0);
                if (r < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
                    kernelCopy = false;
                    continue;
                }
            } else {
                buffer.resize(kBufferSize);
                r = ::pread(src, buffer.data(), static_cast<size_t>(std::min<uint64_t>(n - done, kBufferSize)), in);
                if (r > 0 && !writeAll(dst, buffer.data(), static_cast<uint64_t>(r), static_cast<uint64_t>(out)))
                    r = -1;
            }
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return fail("cannot copy the tensor data: " + errnoText() + "; " + m_file.path() + " is unchanged");
            if (r == 0)
                return fail(m_file.path() + " became shorter while it was copied; it was not replaced");
            done += static_cast<uint64_t>(r);
        }
        from += n;
        m_copied += n;
        if (!reportCopied()) {
            m_result.cancelled = true;
            return fail("saving was cancelled; " + m_file.path() + " is unchanged");
        }
    }
    return true;
}

bool Writer::copyData(int src, int dst)
{
    const uint64_t end = m_file.fileSize();
    const uint64_t shift = m_plan.dataOffset - m_plan.oldDataOffset; // modular: the data may move back
    uint64_t at = m_copyFrom;
    // only the parts that hold data: a sparse file stays sparse
    while (at < end) {
        off_t data = ::lseek(src, static_cast<off_t>(at), SEEK_DATA);
        if (data < 0 && errno == ENXIO)
            break; // a hole to the end
        off_t hole = data < 0 ? static_cast<off_t>(end) : ::lseek(src, data, SEEK_HOLE);
        if (data < 0)
            data = static_cast<off_t>(at); // SEEK_DATA not supported: all of it is data
        if (hole < 0)
            hole = static_cast<off_t>(end);
        const uint64_t from = static_cast<uint64_t>(data), to = std::min<uint64_t>(static_cast<uint64_t>(hole), end);
        if (from >= end)
            break;
        m_copied += from - at; // the hole counts as done
        if (!copyRange(src, dst, from, to, shift))
            return false;
        at = to;
    }
    return !cancelled();
}

bool Writer::reportCopied()
{
    // in bytes of the data region (the copy may have started a few bytes before it)
    const uint64_t before = m_plan.oldDataOffset - m_copyFrom;
    const uint64_t total = m_file.fileSize() - m_plan.oldDataOffset;
    return !m_hooks.progress || m_hooks.progress(std::min(m_copied > before ? m_copied - before : 0, total), total);
}

bool Writer::cancelled()
{
    const uint64_t total = m_file.fileSize() - m_plan.oldDataOffset;
    if (!m_hooks.progress || m_hooks.progress(total, total))
        return false;
    m_result.cancelled = true;
    return !fail("saving was cancelled; " + m_file.path() + " is unchanged");
}

bool Writer::copy(int src, const std::string &target)
{
    const std::string dir = dirOf(target);
    std::string temp;
    Fd dst(createTempBeside(target, temp));
    if (!dst.valid())
        return fail("cannot create a file in " + dir + ": " + errnoText() + "; nothing was changed");
    const auto failAndRemove = [&](std::string message) {
        dst.reset();
        ::unlink(temp.c_str());
        return fail(std::move(message));
    };
    step(SaveStep::TempCreated);
    // the replaced file's permissions carry over, and its owner when this process may set it (when
    // not allowed, the new file belongs to this process's user)
    m_result.ownerKept = takeAttributesOf(target, dst.get());

    const uint64_t newSize = m_plan.dataOffset + (m_file.fileSize() - m_plan.oldDataOffset);
    const std::string unchanged = "; " + target + " is unchanged";
    if (!writeAll(dst.get(), m_plan.bytes.data(), m_plan.bytes.size(), 0))
        return failAndRemove("cannot write " + temp + ": " + errnoText() + unchanged);
    step(SaveStep::HeaderCopied);
    ::posix_fadvise(src, 0, 0, POSIX_FADV_SEQUENTIAL); // read ahead generously, as cp does
    // When the data moves by whole pages, the copy starts at the page the data region begins in, so
    // that every page is copied whole (the kernel copies whole pages much faster than pieces); the
    // few old header bytes this copies over the end of the new header are written again after.
    const uint64_t shift = m_plan.dataOffset - m_plan.oldDataOffset;
    const uint64_t inPage = m_plan.oldDataOffset % kPage;
    const bool wholePages = m_plan.dataOffset >= m_plan.oldDataOffset && shift % kPage == 0;
    m_copyFrom = wholePages ? m_plan.oldDataOffset - inPage : m_plan.oldDataOffset;
    if (!copyData(src, dst.get()) ||
        (wholePages &&
         !writeAll(dst.get(), m_plan.bytes.data() + m_plan.dataOffset - inPage, inPage, m_plan.dataOffset - inPage) &&
         fail("cannot write " + temp + ": " + errnoText() + unchanged))) {
        const std::string message = m_result.message;
        return failAndRemove(message);
    }
    // a hole at the end of the data is not copied: the size makes it
    if (::ftruncate(dst.get(), static_cast<off_t>(newSize)) != 0)
        return failAndRemove("cannot write " + temp + ": " + errnoText() + unchanged);
    step(SaveStep::DataCopied);
    if (::fsync(dst.get()) != 0 || !dst.close())
        return failAndRemove("cannot write " + temp + ": " + errnoText() + unchanged);
    step(SaveStep::TempSynced);
    if (m_file.source().changed())
        return failAndRemove(m_file.path() + " changed on disk while it was copied" + unchanged);
    // the last moment a cancel can still leave everything as it was (the sync may have been long)
    if (cancelled()) {
        const std::string message = m_result.message;
        return failAndRemove(message);
    }
    if (::rename(temp.c_str(), target.c_str()) != 0)
        return failAndRemove("cannot replace " + target + ": " + errnoText() + unchanged);
    syncDir(dir);
    m_result.bytesWritten = newSize;
    step(SaveStep::Renamed);
    return true;
}

} // namespace

std::string_view saveStepName(SaveStep step)
{
    switch (step) {
    case SaveStep::Checked: return "checked";
    case SaveStep::BackupWritten: return "backup-written";
    case SaveStep::HeaderWritten: return "header-written";
    case SaveStep::HeaderSynced: return "header-synced";
    case SaveStep::BackupRemoved: return "backup-removed";
    case SaveStep::TempCreated: return "temp-created";
    case SaveStep::HeaderCopied: return "header-copied";
    case SaveStep::DataCopied: return "data-copied";
    case SaveStep::TempSynced: return "temp-synced";
    case SaveStep::Renamed: return "renamed";
    }
    return "?";
}

std::string headerBackupPath(const std::string &path)
{
    return path + ".header-backup";
}

std::optional<std::string> leftoverHeaderBackup(const std::string &path)
{
    const std::string resolved = resolveTarget(path);
    std::string backup = headerBackupPath(resolved.empty() ? path : resolved);
    struct stat st {};
    if (::stat(backup.c_str(), &st) != 0)
        return std::nullopt;
    return backup;
}

SaveResult writeEdited(const GgufFile &file, const HeaderPlan &plan, const std::string &target, bool allowInPlace,
                       const SaveHooks &hooks)
{
    Writer writer(file, plan, hooks);
    return writer.run(target, allowInPlace);
}

} // namespace gguf
