// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/range_server/range_server.h"

#include "range_server_http.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <iterator>

namespace gguf::test {

namespace {

constexpr std::size_t kMaxHead = 64 * 1024;
constexpr uint64_t kMaxRequestBody = 1 << 20;
constexpr uint64_t kChunk = 256 * 1024;
// How often a pause looks whether stop() was called or its client went away.
constexpr auto kPauseSlice = std::chrono::milliseconds(50);

// SIGPIPE must not kill the test: MSG_NOSIGNAL where it exists, SO_NOSIGPIPE on each socket elsewhere.
#ifdef MSG_NOSIGNAL
constexpr int kSendFlags = MSG_NOSIGNAL;
#else
constexpr int kSendFlags = 0;
#endif

void prepareSocket(int fd)
{
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1;
#ifdef SO_NOSIGPIPE
    ::setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    // headers and bodies go out in separate sends; Nagle would hold the second for a delayed ACK
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

void closeFd(int &fd)
{
    if (fd >= 0)
        ::close(fd);
    fd = -1;
}

// Appends what the socket has to `buffer`; false at the end of the stream or on an error.
bool receiveMore(int fd, std::string &buffer)
{
    char chunk[16384];
    for (;;) {
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        if (n > 0) {
            buffer.append(chunk, static_cast<std::size_t>(n));
            return true;
        }
        if (n < 0 && errno == EINTR)
            continue;
        return false;
    }
}

// Closing with unread input sends a reset, which may destroy the last answer before the client
// reads it: close our side first, then read and drop what still comes, for a short while.
void lingerBeforeClose(int fd, const std::atomic<bool> &stopping)
{
    if (stopping || ::shutdown(fd, SHUT_WR) != 0)
        return;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    char chunk[16384];
    std::size_t drained = 0;
    while (!stopping && drained < (1u << 20) && std::chrono::steady_clock::now() < deadline) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0)
            continue;
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
            return;
        drained += n > 0 ? static_cast<std::size_t>(n) : 0;
    }
}

bool peerClosed(int fd)
{
    char c = 0;
    const ssize_t n = ::recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

} // namespace

RangeServer::RangeServer() = default;

RangeServer::~RangeServer()
{
    stop();
}

bool RangeServer::start(uint16_t port)
{
    if (m_running)
        return false;
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1;
    // a fixed port can be taken again at once after stop()
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int wake[2] = {-1, -1};
    if (::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0 || ::listen(fd, 128) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0 || ::pipe(wake) != 0) {
        closeFd(fd);
        return false;
    }
    ::fcntl(wake[0], F_SETFD, FD_CLOEXEC);
    ::fcntl(wake[1], F_SETFD, FD_CLOEXEC);
    m_listenFd = fd;
    m_wakeFds[0] = wake[0];
    m_wakeFds[1] = wake[1];
    m_port = ntohs(address.sin_port);
    m_stopping = false;
    try {
        m_acceptThread = std::thread(&RangeServer::acceptLoop, this);
    } catch (...) {
        closeFd(m_listenFd);
        closeFd(m_wakeFds[0]);
        closeFd(m_wakeFds[1]);
        return false;
    }
    m_running = true;
    return true;
}

void RangeServer::stop()
{
    if (!m_running)
        return;
    {
        std::lock_guard lock(m_stopMutex);
        m_stopping = true;
    }
    m_stopCondition.notify_all();
    const char byte = 0;
    if (::write(m_wakeFds[1], &byte, 1) < 0) {
        // the accept thread also sees m_stopping at its next wake-up
    }
    if (m_acceptThread.joinable())
        m_acceptThread.join();
    std::vector<std::unique_ptr<Connection>> connections;
    {
        // shutdown wakes a thread blocked in recv or send; its fd is still open (it closes it under this lock)
        std::lock_guard lock(m_mutex);
        for (const auto &connection : m_connections)
            if (connection->fd >= 0)
                ::shutdown(connection->fd, SHUT_RDWR);
        connections.swap(m_connections);
    }
    for (const auto &connection : connections)
        if (connection->thread.joinable())
            connection->thread.join();
    closeFd(m_listenFd);
    closeFd(m_wakeFds[0]);
    closeFd(m_wakeFds[1]);
    m_stopping = false;
    m_running = false;
}

std::string RangeServer::url(std::string_view path) const
{
    return "http://127.0.0.1:" + std::to_string(m_port.load()) + std::string(path);
}

void RangeServer::serve(std::string urlPath, std::string localFile)
{
    std::lock_guard lock(m_mutex);
    m_routes[std::move(urlPath)].file = std::move(localFile);
}

void RangeServer::setEtag(std::string urlPath, std::optional<std::string> etag)
{
    std::lock_guard lock(m_mutex);
    Route &route = m_routes[std::move(urlPath)];
    route.etagMode = etag ? Route::EtagMode::Forced : Route::EtagMode::None;
    route.forcedEtag = etag.value_or(std::string());
}

void RangeServer::setLastModified(std::string urlPath, bool send)
{
    std::lock_guard lock(m_mutex);
    m_routes[std::move(urlPath)].lastModified = send;
}

void RangeServer::resetValidators(std::string urlPath)
{
    std::lock_guard lock(m_mutex);
    Route &route = m_routes[std::move(urlPath)];
    route.etagMode = Route::EtagMode::Derived;
    route.forcedEtag.clear();
    route.lastModified = true;
}

void RangeServer::redirect(std::string from, std::string to, int status)
{
    std::lock_guard lock(m_mutex);
    Route &route = m_routes[std::move(from)];
    route.redirectTo = std::move(to);
    route.redirectStatus = status;
}

void RangeServer::setStatus(std::string urlPath, int status)
{
    std::lock_guard lock(m_mutex);
    m_routes[std::move(urlPath)].status = status;
}

void RangeServer::clearStatus(std::string urlPath)
{
    setStatus(std::move(urlPath), 0);
}

void RangeServer::requireBearer(std::string urlPath, std::string token)
{
    std::lock_guard lock(m_mutex);
    m_routes[std::move(urlPath)].bearer = std::move(token);
}

void RangeServer::addFault(std::string urlPath, Fault fault, int count)
{
    if (count == 0)
        return;
    std::lock_guard lock(m_mutex);
    m_routes[std::move(urlPath)].faults.push_back({fault, count < 0 ? -1 : count});
}

void RangeServer::clearFaults(std::string urlPath)
{
    std::lock_guard lock(m_mutex);
    if (const auto it = m_routes.find(urlPath); it != m_routes.end())
        it->second.faults.clear();
}

void RangeServer::resetCounters()
{
    std::lock_guard lock(m_mutex);
    m_requestCount = 0;
    m_bodyBytes = 0;
    m_log.clear();
}

std::vector<LoggedRequest> RangeServer::requests() const
{
    std::lock_guard lock(m_mutex);
    return m_log;
}

void RangeServer::acceptLoop()
{
    try {
        while (!m_stopping) {
            pollfd fds[2] = {{m_listenFd, POLLIN, 0}, {m_wakeFds[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR)
                    continue;
                return;
            }
            if (fds[1].revents != 0 || m_stopping || (fds[0].revents & (POLLERR | POLLNVAL)) != 0)
                return;
            if ((fds[0].revents & POLLIN) == 0)
                continue;
            const int fd = ::accept(m_listenFd, nullptr, nullptr);
            if (fd < 0) {
                // out of descriptors: wait a little instead of spinning
                if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                    pause(-1, 10);
                continue;
            }
            prepareSocket(fd);
            auto connection = std::make_unique<Connection>();
            connection->fd = fd;
            Connection *raw = connection.get();
            {
                std::lock_guard lock(m_mutex);
                m_connections.push_back(std::move(connection));
            }
            try {
                raw->thread = std::thread(&RangeServer::runConnection, this, raw);
            } catch (...) {
                std::lock_guard lock(m_mutex);
                closeFd(raw->fd);
                raw->finished = true;
            }
            reapFinished();
        }
    } catch (...) {
        // a test server never takes its process down; stop() still joins and closes everything
    }
}

void RangeServer::reapFinished()
{
    std::vector<std::unique_ptr<Connection>> finished;
    {
        std::lock_guard lock(m_mutex);
        const auto done = std::stable_partition(m_connections.begin(), m_connections.end(),
                                                [](const auto &connection) { return !connection->finished; });
        std::move(done, m_connections.end(), std::back_inserter(finished));
        m_connections.erase(done, m_connections.end());
    }
    for (const auto &connection : finished)
        if (connection->thread.joinable())
            connection->thread.join();
}

void RangeServer::runConnection(Connection *connection)
{
    try {
        serveRequests(connection->fd);
        lingerBeforeClose(connection->fd, m_stopping);
    } catch (...) {
        // the connection just closes
    }
    std::lock_guard lock(m_mutex);
    closeFd(connection->fd);
    connection->finished = true;
}

void RangeServer::serveRequests(int fd)
{
    std::string buffer;
    while (!m_stopping) {
        http::Request request;
        std::size_t consumed = 0;
        http::HeadStatus status = http::HeadStatus::Incomplete;
        while ((status = http::parseHead(buffer, kMaxHead, request, consumed)) == http::HeadStatus::Incomplete)
            if (m_stopping || !receiveMore(fd, buffer))
                return;
        if (status != http::HeadStatus::Complete) {
            answerMalformed(fd, request, status == http::HeadStatus::TooLarge ? 431 : 400);
            return;
        }
        buffer.erase(0, consumed);
        // GET and HEAD carry no body; one announced by Content-Length is read and dropped, chunked ones are refused
        if (request.header("transfer-encoding")) {
            answerMalformed(fd, request, 400);
            return;
        }
        if (const auto length = request.header("content-length")) {
            uint64_t n = 0;
            const char *end = length->data() + length->size();
            const auto [stop, error] = std::from_chars(length->data(), end, n);
            const bool tooLarge =
                error == std::errc::result_out_of_range || (error == std::errc() && n > kMaxRequestBody);
            if (tooLarge || error != std::errc() || stop != end) {
                answerMalformed(fd, request, tooLarge ? 413 : 400);
                return;
            }
            while (buffer.size() < n)
                if (m_stopping || !receiveMore(fd, buffer))
                    return;
            buffer.erase(0, n);
        }
        if (!answer(fd, request))
            return;
    }
}

bool RangeServer::sendAll(int socket, std::string_view bytes, bool body)
{
    while (!bytes.empty()) {
        if (m_stopping)
            return false;
        // counted before the send, corrected after it: a client holding the whole body sees it counted
        if (body)
            m_bodyBytes += bytes.size();
        const ssize_t n = ::send(socket, bytes.data(), bytes.size(), kSendFlags);
        const std::size_t sent = n > 0 ? static_cast<std::size_t>(n) : 0;
        if (body)
            m_bodyBytes -= bytes.size() - sent;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        bytes.remove_prefix(sent);
    }
    return true;
}

bool RangeServer::sendFileRange(int socket, int file, uint64_t offset, uint64_t length)
{
    std::string buffer(static_cast<std::size_t>(std::min(length, kChunk)), '\0');
    while (length > 0) {
        const auto want = static_cast<std::size_t>(std::min<uint64_t>(length, buffer.size()));
        const ssize_t n = ::pread(file, buffer.data(), want, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        // the file shrank under the answer: the client gets a short body and a closed connection
        if (n <= 0)
            return false;
        if (!sendAll(socket, std::string_view(buffer.data(), static_cast<std::size_t>(n)), true))
            return false;
        offset += static_cast<uint64_t>(n);
        length -= static_cast<uint64_t>(n);
    }
    return true;
}

bool RangeServer::pause(int socket, int ms)
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
    std::unique_lock lock(m_stopMutex);
    for (;;) {
        if (m_stopping)
            return false;
        auto until = Clock::now() + kPauseSlice;
        if (ms > 0) {
            if (Clock::now() >= deadline)
                return true;
            until = std::min(until, deadline);
        }
        m_stopCondition.wait_until(lock, until, [this] { return m_stopping.load(); });
        if (m_stopping || (socket >= 0 && peerClosed(socket)))
            return false;
    }
}

} // namespace gguf::test
