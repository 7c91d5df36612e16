// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/net/ranged_source.h"

#include "core/format/mapping_guard.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace gguf::net {
namespace {

uint64_t pageSize()
{
    static const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    return page;
}

uint64_t pageRound(uint64_t n)
{
    return (n + pageSize() - 1) / pageSize() * pageSize();
}

// A sparse file that holds the fetched blocks: in memory (memfd) or unnamed in the cache folder.
int cacheFile(const std::string &folder, Error &error)
{
    int fd = -1;
    if (folder.empty()) {
        fd = ::memfd_create("gguf-remote-cache", MFD_CLOEXEC);
    } else {
        fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
            std::string name = folder + "/gguf-remote-XXXXXX";
            fd = ::mkostemp(name.data(), O_CLOEXEC);
            if (fd >= 0)
                ::unlink(name.c_str());
        }
    }
    if (fd < 0)
        error = Error{ErrorKind::Unreadable, "cache", 0,
                      (folder.empty() ? std::string("cannot make the in-memory cache: ")
                                      : "cannot make a cache file in " + folder + ": ") +
                          std::strerror(errno)};
    return fd;
}

Error cancelled(uint64_t offset)
{
    return Error{ErrorKind::Cancelled, "cancelled", offset, "the download was cancelled"};
}

} // namespace

std::shared_ptr<RangedSource> RangedSource::open(std::string name, std::unique_ptr<RangeTransport> transport,
                                                 const CacheOptions &options, Error &error,
                                                 const FetchProgress &progress)
{
    auto source = std::shared_ptr<RangedSource>(new RangedSource());
    source->m_name = std::move(name);
    source->m_block = std::max(pageRound(options.blockBytes), pageSize());
    source->m_cap = options.cacheBytes;
    source->m_transport = std::move(transport);

    // the first block arrives before the size is known: held here, then stored
    std::vector<uint8_t> first;
    RemoteInfo info;
    const ByteSink keep = [&](const uint8_t *bytes, size_t n) {
        first.insert(first.end(), bytes, bytes + n);
        return true;
    };
    if (!source->m_transport->open(source->m_block, info, keep, progress, error)) {
        if (error.message.find(source->m_name) == std::string::npos && error.kind != ErrorKind::Cancelled)
            error.message = source->m_name + ": " + error.message;
        return nullptr;
    }
    source->m_size = info.size;
    if (source->m_size == 0)
        return source;
    // a server that ignores Range sent the whole (small) file: keep all of it, or every evicted
    // block would cost the whole file again
    if (info.wholeFile)
        source->m_cap = std::max(source->m_cap, source->m_size);
    if (!source->reserveCache(options.folder, error) || !source->keepFirstBlocks(first, error))
        return nullptr;
    return source;
}

// The cache: a file (in `folder`, else in memory) as large as the remote file, mapped block by
// block into address space reserved for all of it; false, with why in `error`, when it cannot be.
bool RangedSource::reserveCache(const std::string &folder, Error &error)
{
    m_fd = cacheFile(folder, error);
    if (m_fd < 0)
        return false;
    // a cache folder on a file system that cannot give space back would grow to the whole model:
    // the cache goes to memory instead
    if (!folder.empty() &&
        ::fallocate(m_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(pageSize())) != 0) {
        ::close(m_fd);
        m_fd = cacheFile({}, error);
        if (m_fd < 0)
            return false;
    }
    if (::ftruncate(m_fd, static_cast<off_t>(m_size)) != 0) {
        error = Error{ErrorKind::Unreadable, "cache", 0, "cannot size the cache: " + std::string(std::strerror(errno))};
        return false;
    }
    m_reserved = pageRound(m_size);
    void *base =
        ::mmap(nullptr, static_cast<size_t>(m_reserved), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        error = Error{ErrorKind::Unreadable, "cache", 0,
                      "cannot reserve " + std::to_string(m_size) + " bytes of address space: " + std::strerror(errno)};
        return false;
    }
    m_base = static_cast<uint8_t *>(base);
    // a read outside every lease gets zeros and is marked, rather than ending the program
    m_guardSlot = mapping_guard::add(base, static_cast<size_t>(m_reserved), true);
    m_blocks.resize(static_cast<size_t>((m_size + m_block - 1) / m_block));
    return true;
}

// The bytes the first answer brought, stored as resident blocks (whole ones; the last may end
// with the file).
bool RangedSource::keepFirstBlocks(const std::vector<uint8_t> &first, Error &error)
{
    uint64_t have = std::min<uint64_t>(first.size(), m_size);
    if (have < m_size)
        have = have / m_block * m_block;
    if (have > 0) {
        if (!store(0, first.data(), static_cast<size_t>(have))) {
            error = Error{ErrorKind::Unreadable, "cache", 0,
                          "cannot write the cache: " + std::string(std::strerror(errno))};
            return false;
        }
        std::lock_guard lock(m_mutex);
        const auto last = static_cast<uint32_t>((have - 1) / m_block);
        if (!mapBlocks(0, last)) {
            error =
                Error{ErrorKind::Unreadable, "cache", 0, "cannot map the cache: " + std::string(std::strerror(errno))};
            return false;
        }
        for (uint32_t i = 0; i <= last; ++i) {
            Block &b = m_blocks[i];
            b.state = State::Resident;
            m_resident += blockEnd(i) - uint64_t(i) * m_block;
            m_lru.push_back(i);
            b.lru = std::prev(m_lru.end());
        }
        m_peakResident = m_resident;
    }
    return true;
}

RangedSource::~RangedSource()
{
    gguf::mapping_guard::remove(m_guardSlot);
    if (m_base)
        ::munmap(m_base, static_cast<size_t>(m_reserved));
    if (m_fd >= 0)
        ::close(m_fd);
}

uint64_t RangedSource::blockEnd(uint32_t index) const
{
    return std::min(m_size, (uint64_t(index) + 1) * m_block);
}

bool RangedSource::store(uint64_t offset, const uint8_t *bytes, size_t n) const
{
    while (n > 0) {
        const ssize_t w = ::pwrite(m_fd, bytes, n, static_cast<off_t>(offset));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        bytes += w;
        offset += static_cast<uint64_t>(w);
        n -= static_cast<size_t>(w);
    }
    return true;
}

bool RangedSource::mapBlocks(uint32_t first, uint32_t last) const
{
    const uint64_t offset = uint64_t(first) * m_block;
    const uint64_t length = pageRound(blockEnd(last) - offset);
    return ::mmap(m_base + offset, static_cast<size_t>(length), PROT_READ, MAP_SHARED | MAP_FIXED, m_fd,
                  static_cast<off_t>(offset)) != MAP_FAILED;
}

bool RangedSource::evictBlock(uint32_t index) const
{
    const uint64_t offset = uint64_t(index) * m_block;
    const uint64_t length = pageRound(blockEnd(index) - offset);
    // the address range goes back to unreadable, and the cache file gives the space back
    if (::mmap(m_base + offset, static_cast<size_t>(length), PROT_NONE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED)
        return false;
    ::fallocate(m_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                static_cast<off_t>(length));
    m_blocks[index].state = State::Absent;
    m_resident -= blockEnd(index) - offset;
    return true;
}

void RangedSource::evictOverCap() const
{
    while (m_resident > m_cap && !m_lru.empty()) {
        const uint32_t victim = m_lru.front();
        if (!evictBlock(victim))
            return; // out of mappings: the block stays, and so does the memory
        m_lru.pop_front();
    }
}

void RangedSource::unpin(uint32_t first, uint32_t last) const
{
    std::lock_guard lock(m_mutex);
    for (uint32_t i = first; i <= last; ++i) {
        Block &b = m_blocks[i];
        if (b.pins > 0 && --b.pins == 0 && b.state == State::Resident) {
            m_lru.push_back(i);
            b.lru = std::prev(m_lru.end());
        }
    }
    evictOverCap();
}

bool RangedSource::fetchRun(uint32_t first, uint32_t last, const FetchProgress &progress, uint64_t &done,
                            uint64_t total, Error &error) const
{
    const uint64_t offset = uint64_t(first) * m_block;
    const uint64_t size = blockEnd(last) - offset;
    uint64_t written = 0;
    bool writeFailed = false;
    const ByteSink sink = [&](const uint8_t *bytes, size_t n) {
        if (!store(offset + written, bytes, n)) {
            writeFailed = true;
            return false;
        }
        written += n;
        return true;
    };
    const uint64_t before = done;
    const FetchProgress each = [&](uint64_t d, uint64_t) {
        done = before + d;
        return !progress || progress(done, total);
    };
    bool ok = m_transport->read(offset, size, sink, each, error);
    if (ok && !writeFailed && written != size) {
        ok = false;
        error = Error{ErrorKind::Network, "short_answer", offset,
                      "the server sent " + std::to_string(written) + " of " + std::to_string(size) + " bytes"};
    }
    if (!ok && !error)
        error = Error{ErrorKind::Network, "transfer", offset, "the transfer failed"};
    if (writeFailed)
        error = Error{ErrorKind::Unreadable, "cache", offset,
                      "cannot write the cache: " + std::string(std::strerror(errno))};
    std::lock_guard lock(m_mutex);
    if (!ok || writeFailed || !mapBlocks(first, last)) {
        if (ok && !writeFailed)
            error = Error{ErrorKind::Unreadable, "cache", offset,
                          "cannot map the cache: " + std::string(std::strerror(errno))};
        if (m_transport->changed())
            m_changed = true;
        for (uint32_t i = first; i <= last; ++i)
            m_blocks[i].state = State::Absent;
        ::fallocate(m_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                    static_cast<off_t>(pageRound(size)));
        m_arrived.notify_all();
        return false;
    }
    done = before + size;
    for (uint32_t i = first; i <= last; ++i) {
        m_blocks[i].state = State::Resident;
        m_resident += blockEnd(i) - uint64_t(i) * m_block;
    }
    m_peakResident = std::max(m_peakResident, m_resident);
    m_arrived.notify_all();
    return true;
}

ByteLease RangedSource::acquire(uint64_t offset, uint64_t size, const FetchProgress &progress) const
{
    if (offset >= m_size || size == 0)
        return ByteLease({}, nullptr);
    const uint64_t n = std::min(size, m_size - offset);
    if (n > kMaxLease)
        return ByteLease(Error{ErrorKind::Unreadable, "lease_too_large", offset,
                               "reading " + std::to_string(n) + " bytes of a remote file at once is more than the " +
                                   std::to_string(kMaxLease >> 30) + " GiB this program holds in memory"});
    const auto first = static_cast<uint32_t>(offset / m_block);
    const auto last = static_cast<uint32_t>((offset + n - 1) / m_block);

    std::unique_lock lock(m_mutex);
    if (m_changed || m_transport->changed()) {
        m_changed = true;
        return ByteLease(Error{ErrorKind::Network, "changed_on_server", offset,
                               m_name + ": the file changed on the server since it was opened"});
    }
    for (uint32_t i = first; i <= last; ++i) {
        Block &b = m_blocks[i];
        if (b.pins++ == 0 && b.state == State::Resident)
            m_lru.erase(b.lru);
    }
    uint64_t done = 0;
    const auto fail = [&](Error error) {
        lock.unlock();
        unpin(first, last);
        return ByteLease(std::move(error));
    };
    for (;;) {
        // claim the absent blocks in runs; wait for the ones another thread is fetching
        std::vector<std::pair<uint32_t, uint32_t>> runs;
        bool waiting = false;
        uint64_t total = done;
        for (uint32_t i = first; i <= last; ++i) {
            Block &b = m_blocks[i];
            if (b.state == State::Fetching)
                waiting = true;
            if (b.state != State::Absent)
                continue;
            b.state = State::Fetching;
            if (!runs.empty() && runs.back().second + 1 == i)
                runs.back().second = i;
            else
                runs.emplace_back(i, i);
            total += blockEnd(i) - uint64_t(i) * m_block;
        }
        if (runs.empty() && !waiting)
            break;
        if (!runs.empty()) {
            lock.unlock();
            Error error;
            for (size_t r = 0; r < runs.size(); ++r) {
                if (!fetchRun(runs[r].first, runs[r].second, progress, done, total, error)) {
                    // give back the runs not yet tried
                    lock.lock();
                    for (size_t k = r + 1; k < runs.size(); ++k)
                        for (uint32_t i = runs[k].first; i <= runs[k].second; ++i)
                            m_blocks[i].state = State::Absent;
                    m_arrived.notify_all();
                    if (error.message.find(m_name) == std::string::npos && error.kind != ErrorKind::Cancelled)
                        error.message = m_name + ": " + error.message;
                    return fail(error);
                }
            }
            lock.lock();
            continue;
        }
        m_arrived.wait_for(lock, std::chrono::milliseconds(100));
        if (progress) {
            lock.unlock();
            const bool goOn = progress(done, total);
            lock.lock();
            if (!goOn)
                return fail(cancelled(offset));
        }
    }
    evictOverCap();
    lock.unlock();
    return leaseOf(offset, n, first, last);
}

ByteLease RangedSource::leaseOf(uint64_t offset, uint64_t n, uint32_t first, uint32_t last) const
{
    auto self = shared_from_this();
    std::shared_ptr<const void> pin(static_cast<const void *>(this),
                                    [self, first, last](const void *) { self->unpin(first, last); });
    return ByteLease({m_base + offset, static_cast<size_t>(n)}, std::move(pin));
}

ByteLease RangedSource::peek(uint64_t offset, uint64_t size) const
{
    if (offset >= m_size || size == 0)
        return ByteLease({}, nullptr);
    const uint64_t n = std::min(size, m_size - offset);
    const auto first = static_cast<uint32_t>(offset / m_block);
    const auto last = static_cast<uint32_t>((offset + n - 1) / m_block);
    std::lock_guard lock(m_mutex);
    for (uint32_t i = first; i <= last; ++i)
        if (m_blocks[i].state != State::Resident)
            return ByteLease(Error{ErrorKind::NeedMore, "not_fetched", uint64_t(i) * m_block,
                                   "these bytes have not been fetched yet"});
    for (uint32_t i = first; i <= last; ++i) {
        Block &b = m_blocks[i];
        if (b.pins++ == 0)
            m_lru.erase(b.lru);
    }
    return leaseOf(offset, n, first, last);
}

bool RangedSource::changed() const
{
    std::lock_guard lock(m_mutex);
    return m_changed || m_transport->changed();
}

void RangedSource::releasePages(uint64_t offset, uint64_t size) const
{
    if (offset >= m_size || size == 0)
        return;
    const uint64_t end = std::min(m_size, offset + std::min(size, m_size - offset));
    // whole blocks only: the first and last may hold bytes of a neighbour still in use
    const uint64_t firstWhole = (offset + m_block - 1) / m_block;
    const uint64_t endWhole = end == m_size ? m_blocks.size() : end / m_block;
    std::lock_guard lock(m_mutex);
    for (uint64_t i = firstWhole; i < endWhole; ++i) {
        Block &b = m_blocks[i];
        if (b.state == State::Resident && b.pins == 0) {
            m_lru.splice(m_lru.begin(), m_lru, b.lru);
        }
    }
}

bool RangedSource::unleasedRead() const
{
    return gguf::mapping_guard::faulted(m_guardSlot);
}

uint64_t RangedSource::cachedBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_resident;
}

uint64_t RangedSource::peakCachedBytes() const
{
    std::lock_guard lock(m_mutex);
    return m_peakResident;
}

} // namespace gguf::net
