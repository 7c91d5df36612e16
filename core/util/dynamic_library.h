// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Libraries loaded with dlopen the first time a feature needs them rather than when a program starts
// (libcurl for URLs, core/net; libcrypto and libxxhash for hashes, core/hash): resolving their
// functions, and loading once.

#include <dlfcn.h>

#include <string>

namespace gguf::detail {

/// Sets `out` to the function `name` of `handle`; false, and `missing` (when empty) set to `name`,
/// when the library has no such symbol.
template <typename F> bool resolveSymbol(void *handle, const char *name, F &out, std::string &missing)
{
    out = reinterpret_cast<F>(dlsym(handle, name));
    if (!out && missing.empty())
        missing = name;
    return out != nullptr;
}

/// What `Load()` returns, computed once by whichever thread asks first (a function-local static:
/// thread-safe). `T` has `ok` and `error`.
template <typename T, T (*Load)()> const T &loadedOnce()
{
    static const T loaded = Load();
    return loaded;
}

} // namespace gguf::detail
