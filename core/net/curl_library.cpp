// SPDX-License-Identifier: GPL-3.0-or-later
#include "curl_library.h"

#include "core/util/dynamic_library.h"

namespace gguf::net {
namespace {

struct Loaded {
    CurlLibrary library;
    bool ok = false;
    std::string error;
};

Loaded load()
{
    Loaded l;
    // the soname of Debian's libcurl4 (OpenSSL), the build's library; the GnuTLS flavour has the same ABI
    void *handle = nullptr;
    for (const char *name : {"libcurl.so.4", "libcurl-gnutls.so.4"})
        if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
            break;
    if (!handle) {
        const char *why = dlerror();
        l.error = "remote files need libcurl (libcurl.so.4, Debian package libcurl4), which could not be loaded: " +
                  std::string(why ? why : "not found");
        return l;
    }
    CurlLibrary &c = l.library;
    std::string missing;
    bool all = true;
#define GGUF_CURL_RESOLVE(member, symbol) all &= detail::resolveSymbol(handle, #symbol, c.member, missing);
    GGUF_CURL_FUNCTIONS(GGUF_CURL_RESOLVE)
#undef GGUF_CURL_RESOLVE
    decltype(&::curl_global_init) globalInit = nullptr;
    all &= detail::resolveSymbol(handle, "curl_global_init", globalInit, missing);
    if (!all) {
        l.error = "remote files need libcurl 7.62 or newer (the URL API); the libcurl found is older (it has no " +
                  missing + ")";
        return l; // the handle stays open: unloading a library is never needed here
    }
    if (const CURLcode code = globalInit(CURL_GLOBAL_DEFAULT); code != CURLE_OK) {
        l.error = "libcurl could not start (curl_global_init: " + std::string(c.easyStrerror(code)) + ")";
        return l;
    }
    l.ok = true;
    return l;
}

} // namespace

const CurlLibrary *curlLibrary()
{
    const Loaded &l = detail::loadedOnce<Loaded, load>();
    return l.ok ? &l.library : nullptr;
}

std::string curlLibraryError()
{
    return detail::loadedOnce<Loaded, load>().error;
}

} // namespace gguf::net
