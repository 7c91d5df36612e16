// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A small, real HTTP/1.1 server for tests of remote (ranged) reading: files from disk served with
// byte ranges on 127.0.0.1, with redirects, forced statuses, bearer tokens and injectable faults.
// POSIX sockets and std::thread only (no Qt, no dependencies): one accept thread and one thread per
// connection, bodies read with pread in chunks, so a sparse 30 GB file costs nothing.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace gguf::test {

namespace http {
struct Request;
}

/// A fault injected into the answers to one path (RangeServer::addFault). Build one with the factories.
struct Fault {
    enum class Kind {
        IgnoreRange,       ///< 200 with the whole body and no Content-Range, whatever Range asked
        DropMidBody,       ///< headers as usual, `bytes` of the body (0 or ≥ the body: half), then the socket closes
        WrongContentRange, ///< 206 naming a start `bytes` (0: 1) away from the one asked, same length, and
                           ///< carrying the bytes it names (the asked ones when the named range leaves the file)
        ShortContentRange, ///< 206 with the first `bytes` (0 or ≥ the range: half) of it, Content-Range agreeing
        Slow,              ///< waits `milliseconds` before the headers, then answers normally
        Status,            ///< answers `status` with a short body (416 with `Content-Range: bytes */size`)
        StallBody,         ///< headers, then nothing for `milliseconds` (≤ 0: until stop()), then the socket closes
    };
    Kind kind = Kind::IgnoreRange;
    uint64_t bytes = 0;
    int milliseconds = 0;
    int status = 0;

    static Fault ignoreRange() { return make(Kind::IgnoreRange, 0, 0, 0); }
    static Fault dropMidBody(uint64_t bytesSent = 0) { return make(Kind::DropMidBody, bytesSent, 0, 0); }
    static Fault wrongContentRange(uint64_t shift = 0) { return make(Kind::WrongContentRange, shift, 0, 0); }
    static Fault shortContentRange(uint64_t bytesSent = 0) { return make(Kind::ShortContentRange, bytesSent, 0, 0); }
    static Fault slow(int ms) { return make(Kind::Slow, 0, ms, 0); }
    static Fault withStatus(int code) { return make(Kind::Status, 0, 0, code); }
    static Fault stallBody(int ms = 0) { return make(Kind::StallBody, 0, ms, 0); }

private:
    static Fault make(Kind kind, uint64_t bytes, int ms, int code)
    {
        Fault f;
        f.kind = kind;
        f.bytes = bytes;
        f.milliseconds = ms;
        f.status = code;
        return f;
    }
};

/// One request as the server saw it.
struct LoggedRequest {
    std::string method;
    std::string target;        ///< the request target as sent, query included
    std::string range;         ///< the Range header, "" when absent
    std::string authorization; ///< the Authorization header, "" when absent
    std::string host;          ///< the Host header
    int status = 0;            ///< the status answered
};

/// The server. Configuration, counters and the log are thread-safe and may change while it runs;
/// start() and stop() are called from one thread (the test's).
///
/// Paths are request targets without query: "/dir/model.gguf". A request is looked up as sent,
/// then percent-decoded. Its answer is decided in this order: a Slow fault waits, a Status fault
/// answers; then requireBearer (401/403), setStatus, redirect, serve; anything else is 404.
/// Only GET and HEAD are allowed (405 otherwise).
class RangeServer {
public:
    RangeServer();
    ~RangeServer();
    RangeServer(const RangeServer &) = delete;
    RangeServer &operator=(const RangeServer &) = delete;

    /// Listens on 127.0.0.1:`port` (0: an ephemeral one); false when the socket could not be bound
    /// or the server already runs.
    bool start(uint16_t port = 0);
    /// Closes the listening socket and every connection and joins every thread, promptly: sleeps
    /// and stalls end, blocked sends and receives fail. The configuration stays; start() may follow.
    void stop();
    bool running() const { return m_running; }
    /// The port listened on (0 before the first start()).
    uint16_t port() const { return m_port; }
    /// "http://127.0.0.1:PORT" + `path` (url("") has no trailing slash: a base to append paths to).
    std::string url(std::string_view path) const;

    /// Serves `localFile` at `urlPath` (GET and HEAD, byte ranges). Size, ETag and Last-Modified are
    /// read from the file at each request, so a test may rewrite or replace it between requests.
    void serve(std::string urlPath, std::string localFile);
    /// Sends `etag` (verbatim: quote it) instead of the derived one; nullopt sends no ETag at all.
    void setEtag(std::string urlPath, std::optional<std::string> etag);
    /// Whether Last-Modified is sent (it is by default).
    void setLastModified(std::string urlPath, bool send);
    /// The derived ETag and Last-Modified again.
    void resetValidators(std::string urlPath);
    /// Answers `from` with `status` and `Location: to` (a full URL or a path, sent as given).
    /// Redirects may chain, and loop.
    void redirect(std::string from, std::string to, int status = 302);
    /// Answers `urlPath` with `status` (≥ 200) and a short text body until clearStatus().
    void setStatus(std::string urlPath, int status);
    void clearStatus(std::string urlPath);
    /// Requires `Authorization: Bearer <token>`: 401 (WWW-Authenticate: Bearer) without one, 403
    /// with another token. An empty token removes the requirement.
    void requireBearer(std::string urlPath, std::string token);
    /// Applies `fault` to the next `count` GET or HEAD requests to `urlPath` (-1: to all of them).
    /// Faults of different kinds apply together; of one kind, one after the other. A request uses
    /// up the faults it takes even where they do not apply: the range faults to requests without a
    /// (satisfiable) Range, the body faults (DropMidBody, StallBody) to HEAD.
    void addFault(std::string urlPath, Fault fault, int count = 1);
    void clearFaults(std::string urlPath);

    /// Requests received (malformed ones included) since construction or resetCounters(); counted
    /// when the head is read, so ahead of requests() while a Slow fault waits.
    uint64_t requestCount() const { return m_requestCount; }
    /// Body bytes handed to sockets (file bytes and the short text bodies of errors; no headers).
    /// Counted before each send and corrected after it, so a client that has a whole body sees it counted.
    uint64_t bodyBytesSent() const { return m_bodyBytes; }
    /// Zeroes both counters and empties the log.
    void resetCounters();
    /// The requests answered, in the order their answers began.
    std::vector<LoggedRequest> requests() const;

private:
    struct PendingFault {
        Fault fault;
        int remaining = 1;
    };
    struct Route {
        std::string file;
        enum class EtagMode { Derived, Forced, None } etagMode = EtagMode::Derived;
        std::string forcedEtag;
        bool lastModified = true;
        std::string redirectTo;
        int redirectStatus = 0;
        int status = 0;
        std::string bearer;
        std::vector<PendingFault> faults;
    };
    struct Connection {
        int fd = -1;           ///< closed by its thread, under m_mutex, when it ends
        bool finished = false; ///< under m_mutex
        std::thread thread;
    };
    struct Exchange; // one request being answered (range_server_answer.cpp)

    void acceptLoop();
    void runConnection(Connection *connection);
    void serveRequests(int fd);
    bool answer(int fd, const http::Request &request);
    bool answerFile(Exchange &exchange);
    bool respond(Exchange &exchange, int status, std::vector<std::pair<std::string, std::string>> headers,
                 std::string body);
    bool sendHead(Exchange &exchange, int status, const std::vector<std::pair<std::string, std::string>> &headers,
                  std::optional<uint64_t> contentLength);
    bool sendFileRange(int socket, int file, uint64_t offset, uint64_t length);
    bool answerMalformed(int fd, const http::Request &request, int status);
    /// Sends all of `bytes`; `body` counts them in bodyBytesSent(). False when the socket failed or stop() began.
    bool sendAll(int socket, std::string_view bytes, bool body);
    /// Waits `ms` (≤ 0: until stop()); false when stop() or the peer closing `socket` cut it short.
    bool pause(int socket, int ms);
    void reapFinished();

    mutable std::mutex m_mutex; // routes, log, connections
    std::map<std::string, Route> m_routes;
    std::vector<LoggedRequest> m_log;
    std::vector<std::unique_ptr<Connection>> m_connections;

    std::mutex m_stopMutex;
    std::condition_variable m_stopCondition;
    std::atomic<bool> m_stopping{false};
    std::atomic<bool> m_running{false};
    std::atomic<uint16_t> m_port{0};
    std::atomic<uint64_t> m_requestCount{0};
    std::atomic<uint64_t> m_bodyBytes{0};
    int m_listenFd = -1;
    int m_wakeFds[2] = {-1, -1};
    std::thread m_acceptThread;
};

} // namespace gguf::test
