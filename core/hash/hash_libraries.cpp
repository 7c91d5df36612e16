// SPDX-License-Identifier: GPL-3.0-or-later
#include "hash_libraries.h"

#include "core/util/dynamic_library.h"

namespace gguf::detail {
namespace {

struct Loaded {
    HashLibraries libraries;
    bool ok = false;
    std::string error;
};

// dlopen(soname), or why not, naming the Debian package that holds it.
void *open(const char *soname, const char *package, std::string &error)
{
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle && error.empty()) {
        const char *why = dlerror();
        error = std::string("hashing needs ") + soname + " (Debian package " + package +
                "), which could not be loaded: " + (why ? why : "not found");
    }
    return handle;
}

Loaded load()
{
    Loaded l;
    void *crypto = open("libcrypto.so.3", "libssl3", l.error);
    void *xxh = open("libxxhash.so.0", "libxxhash0", l.error);
    if (!crypto || !xxh)
        return l;
    std::string missing;
    bool all = true;
#define GGUF_RESOLVE_CRYPTO(member, symbol) all &= resolveSymbol(crypto, #symbol, l.libraries.crypto.member, missing);
#define GGUF_RESOLVE_XXH(member, symbol) all &= resolveSymbol(xxh, #symbol, l.libraries.xxh.member, missing);
    GGUF_CRYPTO_FUNCTIONS(GGUF_RESOLVE_CRYPTO)
    GGUF_XXHASH_FUNCTIONS(GGUF_RESOLVE_XXH)
#undef GGUF_RESOLVE_CRYPTO
#undef GGUF_RESOLVE_XXH
    if (!all) {
        l.error = "hashing needs " + missing + ", which the loaded libcrypto or libxxhash does not have";
        return l; // the handles stay open: unloading a library is never needed here
    }
    l.ok = true;
    return l;
}

} // namespace

const HashLibraries *hashLibraries()
{
    const Loaded &l = loadedOnce<Loaded, load>();
    return l.ok ? &l.libraries : nullptr;
}

std::string hashLibrariesError()
{
    return loadedOnce<Loaded, load>().error;
}

} // namespace gguf::detail
