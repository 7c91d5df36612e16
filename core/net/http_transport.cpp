// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/net/http_transport.h"
#include "curl_library.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

namespace gguf::net {
namespace {

std::string trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s);
}

bool startsWithNoCase(std::string_view s, std::string_view prefix)
{
    return s.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
}

// "bytes a-b/total" (total may be "*"); false when it is not that shape.
bool parseContentRange(const std::string &text, uint64_t &first, uint64_t &last, std::optional<uint64_t> &total)
{
    unsigned long long a = 0, b = 0, t = 0;
    char star = 0;
    if (std::sscanf(text.c_str(), "bytes %llu-%llu/%llu", &a, &b, &t) == 3)
        total = t;
    else if (std::sscanf(text.c_str(), "bytes %llu-%llu/%c", &a, &b, &star) == 3 && star == '*')
        total.reset();
    else
        return false;
    if (b < a)
        return false;
    first = a;
    last = b;
    return true;
}

// "bytes */total" of a 416 answer.
std::optional<uint64_t> unsatisfiedTotal(const std::string &text)
{
    unsigned long long t = 0;
    if (std::sscanf(text.c_str(), "bytes */%llu", &t) == 1)
        return t;
    return std::nullopt;
}

Error networkError(std::string code, std::string message)
{
    return Error{ErrorKind::Network, std::move(code), 0, std::move(message)};
}

std::string resolveLocation(const std::string &base, const std::string &location)
{
    const CurlLibrary *curl = curlLibrary(); // loaded: a transfer got this far
    CURLU *u = curl ? curl->url() : nullptr;
    if (!u)
        return {};
    std::string out;
    if (curl->urlSet(u, CURLUPART_URL, base.c_str(), 0) == CURLUE_OK &&
        curl->urlSet(u, CURLUPART_URL, location.c_str(), 0) == CURLUE_OK) {
        char *text = nullptr;
        if (curl->urlGet(u, CURLUPART_URL, &text, 0) == CURLUE_OK && text) {
            out = text;
            curl->free(text);
        }
    }
    curl->urlCleanup(u);
    return out;
}

} // namespace

/// What one answer said and how its body went; forgotten when another answer starts.
struct HttpAnswer {
    long status = 0;
    std::string location, contentRange, etag, lastModified;
    std::optional<uint64_t> contentLength;
    long retryAfterS = -1;
    bool checked = false; ///< the headers were judged at the first body byte
    bool ignoresRange = false;
    uint64_t skip = 0;   ///< leading body bytes to drop (a whole-file answer to a ranged read)
    uint64_t wanted = 0; ///< body bytes to pass on
    uint64_t delivered = 0;
    uint64_t total = 0;     ///< the file size the answer gave
    bool satisfied = false; ///< every wanted byte was passed on (the rest of the body is not needed)
    bool sinkStopped = false;
    bool changed = false;
    Error refusal; ///< why the body was refused
};

/// One HTTP exchange: the request, and the answer as it arrives.
struct HttpTransport::Exchange : HttpAnswer {
    uint64_t offset = 0, size = 0;
    bool first = false;
    const ByteSink *sink = nullptr;
    const FetchProgress *progress = nullptr;
    const RemoteInfo *known = nullptr; ///< validators from open(); null during open()
    uint64_t wholeFileLimit = 0;
};

namespace {

size_t onHeader(char *buffer, size_t size, size_t count, void *user)
{
    auto &x = *static_cast<HttpTransport::Exchange *>(user);
    const size_t n = size * count;
    const std::string_view line(buffer, n);
    if (line.starts_with("HTTP/")) {
        // a new answer (after an interim 1xx): forget what the last one said
        static_cast<HttpAnswer &>(x) = HttpAnswer();
        const auto space = line.find(' ');
        if (space != std::string_view::npos)
            x.status = std::strtol(std::string(line.substr(space + 1, 3)).c_str(), nullptr, 10);
        return n;
    }
    const auto colon = line.find(':');
    if (colon == std::string_view::npos)
        return n;
    const std::string_view name = line.substr(0, colon);
    const std::string value = trim(line.substr(colon + 1));
    if (startsWithNoCase(name, "location") && name.size() == 8)
        x.location = value;
    else if (startsWithNoCase(name, "content-range") && name.size() == 13)
        x.contentRange = value;
    else if (startsWithNoCase(name, "etag") && name.size() == 4)
        x.etag = value;
    else if (startsWithNoCase(name, "last-modified") && name.size() == 13)
        x.lastModified = value;
    else if (startsWithNoCase(name, "content-length") && name.size() == 14)
        x.contentLength = std::strtoull(value.c_str(), nullptr, 10);
    else if (startsWithNoCase(name, "retry-after") && name.size() == 11)
        x.retryAfterS = std::strtol(value.c_str(), nullptr, 10);
    return n;
}

// Judges the answer at its first body byte: is it the range asked for, of the file opened?
bool judge(HttpTransport::Exchange &x)
{
    x.checked = true;
    if (x.status != 200 && x.status != 206)
        return true; // an error page: its body is dropped
    if (x.status == 206) {
        uint64_t first = 0, last = 0;
        std::optional<uint64_t> total;
        if (!parseContentRange(x.contentRange, first, last, total) || first != x.offset) {
            x.refusal =
                networkError("bad_content_range", "the server answered with the wrong range (Content-Range: " +
                                                      (x.contentRange.empty() ? "none" : x.contentRange) +
                                                      ", asked for bytes from " + std::to_string(x.offset) + ")");
            return false;
        }
        if (x.first && !total) {
            x.refusal = networkError(
                "no_size", "the server does not say how large the file is (Content-Range: " + x.contentRange + ")");
            return false;
        }
        x.total = total.value_or(x.known ? x.known->size : 0);
        x.wanted = std::min(x.size, last - first + 1);
    } else {
        // 200: the whole file, Range ignored
        x.ignoresRange = true;
        x.total = x.contentLength.value_or(x.known ? x.known->size : 0);
        if (!x.contentLength || *x.contentLength > x.wholeFileLimit) {
            x.refusal =
                networkError("range_ignored", "the server ignores Range requests: it would send the whole file" +
                                                  (x.contentLength ? " (" + std::to_string(*x.contentLength) + " bytes)"
                                                                   : std::string()) +
                                                  " to read a part of it; download the file instead");
            return false;
        }
        x.skip = x.offset;
        // the first answer keeps the whole (small) file: no other request will be needed
        x.wanted = x.first ? x.total : x.offset < x.total ? std::min(x.size, x.total - x.offset) : 0;
    }
    if (x.known) {
        const RemoteInfo &k = *x.known;
        if ((!k.etag.empty() && !x.etag.empty() && k.etag != x.etag) ||
            (!k.lastModified.empty() && !x.lastModified.empty() && k.lastModified != x.lastModified) ||
            (x.total != 0 && x.total != k.size)) {
            x.changed = true;
            x.refusal = networkError("changed_on_server", "the file changed on the server since it was opened");
            return false;
        }
    }
    return true;
}

size_t onBody(char *buffer, size_t size, size_t count, void *user)
{
    auto &x = *static_cast<HttpTransport::Exchange *>(user);
    const size_t n = size * count;
    if (!x.checked && !judge(x))
        return 0;
    if (x.status != 200 && x.status != 206)
        return n;
    const uint8_t *p = reinterpret_cast<const uint8_t *>(buffer);
    size_t left = n;
    const size_t drop = static_cast<size_t>(std::min<uint64_t>(x.skip, left));
    p += drop;
    left -= drop;
    x.skip -= drop;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left, x.wanted - x.delivered));
    if (take > 0) {
        if (!(*x.sink)(p, take)) {
            x.sinkStopped = true;
            return 0;
        }
        x.delivered += take;
    }
    if (x.delivered == x.wanted && x.wanted > 0) {
        x.satisfied = true;
        // the rest of an over-long body is not needed: stop the transfer here
        if (take < left || (x.ignoresRange && x.delivered + x.offset < x.total))
            return 0;
    }
    return n;
}

int onProgress(void *user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    const auto &x = *static_cast<HttpTransport::Exchange *>(user);
    if (x.progress && *x.progress && !(*x.progress)(x.delivered, x.wanted ? x.wanted : x.size))
        return 1;
    return 0;
}

} // namespace

HttpTransport::HttpTransport(RemoteUrl url, HttpOptions options)
    : m_url(std::move(url)), m_options(std::move(options)), m_resolved(m_url.url)
{
}

HttpTransport::~HttpTransport()
{
    for (void *h : m_idle) // (a handle exists only once libcurl is loaded)
        curlLibrary()->easyCleanup(static_cast<CURL *>(h));
}

std::string HttpTransport::resolvedUrl() const
{
    std::lock_guard lock(m_mutex);
    return m_resolved;
}

void *HttpTransport::takeHandle()
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            void *h = m_idle.back();
            m_idle.pop_back();
            return h;
        }
    }
    const CurlLibrary *curl = curlLibrary();
    return curl ? curl->easyInit() : nullptr;
}

void HttpTransport::giveBack(void *handle)
{
    std::lock_guard lock(m_mutex);
    m_idle.push_back(handle);
}

bool HttpTransport::pause(int ms, const FetchProgress &progress, uint64_t done, uint64_t total) const
{
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < until) {
        if (progress && !progress(done, total))
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(ms, 50)));
    }
    return true;
}

HttpTransport::Outcome HttpTransport::exchange(uint64_t offset, uint64_t size, bool first, const ByteSink &sink,
                                               const FetchProgress &progress, uint64_t &delivered, Error &error,
                                               long &retryAfterS)
{
    const std::string start = resolvedUrl();
    std::string url = start;
    for (int hop = 0;; ++hop) {
        if (hop > m_options.maxRedirects) {
            error =
                networkError("too_many_redirects", "more than " + std::to_string(m_options.maxRedirects) +
                                                       " redirects (a redirect loop?) from " + redactUrl(m_url.url));
            return Outcome::Fail;
        }
        Exchange x;
        x.offset = offset;
        x.size = size;
        x.first = first;
        x.sink = &sink;
        x.progress = &progress;
        x.known = first ? nullptr : &m_info;
        x.wholeFileLimit = m_options.wholeFileLimit;

        CURL *curl = static_cast<CURL *>(takeHandle());
        if (!curl) {
            const std::string why = curlLibraryError();
            error = networkError("curl", why.empty() ? "could not start an HTTP request" : why);
            return Outcome::Fail;
        }
        const CurlLibrary &lib = *curlLibrary();
        lib.easyReset(curl);
        const std::string range = std::to_string(offset) + "-" + std::to_string(offset + size - 1);
        curl_slist *headers = nullptr;
        // the token goes to the hub's own host and nowhere else (not to the CDN it redirects to)
        const bool hub = !m_url.hubOrigin.empty() && originOf(url) == m_url.hubOrigin;
        if (hub && !m_options.token.empty())
            headers = lib.slistAppend(headers, ("Authorization: Bearer " + m_options.token).c_str());
        lib.easySetopt(curl, CURLOPT_URL, url.c_str());
        lib.easySetopt(curl, CURLOPT_RANGE, range.c_str());
        lib.easySetopt(curl, CURLOPT_HTTPHEADER, headers);
        lib.easySetopt(curl, CURLOPT_USERAGENT, "gguf-explorer");
        lib.easySetopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
        lib.easySetopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
        lib.easySetopt(curl, CURLOPT_NOSIGNAL, 1L);
        lib.easySetopt(curl, CURLOPT_CONNECTTIMEOUT, m_options.connectTimeoutS);
        lib.easySetopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
        lib.easySetopt(curl, CURLOPT_LOW_SPEED_TIME, m_options.stallTimeoutS);
        lib.easySetopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
        lib.easySetopt(curl, CURLOPT_HEADERDATA, &x);
        lib.easySetopt(curl, CURLOPT_WRITEFUNCTION, onBody);
        lib.easySetopt(curl, CURLOPT_WRITEDATA, &x);
        lib.easySetopt(curl, CURLOPT_NOPROGRESS, 0L);
        lib.easySetopt(curl, CURLOPT_XFERINFOFUNCTION, onProgress);
        lib.easySetopt(curl, CURLOPT_XFERINFODATA, &x);
        ++m_requests;
        const CURLcode code = lib.easyPerform(curl);
        lib.slistFreeAll(headers);
        giveBack(curl);
        m_bytes += x.delivered;
        delivered = x.delivered;
        retryAfterS = x.retryAfterS;
        if (x.changed)
            m_changed = true;

        const std::string where = redactUrl(url);
        if (x.satisfied || (code == CURLE_OK && x.checked && x.refusal.kind == ErrorKind::None &&
                            (x.status == 200 || x.status == 206))) {
            if (first) {
                m_info.size = x.total;
                m_info.etag = x.etag;
                m_info.lastModified = x.lastModified;
                m_info.wholeFile = x.ignoresRange;
            }
            std::lock_guard lock(m_mutex);
            m_resolved = url;
            return Outcome::Done;
        }
        if (x.refusal) {
            error = x.refusal;
            error.message = where + ": " + error.message;
            return Outcome::Fail;
        }
        if (code == CURLE_ABORTED_BY_CALLBACK || x.sinkStopped) {
            error = Error{ErrorKind::Cancelled, "cancelled", offset, "the download was cancelled"};
            return Outcome::Fail;
        }
        if (code != CURLE_OK) {
            const bool retry = code != CURLE_COULDNT_RESOLVE_HOST && code != CURLE_COULDNT_RESOLVE_PROXY &&
                               code != CURLE_UNSUPPORTED_PROTOCOL && code != CURLE_URL_MALFORMAT &&
                               code != CURLE_PEER_FAILED_VERIFICATION && code != CURLE_SSL_CONNECT_ERROR;
            std::string why = lib.easyStrerror(code);
            if (code == CURLE_COULDNT_RESOLVE_HOST)
                why = "cannot resolve the host name " + hostOf(url) + " (no network, or a typing error?)";
            else if (code == CURLE_COULDNT_CONNECT)
                why = "cannot connect to " + hostOf(url);
            else if (code == CURLE_OPERATION_TIMEDOUT)
                why = "the server stopped answering (timed out)";
            else if (code == CURLE_PARTIAL_FILE || code == CURLE_RECV_ERROR || code == CURLE_GOT_NOTHING)
                why = "the connection broke in the middle of an answer";
            error = networkError(code == CURLE_COULDNT_RESOLVE_HOST ? "dns" : "transfer", where + ": " + why);
            return retry ? Outcome::Retry : Outcome::Fail;
        }
        if (first && x.status == 200 && !x.checked && x.contentLength == 0) {
            // an empty file, sent whole
            m_info = RemoteInfo{0, x.etag, x.lastModified, true};
            std::lock_guard lock(m_mutex);
            m_resolved = url;
            return Outcome::Done;
        }
        // the transfer ended well but the answer is not the body asked for
        if (x.status >= 300 && x.status < 400 && !x.location.empty()) {
            url = resolveLocation(url, x.location);
            if (url.empty()) {
                error = networkError("bad_redirect", where + ": a redirect to an unusable address");
                return Outcome::Fail;
            }
            continue;
        }
        if ((x.status == 401 || x.status == 403 || x.status == 404 || x.status == 410) && start != m_url.url) {
            // a remembered redirect target (a signed URL) may have expired: start again from the given URL
            std::lock_guard lock(m_mutex);
            m_resolved = m_url.url;
            error = networkError("redirect_expired", where + ": HTTP " + std::to_string(x.status) +
                                                         " from where an earlier redirect led; asking again");
            return Outcome::Retry;
        }
        const std::string status = "HTTP " + std::to_string(x.status);
        if (x.status == 401 || x.status == 403) {
            std::string how = m_url.hub ? (m_options.token.empty()
                                               ? " This repository is gated or private: accept its terms on the hub "
                                                 "and give a token in HF_TOKEN or with `huggingface-cli login`."
                                               : " This repository is gated or private and the token given (HF_TOKEN "
                                                 "or the hub's token file) has no access to it.")
                                        : std::string(" The server wants credentials this program does not send.");
            error =
                networkError(x.status == 401 ? "unauthorized" : "forbidden",
                             where + ": " + status + (x.status == 401 ? " (login required)." : " (forbidden).") + how);
            return Outcome::Fail;
        }
        if (x.status == 404 || x.status == 410) {
            error = Error{ErrorKind::NotFound, "not_found", 0, where + ": no such file on the server (" + status + ")"};
            return Outcome::Fail;
        }
        if (x.status == 416) {
            if (const auto total = unsatisfiedTotal(x.contentRange); total && first) {
                // an empty file: nothing to read
                m_info.size = *total;
                std::lock_guard lock(m_mutex);
                m_resolved = url;
                return Outcome::Done;
            }
            m_changed = !first;
            error = networkError(
                first ? "range_not_satisfiable" : "changed_on_server",
                where + ": " + status +
                    (first ? " (range not satisfiable)" : ": the file is shorter than when it was opened"));
            return Outcome::Fail;
        }
        error = networkError("http_status", where + ": the server answered " + status);
        return x.status == 408 || x.status == 429 || x.status >= 500 ? Outcome::Retry : Outcome::Fail;
    }
}

bool HttpTransport::open(uint64_t firstBytes, RemoteInfo &info, const ByteSink &sink, const FetchProgress &progress,
                         Error &error)
{
    uint64_t delivered = 0;
    long retryAfter = -1;
    for (int attempt = 0;; ++attempt) {
        const Outcome o =
            exchange(0, std::max<uint64_t>(firstBytes, 1), true, sink, progress, delivered, error, retryAfter);
        if (o == Outcome::Done) {
            info = m_info;
            return true;
        }
        // bytes already passed on cannot be taken back: only a clean failure is tried again
        if (o == Outcome::Fail || attempt >= m_options.retries || delivered > 0)
            return false;
        const int wait = retryAfter >= 0 ? int(std::min<long>(retryAfter, 30) * 1000) : m_options.backoffMs << attempt;
        if (!pause(wait, progress, 0, firstBytes)) {
            error = Error{ErrorKind::Cancelled, "cancelled", 0, "the download was cancelled"};
            return false;
        }
    }
}

bool HttpTransport::read(uint64_t offset, uint64_t size, const ByteSink &sink, const FetchProgress &progress,
                         Error &error)
{
    uint64_t done = 0;
    int failures = 0;
    while (done < size) {
        uint64_t delivered = 0;
        long retryAfter = -1;
        const FetchProgress overall = [&](uint64_t d, uint64_t) { return !progress || progress(done + d, size); };
        error = {};
        const Outcome o = exchange(offset + done, size - done, false, sink, overall, delivered, error, retryAfter);
        done += delivered;
        if (o != Outcome::Done && !error)
            error = networkError("transfer", redactUrl(m_url.url) + ": the transfer failed");
        if (o == Outcome::Done) {
            // a shorter answer than asked for is legal: ask again for the rest
            if (delivered == 0) {
                error = networkError("empty_answer", redactUrl(m_url.url) + ": the server sent no bytes of the range");
                return false;
            }
            failures = 0;
            continue;
        }
        if (o == Outcome::Fail || failures >= m_options.retries)
            return false;
        // progress resets the count: a connection that breaks now and then still gets through
        failures = delivered > 0 ? 0 : failures + 1;
        const int wait = retryAfter >= 0 ? int(std::min<long>(retryAfter, 30) * 1000)
                                         : m_options.backoffMs << std::max(0, failures - 1);
        if (!pause(wait, progress, done, size)) {
            error = Error{ErrorKind::Cancelled, "cancelled", offset, "the download was cancelled"};
            return false;
        }
    }
    return true;
}

} // namespace gguf::net
