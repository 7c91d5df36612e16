// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Writing test files (built GGUF bytes, texts) into a test's temporary folder.

#include <QFile>
#include <QString>

#include <cstdint>
#include <vector>

namespace gguf::test {

/// Writes `bytes` to `path` (replacing it); false when that failed.
inline bool writeBytes(const QString &path, const std::vector<uint8_t> &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) &&
           f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<qint64>(bytes.size())) ==
               static_cast<qint64>(bytes.size());
}

} // namespace gguf::test
