// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/net/remote_files.h"

#include "core/net/remote_url.h"

#include <cstdlib>

namespace gguf::net {

std::shared_ptr<RangedSource> openRemote(const std::string &name, const RemoteOptions &options, Error &error,
                                         const FetchProgress &progress)
{
    const auto url = parseRemoteUrl(name, error, options.hubEndpoint);
    if (!url)
        return nullptr;
    HttpOptions http = options.http;
    if (http.token.empty() && url->hub)
        http.token = hubToken();
    return RangedSource::open(name, std::make_unique<HttpTransport>(*url, http), options.cache, error, progress);
}

void enableRemoteFiles(const RemoteOptions &options)
{
    setRemoteOpener([options](const std::string &name, Error &error, const FetchProgress &progress) {
        return std::shared_ptr<ByteSource>(openRemote(name, options, error, progress));
    });
}

RemoteOptions remoteOptionsFromEnvironment()
{
    RemoteOptions options;
    const auto number = [](const char *name) -> uint64_t {
        const char *text = std::getenv(name);
        return text && *text ? std::strtoull(text, nullptr, 10) : 0;
    };
    if (const uint64_t mb = number("GGUF_CACHE_MB"); mb > 0)
        options.cache.cacheBytes = mb << 20;
    if (const uint64_t kb = number("GGUF_BLOCK_KB"); kb > 0)
        options.cache.blockBytes = kb << 10;
    if (const char *dir = std::getenv("GGUF_CACHE_DIR"); dir && *dir)
        options.cache.folder = dir;
    if (const char *hub = std::getenv("HF_ENDPOINT"); hub && *hub)
        options.hubEndpoint = hub;
    return options;
}

} // namespace gguf::net
