// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/gguf_file_checks.h"

#include "tests/support/test_printers.h"

#include <QStringList>

#include <algorithm>
#include <bit>
#include <random>

namespace gguf_file_checks {
namespace {

int64_t signExtend(uint64_t bits, unsigned bytes)
{
    const unsigned shift = 64 - 8 * bytes;
    return static_cast<int64_t>(bits << shift) >> shift;
}

} // namespace

std::vector<Refusal> refusals(const GgufFile &file)
{
    std::vector<Refusal> out;
    for (const Finding &f : file.findings())
        if (f.severity == Severity::Error)
            out.emplace_back(f.code, f.offset);
    std::sort(out.begin(), out.end());
    return out;
}

QString describe(const std::vector<Refusal> &list)
{
    QStringList parts;
    for (const auto &[code, offset] : list)
        parts << QStringLiteral("%1@%2").arg(QString::fromStdString(code)).arg(offset);
    return parts.join(QLatin1String(", "));
}

std::shared_ptr<const GgufFile> openOk(const BuiltFile &built, const OpenOptions &options)
{
    OpenResult r = GgufFile::openBuffer(built.bytes(), "<built>", options);
    if (r.error)
        qWarning("open failed: %s at %llu: %s", r.error.code.c_str(), static_cast<unsigned long long>(r.error.offset),
                 r.error.message.c_str());
    return r.error ? nullptr : r.file;
}

std::string compareValue(const Value &actual, const BuildValue &expected, uint64_t lenSize, const std::string &where)
{
    if (!actual.isValid())
        return where + ": no value";
    if (static_cast<uint32_t>(actual.type()) != expected.type)
        return where + ": type " + valueTypeName(actual.type()) + ", expected " + valueTypeName(expected.type);
    const uint32_t fixed = BuildValue::fixedSize(expected.type);
    if (fixed) {
        if (actual.size() != fixed)
            return where + ": size " + std::to_string(actual.size());
        switch (actual.type()) {
        case ValueType::Float32: {
            const auto d = actual.toDouble();
            if (!d || std::bit_cast<uint32_t>(static_cast<float>(*d)) != static_cast<uint32_t>(expected.bits))
                return where + ": float32 bits differ";
            return {};
        }
        case ValueType::Float64: {
            const auto d = actual.toDouble();
            if (!d || std::bit_cast<uint64_t>(*d) != expected.bits)
                return where + ": float64 bits differ";
            return {};
        }
        case ValueType::Bool:
            if (actual.toBool() != std::optional<bool>(expected.bits != 0))
                return where + ": bool differs";
            return {};
        case ValueType::Int8:
        case ValueType::Int16:
        case ValueType::Int32:
        case ValueType::Int64:
            if (actual.toInt() != std::optional<int64_t>(signExtend(expected.bits, fixed)))
                return where + ": signed value " + std::to_string(actual.toInt().value_or(0));
            return {};
        default:
            if (actual.toUInt() != std::optional<uint64_t>(expected.bits))
                return where + ": unsigned value " + std::to_string(actual.toUInt().value_or(0));
            return {};
        }
    }
    if (expected.isString()) {
        if (actual.toStringView() != expected.text)
            return where + ": string '" + std::string(actual.toStringView()) + "'";
        if (actual.size() != lenSize + expected.text.size() || actual.stringDataOffset() != actual.offset() + lenSize)
            return where + ": string byte range";
        return {};
    }
    const ArrayRef a = actual.array();
    if (!a.isValid() || static_cast<uint32_t>(a.elementType()) != expected.elementType)
        return where + ": array element type";
    if (a.size() != expected.elementCount())
        return where + ": array of " + std::to_string(a.size()) + " elements";
    if (a.headerOffset() != actual.offset() || a.countOffset() != actual.offset() + 4 ||
        a.elementsOffset() != actual.offset() + 4 + lenSize || a.end() != actual.offset() + actual.size())
        return where + ": array byte range";
    for (uint64_t i = 0; i < a.size(); ++i) {
        const std::string diff =
            compareValue(a.at(i), expected.element(i), lenSize, where + "[" + std::to_string(i) + "]");
        if (!diff.empty())
            return diff;
    }
    return {};
}

std::string compareEntry(const GgufFile &file, const Layout &layout, size_t i, const BuildValue &expected)
{
    const auto md = file.metadata();
    if (i >= md.size())
        return "missing entry " + std::to_string(i);
    const MetadataEntry &e = md[i];
    const KvLayout &k = layout.kvs[i];
    if (e.key != k.key || e.offset != k.offset || e.keyOffset != k.keyOffset || e.typeOffset != k.typeOffset ||
        e.value.offset() != k.valueOffset || e.end() != k.end)
        return "entry " + std::to_string(i) + " ('" + k.key + "'): positions differ";
    if (expected.isArray()) {
        const ArrayRef a = e.value.array();
        if (a.countOffset() != k.countOffset || a.elementsOffset() != k.elementsOffset)
            return "entry " + k.key + ": array field positions differ";
        for (uint64_t j = 0; j < k.elementOffsets.size(); ++j)
            if (a.at(j).offset() != k.elementOffsets[j])
                return "entry " + k.key + ": element " + std::to_string(j) + " position differs";
    }
    return compareValue(e.value, expected, layout.lenSize, k.key);
}

std::vector<uint8_t> patternBytes(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<uint8_t> out(n);
    for (uint8_t &b : out)
        b = static_cast<uint8_t>(rng());
    return out;
}

GgufBuilder sampleModel(Encoding enc)
{
    GgufBuilder b;
    b.version(enc.version).byteOrder(enc.order);
    b.kv("general.architecture", V::str("llama"))
        .kv("general.name", V::str("sample"))
        .kv("llama.context_length", V::u32(4096))
        .kv("llama.rope.freq_base", V::f32(10000.0f))
        .kv("tokenizer.ggml.tokens", V::stringArray({"<unk>", "<s>", "</s>", "hello"}))
        .kv("tokenizer.ggml.scores", V::array(ValueType::Float32, {V::f32(0), V::f32(-1), V::f32(-2), V::f32(-3)}));
    b.tensor("token_embd.weight", {64, 4}, id(GgmlType::Q8_0), patternBytes(2 * 4 * 34, 1))
        .tensor("blk.0.attn_norm.weight", {7}, id(GgmlType::F32), patternBytes(28, 2))
        .tensor("blk.0.ffn_up.weight", {256, 2}, id(GgmlType::Q4_K), patternBytes(2 * 144, 3))
        .tensor("output.weight", {3, 2, 2}, id(GgmlType::F16), patternBytes(24, 4));
    return b;
}

void verifyTensors(const GgufFile &file, const Layout &layout)
{
    QCOMPARE(file.tensors().size(), layout.tensors.size());
    for (size_t i = 0; i < layout.tensors.size(); ++i) {
        const TensorInfo &t = file.tensors()[i];
        const TensorLayout &l = layout.tensors[i];
        QCOMPARE(std::string(t.name), l.name);
        QCOMPARE(t.infoOffset, l.infoOffset);
        QCOMPARE(t.nameOffset, l.nameOffset);
        QCOMPARE(t.nDimsOffset, l.nDimsOffset);
        QCOMPARE(t.dimsOffset, l.dimsOffset);
        QCOMPARE(t.typeOffset, l.typeOffset);
        QCOMPARE(t.offsetFieldOffset, l.offsetFieldOffset);
        QCOMPARE(t.infoEnd, l.infoEnd);
        QCOMPARE(t.relativeOffset, l.relativeOffset);
        QCOMPARE(t.fileOffset, l.dataOffset);
        QCOMPARE(t.elements, l.elements);
        QVERIFY(l.typeSize.has_value());
        QCOMPARE(t.byteSize, *l.typeSize);
        QVERIFY(t.sizeFromType);
        QVERIFY(t.dataInFile);
        QCOMPARE(file.findTensor(t.name), &t);
        const auto data = file.tensorBytes(t);
        QCOMPARE(data.size(), l.dataSize);
        QVERIFY(std::equal(data.begin(), data.end(), file.source().data() + l.dataOffset));
    }
}

} // namespace gguf_file_checks
