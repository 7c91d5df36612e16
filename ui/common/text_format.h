// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How every view writes offsets, sizes and counts, so that one offset reads the same on every page,
// in the status bar and in a tooltip.

#include <QString>

#include <cstdint>
#include <string_view>

namespace gguf {
struct TensorInfo;
enum class StatsStatus : uint8_t;
} // namespace gguf

namespace TextFormat {

/// A byte offset or address: "0x1a" (lower-case hex, no padding).
QString offset(quint64 offset);
/// An offset with its decimal value: "0x1a (26)".
QString offsetAndDecimal(quint64 offset);
/// A byte range [begin, end): "0x1a–0x2c".
QString range(quint64 begin, quint64 end);
/// A count, grouped as the locale does: "11,340,032".
QString count(quint64 n);
/// A byte count for people: "912 bytes", "4.50 MiB".
QString byteSize(quint64 bytes);
/// UTF-8 text viewed in the mapping, as a QString.
inline QString fromView(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

/// "4096 × 32000": a tensor's dims, innermost first ("scalar" when it has none).
QString dims(const gguf::TensorInfo &tensor);

/// How a pass over a tensor's values ended, for a sentence: "ok", "cancelled", "values of this
/// type cannot be decoded", "the tensor's data is not inside the file (…)".
QString statsStatus(gguf::StatsStatus status);

} // namespace TextFormat
