// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/errors.h"

namespace gguf {

std::string_view errorKindName(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::None: return "none";
    case ErrorKind::NotFound: return "not_found";
    case ErrorKind::Unreadable: return "unreadable";
    case ErrorKind::InvalidMagic: return "invalid_magic";
    case ErrorKind::UnsupportedVersion: return "unsupported_version";
    case ErrorKind::UnsupportedType: return "unsupported_type";
    case ErrorKind::Malformed: return "malformed";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::Network: return "network";
    case ErrorKind::NeedMore: return "need_more";
    }
    return "unknown";
}

std::string_view severityName(Severity severity)
{
    switch (severity) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
    }
    return "unknown";
}

} // namespace gguf
