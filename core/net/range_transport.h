// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/format/errors.h"

#include <cstdint>
#include <functional>
#include <string>

namespace gguf::net {

/// Receives the bytes of a ranged read in order; false stops the transfer.
using ByteSink = std::function<bool(const uint8_t *bytes, size_t size)>;

/// What the first answer said about the file.
struct RemoteInfo {
    uint64_t size = 0;
    std::string etag;         ///< as sent, quotes included; empty when the server sent none
    std::string lastModified; ///< as sent; empty when the server sent none
    bool wholeFile = false;   ///< the server ignored Range and the (small) file came whole
};

/// How a RangedSource reads a remote file: ranged requests, nothing else. Implementations are
/// thread-safe (several workers read at once) and notice a file that changed on the server.
class RangeTransport {
public:
    virtual ~RangeTransport() = default;
    /// The first request: learns the size and validators and passes bytes [0, firstBytes) (or
    /// the whole file, when the server ignores Range for a small file) to `sink`.
    virtual bool open(uint64_t firstBytes, RemoteInfo &info, const ByteSink &sink, const FetchProgress &progress,
                      Error &error) = 0;
    /// Passes exactly the bytes [offset, offset+size) to `sink`, retrying transient failures;
    /// false with `error` set when they could not all be had.
    virtual bool read(uint64_t offset, uint64_t size, const ByteSink &sink, const FetchProgress &progress,
                      Error &error) = 0;
    /// True once an answer showed another ETag, Last-Modified or size than open() saw.
    virtual bool changed() const = 0;
    virtual uint64_t bytesReceived() const = 0;
    virtual uint64_t requestCount() const = 0;
};

} // namespace gguf::net
