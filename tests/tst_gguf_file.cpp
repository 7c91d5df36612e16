// SPDX-License-Identifier: GPL-3.0-or-later
// GgufFile on well-formed files: every value type, versions, byte orders, header layouts,
// alignments, lazy arrays, getters, peeking, tensor data and the tensor types ggml cannot size.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_printers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>

using namespace gguf;
using namespace gguf::test;

struct Encoding {
    uint32_t version = 3;
    Endian order = Endian::Little;
};

struct Getters {
    std::string architecture;
    std::string name;
    std::optional<uint64_t> contextLength, embeddingLength, headCount, headCountKv, blockCount, feedForwardLength,
        vocabSize, fileType;
};

Q_DECLARE_METATYPE(gguf::test::BuildValue)
Q_DECLARE_METATYPE(gguf::test::BuiltFile)
Q_DECLARE_METATYPE(Encoding)
Q_DECLARE_METATYPE(Getters)

namespace {

using Refusal = std::pair<std::string, uint64_t>;

// The findings llama.cpp would refuse the file for, as (code, offset), sorted.
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

#define COMPARE_REFUSALS(file, expected)                                                                               \
    do {                                                                                                               \
        auto exp_ = (expected);                                                                                        \
        std::sort(exp_.begin(), exp_.end());                                                                           \
        const auto act_ = refusals(file);                                                                              \
        QVERIFY2(act_ == exp_,                                                                                         \
                 qPrintable(QStringLiteral("refusals [%1], expected [%2]").arg(describe(act_), describe(exp_))));      \
    } while (false)

std::shared_ptr<const GgufFile> openOk(const BuiltFile &built, const OpenOptions &options = {})
{
    OpenResult r = GgufFile::openBuffer(built.bytes(), "<built>", options);
    if (r.error)
        qWarning("open failed: %s at %llu: %s", r.error.code.c_str(), static_cast<unsigned long long>(r.error.offset),
                 r.error.message.c_str());
    return r.error ? nullptr : r.file;
}

int64_t signExtend(uint64_t bits, unsigned bytes)
{
    const unsigned shift = 64 - 8 * bytes;
    return static_cast<int64_t>(bits << shift) >> shift;
}

// Empty when `actual` holds exactly what `expected` was built from, else what differs.
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

// Checks entry `i` against the builder's record: positions of every part and the value itself.
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

uint32_t id(GgmlType t)
{
    return static_cast<uint32_t>(t);
}

// Every value type, including edge values and each array element type.
std::vector<std::pair<const char *, BuildValue>> valueCases()
{
    std::vector<std::pair<const char *, BuildValue>> c = {
        {"uint8", V::u8(200)},
        {"int8", V::i8(-100)},
        {"uint16", V::u16(65535)},
        {"int16", V::i16(-32768)},
        {"uint32", V::u32(4294967295u)},
        {"int32", V::i32(INT32_MIN)},
        {"float32", V::f32(3.14159274f)},
        {"float32_negative_zero", V::f32Bits(0x80000000u)},
        {"float32_subnormal", V::f32Bits(0x00000001u)},
        {"float32_inf", V::f32Bits(0x7f800000u)},
        {"float32_nan", V::f32Bits(0x7fc00000u)},
        {"bool_true", V::boolean(true)},
        {"bool_false", V::boolean(false)},
        {"string", V::str("hello GGUF")},
        {"string_empty", V::str("")},
        {"string_utf8", V::str("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\xa6\x99")},
        {"string_control", V::str(std::string("nul\0inside\n", 11))},
        {"uint64", V::u64(UINT64_MAX)},
        {"int64", V::i64(INT64_MIN)},
        {"float64", V::f64(2.7182818284590451)},
        {"float64_negative_zero", V::f64Bits(0x8000000000000000ull)},
        {"float64_nan", V::f64Bits(0x7ff8000000000000ull)},
        {"array_uint8", V::array(ValueType::Uint8, {V::u8(0), V::u8(1), V::u8(255)})},
        {"array_int8", V::array(ValueType::Int8, {V::i8(-128), V::i8(127)})},
        {"array_uint16", V::array(ValueType::Uint16, {V::u16(0), V::u16(32768), V::u16(65535)})},
        {"array_int16", V::array(ValueType::Int16, {V::i16(-32768), V::i16(-1), V::i16(32767)})},
        {"array_uint32", V::array(ValueType::Uint32, {V::u32(0), V::u32(2147483648u), V::u32(4294967295u)})},
        {"array_int32", V::array(ValueType::Int32, {V::i32(INT32_MIN), V::i32(-1), V::i32(INT32_MAX)})},
        {"array_float32",
         V::array(ValueType::Float32, {V::f32(0.5f), V::f32Bits(0x80000000u), V::f32Bits(0xff800000u)})},
        {"array_bool", V::array(ValueType::Bool, {V::boolean(true), V::boolean(false), V::boolean(true)})},
        {"array_string", V::stringArray({"", "a", "\xe2\x96\x81with space", "<|endoftext|>", "line\nbreak"})},
        {"array_uint64", V::array(ValueType::Uint64, {V::u64(0), V::u64(9007199254740993ull), V::u64(UINT64_MAX)})},
        {"array_int64", V::array(ValueType::Int64, {V::i64(INT64_MIN), V::i64(-1), V::i64(INT64_MAX)})},
        {"array_float64", V::array(ValueType::Float64, {V::f64(0.1), V::f64(-2.5), V::f64(1e308)})},
        {"array_empty_int32", V::array(ValueType::Int32, {})},
        {"array_empty_string", V::stringArray({})},
    };
    return c;
}

BuildValue nestedValue()
{
    return V::array(ValueType::Array, {V::array(ValueType::Int32, {V::i32(1), V::i32(2), V::i32(3)}),
                                       V::array(ValueType::Int32, {}), V::stringArray({"x", "yz"}),
                                       V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(7), V::u8(8)}),
                                                                   V::array(ValueType::Float32, {V::f32(1.5f)})})});
}

// A small model: a few keys of several types and tensors of several types with patterned data.
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

// Every tensor the builder wrote, field by field.
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
        QVERIFY(std::equal(data.begin(), data.end(), file.mapped().data() + l.dataOffset));
    }
}

} // namespace

class TestGgufFile : public QObject {
    Q_OBJECT

private slots:
    void displayStringCutsOnCharacterBoundary();
    void valueRoundTrip_data();
    void valueRoundTrip();
    void versionsAndByteOrders_data();
    void versionsAndByteOrders();
    void swappedMagic_data();
    void swappedMagic();
    void extendedHeader_data();
    void extendedHeader();
    void alignment_data();
    void alignment();
    void emptySections_data();
    void emptySections();
    void zeroSizeDimension();
    void lazyStringArray();
    void lazyIndexFromThreads();
    void nestedArrays_data();
    void nestedArrays();
    void deepestNesting();
    void convenienceGetters_data();
    void convenienceGetters();
    void metadataOnly_data();
    void metadataOnly();
    void tensorBytes_data();
    void tensorBytes();
    void everySizedType_data();
    void everySizedType();
    void unknownTensorType_data();
    void unknownTensorType();
    void bitnetI2S();
    void removedTypes_data();
    void removedTypes();
    void openFromDisk();
    void openFailures_data();
    void openFailures();
    void cancel();
};

void TestGgufFile::valueRoundTrip_data()
{
    QTest::addColumn<BuildValue>("value");
    QTest::addColumn<Encoding>("encoding");
    const std::pair<const char *, Encoding> encodings[] = {
        {"v3-little", {3, Endian::Little}}, {"v3-big", {3, Endian::Big}}, {"v2-little", {2, Endian::Little}},
        {"v1-little", {1, Endian::Little}}, {"v1-big", {1, Endian::Big}},
    };
    for (const auto &[name, value] : valueCases())
        for (const auto &[encName, enc] : encodings)
            QTest::addRow("%s/%s", name, encName) << value << enc;
}

void TestGgufFile::valueRoundTrip()
{
    QFETCH(BuildValue, value);
    QFETCH(Encoding, encoding);
    // A value between two others, followed by a tensor, so a wrong size would show downstream.
    GgufBuilder b;
    b.version(encoding.version).byteOrder(encoding.order);
    b.kv("general.architecture", V::str("test")).kv("test.value", value).kv("test.after", V::u32(0xDEADBEEF));
    b.tensor("t", {4}, id(GgmlType::F32), patternBytes(16, 9));
    const BuiltFile built = b.build();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->metadata().size(), size_t(3));
    for (size_t i = 0; i < 3; ++i) {
        const BuildValue expected = i == 0 ? V::str("test") : i == 1 ? value : V::u32(0xDEADBEEF);
        const std::string diff = compareEntry(*file, built.layout(), i, expected);
        QVERIFY2(diff.empty(), diff.c_str());
    }
    QCOMPARE(file->findMetadata("test.value"), &file->metadata()[1]);
    QCOMPARE(file->metadataEnd(), built.layout().metadataEnd);
    verifyTensors(*file, built.layout());
    QVERIFY(!file->value("test.value").toDisplayString().empty());
}

void TestGgufFile::displayStringCutsOnCharacterBoundary()
{
    GgufBuilder b;
    b.kv("general.name", V::str("\xC3\xA9\xC3\xA9\xC3\xA9")); // "ééé": 2 bytes per character
    const auto file = openOk(b.build());
    QVERIFY(file);
    // 3 bytes would end inside the second "é": the cut falls back to the first character
    QCOMPARE(file->value("general.name").toDisplayString(3), std::string("\"\xC3\xA9\xE2\x80\xA6\""));
    QCOMPARE(file->value("general.name").toDisplayString(6), std::string("\"\xC3\xA9\xC3\xA9\xC3\xA9\""));
}

void TestGgufFile::versionsAndByteOrders_data()
{
    QTest::addColumn<Encoding>("encoding");
    for (uint32_t v : {1u, 2u, 3u}) {
        QTest::addRow("v%u-little", v) << Encoding{v, Endian::Little};
        QTest::addRow("v%u-big", v) << Encoding{v, Endian::Big};
    }
}

void TestGgufFile::versionsAndByteOrders()
{
    QFETCH(Encoding, encoding);
    const BuiltFile built = sampleModel(encoding).build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->version(), encoding.version);
    QCOMPARE(file->byteOrder(), encoding.order == Endian::Big ? ByteOrder::Big : ByteOrder::Little);
    QCOMPARE(file->headerLayout(), HeaderLayout::Plain);
    QVERIFY(!file->swappedMagic());
    QCOMPARE(file->tensorCountOffset(), L.tensorCountOffset);
    QCOMPARE(file->kvCountOffset(), L.kvCountOffset);
    QCOMPARE(file->headerEnd(), L.headerEnd);
    QCOMPARE(file->declaredKvCount(), uint64_t(L.kvs.size()));
    QCOMPARE(file->declaredTensorCount(), uint64_t(L.tensors.size()));
    QCOMPARE(file->metadataEnd(), L.metadataEnd);
    QCOMPARE(file->tensorInfoEnd(), L.tensorInfoEnd);
    QCOMPARE(file->alignment(), uint64_t(32));
    QCOMPARE(file->dataOffset(), L.dataOffset);
    for (size_t i = 0; i < L.kvs.size(); ++i) {
        QCOMPARE(std::string(file->metadata()[i].key), L.kvs[i].key);
        QCOMPARE(file->metadata()[i].offset, L.kvs[i].offset);
        QCOMPARE(file->metadata()[i].end(), L.kvs[i].end);
    }
    QCOMPARE(file->value("llama.rope.freq_base").toDouble(), std::optional<double>(10000.0));
    QCOMPARE(file->value("tokenizer.ggml.tokens").array().stringAt(3), std::string_view("hello"));
    verifyTensors(*file, L);

    std::vector<Refusal> expected;
    if (encoding.version == 1)
        expected.emplace_back("version_1", L.versionOffset);
    if (encoding.order == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
    QCOMPARE(file->llamaCppAccepts(), expected.empty());
}

void TestGgufFile::swappedMagic_data()
{
    QTest::addColumn<Encoding>("encoding");
    QTest::newRow("little") << Encoding{3, Endian::Little};
    QTest::newRow("big") << Encoding{3, Endian::Big};
}

void TestGgufFile::swappedMagic()
{
    QFETCH(Encoding, encoding);
    const BuiltFile built = sampleModel(encoding).swappedMagic().build();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QVERIFY(file->swappedMagic());
    QCOMPARE(file->byteOrder(), encoding.order == Endian::Big ? ByteOrder::Big : ByteOrder::Little);
    verifyTensors(*file, built.layout());
    std::vector<Refusal> expected{{"swapped_magic", 0}};
    if (encoding.order == Endian::Big)
        expected.emplace_back("byte_swapped", built.layout().versionOffset);
    COMPARE_REFUSALS(*file, expected);
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFile::extendedHeader_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("alignment_32") << sampleModel({}).extendedHeader().build();
    QTest::newRow("alignment_64") << sampleModel({}).layoutAlignment(64).extendedHeader().build();
    QTest::newRow("alignment_8") << sampleModel({}).layoutAlignment(8).extendedHeader().build();
    QTest::newRow("data_offset_1024") << sampleModel({}).extendedHeader(1024).build();
    QTest::newRow("big_endian") << sampleModel({3, Endian::Big}).extendedHeader().build();
}

void TestGgufFile::extendedHeader()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    QVERIFY(L.extendedHeader);
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->headerLayout(), HeaderLayout::Extended);
    QCOMPARE(file->headerEnd(), L.headerEnd);
    QCOMPARE(file->alignment(), L.alignment);
    QCOMPARE(file->dataOffset(), L.dataOffset);
    QCOMPARE(file->metadata().front().offset, L.kvs.front().offset);
    QCOMPARE(file->metadata().size(), L.kvs.size());
    verifyTensors(*file, L);
    std::vector<Refusal> expected{{"extended_header", L.headerAlignmentOffset}};
    if (L.byteOrder == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
}

void TestGgufFile::alignment_data()
{
    QTest::addColumn<uint32_t>("alignment");
    for (uint32_t a : {1u, 2u, 8u, 32u, 64u, 4096u})
        QTest::addRow("alignment_%u", a) << a;
}

void TestGgufFile::alignment()
{
    QFETCH(uint32_t, alignment);
    GgufBuilder b = sampleModel({});
    b.alignment(alignment);
    const BuiltFile built = b.build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QCOMPARE(file->alignment(), uint64_t(alignment));
    QCOMPARE(file->dataOffset(), L.dataOffset);
    QCOMPARE(file->dataOffset() % alignment, uint64_t(0));
    for (const TensorInfo &t : file->tensors())
        QCOMPARE(t.relativeOffset % alignment, uint64_t(0));
    verifyTensors(*file, L);
    COMPARE_REFUSALS(*file, std::vector<Refusal>{});
    QVERIFY(file->llamaCppAccepts());
}

void TestGgufFile::emptySections_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("no_tensors_no_kvs") << GgufBuilder().build();
    QTest::newRow("no_tensors") << GgufBuilder().kv("general.architecture", V::str("llama")).build();
    QTest::newRow("no_kvs") << GgufBuilder().tensor("weight", {8}, id(GgmlType::F32)).build();
    QTest::newRow("no_kvs_big_endian")
        << GgufBuilder().byteOrder(Endian::Big).tensor("weight", {8}, id(GgmlType::F32)).build();
}

void TestGgufFile::emptySections()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->metadata().size(), L.kvs.size());
    QCOMPARE(file->declaredKvCount(), uint64_t(L.kvs.size()));
    QCOMPARE(file->headerLayout(), HeaderLayout::Plain);
    QCOMPARE(file->dataOffset(), L.dataOffset);
    verifyTensors(*file, L);
    std::vector<Refusal> expected;
    if (L.byteOrder == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
}

void TestGgufFile::zeroSizeDimension()
{
    const BuiltFile built = GgufBuilder()
                                .kv("general.architecture", V::str("llama"))
                                .tensor("empty", {0, 4}, id(GgmlType::F32))
                                .tensor("empty_q", {32, 0}, id(GgmlType::Q4_0))
                                .tensor("after", {8}, id(GgmlType::F32), patternBytes(32, 5))
                                .tensor("scalar", {}, id(GgmlType::F32), patternBytes(4, 6))
                                .build();
    const auto file = openOk(built);
    QVERIFY(file);
    verifyTensors(*file, built.layout());
    QCOMPARE(file->tensors()[0].elements, uint64_t(0));
    QCOMPARE(file->tensors()[0].byteSize, uint64_t(0));
    QCOMPARE(file->tensors()[1].byteSize, uint64_t(0));
    QVERIFY(file->tensorBytes(file->tensors()[0]).empty());
    QCOMPARE(file->tensors()[3].nDims, uint32_t(0));
    QCOMPARE(file->tensors()[3].elements, uint64_t(1));
    QCOMPARE(file->parameterCount(), uint64_t(8 + 1));
    COMPARE_REFUSALS(*file, std::vector<Refusal>{});
    QVERIFY(file->llamaCppAccepts());
}

void TestGgufFile::lazyStringArray()
{
    constexpr size_t kCount = 300000;
    std::vector<std::string> tokens(kCount);
    for (size_t i = 0; i < kCount; ++i)
        tokens[i] = "tok" + std::string(i % 7, '_') + std::to_string(i);
    const BuiltFile built = GgufBuilder()
                                .kv("general.architecture", V::str("llama"))
                                .kv("tokenizer.ggml.tokens", V::stringArray(tokens))
                                .kv("tokenizer.ggml.token_type", V::array(ValueType::Int32, {V::i32(1), V::i32(3)}))
                                .build();
    const KvLayout &k = *built.layout().kv("tokenizer.ggml.tokens");
    const auto file = openOk(built);
    QVERIFY(file);
    // opening, counting and reading fixed-size arrays build no index
    QCOMPARE(file->builtArrayIndexCount(), size_t(0));
    const ArrayRef a = file->value("tokenizer.ggml.tokens").array();
    QCOMPARE(a.size(), uint64_t(kCount));
    QCOMPARE(file->vocabSize(), std::optional<uint64_t>(kCount));
    QCOMPARE(file->value("tokenizer.ggml.token_type").array().at(1).toInt(), std::optional<int64_t>(3));
    QCOMPARE(file->builtArrayIndexCount(), size_t(0));

    std::mt19937 rng(20240611);
    std::vector<uint64_t> picks{0, kCount - 1};
    for (int n = 0; n < 2000; ++n)
        picks.push_back(rng() % kCount);
    for (size_t n = 0; n < picks.size(); ++n) {
        const uint64_t i = picks[n];
        const Value v = a.at(i);
        QCOMPARE(v.toStringView(), std::string_view(tokens[i]));
        QCOMPARE(v.offset(), k.elementOffsets[i]);
        // the index is built by the first element access, once
        QCOMPARE(file->builtArrayIndexCount(), size_t(1));
    }
    QVERIFY(!a.at(kCount).isValid());
}

void TestGgufFile::lazyIndexFromThreads()
{
    // several readers build and use the indexes of two arrays at once
    std::vector<std::string> a(5000), b(3000);
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = std::string(i % 13, 'a') + std::to_string(i);
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = std::to_string(i * 7) + std::string(i % 5, 'b');
    const BuiltFile built = GgufBuilder().kv("a", V::stringArray(a)).kv("b", V::stringArray(b)).build();
    const auto file = openOk(built);
    QVERIFY(file);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> readers;
    for (unsigned t = 0; t < 4; ++t)
        readers.emplace_back([&, t] {
            std::mt19937 rng(t);
            const ArrayRef ra = file->value("a").array(), rb = file->value("b").array();
            for (int n = 0; n < 2000; ++n) {
                const size_t i = rng() % a.size(), j = rng() % b.size();
                mismatches += ra.stringAt(i) != a[i];
                mismatches += rb.stringAt(j) != b[j];
            }
        });
    for (std::thread &r : readers)
        r.join();
    QCOMPARE(mismatches.load(), 0);
    QCOMPARE(file->builtArrayIndexCount(), size_t(2));
}

void TestGgufFile::nestedArrays_data()
{
    QTest::addColumn<Encoding>("encoding");
    QTest::newRow("v3-little") << Encoding{3, Endian::Little};
    QTest::newRow("v3-big") << Encoding{3, Endian::Big};
    QTest::newRow("v1-little") << Encoding{1, Endian::Little};
}

void TestGgufFile::nestedArrays()
{
    QFETCH(Encoding, encoding);
    const BuildValue nested = nestedValue();
    const BuiltFile built = GgufBuilder()
                                .version(encoding.version)
                                .byteOrder(encoding.order)
                                .kv("general.architecture", V::str("test"))
                                .kv("test.arr.nested", nested)
                                .kv("test.after_nested", V::u32(3735928559u))
                                .tensor("t", {32}, id(GgmlType::Q8_0))
                                .build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    const std::string diff = compareEntry(*file, L, 1, nested);
    QVERIFY2(diff.empty(), diff.c_str());
    QCOMPARE(file->value("test.after_nested").toUInt(), std::optional<uint64_t>(3735928559u));
    // reach the innermost level directly: [3][1][0] is 1.5
    const Value inner = file->value("test.arr.nested").array().at(3).array().at(1).array().at(0);
    QCOMPARE(inner.toDouble(), std::optional<double>(1.5));
    verifyTensors(*file, L);
    std::vector<Refusal> expected{{"nested_array", L.kv("test.arr.nested")->valueOffset}};
    if (encoding.version == 1)
        expected.emplace_back("version_1", L.versionOffset);
    if (encoding.order == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFile::deepestNesting()
{
    // eight levels of arrays is the deepest the reader walks; the innermost values stay reachable
    BuildValue v = V::array(ValueType::Uint8, {V::u8(41), V::u8(42)});
    for (int level = 0; level < 7; ++level)
        v = V::array(ValueType::Array, {V::stringArray({"pad"}), v});
    const BuiltFile built = GgufBuilder().kv("deep", v).kv("after", V::i8(-7)).build();
    const auto file = openOk(built);
    QVERIFY(file);
    const std::string diff = compareEntry(*file, built.layout(), 0, v);
    QVERIFY2(diff.empty(), diff.c_str());
    ArrayRef a = file->value("deep").array();
    for (int level = 0; level < 7; ++level)
        a = a.at(1).array();
    QCOMPARE(a.elementType(), ValueType::Uint8);
    QCOMPARE(a.at(1).toUInt(), std::optional<uint64_t>(42));
    QCOMPARE(file->value("after").toInt(), std::optional<int64_t>(-7));
}

void TestGgufFile::convenienceGetters_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::addColumn<Getters>("expected");

    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("general.name", V::str("Tiny Llama"))
            .kv("general.file_type", V::u32(15))
            .kv("llama.context_length", V::u32(2048))
            .kv("llama.embedding_length", V::u32(64))
            .kv("llama.attention.head_count", V::u32(4))
            .kv("llama.attention.head_count_kv", V::u32(2))
            .kv("llama.block_count", V::u32(3))
            .kv("llama.feed_forward_length", V::u32(192))
            .kv("tokenizer.ggml.tokens", V::stringArray({"a", "b", "c", "d", "e"}));
        b.tensor("token_embd.weight", {64, 5}, id(GgmlType::F32));
        for (int layer : {0, 1, 2, 10}) {
            b.tensor("blk." + std::to_string(layer) + ".attn_q.weight", {64, 64}, id(GgmlType::Q8_0));
            b.tensor("blk." + std::to_string(layer) + ".attn_norm.weight", {64}, id(GgmlType::F32));
        }
        b.tensor("output.weight", {64, 5}, id(GgmlType::F16));
        QTest::newRow("llama") << b.build() << Getters{"llama", "Tiny Llama", 2048, 64, 4, 2, 3, 192, 5, 15};
    }
    {
        // other integer types are accepted; an explicit vocab_size wins over the token list
        GgufBuilder b;
        b.kv("general.architecture", V::str("gpt2"))
            .kv("gpt2.context_length", V::u64(1ull << 40))
            .kv("gpt2.embedding_length", V::i32(768))
            .kv("gpt2.attention.head_count", V::u16(12))
            .kv("gpt2.block_count", V::u8(2))
            .kv("gpt2.vocab_size", V::u32(50257))
            .kv("tokenizer.ggml.tokens", V::stringArray({"x"}));
        b.tensor("layers.0.w", {16}, id(GgmlType::F32)).tensor("layers.1.w", {16, 2}, id(GgmlType::F32));
        QTest::newRow("gpt2_other_int_types")
            << b.build()
            << Getters{"gpt2", "", 1ull << 40, 768, 12, std::nullopt, 2, std::nullopt, 50257, std::nullopt};
    }
    {
        // values of the wrong type or sign are absent, not misread
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.context_length", V::str("4096"))
            .kv("llama.embedding_length", V::f32(64.0f))
            .kv("llama.attention.head_count", V::i32(-4))
            .kv("llama.block_count", V::array(ValueType::Uint32, {V::u32(1)}))
            .kv("general.file_type", V::str("15"));
        QTest::newRow("wrong_types") << b.build() << Getters{"llama", "", {}, {}, {}, {}, {}, {}, {}, {}};
    }
    QTest::newRow("no_metadata") << GgufBuilder().tensor("w", {4}, id(GgmlType::F32)).build() << Getters{};
}

void TestGgufFile::convenienceGetters()
{
    QFETCH(BuiltFile, built);
    QFETCH(Getters, expected);
    const auto file = openOk(built);
    QVERIFY(file);
    QCOMPARE(file->architecture(), expected.architecture);
    QCOMPARE(file->name(), expected.name);
    QCOMPARE(file->contextLength(), expected.contextLength);
    QCOMPARE(file->embeddingLength(), expected.embeddingLength);
    QCOMPARE(file->headCount(), expected.headCount);
    QCOMPARE(file->headCountKv(), expected.headCountKv);
    QCOMPARE(file->blockCount(), expected.blockCount);
    QCOMPARE(file->feedForwardLength(), expected.feedForwardLength);
    QCOMPARE(file->vocabSize(), expected.vocabSize);
    QCOMPARE(file->fileType(), expected.fileType);

    // parameter count, data bytes and layers follow from what was written
    uint64_t params = 0, bytes = 0;
    int32_t maxLayer = -1;
    for (const TensorLayout &t : built.layout().tensors) {
        params += t.elements;
        bytes += t.dataSize;
        for (const char *prefix : {"blk.", "layers."}) {
            const std::string p(prefix);
            if (t.name.rfind(p, 0) == 0)
                maxLayer = std::max(maxLayer, std::stoi(t.name.substr(p.size())));
        }
    }
    QCOMPARE(file->parameterCount(), params);
    QCOMPARE(file->tensorDataBytes(), bytes);
    QCOMPARE(file->layerCount(), static_cast<uint32_t>(maxLayer + 1));
    for (const TensorInfo &t : file->tensors()) {
        const std::string name(t.name);
        const size_t dot = name.find('.');
        const bool layered = name.rfind("blk.", 0) == 0 || name.rfind("layers.", 0) == 0;
        QCOMPARE(t.layer, layered ? std::stoi(name.substr(dot + 1)) : -1);
    }
}

void TestGgufFile::metadataOnly_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("valid") << sampleModel({}).build();
    // a peek never looks at the tensor infos, so damage there goes unnoticed
    BuiltFile damaged = sampleModel({}).build();
    damaged.setTensorNameLength(0, UINT64_MAX).setTensorType(1, 77);
    QTest::newRow("damaged_tensor_infos") << damaged;
    BuiltFile cut = sampleModel({}).build();
    cut.truncate(cut.layout().metadataEnd);
    QTest::newRow("cut_after_metadata") << cut;
}

void TestGgufFile::metadataOnly()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    OpenOptions options;
    options.metadataOnly = true;
    const auto file = openOk(built, options);
    QVERIFY(file);
    QVERIFY(file->metadataOnly());
    QVERIFY(!file->complete());
    QVERIFY(!file->error());
    QVERIFY(file->tensors().empty());
    QCOMPARE(file->declaredTensorCount(), uint64_t(L.tensors.size()));
    QCOMPARE(file->metadata().size(), L.kvs.size());
    QCOMPARE(file->metadataEnd(), L.metadataEnd);
    QVERIFY(file->findings().empty());
    QCOMPARE(file->architecture(), std::string("llama"));
}

void TestGgufFile::tensorBytes_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<QList<quint64>>("dims");
    QTest::newRow("F32") << id(GgmlType::F32) << QList<quint64>{5, 3};
    QTest::newRow("F16") << id(GgmlType::F16) << QList<quint64>{7};
    QTest::newRow("BF16") << id(GgmlType::BF16) << QList<quint64>{3, 3, 3};
    QTest::newRow("Q4_0") << id(GgmlType::Q4_0) << QList<quint64>{64, 3};
    QTest::newRow("Q8_0") << id(GgmlType::Q8_0) << QList<quint64>{32};
    QTest::newRow("Q4_K") << id(GgmlType::Q4_K) << QList<quint64>{512, 2};
    QTest::newRow("I8") << id(GgmlType::I8) << QList<quint64>{9, 1, 1, 2};
    QTest::newRow("I2_S") << id(GgmlType::I2_S) << QList<quint64>{128, 2};
}

void TestGgufFile::tensorBytes()
{
    QFETCH(uint32_t, type);
    QFETCH(QList<quint64>, dims);
    const std::vector<uint64_t> shape(dims.begin(), dims.end());
    const auto size = GgufBuilder::tensorSize(type, shape);
    QVERIFY(size);
    const std::vector<uint8_t> before = patternBytes(40, 11), data = patternBytes(static_cast<size_t>(*size), type);
    const BuiltFile built = GgufBuilder()
                                .tensor("before", {10}, id(GgmlType::F32), before)
                                .tensor("subject", shape, type, data)
                                .tensor("after", {1}, id(GgmlType::F32), {1, 2, 3, 4})
                                .build();
    const auto file = openOk(built);
    QVERIFY(file);
    const TensorInfo *t = file->findTensor("subject");
    QVERIFY(t);
    const auto span = file->tensorBytes(*t);
    QCOMPARE(span.size(), data.size());
    QVERIFY(std::equal(span.begin(), span.end(), data.begin()));
    QCOMPARE(span.data(), file->mapped().data() + built.layout().tensor("subject")->dataOffset);
    const auto last = file->tensorBytes(*file->findTensor("after"));
    QCOMPARE(std::vector<uint8_t>(last.begin(), last.end()), (std::vector<uint8_t>{1, 2, 3, 4}));
}

void TestGgufFile::everySizedType_data()
{
    QTest::addColumn<uint32_t>("type");
    for (uint32_t t = 0; t < kGgmlTypeCount; ++t)
        if (GgufBuilder::blockSize(t) != 0)
            QTest::addRow("%s", typeName(t).c_str()) << t;
}

void TestGgufFile::everySizedType()
{
    QFETCH(uint32_t, type);
    const uint64_t block = GgufBuilder::blockSize(type);
    const BuiltFile built = GgufBuilder().tensor("a", {block * 2, 3}, type).tensor("b", {block}, type).build();
    const auto file = openOk(built);
    QVERIFY(file);
    verifyTensors(*file, built.layout());
    QVERIFY(typeName(type).find("unknown") == std::string::npos);
    COMPARE_REFUSALS(*file, std::vector<Refusal>{});
    QVERIFY(file->llamaCppAccepts());
}

void TestGgufFile::unknownTensorType_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<int>("position");
    for (uint32_t t : {77u, 43u, 133u}) {
        QTest::addRow("type_%u_first", t) << t << 0;
        QTest::addRow("type_%u_middle", t) << t << 1;
        QTest::addRow("type_%u_last", t) << t << 2;
    }
}

void TestGgufFile::unknownTensorType()
{
    QFETCH(uint32_t, type);
    QFETCH(int, position);
    GgufBuilder b;
    b.kv("general.architecture", V::str("fork"));
    for (int i = 0; i < 3; ++i) {
        if (i == position)
            b.tensor("mystery", {16, 3}, type, patternBytes(48, 7));
        else
            b.tensor("known_" + std::to_string(i), {8, 2}, id(GgmlType::F32), patternBytes(64, i));
    }
    const BuiltFile built = b.build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    const TensorInfo &m = file->tensors()[position];
    QCOMPARE(typeName(m.typeId), "unknown type " + std::to_string(type));
    QVERIFY(m.sizeInferred);
    QVERIFY(!m.sizeFromType);
    const uint64_t next = position + 1 < 3 ? L.tensors[position + 1].dataOffset : built.size();
    QCOMPARE(m.byteSize, next - L.tensors[position].dataOffset);
    QCOMPARE(m.fileOffset, L.tensors[position].dataOffset);
    QVERIFY(m.dataInFile);
    for (int i = 0; i < 3; ++i) {
        if (i == position)
            continue;
        const TensorInfo &t = file->tensors()[i];
        QCOMPARE(t.fileOffset, L.tensors[i].dataOffset);
        QCOMPARE(t.byteSize, L.tensors[i].dataSize);
        QVERIFY(t.sizeFromType);
    }
    // the unknown type is the only thing llama.cpp would object to
    COMPARE_REFUSALS(*file, (std::vector<Refusal>{{"unknown_tensor_type", L.tensors[position].typeOffset}}));
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFile::bitnetI2S()
{
    const std::vector<uint64_t> shape{256, 3};
    const auto size = GgufBuilder::tensorSize(id(GgmlType::I2_S), shape);
    QVERIFY(size);
    QCOMPARE(*size, uint64_t(256 * 3 / 4 + 32));
    const BuiltFile built = GgufBuilder()
                                .kv("general.architecture", V::str("bitnet"))
                                .tensor("blk.0.ffn_up.weight", shape, id(GgmlType::I2_S), patternBytes(*size, 3))
                                .tensor("blk.0.ffn_norm.weight", {256}, id(GgmlType::F32))
                                .build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    verifyTensors(*file, L);
    QCOMPARE(typeName(file->tensors()[0].typeId), std::string("I2_S"));
    COMPARE_REFUSALS(*file, (std::vector<Refusal>{{"fork_tensor_type", L.tensors[0].typeOffset}}));
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFile::removedTypes_data()
{
    QTest::addColumn<uint32_t>("type");
    for (uint32_t t : {4u, 5u, 31u, 32u, 33u, 37u, 38u})
        QTest::addRow("type_%u", t) << t;
}

void TestGgufFile::removedTypes()
{
    QFETCH(uint32_t, type);
    const BuiltFile built =
        GgufBuilder().tensor("old", {32, 2}, type, patternBytes(40, 1)).tensor("new", {32}, id(GgmlType::Q8_0)).build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    const TensorInfo &t = file->tensors()[0];
    QVERIFY(typeName(type).find("(removed)") != std::string::npos);
    QVERIFY(t.sizeInferred);
    QCOMPARE(t.byteSize, L.tensors[1].dataOffset - L.tensors[0].dataOffset);
    QCOMPARE(file->tensors()[1].byteSize, L.tensors[1].dataSize);
    COMPARE_REFUSALS(*file, (std::vector<Refusal>{{"removed_tensor_type", L.tensors[0].typeOffset}}));
}

void TestGgufFile::openFromDisk()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const BuiltFile built = sampleModel({}).build();
    const std::string path = dir.filePath(QStringLiteral("model.gguf")).toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char *>(built.bytes().data()), static_cast<std::streamsize>(built.size()));
    }
    const OpenResult r = GgufFile::open(path);
    QVERIFY(!r.error);
    QVERIFY(r.file);
    QVERIFY(r.file->mapped().isMapped());
    QCOMPARE(r.file->path(), path);
    QCOMPARE(r.file->fileSize(), built.size());
    verifyTensors(*r.file, built.layout());
    QCOMPARE(r.file->metadata().size(), built.layout().kvs.size());
}

void TestGgufFile::openFailures_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("kind");
    QTest::newRow("missing") << QStringLiteral("does-not-exist.gguf") << int(ErrorKind::NotFound);
    QTest::newRow("directory") << QStringLiteral("subdir") << int(ErrorKind::Unreadable);
    QTest::newRow("empty_file") << QStringLiteral("empty.gguf") << int(ErrorKind::InvalidMagic);
}

void TestGgufFile::openFailures()
{
    QFETCH(QString, name);
    QFETCH(int, kind);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("subdir")));
    QFile empty(dir.filePath(QStringLiteral("empty.gguf")));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    const OpenResult r = GgufFile::open(dir.filePath(name).toStdString());
    QVERIFY(!r.file);
    QCOMPARE(int(r.error.kind), kind);
    QCOMPARE(r.error.offset, uint64_t(0));
    QVERIFY(!r.error.message.empty());
}

void TestGgufFile::cancel()
{
    GgufBuilder b;
    for (int i = 0; i < 3000; ++i)
        b.kv("key." + std::to_string(i), V::u32(static_cast<uint32_t>(i)));
    const BuiltFile built = b.build();
    uint64_t calls = 0, lastTotal = 0;
    OpenOptions options;
    options.progress = [&](uint64_t, uint64_t total) {
        ++calls;
        lastTotal = total;
        return calls < 2;
    };
    const OpenResult r = GgufFile::openBuffer(built.bytes(), "<built>", options);
    QVERIFY(!r.file);
    QCOMPARE(r.error.kind, ErrorKind::Cancelled);
    QCOMPARE(calls, uint64_t(2));
    QCOMPARE(lastTotal, uint64_t(3000));

    // a progress callback that never cancels sees the whole walk
    calls = 0;
    options.progress = [&](uint64_t done, uint64_t total) {
        ++calls;
        return done <= total;
    };
    const OpenResult ok = GgufFile::openBuffer(built.bytes(), "<built>", options);
    QVERIFY(ok.file);
    QVERIFY(!ok.error);
    QVERIFY(calls >= 2);
}

QTEST_GUILESS_MAIN(TestGgufFile)
#include "tst_gguf_file.moc"
