// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/errors.h"

#include <optional>
#include <string>

namespace gguf::net {

/// The Hugging Face hub: where `hf:` names point, and the only host a hub token is sent to.
/// HF_ENDPOINT names another (a mirror), as it does for the hub's own tools.
inline constexpr const char *kDefaultHubEndpoint = "https://huggingface.co";

/// A remote file's address: what the user typed, and the http(s) URL it stands for.
struct RemoteUrl {
    std::string given;     ///< as typed: "https://…" or "hf:owner/repo/path.gguf@rev"
    std::string url;       ///< the http(s) URL requested first
    std::string host;      ///< lower-case host of `url`
    std::string hubHost;   ///< lower-case host of the hub endpoint
    std::string hubOrigin; ///< originOf() the hub endpoint: the only place a token goes to
    bool hub = false;      ///< `url` is on the hub (a token may be sent)
};

/// Parses an http(s) URL or the hub shorthand `hf:OWNER/REPO/PATH[@REVISION]` (resolved to
/// ENDPOINT/OWNER/REPO/resolve/REVISION/PATH, REVISION "main" when left out).
/// nullopt, with `error` naming what is wrong, for anything else.
std::optional<RemoteUrl> parseRemoteUrl(const std::string &given, Error &error,
                                        const std::string &hubEndpoint = kDefaultHubEndpoint);

/// The lower-case host of an absolute http(s) URL; empty when there is none.
std::string hostOf(const std::string &url);
/// "scheme://host:port" of an absolute URL (the port spelled out even when it is the default),
/// lower-case; empty when there is none. A token goes only where this equals the hub's.
std::string originOf(const std::string &url);

/// `url` with its last path segment replaced by `name` (query and fragment dropped); for finding
/// the other shards of a split set next to the one opened.
std::string siblingUrl(const std::string &url, const std::string &name);

/// The hub token: $HF_TOKEN, else the file $HF_TOKEN_PATH, $HF_HOME/token or
/// ~/.cache/huggingface/token (first line, trimmed). Empty when there is none.
std::string hubToken();

/// `url` with any user:password and query removed, for messages (signed URLs carry secrets).
std::string redactUrl(const std::string &url);

} // namespace gguf::net
