// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/net: libcurl, loaded the first time a URL is handled rather than when a program
// starts. Linked, it made every start of gguf-inspect and of the window map libcurl and the ~40
// libraries under it (TLS, Kerberos, LDAP, SSH…) and run their initialisers, about 3 ms, for local
// files that never use them (docs/ARCHITECTURE.md, core/net).

#include <curl/curl.h>

#include <string>

namespace gguf::net {

/// The libcurl functions core/net calls: (member, libcurl's name), listed once for the struct
/// and for resolving them.
#define GGUF_CURL_FUNCTIONS(X)                                                                                         \
    X(easyInit, curl_easy_init)                                                                                        \
    X(easyCleanup, curl_easy_cleanup)                                                                                  \
    X(easyReset, curl_easy_reset)                                                                                      \
    X(easySetopt, curl_easy_setopt)                                                                                    \
    X(easyPerform, curl_easy_perform)                                                                                  \
    X(easyStrerror, curl_easy_strerror)                                                                                \
    X(slistAppend, curl_slist_append)                                                                                  \
    X(slistFreeAll, curl_slist_free_all)                                                                               \
    X(url, curl_url)                                                                                                   \
    X(urlCleanup, curl_url_cleanup)                                                                                    \
    X(urlSet, curl_url_set)                                                                                            \
    X(urlGet, curl_url_get)                                                                                            \
    X(free, curl_free)

/// Those functions, with libcurl's own signatures.
struct CurlLibrary {
#define GGUF_CURL_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
    GGUF_CURL_FUNCTIONS(GGUF_CURL_MEMBER)
#undef GGUF_CURL_MEMBER
};

/// libcurl (libcurl.so.4, else libcurl-gnutls.so.4), loaded and initialised (curl_global_init)
/// once, by whichever thread asks first; nullptr when it cannot be loaded (curlLibraryError says why).
const CurlLibrary *curlLibrary();

/// "remote files need libcurl (libcurl.so.4), which could not be loaded: …", or empty once loaded.
std::string curlLibraryError();

} // namespace gguf::net
