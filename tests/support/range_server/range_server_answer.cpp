// SPDX-License-Identifier: GPL-3.0-or-later
// RangeServer's answers: the route's rules and faults in order, then the file with its validators and range.
#include "tests/support/range_server/range_server.h"

#include "range_server_http.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <ctime>

namespace gguf::test {

namespace {

using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::size_t kFaultKinds = static_cast<std::size_t>(Fault::Kind::StallBody) + 1;

int64_t modificationNs(const struct stat &st)
{
#ifdef __APPLE__
    return static_cast<int64_t>(st.st_mtimespec.tv_sec) * 1'000'000'000 + st.st_mtimespec.tv_nsec;
#else
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
#endif
}

std::string statusText(int status)
{
    return std::to_string(status) + " " + std::string(http::reasonPhrase(status)) + "\n";
}

// A file descriptor closed when it goes out of scope.
struct FileHandle {
    int fd = -1;
    explicit FileHandle(int f) : fd(f) {}
    FileHandle(const FileHandle &) = delete;
    FileHandle &operator=(const FileHandle &) = delete;
    ~FileHandle()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

// One request being answered: what the route said when it arrived and the faults it took.
struct RangeServer::Exchange {
    Exchange(int socket, const http::Request &r) : fd(socket), request(r) {}

    int fd;
    const http::Request &request;
    Route route;
    std::array<std::optional<Fault>, kFaultKinds> faults;
    bool headOnly = false;
    bool keepAlive = false;
    LoggedRequest log;

    const std::optional<Fault> &fault(Fault::Kind kind) const { return faults[static_cast<std::size_t>(kind)]; }
    std::string header(std::string_view name) const { return request.header(name).value_or(std::string()); }
};

bool RangeServer::answerMalformed(int fd, const http::Request &request, int status)
{
    ++m_requestCount;
    Exchange exchange(fd, request);
    exchange.log.method = request.method;
    exchange.log.target = request.target;
    return respond(exchange, status, {}, statusText(status));
}

bool RangeServer::answer(int fd, const http::Request &request)
{
    ++m_requestCount;
    Exchange exchange(fd, request);
    exchange.headOnly = request.method == "HEAD";
    exchange.keepAlive = request.keepAlive();
    exchange.log = {request.method,           request.target,
                    exchange.header("range"), exchange.header("authorization"),
                    exchange.header("host"),  0};
    // RFC 7230 §5.4: a 1.1 request without Host is a 400
    if (request.minorVersion >= 1 && !request.header("host")) {
        exchange.keepAlive = false;
        return respond(exchange, 400, {}, statusText(400));
    }
    if (request.method != "GET" && request.method != "HEAD")
        return respond(exchange, 405, {{"Allow", "GET, HEAD"}}, statusText(405));
    const std::string path = http::targetPath(request.target);
    if (path.empty())
        return respond(exchange, 400, {}, statusText(400));
    {
        std::lock_guard lock(m_mutex);
        auto it = m_routes.find(path);
        if (it == m_routes.end())
            if (const auto decoded = http::percentDecode(path))
                it = m_routes.find(*decoded);
        if (it != m_routes.end()) {
            // the first pending fault of each kind applies and counts one request
            auto &pending = it->second.faults;
            for (PendingFault &p : pending) {
                auto &slot = exchange.faults[static_cast<std::size_t>(p.fault.kind)];
                if (slot)
                    continue;
                slot = p.fault;
                if (p.remaining > 0)
                    --p.remaining;
            }
            pending.erase(
                std::remove_if(pending.begin(), pending.end(), [](const auto &p) { return p.remaining == 0; }),
                pending.end());
            exchange.route = it->second;
            exchange.route.faults.clear();
        }
    }
    const Route &route = exchange.route;
    if (const auto &slow = exchange.fault(Fault::Kind::Slow); slow && !pause(fd, std::max(slow->milliseconds, 1)))
        return false;
    if (const auto &status = exchange.fault(Fault::Kind::Status)) {
        Headers headers;
        struct stat st {};
        if (status->status == 416 && !route.file.empty() && ::stat(route.file.c_str(), &st) == 0)
            headers.emplace_back("Content-Range", "bytes */" + std::to_string(st.st_size));
        return respond(exchange, status->status, std::move(headers), statusText(status->status));
    }
    if (!route.bearer.empty()) {
        const std::string authorization = exchange.header("authorization");
        const std::string_view value = http::trimmed(authorization);
        const std::size_t space = value.find(' ');
        if (space == std::string_view::npos || !http::equalsIgnoringCase(value.substr(0, space), "Bearer"))
            return respond(exchange, 401, {{"WWW-Authenticate", "Bearer"}}, statusText(401));
        if (http::trimmed(value.substr(space + 1)) != route.bearer)
            return respond(exchange, 403, {}, statusText(403));
    }
    if (route.status != 0)
        return respond(exchange, route.status, {}, statusText(route.status));
    if (route.redirectStatus != 0)
        return respond(exchange, route.redirectStatus, {{"Location", route.redirectTo}}, {});
    if (!route.file.empty())
        return answerFile(exchange);
    return respond(exchange, 404, {}, statusText(404));
}

bool RangeServer::answerFile(Exchange &exchange)
{
    const Route &route = exchange.route;
    const FileHandle file(::open(route.file.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (file.fd < 0 || ::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode))
        return respond(exchange, 404, {}, statusText(404));
    const auto size = static_cast<uint64_t>(st.st_size);
    std::string etag;
    if (route.etagMode == Route::EtagMode::Derived)
        etag = http::derivedEtag(static_cast<uint64_t>(st.st_ino), size, modificationNs(st));
    else if (route.etagMode == Route::EtagMode::Forced)
        etag = route.forcedEtag;
    const std::string lastModified = route.lastModified ? http::httpDate(st.st_mtime) : std::string();
    Headers validators;
    if (!etag.empty())
        validators.emplace_back("ETag", etag);
    if (!lastModified.empty())
        validators.emplace_back("Last-Modified", lastModified);

    if (const auto ifMatch = exchange.request.header("if-match"); ifMatch && !http::ifMatchHolds(*ifMatch, etag))
        return respond(exchange, 412, validators, statusText(412));
    http::ByteRange range;
    auto kind = http::RangeResult::Ignore;
    const auto rangeHeader = exchange.request.header("range");
    if (rangeHeader && !exchange.fault(Fault::Kind::IgnoreRange)) {
        // If-Range: a changed representation is sent whole
        const auto ifRange = exchange.request.header("if-range");
        if (!ifRange || http::ifRangeHolds(*ifRange, etag, lastModified))
            kind = http::parseRange(*rangeHeader, size, range);
    }
    if (kind == http::RangeResult::Unsatisfiable) {
        Headers headers = validators;
        headers.emplace_back("Content-Range", "bytes */" + std::to_string(size));
        return respond(exchange, 416, std::move(headers), statusText(416));
    }

    Headers headers = {{"Accept-Ranges", "bytes"}, {"Content-Type", "application/octet-stream"}};
    headers.insert(headers.end(), validators.begin(), validators.end());
    int status = 200;
    uint64_t length = size;
    uint64_t dataFirst = 0;
    if (kind == http::RangeResult::Single) {
        status = 206;
        length = range.last - range.first + 1;
        dataFirst = range.first;
        uint64_t named = range.first;
        if (const auto &wrong = exchange.fault(Fault::Kind::WrongContentRange)) {
            // another start, the same length; the bytes it names when they are in the file
            const uint64_t shift = wrong->bytes != 0 ? wrong->bytes : 1;
            if (shift <= size - length - range.first)
                named = dataFirst = range.first + shift;
            else if (range.first >= shift)
                named = dataFirst = range.first - shift;
            else
                named = range.first + shift;
        }
        if (const auto &shortRange = exchange.fault(Fault::Kind::ShortContentRange))
            length = (shortRange->bytes != 0 && shortRange->bytes < length) ? shortRange->bytes
                                                                            : std::max<uint64_t>(1, length / 2);
        headers.emplace_back("Content-Range", "bytes " + std::to_string(named) + "-" +
                                                  std::to_string(named + length - 1) + "/" + std::to_string(size));
    }
    if (!sendHead(exchange, status, headers, length))
        return false;
    if (exchange.headOnly)
        return exchange.keepAlive;
    if (const auto &stall = exchange.fault(Fault::Kind::StallBody)) {
        pause(exchange.fd, stall->milliseconds);
        return false;
    }
    uint64_t toSend = length;
    const auto &drop = exchange.fault(Fault::Kind::DropMidBody);
    if (drop)
        toSend = (drop->bytes != 0 && drop->bytes < length) ? drop->bytes : length / 2;
    if (!sendFileRange(exchange.fd, file.fd, dataFirst, toSend))
        return false;
    return !drop && exchange.keepAlive;
}

bool RangeServer::respond(Exchange &exchange, int status, Headers headers, std::string body)
{
    // 204 and 304 carry neither a body nor a Content-Length (RFC 7230 §3.3.2)
    const bool bodiless = status == 204 || status == 304;
    if (bodiless)
        body.clear();
    else if (!body.empty())
        headers.emplace_back("Content-Type", "text/plain");
    if (!sendHead(exchange, status, headers, bodiless ? std::nullopt : std::optional<uint64_t>(body.size())))
        return false;
    if (!exchange.headOnly && !body.empty() && !sendAll(exchange.fd, body, true))
        return false;
    return exchange.keepAlive;
}

bool RangeServer::sendHead(Exchange &exchange, int status, const Headers &headers,
                           std::optional<uint64_t> contentLength)
{
    std::string head = "HTTP/1.1 " + std::to_string(status) + " " + std::string(http::reasonPhrase(status)) + "\r\n";
    head += "Date: " + http::httpDate(std::time(nullptr)) + "\r\nServer: gguf-test-server\r\n";
    for (const auto &[name, value] : headers)
        head += name + ": " + value + "\r\n";
    if (contentLength)
        head += "Content-Length: " + std::to_string(*contentLength) + "\r\n";
    if (!exchange.keepAlive)
        head += "Connection: close\r\n";
    else if (exchange.request.minorVersion == 0)
        head += "Connection: keep-alive\r\n";
    head += "\r\n";
    // logged before it is sent, so a client that has the answer finds it in the log
    exchange.log.status = status;
    {
        std::lock_guard lock(m_mutex);
        m_log.push_back(exchange.log);
    }
    return sendAll(exchange.fd, head, false);
}

} // namespace gguf::test
