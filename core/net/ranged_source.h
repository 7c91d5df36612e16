// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/net/range_transport.h"

#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gguf::net {

/// The block cache of a remote file.
struct CacheOptions {
    uint64_t blockBytes = uint64_t(2) << 20;   ///< unit of fetching and caching (a multiple of the page size)
    uint64_t cacheBytes = uint64_t(512) << 20; ///< blocks kept once no lease holds them (LRU beyond)
    std::string folder;                        ///< where cached blocks live; empty: in memory
};

/// A remote file read with ranged requests into a block cache. The file is one reserved address
/// range; a block is mapped there, read-only, from a sparse cache file (in memory, memfd, or in
/// the cache folder) once fetched, and unmapped again when evicted, so leased bytes are read in
/// place like a memory-mapped local file. Bytes outside every lease are not readable.
class RangedSource final : public ByteSource, public std::enable_shared_from_this<RangedSource> {
public:
    /// Makes the first request (the first block, which holds most headers) and reserves the range.
    static std::shared_ptr<RangedSource> open(std::string name, std::unique_ptr<RangeTransport> transport,
                                              const CacheOptions &options, Error &error,
                                              const FetchProgress &progress = {});
    ~RangedSource() override;

    const std::string &path() const override { return m_name; }
    uint64_t size() const override { return m_size; }
    const uint8_t *data() const override { return m_base; }
    bool isRemote() const override { return true; }
    ByteLease acquire(uint64_t offset, uint64_t size, const FetchProgress &progress = {}) const override;
    ByteLease peek(uint64_t offset, uint64_t size) const override;
    bool changed() const override;
    void releasePages(uint64_t offset, uint64_t size) const override;
    uint64_t blockSize() const override { return m_block; }
    uint64_t bytesFetched() const override { return m_transport->bytesReceived(); }
    uint64_t requestCount() const override { return m_transport->requestCount(); }
    bool unleasedRead() const override;

    /// Bytes of blocks now in the cache (held by leases or kept for later).
    uint64_t cachedBytes() const;
    /// The most cachedBytes() ever was (leases can pin blocks beyond the cap while they live).
    uint64_t peakCachedBytes() const;
    /// The largest single lease: a request for more is refused rather than filling memory.
    static constexpr uint64_t kMaxLease = uint64_t(4) << 30;

private:
    RangedSource() = default;
    enum class State : uint8_t { Absent, Fetching, Resident };
    struct Block {
        State state = State::Absent;
        uint32_t pins = 0;
        std::list<uint32_t>::iterator lru; ///< valid while resident and unpinned
    };

    bool reserveCache(const std::string &folder, Error &error);
    bool keepFirstBlocks(const std::vector<uint8_t> &first, Error &error);
    bool store(uint64_t offset, const uint8_t *bytes, size_t n) const;
    bool mapBlocks(uint32_t first, uint32_t last) const; ///< under m_mutex
    bool evictBlock(uint32_t index) const;               ///< under m_mutex; false when it could not
    void evictOverCap() const;                           ///< under m_mutex
    void unpin(uint32_t first, uint32_t last) const;
    uint64_t blockEnd(uint32_t index) const;
    ByteLease leaseOf(uint64_t offset, uint64_t n, uint32_t first, uint32_t last) const;
    bool fetchRun(uint32_t first, uint32_t last, const FetchProgress &progress, uint64_t &done, uint64_t total,
                  Error &error) const;

    std::string m_name;
    uint64_t m_size = 0;
    uint64_t m_block = 0;
    uint64_t m_cap = 0;
    uint8_t *m_base = nullptr;
    uint64_t m_reserved = 0;
    int m_fd = -1;
    int m_guardSlot = -1; ///< mapping_guard's slot for the reservation
    std::unique_ptr<RangeTransport> m_transport;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_arrived;
    mutable std::vector<Block> m_blocks;
    mutable std::list<uint32_t> m_lru; ///< resident, unpinned blocks, least recently used first
    mutable uint64_t m_resident = 0;   ///< bytes of resident blocks
    mutable uint64_t m_peakResident = 0;
    mutable bool m_changed = false;
};

} // namespace gguf::net
