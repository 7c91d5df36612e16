// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to core/hash: OpenSSL's libcrypto (SHA-1, SHA-256) and libxxhash (XXH64), loaded the
// first time something is hashed rather than when a program starts — as core/net loads libcurl:
// linked, libcrypto alone added 0.6–1.0 ms to every start of gguf-inspect (3.4 ms) for commands
// that never hash (docs/HASH.md).
#include <openssl/evp.h>
#include <xxhash.h>

#include <string>

namespace gguf::detail {

/// The functions core/hash calls: (member, the library's name).
#define GGUF_CRYPTO_FUNCTIONS(X)                                                                                       \
    X(mdCtxNew, EVP_MD_CTX_new)                                                                                        \
    X(mdCtxFree, EVP_MD_CTX_free)                                                                                      \
    X(digestInit, EVP_DigestInit_ex)                                                                                   \
    X(digestUpdate, EVP_DigestUpdate)                                                                                  \
    X(digestFinal, EVP_DigestFinal_ex)                                                                                 \
    X(sha1, EVP_sha1)                                                                                                  \
    X(sha256, EVP_sha256)
#define GGUF_XXHASH_FUNCTIONS(X)                                                                                       \
    X(createState, XXH64_createState)                                                                                  \
    X(freeState, XXH64_freeState)                                                                                      \
    X(reset, XXH64_reset)                                                                                              \
    X(update, XXH64_update)                                                                                            \
    X(digest, XXH64_digest)                                                                                            \
    X(canonical, XXH64_canonicalFromHash)

struct HashLibraries {
#define GGUF_HASH_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
    struct {
        GGUF_CRYPTO_FUNCTIONS(GGUF_HASH_MEMBER)
    } crypto;
    struct {
        GGUF_XXHASH_FUNCTIONS(GGUF_HASH_MEMBER)
    } xxh;
#undef GGUF_HASH_MEMBER
};

/// Both libraries (libcrypto.so.3, libxxhash.so.0), loaded once by whichever thread asks first;
/// nullptr when either cannot be loaded (hashLibrariesError says why).
const HashLibraries *hashLibraries();
std::string hashLibrariesError();

} // namespace gguf::detail
