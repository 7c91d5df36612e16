// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The text of HTTP/1.1 for RangeServer (private to it): request heads, byte ranges, validators and
// dates. Pure functions, no sockets, so the parsing can be read and reasoned about on its own.

#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf::test::http {

/// A request head as received; header names in lower case, values without surrounding spaces.
struct Request {
    std::string method;
    std::string target;
    int minorVersion = 1; ///< HTTP/1.0 or HTTP/1.1
    std::vector<std::pair<std::string, std::string>> headers;

    /// The value of a header (repeated fields joined by ", "), nullopt when absent.
    std::optional<std::string> header(std::string_view lowerName) const;
    /// Whether the connection stays open after the answer (HTTP/1.1 unless "close", 1.0 if "keep-alive").
    bool keepAlive() const;
};

enum class HeadStatus { Incomplete, Complete, Malformed, TooLarge };

/// Parses the request head at the start of `buffer` (CRLF or bare LF line ends; empty lines before
/// the request line are skipped). On Complete, `consumed` is the length of the head, blank line included.
/// A head longer than `maxHead` bytes is TooLarge; anything not HTTP/1.x is Malformed.
HeadStatus parseHead(std::string_view buffer, std::size_t maxHead, Request &request, std::size_t &consumed);

/// The path of a request target (origin or absolute form) without query or fragment; "" when the
/// target names no path.
std::string targetPath(std::string_view target);

/// `text` with %XX escapes decoded; nullopt when an escape is malformed.
std::optional<std::string> percentDecode(std::string_view text);

/// An inclusive byte range inside a representation.
struct ByteRange {
    uint64_t first = 0;
    uint64_t last = 0;
};

enum class RangeResult {
    Ignore,       ///< no usable single range: absent, another unit, several ranges, invalid syntax
    Single,       ///< one satisfiable range, clamped to the size
    Unsatisfiable ///< one range that starts at or after the end (or a zero-length suffix)
};

/// Interprets a Range header value ("bytes=a-b", "bytes=a-", "bytes=-n") against a body of `size` bytes.
RangeResult parseRange(std::string_view value, uint64_t size, ByteRange &range);

/// Whether an If-Match list ("*" or entity tags) matches `etag` by strong comparison.
bool ifMatchHolds(std::string_view list, std::string_view etag);

/// Whether an If-Range value (an entity tag or an HTTP date) names the current representation:
/// strong comparison with `etag`, or equality with `lastModified` ("" when not sent: never equal).
bool ifRangeHolds(std::string_view value, std::string_view etag, std::string_view lastModified);

/// Whether a comma-separated header value lists `token` (case-insensitive), as Connection does.
bool listsToken(std::string_view list, std::string_view token);

/// Case-insensitive ASCII comparison.
bool equalsIgnoringCase(std::string_view a, std::string_view b);

/// `text` without leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view text);

/// An IMF-fixdate (RFC 7231 §7.1.1.1), "Sun, 06 Nov 1994 08:49:37 GMT", independent of the locale.
std::string httpDate(std::time_t time);

/// The strong entity tag derived from a file's identity: inode, size and modification time in ns.
std::string derivedEtag(uint64_t inode, uint64_t size, int64_t mtimeNs);

/// The reason phrase of a status code ("Partial Content"), "Status" for codes it does not know.
std::string_view reasonPhrase(int status);

} // namespace gguf::test::http
