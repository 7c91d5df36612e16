// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/errors.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

namespace gguf {

/// (bytes done, bytes total) of a fetch; return false to cancel it.
using FetchProgress = std::function<bool(uint64_t done, uint64_t total)>;

/// Bytes of a ByteSource made readable by acquire(); they stay readable while the lease lives.
/// An empty lease with an error says why the bytes could not be had (network, cancelled).
class ByteLease {
public:
    ByteLease() = default;
    ByteLease(std::span<const uint8_t> bytes, std::shared_ptr<const void> pin) : m_bytes(bytes), m_pin(std::move(pin))
    {
    }
    explicit ByteLease(Error error) : m_error(std::move(error)) {}

    std::span<const uint8_t> bytes() const { return m_bytes; }
    const Error &error() const { return m_error; }
    explicit operator bool() const { return !m_error; }

private:
    std::span<const uint8_t> m_bytes;
    std::shared_ptr<const void> m_pin; ///< keeps the blocks of a remote file in its cache
    Error m_error;
};

/// Where the bytes of a GGUF file come from: a memory map or buffer (every byte always readable),
/// or a remote file read with ranged requests into a block cache (core/net/ranged_source.h).
/// Either way the file is one address range, data() … data()+size(), so the decoders read it in
/// place; a remote file's bytes are readable only inside a lease (the header stays resident).
class ByteSource {
public:
    virtual ~ByteSource() = default;
    ByteSource() = default;
    ByteSource(const ByteSource &) = delete;
    ByteSource &operator=(const ByteSource &) = delete;

    /// The path, or the URL as the user gave it.
    virtual const std::string &path() const = 0;
    virtual uint64_t size() const = 0;
    virtual const uint8_t *data() const = 0;
    /// The whole range; for a remote file only leased parts may be read.
    std::span<const uint8_t> bytes() const { return {data(), static_cast<size_t>(size())}; }

    /// True for a file mapped from disk (it can change under us and be watched).
    virtual bool isMapped() const { return false; }
    /// True for a file fetched over the network: acquire() may block, fail and be cancelled.
    virtual bool isRemote() const { return false; }

    /// Makes [offset, offset+size) (clipped to the file) readable until the lease is dropped,
    /// fetching what is missing. Local sources return at once. Thread-safe.
    virtual ByteLease acquire(uint64_t offset, uint64_t size, const FetchProgress &progress = {}) const;
    /// acquire() without fetching: a lease when every byte is already at hand, else an empty lease
    /// whose error has the code "not_fetched" (the GUI thread paints with this, never waits).
    virtual ByteLease peek(uint64_t offset, uint64_t size) const { return acquire(offset, size); }

    /// True once the file was seen to change since it was opened (on disk, or on the server).
    virtual bool changed() const { return false; }
    /// The file's size now (stat, or what the server said last); size() when it cannot change.
    virtual uint64_t currentSize() const { return size(); }
    /// A hint that [offset, offset+size) will not be read again soon: a map drops the pages from
    /// this process, a remote file lets its cache evict the blocks first.
    virtual void releasePages(uint64_t offset, uint64_t size) const
    {
        (void)offset;
        (void)size;
    }

    /// The unit a remote file is fetched and cached in; 0 for local files.
    virtual uint64_t blockSize() const { return 0; }
    /// True once something read bytes of a remote file that no lease held (a bug: it read zeros).
    virtual bool unleasedRead() const { return false; }
    /// Bytes fetched so far and requests made (0 for local files).
    virtual uint64_t bytesFetched() const { return 0; }
    virtual uint64_t requestCount() const { return 0; }
};

/// Opens a source by name when the name is not a local path (a URL); installed by the layer that
/// speaks the protocol (core/net), so that GgufFile::open and SplitModel::open take URLs too.
using RemoteOpener =
    std::function<std::shared_ptr<ByteSource>(const std::string &name, Error &error, const FetchProgress &progress)>;

/// Installs the opener of remote names (nullptr removes it); files being opened keep the one
/// they started with.
void setRemoteOpener(RemoteOpener opener);
/// True for "http://…", "https://…" and "hf:…" names.
bool looksRemote(const std::string &name);
/// Opens `name`: a local file (MappedFile::open) or, for a remote name, through the installed
/// opener (an error when none is installed).
std::shared_ptr<ByteSource> openByteSource(const std::string &name, Error &error, const FetchProgress &progress = {});

} // namespace gguf
