// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/net/remote_url.h"
#include "curl_library.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>

namespace gguf::net {
namespace {

// (a handle exists only once libcurl is loaded)
struct UrlDeleter {
    void operator()(CURLU *u) const { curlLibrary()->urlCleanup(u); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

/// A URL handle, or null when libcurl cannot be loaded.
UrlHandle newUrl()
{
    const CurlLibrary *curl = curlLibrary();
    return UrlHandle(curl ? curl->url() : nullptr);
}

CURLUcode setPart(CURLU *u, CURLUPart which, const char *text, unsigned int flags = 0)
{
    return curlLibrary()->urlSet(u, which, text, flags);
}

std::string part(CURLU *u, CURLUPart which)
{
    char *text = nullptr;
    if (curlLibrary()->urlGet(u, which, &text, 0) != CURLUE_OK || !text)
        return {};
    std::string out(text);
    curlLibrary()->free(text);
    return out;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

Error badName(const std::string &given, const std::string &why)
{
    return Error{ErrorKind::NotFound, "bad_url", 0, given + ": " + why};
}

std::string firstLine(const std::string &path)
{
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line))
        return {};
    const auto notSpace = [](unsigned char c) { return !std::isspace(c); };
    line.erase(line.begin(), std::find_if(line.begin(), line.end(), notSpace));
    line.erase(std::find_if(line.rbegin(), line.rend(), notSpace).base(), line.end());
    return line;
}

// Hub names are letters, digits, '-', '_' and '.'; paths add '/'.
bool hubNameOk(const std::string &s, bool slashes)
{
    return !s.empty() && s != "." && s != ".." && std::all_of(s.begin(), s.end(), [&](unsigned char c) {
        return std::isalnum(c) || c == '-' || c == '_' || c == '.' || (slashes && c == '/');
    });
}

} // namespace

std::string hostOf(const std::string &url)
{
    UrlHandle u = newUrl();
    if (!u || setPart(u.get(), CURLUPART_URL, url.c_str()) != CURLUE_OK)
        return {};
    return lower(part(u.get(), CURLUPART_HOST));
}

std::string originOf(const std::string &url)
{
    UrlHandle u = newUrl();
    if (!u || setPart(u.get(), CURLUPART_URL, url.c_str()) != CURLUE_OK)
        return {};
    char *port = nullptr;
    if (curlLibrary()->urlGet(u.get(), CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK || !port)
        return {};
    const std::string p(port);
    curlLibrary()->free(port);
    return lower(part(u.get(), CURLUPART_SCHEME)) + "://" + lower(part(u.get(), CURLUPART_HOST)) + ":" + p;
}

std::optional<RemoteUrl> parseRemoteUrl(const std::string &given, Error &error, const std::string &hubEndpoint)
{
    RemoteUrl out;
    out.given = given;
    out.hubHost = hostOf(hubEndpoint);
    out.hubOrigin = originOf(hubEndpoint);
    std::string endpoint = hubEndpoint;
    while (endpoint.ends_with("/"))
        endpoint.pop_back();
    if (given.starts_with("hf:")) {
        std::string rest = given.substr(3);
        while (rest.starts_with("/"))
            rest.erase(0, 1);
        std::string revision = "main";
        if (const auto at = rest.rfind('@'); at != std::string::npos) {
            revision = rest.substr(at + 1);
            rest.resize(at);
        }
        const auto s1 = rest.find('/');
        const auto s2 = s1 == std::string::npos ? s1 : rest.find('/', s1 + 1);
        if (s2 == std::string::npos || s2 + 1 >= rest.size()) {
            error = badName(given, "a hub name is hf:OWNER/REPO/PATH.gguf, optionally followed by @REVISION");
            return std::nullopt;
        }
        const std::string owner = rest.substr(0, s1), repo = rest.substr(s1 + 1, s2 - s1 - 1),
                          path = rest.substr(s2 + 1);
        if (!hubNameOk(owner, false) || !hubNameOk(repo, false) || !hubNameOk(path, true) ||
            path.find("..") != std::string::npos || !hubNameOk(revision, true)) {
            error = badName(given, "the owner, repository, path or revision holds characters the hub does not use");
            return std::nullopt;
        }
        if (out.hubHost.empty()) {
            error = badName(given, "the hub endpoint " + hubEndpoint + " (HF_ENDPOINT) is not a URL");
            return std::nullopt;
        }
        out.url = endpoint + "/" + owner + "/" + repo + "/resolve/" + revision + "/" + path;
        out.host = out.hubHost;
        out.hub = true;
        return out;
    }
    UrlHandle u = newUrl();
    if (!u) {
        error = badName(given, curlLibraryError());
        return std::nullopt;
    }
    if (setPart(u.get(), CURLUPART_URL, given.c_str()) != CURLUE_OK) {
        error = badName(given, "not a valid URL");
        return std::nullopt;
    }
    const std::string scheme = lower(part(u.get(), CURLUPART_SCHEME));
    if (scheme != "http" && scheme != "https") {
        error = badName(given, "only http:// and https:// URLs can be opened");
        return std::nullopt;
    }
    out.url = part(u.get(), CURLUPART_URL);
    out.host = lower(part(u.get(), CURLUPART_HOST));
    out.hub = !out.hubOrigin.empty() && originOf(out.url) == out.hubOrigin;
    return out;
}

std::string siblingUrl(const std::string &url, const std::string &name)
{
    UrlHandle u = newUrl();
    if (!u || setPart(u.get(), CURLUPART_URL, url.c_str()) != CURLUE_OK)
        return {};
    std::string path = part(u.get(), CURLUPART_PATH);
    const auto slash = path.rfind('/');
    path = (slash == std::string::npos ? std::string("/") : path.substr(0, slash + 1)) + name;
    setPart(u.get(), CURLUPART_PATH, path.c_str());
    setPart(u.get(), CURLUPART_QUERY, nullptr);
    setPart(u.get(), CURLUPART_FRAGMENT, nullptr);
    return part(u.get(), CURLUPART_URL);
}

std::string hubToken()
{
    if (const char *env = std::getenv("HF_TOKEN"); env && *env)
        return env;
    if (const char *p = std::getenv("HF_TOKEN_PATH"); p && *p)
        return firstLine(p);
    if (const char *home = std::getenv("HF_HOME"); home && *home)
        return firstLine(std::string(home) + "/token");
    if (const char *home = std::getenv("HOME"); home && *home)
        return firstLine(std::string(home) + "/.cache/huggingface/token");
    return {};
}

std::string redactUrl(const std::string &url)
{
    UrlHandle u = newUrl();
    if (!u || setPart(u.get(), CURLUPART_URL, url.c_str()) != CURLUE_OK)
        return url;
    setPart(u.get(), CURLUPART_USER, nullptr);
    setPart(u.get(), CURLUPART_PASSWORD, nullptr);
    setPart(u.get(), CURLUPART_QUERY, nullptr);
    return part(u.get(), CURLUPART_URL);
}

} // namespace gguf::net
