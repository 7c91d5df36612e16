// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"
#include "core/net/http_transport.h"
#include "core/net/ranged_source.h"
#include "core/net/remote_url.h"

#include <memory>
#include <string>

namespace gguf::net {

/// How remote files are read: the cache and the HTTP reader's patience.
struct RemoteOptions {
    CacheOptions cache;
    HttpOptions http;                              ///< `token` is filled from hubToken() when left empty
    std::string hubEndpoint = kDefaultHubEndpoint; ///< where hf: names point (HF_ENDPOINT)
};

/// Opens an http(s) URL or `hf:` name as a RangedSource; nullptr with `error` naming what failed.
std::shared_ptr<RangedSource> openRemote(const std::string &name, const RemoteOptions &options, Error &error,
                                         const FetchProgress &progress = {});

/// Installs openRemote as the opener of remote names (byte_source.h), so that GgufFile::open and
/// SplitModel::open take URLs; called again, later opens use the new options.
void enableRemoteFiles(const RemoteOptions &options = {});

/// Reads GGUF_CACHE_MB (cache size in MiB), GGUF_CACHE_DIR, GGUF_BLOCK_KB and HF_ENDPOINT from the
/// environment.
RemoteOptions remoteOptionsFromEnvironment();

} // namespace gguf::net
