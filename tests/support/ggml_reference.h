// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The files of tests/data/ggml-reference/ (one GGUF per ggml type with the values ggml decoded
// from it, see that folder's README.md) as the decoder tests read them, and bit-level comparison.

#include "tests/support/test_paths.h"

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace gguf::test {

inline const QString kGgmlReferenceDir = dataPath(u"ggml-reference/");

inline QByteArray readWholeFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return file.readAll();
}

inline std::span<const uint8_t> bytesOf(const QByteArray &data, qsizetype offset = 0, qsizetype size = -1)
{
    const qsizetype length = size < 0 ? data.size() - offset : size;
    return {reinterpret_cast<const uint8_t *>(data.constData()) + offset, static_cast<size_t>(length)};
}

inline uint32_t bitsOf(float f)
{
    return std::bit_cast<uint32_t>(f);
}

/// Index of the first element whose bit pattern differs, or -1.
inline qsizetype firstBitMismatch(const std::vector<float> &got, const float *want, size_t count)
{
    for (size_t i = 0; i < count; ++i)
        if (bitsOf(got[i]) != bitsOf(want[i]))
            return static_cast<qsizetype>(i);
    return -1;
}

/// One entry of ggml-reference/manifest.json: a file, its one tensor and ggml's values for it.
struct ReferenceTensor {
    QString file;     ///< base name without ".gguf" / ".f32"
    QString typeName; ///< ggml's name, e.g. "q4_K"
    uint32_t typeId = 0;
    qint64 elements = 0;
    qint64 dataOffset = 0; ///< absolute offset of the tensor data in the .gguf
    qint64 dataBytes = 0;
    qint64 referenceOffset = 0; ///< offset of its values in the .f32
};

inline std::vector<ReferenceTensor> ggmlReferenceTensors()
{
    std::vector<ReferenceTensor> out;
    const QByteArray manifest = readWholeFile(kGgmlReferenceDir + QStringLiteral("manifest.json"));
    const QJsonArray tensors = QJsonDocument::fromJson(manifest).object().value(QStringLiteral("tensors")).toArray();
    for (const QJsonValue &value : tensors) {
        const QJsonObject t = value.toObject();
        ReferenceTensor r;
        r.file = t.value(QStringLiteral("file")).toString().chopped(5);
        r.typeName = t.value(QStringLiteral("ggml_type_name")).toString();
        r.typeId = static_cast<uint32_t>(t.value(QStringLiteral("ggml_type")).toInt());
        r.elements = t.value(QStringLiteral("n_elements")).toInteger();
        r.dataOffset = t.value(QStringLiteral("data_offset")).toInteger();
        r.dataBytes = t.value(QStringLiteral("n_bytes")).toInteger();
        r.referenceOffset = t.value(QStringLiteral("f32_offset_bytes")).toInteger();
        out.push_back(r);
    }
    return out;
}

/// ggml's values for `r`, from its .f32 file (empty if the file is missing or short).
inline std::vector<float> ggmlReferenceValues(const ReferenceTensor &r)
{
    const QByteArray bytes = readWholeFile(kGgmlReferenceDir + r.file + QStringLiteral(".f32"));
    if (bytes.size() < r.referenceOffset + r.elements * 4)
        return {};
    std::vector<float> values(static_cast<size_t>(r.elements));
    std::memcpy(values.data(), bytes.constData() + r.referenceOffset, values.size() * sizeof(float));
    return values;
}

} // namespace gguf::test
