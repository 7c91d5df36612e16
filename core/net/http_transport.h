// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/net/range_transport.h"
#include "core/net/remote_url.h"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace gguf::net {

/// How patient and how careful the HTTP reader is.
struct HttpOptions {
    int maxRedirects = 10;                        ///< hops followed per request (loops end here too)
    int retries = 3;                              ///< further attempts after a transient failure
    int backoffMs = 500;                          ///< first pause between attempts, doubled each time
    long connectTimeoutS = 20;                    ///< to set up a connection
    long stallTimeoutS = 30;                      ///< a transfer that moves nothing for this long has failed
    uint64_t wholeFileLimit = uint64_t(64) << 20; ///< a server that ignores Range is used up to this size
    std::string token;                            ///< bearer token, sent to the hub host only (remote_url.h)
};

/// RangeTransport over HTTP(S) with libcurl (Debian's libcurl4-openssl-dev; docs/REMOTE.md says
/// why). Follows redirects itself, so that the hub token never travels to another host, and
/// remembers where they led (signed CDN URLs), going back to the given URL when that stops working.
class HttpTransport final : public RangeTransport {
public:
    HttpTransport(RemoteUrl url, HttpOptions options);
    ~HttpTransport() override;
    HttpTransport(const HttpTransport &) = delete;
    HttpTransport &operator=(const HttpTransport &) = delete;

    bool open(uint64_t firstBytes, RemoteInfo &info, const ByteSink &sink, const FetchProgress &progress,
              Error &error) override;
    bool read(uint64_t offset, uint64_t size, const ByteSink &sink, const FetchProgress &progress,
              Error &error) override;
    bool changed() const override { return m_changed.load(); }
    uint64_t bytesReceived() const override { return m_bytes.load(); }
    uint64_t requestCount() const override { return m_requests.load(); }

    /// Where the last answer came from (after redirects).
    std::string resolvedUrl() const;

    struct Exchange;

private:
    enum class Outcome : uint8_t { Done, Retry, Fail };
    Outcome exchange(uint64_t offset, uint64_t size, bool first, const ByteSink &sink, const FetchProgress &progress,
                     uint64_t &delivered, Error &error, long &retryAfterS);
    bool pause(int ms, const FetchProgress &progress, uint64_t done, uint64_t total) const;
    void *takeHandle();
    void giveBack(void *handle);

    const RemoteUrl m_url;
    const HttpOptions m_options;
    mutable std::mutex m_mutex;
    std::string m_resolved;     ///< under m_mutex
    RemoteInfo m_info;          ///< from open()
    std::vector<void *> m_idle; ///< CURL handles kept for their connections, under m_mutex
    std::atomic<bool> m_changed{false};
    std::atomic<uint64_t> m_bytes{0}, m_requests{0};
};

} // namespace gguf::net
