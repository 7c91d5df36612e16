// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>

#include <cstdint>
#include <cstring>

namespace gguf::test {

/// A vocabulary-only GGUF (no tensors, so nothing after the header moves) with its
/// tokenizer.ggml.pre string replaced, spliced byte by byte: the key, then type 8 (string), then its
/// length and bytes. Empty when the file has no such key.
inline QByteArray withPre(const QByteArray &vocabFile, const QByteArray &pre)
{
    const auto u64 = [](uint64_t v) { return QByteArray(reinterpret_cast<const char *>(&v), sizeof v); };
    const QByteArray key = "tokenizer.ggml.pre";
    const qsizetype at = vocabFile.indexOf(u64(static_cast<uint64_t>(key.size())) + key);
    if (at < 0)
        return {};
    const qsizetype valueAt = at + 8 + key.size();
    uint64_t length = 0;
    std::memcpy(&length, vocabFile.constData() + valueAt + 4, sizeof length);
    const qsizetype end = valueAt + 4 + 8 + static_cast<qsizetype>(length);
    return vocabFile.left(valueAt + 4) + u64(static_cast<uint64_t>(pre.size())) + pre + vocabFile.mid(end);
}

} // namespace gguf::test
