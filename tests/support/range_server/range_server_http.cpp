// SPDX-License-Identifier: GPL-3.0-or-later
#include "range_server_http.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <limits>
#include <string_view>

namespace gguf::test::http {

namespace {

char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// RFC 7230 tchar: the characters of a method or a header name.
bool isTokenChar(char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool isToken(std::string_view text)
{
    if (text.empty())
        return false;
    for (char c : text)
        if (!isTokenChar(c))
            return false;
    return true;
}

// Control characters other than HTAB may not appear in a field value or a request line.
bool hasControl(std::string_view text, bool allowTab)
{
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && !(allowTab && c == '\t')) || u == 0x7f)
            return true;
    }
    return false;
}

bool parseRequestLine(std::string_view line, Request &request)
{
    const std::size_t sp1 = line.find(' ');
    if (sp1 == std::string_view::npos)
        return false;
    const std::size_t sp2 = line.find(' ', sp1 + 1);
    if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
        return false;
    const std::string_view method = line.substr(0, sp1);
    const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    if (!isToken(method) || target.empty() || hasControl(target, false))
        return false;
    for (char c : target)
        if (static_cast<unsigned char>(c) > 0x7e)
            return false;
    if (version == "HTTP/1.1")
        request.minorVersion = 1;
    else if (version == "HTTP/1.0")
        request.minorVersion = 0;
    else
        return false;
    request.method = std::string(method);
    request.target = std::string(target);
    return true;
}

bool parseHeaderLine(std::string_view line, Request &request)
{
    // obs-fold (a continuation line) is rejected, as RFC 7230 §3.2.4 allows
    if (line.front() == ' ' || line.front() == '\t')
        return false;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos)
        return false;
    // no space between the name and the colon (§3.2.4): a name must be a token
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trimmed(line.substr(colon + 1));
    if (!isToken(name) || hasControl(value, true))
        return false;
    std::string lowerName(name);
    for (char &c : lowerName)
        c = lower(c);
    request.headers.emplace_back(std::move(lowerName), std::string(value));
    return true;
}

// Decimal digits only; values past 2^64 - 1 saturate, so a huge position is simply past the end.
bool parseNumber(std::string_view text, uint64_t &value)
{
    if (text.empty())
        return false;
    value = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return false;
        const auto digit = static_cast<uint64_t>(c - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
            value = std::numeric_limits<uint64_t>::max();
        else
            value = value * 10 + digit;
    }
    return true;
}

int hexValue(char c)
{
    constexpr std::string_view digits = "0123456789abcdef";
    const auto at = digits.find(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return at == std::string_view::npos ? -1 : static_cast<int>(at);
}

// The entity tags of an If-Match list, each with its quotes and a weak flag; nullopt when malformed.
std::optional<std::vector<std::pair<std::string_view, bool>>> entityTags(std::string_view list)
{
    std::vector<std::pair<std::string_view, bool>> tags;
    std::size_t i = 0;
    while (i < list.size()) {
        if (list[i] == ' ' || list[i] == '\t' || list[i] == ',') {
            ++i;
            continue;
        }
        bool weak = false;
        if (list.substr(i, 2) == "W/") {
            weak = true;
            i += 2;
        }
        if (i >= list.size() || list[i] != '"')
            return std::nullopt;
        const std::size_t close = list.find('"', i + 1);
        if (close == std::string_view::npos)
            return std::nullopt;
        tags.emplace_back(list.substr(i, close - i + 1), weak);
        i = close + 1;
    }
    return tags;
}

bool strongMatch(std::string_view tag, bool weak, std::string_view etag)
{
    return !weak && !etag.empty() && etag.front() == '"' && tag == etag;
}

} // namespace

std::optional<std::string> Request::header(std::string_view lowerName) const
{
    std::optional<std::string> value;
    for (const auto &[name, text] : headers) {
        if (name != lowerName)
            continue;
        if (value)
            *value += ", " + text;
        else
            value = text;
    }
    return value;
}

bool Request::keepAlive() const
{
    const std::string connection = header("connection").value_or(std::string());
    if (listsToken(connection, "close"))
        return false;
    return minorVersion >= 1 || listsToken(connection, "keep-alive");
}

HeadStatus parseHead(std::string_view buffer, std::size_t maxHead, Request &request, std::size_t &consumed)
{
    request = Request();
    bool sawRequestLine = false;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t newline = buffer.find('\n', pos);
        if (newline == std::string_view::npos)
            return buffer.size() > maxHead ? HeadStatus::TooLarge : HeadStatus::Incomplete;
        if (newline >= maxHead)
            return HeadStatus::TooLarge;
        std::string_view line = buffer.substr(pos, newline - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        pos = newline + 1;
        if (line.empty()) {
            // RFC 7230 §3.5: empty lines before the request line are ignored (a few of them)
            if (!sawRequestLine) {
                if (pos > 8)
                    return HeadStatus::Malformed;
                continue;
            }
            consumed = pos;
            return HeadStatus::Complete;
        }
        // a bare CR inside a line is not a line end
        if (line.find('\r') != std::string_view::npos)
            return HeadStatus::Malformed;
        if (!sawRequestLine) {
            if (!parseRequestLine(line, request))
                return HeadStatus::Malformed;
            sawRequestLine = true;
        } else if (!parseHeaderLine(line, request)) {
            return HeadStatus::Malformed;
        }
    }
}

std::string targetPath(std::string_view target)
{
    // absolute form (what a client sends to a proxy): drop the scheme and the authority
    const std::size_t scheme = target.find("://");
    if (scheme != std::string_view::npos && target.front() != '/') {
        const std::size_t slash = target.find('/', scheme + 3);
        target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
    if (target.empty() || target.front() != '/')
        return {};
    return std::string(target.substr(0, target.find_first_of("?#")));
}

std::optional<std::string> percentDecode(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '%') {
            out += text[i];
            continue;
        }
        if (i + 2 >= text.size())
            return std::nullopt;
        const int hi = hexValue(text[i + 1]);
        const int lo = hexValue(text[i + 2]);
        if (hi < 0 || lo < 0)
            return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    return out;
}

RangeResult parseRange(std::string_view value, uint64_t size, ByteRange &range)
{
    value = trimmed(value);
    const std::size_t equals = value.find('=');
    if (equals == std::string_view::npos || !equalsIgnoringCase(trimmed(value.substr(0, equals)), "bytes"))
        return RangeResult::Ignore;
    const std::string_view spec = trimmed(value.substr(equals + 1));
    // Several ranges are answered with the whole body (200): RFC 7233 §3.1 lets a server ignore
    // Range, and no client of this server asks for multipart/byteranges.
    if (spec.find(',') != std::string_view::npos)
        return RangeResult::Ignore;
    const std::size_t dash = spec.find('-');
    if (dash == std::string_view::npos)
        return RangeResult::Ignore;
    const std::string_view firstText = spec.substr(0, dash);
    const std::string_view lastText = spec.substr(dash + 1);
    uint64_t first = 0;
    uint64_t last = 0;
    if (firstText.empty()) {
        // suffix range: the last n bytes
        uint64_t n = 0;
        if (!parseNumber(lastText, n))
            return RangeResult::Ignore;
        if (n == 0 || size == 0)
            return RangeResult::Unsatisfiable;
        range = {size - std::min(n, size), size - 1};
        return RangeResult::Single;
    }
    if (!parseNumber(firstText, first))
        return RangeResult::Ignore;
    if (lastText.empty()) {
        last = std::numeric_limits<uint64_t>::max();
    } else if (!parseNumber(lastText, last) || last < first) {
        // last < first makes the range syntactically invalid (§2.1), hence ignored
        return RangeResult::Ignore;
    }
    if (first >= size)
        return RangeResult::Unsatisfiable;
    range = {first, std::min(last, size - 1)};
    return RangeResult::Single;
}

bool ifMatchHolds(std::string_view list, std::string_view etag)
{
    list = trimmed(list);
    if (list == "*")
        return true;
    const auto tags = entityTags(list);
    if (!tags)
        return false;
    for (const auto &[tag, weak] : *tags)
        if (strongMatch(tag, weak, etag))
            return true;
    return false;
}

bool ifRangeHolds(std::string_view value, std::string_view etag, std::string_view lastModified)
{
    value = trimmed(value);
    if (value.empty())
        return false;
    if (value.front() == '"' || value.substr(0, 2) == "W/") {
        const auto tags = entityTags(value);
        return tags && tags->size() == 1 && strongMatch(tags->front().first, tags->front().second, etag);
    }
    return !lastModified.empty() && value == lastModified;
}

bool listsToken(std::string_view list, std::string_view token)
{
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        if (equalsIgnoringCase(trimmed(list.substr(0, comma)), token))
            return true;
        if (comma == std::string_view::npos)
            break;
        list.remove_prefix(comma + 1);
    }
    return false;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
    return text;
}

std::string httpDate(std::time_t time)
{
    // strftime's %a and %b follow the locale, which QCoreApplication sets from the environment
    static constexpr std::array<const char *, 7> days = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static constexpr std::array<const char *, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    std::tm tm{};
    if (!gmtime_r(&time, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 || tm.tm_mon > 11)
        return {};
    char text[40];
    std::snprintf(text, sizeof text, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[static_cast<std::size_t>(tm.tm_wday)],
                  tm.tm_mday, months[static_cast<std::size_t>(tm.tm_mon)], tm.tm_year + 1900, tm.tm_hour, tm.tm_min,
                  tm.tm_sec);
    return text;
}

std::string derivedEtag(uint64_t inode, uint64_t size, int64_t mtimeNs)
{
    char text[80];
    std::snprintf(text, sizeof text, "\"%llx-%llx-%llx\"", static_cast<unsigned long long>(inode),
                  static_cast<unsigned long long>(size), static_cast<unsigned long long>(mtimeNs));
    return text;
}

std::string_view reasonPhrase(int status)
{
    static constexpr std::pair<int, std::string_view> phrases[] = {
        {200, "OK"},
        {204, "No Content"},
        {206, "Partial Content"},
        {301, "Moved Permanently"},
        {302, "Found"},
        {303, "See Other"},
        {304, "Not Modified"},
        {307, "Temporary Redirect"},
        {308, "Permanent Redirect"},
        {400, "Bad Request"},
        {401, "Unauthorized"},
        {403, "Forbidden"},
        {404, "Not Found"},
        {405, "Method Not Allowed"},
        {408, "Request Timeout"},
        {410, "Gone"},
        {412, "Precondition Failed"},
        {413, "Content Too Large"},
        {416, "Range Not Satisfiable"},
        {429, "Too Many Requests"},
        {431, "Request Header Fields Too Large"},
        {500, "Internal Server Error"},
        {501, "Not Implemented"},
        {502, "Bad Gateway"},
        {503, "Service Unavailable"},
        {504, "Gateway Timeout"},
    };
    for (const auto &[code, phrase] : phrases)
        if (code == status)
            return phrase;
    return "Status";
}

} // namespace gguf::test::http
