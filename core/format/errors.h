// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gguf {

/// Why a file could not be read as GGUF (or could only be read in part).
enum class ErrorKind : uint8_t {
    None,
    NotFound,           ///< no such file
    Unreadable,         ///< exists but cannot be read: permission, directory, FIFO, device, mmap failure
    InvalidMagic,       ///< does not start with "GGUF" (includes empty and too-short files)
    UnsupportedVersion, ///< version 0 or newer than 3
    UnsupportedType,    ///< a metadata value type the format does not define, so the rest cannot be walked
    Malformed,          ///< structurally broken at `offset` (truncated, impossible count, ...)
    Cancelled,          ///< the caller's progress callback asked to stop
    Network,            ///< a remote file could not be fetched (no network, HTTP status, server without Range)
    NeedMore,           ///< internal: a remote header's fetched prefix ended; open() fetches more and retries
};

/// Stable lower-case name of an error kind ("not_found", "malformed", ...).
std::string_view errorKindName(ErrorKind kind);

/// A fatal problem: reading stopped at `offset`.
struct Error {
    ErrorKind kind = ErrorKind::None;
    std::string code;    ///< finding code, e.g. "truncated", "invalid_magic"
    uint64_t offset = 0; ///< byte offset where the problem was found
    std::string message; ///< one line naming what and where

    explicit operator bool() const { return kind != ErrorKind::None; }
};

/// How serious a validation finding is.
enum class Severity : uint8_t {
    Info,    ///< worth knowing, harmless
    Warning, ///< unusual; llama.cpp still accepts the file
    Error,   ///< llama.cpp (ggml's gguf reader) would refuse the file (docs/FORMAT.md §5)
};

std::string_view severityName(Severity severity);

/// One entry of the validation report.
struct Finding {
    Severity severity = Severity::Info;
    std::string code;    ///< stable identifier, e.g. "duplicate_key"
    uint64_t offset = 0; ///< byte offset of the offending item
    std::string message; ///< one line for people
};

} // namespace gguf
