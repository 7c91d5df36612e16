// SPDX-License-Identifier: GPL-3.0-or-later
// Dequantization against ggml's own output (tests/data/ggml-reference), range decoding, input
// validation, the hand-checked formats ggml has no reference for (Q8_1, BitNet I2_S), the fp16
// conversion and the codebooks.
#include "core/format/ggml_blocks.h"
#include "core/format/ggml_types.h"
#include "core/quant/dequantize.h"
#include "core/quant/quant_tables.h"
#include "core/util/cpu_features.h"
#include "core/util/float_convert.h"
#include "tests/support/ggml_reference.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

using namespace gguf;
using namespace gguf::test;

namespace {

/// Deterministic filler (xorshift) for tensors whose values only need to be reproducible.
std::vector<uint8_t> pseudoRandomBytes(size_t count, uint32_t seed)
{
    std::vector<uint8_t> bytes(count);
    uint32_t state = seed * 2654435761u + 1u;
    for (uint8_t &b : bytes) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        b = static_cast<uint8_t>(state >> 24);
    }
    return bytes;
}

/// Byte size of `elements` values of a type the decoder supports (I2_S included).
uint64_t byteSizeFor(uint32_t typeId, uint64_t elements)
{
    return tensorByteSize(typeId, elements, elements).value_or(0);
}

/// Every id dequantizeRange should accept.
std::vector<uint32_t> decodableIds()
{
    std::vector<uint32_t> ids;
    for (uint32_t id = 0; id < kGgmlTypeCount; ++id)
        if (canDequantize(id))
            ids.push_back(id);
    return ids;
}

/// Decodes `data` at every SIMD level this machine has (portable, AVX2, AVX-512) and fails at the
/// first element where a level differs from the portable decoder, bit for bit.
void compareSimdLevels(uint32_t typeId, const std::vector<uint8_t> &data, uint64_t elements)
{
#if GGUF_X86_KERNELS
    const int levels = 3;
    const int ceiling = detail::simdCeiling();
#else
    const int levels = 1; // portable code only
#endif
    std::vector<std::vector<float>> decoded;
    for (int level = 0; level < levels; ++level) {
#if GGUF_X86_KERNELS
        detail::setSimdCeiling(level);
#endif
        decoded.emplace_back(elements);
        const bool ok = dequantizeRange(typeId, data, elements, 0, decoded.back());
#if GGUF_X86_KERNELS
        detail::setSimdCeiling(ceiling);
#endif
        QVERIFY(ok);
    }
    for (int level = 1; level < levels; ++level) {
        const qsizetype bad = firstBitMismatch(decoded[level], decoded[0].data(), elements);
        if (bad >= 0)
            QFAIL(qPrintable(QStringLiteral("level %1 differs from the portable decoder at element %2: 0x%3 vs 0x%4")
                                 .arg(level)
                                 .arg(bad)
                                 .arg(bitsOf(decoded[level][bad]), 8, 16, QLatin1Char('0'))
                                 .arg(bitsOf(decoded[0][bad]), 8, 16, QLatin1Char('0'))));
    }
}

/// A "typeId" column with one row per decodable type.
void addDecodableTypeRows()
{
    QTest::addColumn<uint32_t>("typeId");
    for (uint32_t id : decodableIds())
        QTest::newRow(typeTraits(id).name.data()) << id;
}

/// Pseudo-random bytes for `elements` values of a type; an I2_S tensor's trailing scale is set to
/// `i2sScale` so that it stays finite.
std::vector<uint8_t> randomTensor(uint32_t typeId, uint64_t elements, uint32_t seed, float i2sScale)
{
    std::vector<uint8_t> data = pseudoRandomBytes(byteSizeFor(typeId, elements), seed);
    if (typeTraits(typeId).rule == SizeRule::BitNetI2S)
        std::memcpy(data.data() + elements / 4, &i2sScale, sizeof i2sScale);
    return data;
}

/// Independent fp16 reference: sign * mantissa * 2^exponent with ldexp, NaNs quiet.
uint32_t referenceHalfBits(uint16_t h)
{
    const bool negative = (h & 0x8000) != 0;
    const int exponent = (h >> 10) & 0x1f;
    const uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) {
        const uint32_t sign = negative ? 0x80000000u : 0u;
        return mantissa == 0 ? sign | 0x7f800000u : sign | 0x7fc00000u | (mantissa << 13);
    }
    const double magnitude =
        exponent == 0 ? std::ldexp(static_cast<double>(mantissa), -24) : std::ldexp(1024.0 + mantissa, exponent - 25);
    return bitsOf(static_cast<float>(negative ? -magnitude : magnitude));
}

} // namespace

class TestDequantize : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void supportedTypes();
    void matchesGgmlReference_data();
    void matchesGgmlReference();
    void partialRangeEqualsFullDecode_data();
    void partialRangeEqualsFullDecode();
    void everySimdLevelDecodesAlike_data();
    void everySimdLevelDecodesAlike();
    void everySimdLevelDecodesSpecialScalesAlike_data();
    void everySimdLevelDecodesSpecialScalesAlike();
    void rejectsBadInput_data();
    void rejectsBadInput();
    void byteSwappedPlainTypes_data();
    void byteSwappedPlainTypes();
    void bitnetI2S();
    void q8_1HandBuiltBlock();
    void fp16ConversionIsExact();
    void scaleConversions();
    void codebooksAreWellFormed_data();
    void codebooksAreWellFormed();
    void iq1sGridMatchesGgml();

private:
    QJsonArray m_tensors;
};

void TestDequantize::initTestCase()
{
    const QByteArray manifest = readWholeFile(kGgmlReferenceDir + QStringLiteral("manifest.json"));
    QVERIFY2(!manifest.isEmpty(), "tests/data/ggml-reference/manifest.json is missing");
    m_tensors = QJsonDocument::fromJson(manifest).object().value(QStringLiteral("tensors")).toArray();
    QVERIFY(!m_tensors.isEmpty());
}

void TestDequantize::supportedTypes()
{
    // every sized ggml type plus BitNet's I2_S; removed ids stay unsupported
    const std::vector<uint32_t> expected = {0,  1,  2,  3,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
                                            20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 34, 35, 36, 39, 40, 41, 42};
    QCOMPARE(decodableIds(), expected);
    QVERIFY(!canDequantize(43));
    QVERIFY(!canDequantize(0xffffffffu));
}

void TestDequantize::matchesGgmlReference_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("typeId");
    QTest::addColumn<qint64>("elements");
    QTest::addColumn<qint64>("dataOffset");
    QTest::addColumn<qint64>("dataBytes");
    QTest::addColumn<qint64>("referenceOffset");
    for (const QJsonValue &value : m_tensors) {
        const QJsonObject t = value.toObject();
        const QString file = t.value(QStringLiteral("file")).toString();
        QTest::newRow(qPrintable(t.value(QStringLiteral("ggml_type_name")).toString()))
            << file.chopped(5) << t.value(QStringLiteral("ggml_type")).toInt()
            << t.value(QStringLiteral("n_elements")).toInteger() << t.value(QStringLiteral("data_offset")).toInteger()
            << t.value(QStringLiteral("n_bytes")).toInteger()
            << t.value(QStringLiteral("f32_offset_bytes")).toInteger();
    }
}

void TestDequantize::matchesGgmlReference()
{
    QFETCH(QString, file);
    QFETCH(int, typeId);
    QFETCH(qint64, elements);
    QFETCH(qint64, dataOffset);
    QFETCH(qint64, dataBytes);
    QFETCH(qint64, referenceOffset);

    const QByteArray gguf = readWholeFile(kGgmlReferenceDir + file + QStringLiteral(".gguf"));
    const QByteArray reference = readWholeFile(kGgmlReferenceDir + file + QStringLiteral(".f32"));
    QVERIFY(gguf.size() >= dataOffset + dataBytes);
    QVERIFY(reference.size() >= referenceOffset + elements * 4);
    QVERIFY(canDequantize(static_cast<uint32_t>(typeId)));

    std::vector<float> want(static_cast<size_t>(elements));
    std::memcpy(want.data(), reference.constData() + referenceOffset, want.size() * sizeof(float));
    std::vector<float> got(want.size());
    QVERIFY(dequantizeRange(static_cast<uint32_t>(typeId), bytesOf(gguf, dataOffset, dataBytes),
                            static_cast<uint64_t>(elements), 0, got));
    const qsizetype bad = firstBitMismatch(got, want.data(), want.size());
    if (bad >= 0)
        QFAIL(qPrintable(QStringLiteral("element %1: got 0x%2, ggml gives 0x%3")
                             .arg(bad)
                             .arg(bitsOf(got[bad]), 8, 16, QLatin1Char('0'))
                             .arg(bitsOf(want[bad]), 8, 16, QLatin1Char('0'))));
}

void TestDequantize::partialRangeEqualsFullDecode_data()
{
    addDecodableTypeRows();
}

void TestDequantize::partialRangeEqualsFullDecode()
{
    QFETCH(uint32_t, typeId);
    const uint64_t block = typeTraits(typeId).blockSize;
    const uint64_t elements = 5 * std::max<uint64_t>(block, 64);
    const std::vector<uint8_t> data = randomTensor(typeId, elements, typeId, 0.8125f);

    std::vector<float> full(elements);
    QVERIFY(dequantizeRange(typeId, data, elements, 0, full));

    // starts and ends inside blocks, on block edges, a single element, a whole middle block
    const uint64_t mid = block / 2;
    const std::vector<std::pair<uint64_t, uint64_t>> ranges = {
        {mid + 1, 3 * block}, {block, 2 * block}, {mid, 1}, {block + 1, block - 1 > 0 ? block - 1 : 1},
        {2, elements - 3},    {elements - 1, 1},  {0, 1},   {3 * block - 1, 2},
    };
    for (const auto &[first, count] : ranges) {
        if (first + count > elements || count == 0)
            continue;
        std::vector<float> slice(count);
        QVERIFY(dequantizeRange(typeId, data, elements, first, slice));
        const qsizetype bad = firstBitMismatch(slice, full.data() + first, count);
        if (bad >= 0)
            QFAIL(qPrintable(QStringLiteral("range [%1, +%2) differs at element %3").arg(first).arg(count).arg(bad)));
    }
    // an empty range is valid anywhere up to the end
    std::vector<float> none;
    QVERIFY(dequantizeRange(typeId, data, elements, elements, none));
}

void TestDequantize::everySimdLevelDecodesAlike_data()
{
    addDecodableTypeRows();
}

// Every hand-written kernel (AVX-512, AVX2, F16C) against the portable decoder on arbitrary bytes:
// every code value, NaN, infinite and subnormal f16 scales, and an element count that leaves a
// tail of 7 for the plain types. The portable decoder is the one checked against ggml above; the
// reference tensors hold only the scales a quantizer writes. Levels the CPU lacks fall back to
// the next lower one, so on any machine each row checks what that machine runs.
void TestDequantize::everySimdLevelDecodesAlike()
{
    QFETCH(uint32_t, typeId);
    const uint64_t block = typeTraits(typeId).blockSize;
    // plain types: 32 at a time, then one step of 16, then a tail of 7
    const uint64_t elements = block == 1 ? 4096 + 16 + 7 : 97 * std::max<uint64_t>(block, 128);
    const std::vector<uint8_t> data = randomTensor(typeId, elements, typeId + 1000, -1.75f);
    compareSimdLevels(typeId, data, elements);
}

void TestDequantize::everySimdLevelDecodesSpecialScalesAlike_data()
{
    QTest::addColumn<uint32_t>("typeId");
    QTest::addColumn<size_t>("scaleAt");
    QTest::addColumn<int>("secondScaleAt"); // -1: none
    const auto row = [](GgmlType t, size_t at, int second) {
        const auto id = static_cast<uint32_t>(t);
        QTest::newRow(typeTraits(id).name.data()) << id << at << second;
    };
    row(GgmlType::Q4_0, offsetof(BlockQ4_0, d), -1);
    row(GgmlType::Q8_0, offsetof(BlockQ8_0, d), -1);
    row(GgmlType::Q2_K, offsetof(BlockQ2_K, d), static_cast<int>(offsetof(BlockQ2_K, dmin)));
    row(GgmlType::Q3_K, offsetof(BlockQ3_K, d), -1);
    row(GgmlType::Q4_K, offsetof(BlockQ4_K, d), static_cast<int>(offsetof(BlockQ4_K, dmin)));
    row(GgmlType::Q5_K, offsetof(BlockQ5_K, d), static_cast<int>(offsetof(BlockQ5_K, dmin)));
    row(GgmlType::Q6_K, offsetof(BlockQ6_K, d), -1);
    row(GgmlType::TQ1_0, offsetof(BlockTQ1_0, d), -1);
    row(GgmlType::TQ2_0, offsetof(BlockTQ2_0, d), -1);
}

// The same with every pair of special f16 values as the block scales (zeros, infinities, NaNs
// with different payloads, the smallest subnormal, the largest finite): random bytes almost never
// hold them, and 0 · ∞ next to a NaN is where a fused multiply-subtract gives another NaN.
void TestDequantize::everySimdLevelDecodesSpecialScalesAlike()
{
    QFETCH(uint32_t, typeId);
    QFETCH(size_t, scaleAt);
    QFETCH(int, secondScaleAt);
    const std::vector<uint16_t> specials = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7c01,
                                            0x7fff, 0xfe11, 0x0001, 0x7bff, 0x3c00, 0xbc00};
    const size_t pairs = specials.size() * specials.size();
    const TypeTraits &t = typeTraits(typeId);
    const uint64_t elements = pairs * t.blockSize;
    std::vector<uint8_t> data = randomTensor(typeId, elements, typeId + 2000, 1.0f);
    for (size_t i = 0; i < pairs; ++i) {
        const uint16_t first = specials[i / specials.size()], second = specials[i % specials.size()];
        std::memcpy(data.data() + i * t.typeSize + scaleAt, &first, 2);
        if (secondScaleAt >= 0)
            std::memcpy(data.data() + i * t.typeSize + static_cast<size_t>(secondScaleAt), &second, 2);
    }
    compareSimdLevels(typeId, data, elements);
}

void TestDequantize::rejectsBadInput_data()
{
    QTest::addColumn<uint32_t>("typeId");
    QTest::addColumn<qint64>("elements");
    QTest::addColumn<qint64>("dataBytes");
    QTest::addColumn<qint64>("first");
    QTest::addColumn<qint64>("count");

    QTest::newRow("removed Q4_2") << 4u << 32ll << 18ll << 0ll << 32ll;
    QTest::newRow("removed Q4_0_4_4") << 31u << 32ll << 18ll << 0ll << 32ll;
    QTest::newRow("unknown id 43") << 43u << 32ll << 32ll << 0ll << 1ll;
    QTest::newRow("unknown id 142") << 142u << 32ll << 32ll << 0ll << 1ll;
    QTest::newRow("range past the end") << 2u << 64ll << 36ll << 40ll << 25ll;
    QTest::newRow("first past the end") << 2u << 64ll << 36ll << 65ll << 0ll;
    QTest::newRow("data one byte short") << 2u << 64ll << 35ll << 0ll << 64ll;
    QTest::newRow("data one byte long") << 2u << 64ll << 37ll << 0ll << 64ll;
    QTest::newRow("elements not whole blocks") << 12u << 300ll << 144ll << 0ll << 10ll;
    QTest::newRow("F32 size mismatch") << 0u << 8ll << 28ll << 0ll << 8ll;
    QTest::newRow("I2_S without scale") << 36u << 128ll << 32ll << 0ll << 128ll;
    QTest::newRow("I2_S partial block") << 36u << 64ll << 48ll << 0ll << 64ll;
}

void TestDequantize::rejectsBadInput()
{
    QFETCH(uint32_t, typeId);
    QFETCH(qint64, elements);
    QFETCH(qint64, dataBytes);
    QFETCH(qint64, first);
    QFETCH(qint64, count);
    const std::vector<uint8_t> data(static_cast<size_t>(dataBytes), 0);
    std::vector<float> out(static_cast<size_t>(count));
    QVERIFY(!dequantizeRange(typeId, data, static_cast<uint64_t>(elements), static_cast<uint64_t>(first), out));
}

void TestDequantize::byteSwappedPlainTypes_data()
{
    QTest::addColumn<uint32_t>("typeId");
    for (uint32_t id : decodableIds())
        if (!typeTraits(id).quantized)
            QTest::newRow(typeTraits(id).name.data()) << id;
}

void TestDequantize::byteSwappedPlainTypes()
{
    // reversing each element's bytes and decoding with swapBytes must give the same values
    QFETCH(uint32_t, typeId);
    const size_t width = typeTraits(typeId).typeSize;
    const uint64_t elements = 97;
    const std::vector<uint8_t> data = pseudoRandomBytes(elements * width, typeId + 100);
    std::vector<uint8_t> swapped(data.size());
    for (size_t i = 0; i < elements; ++i)
        for (size_t b = 0; b < width; ++b)
            swapped[i * width + b] = data[i * width + width - 1 - b];

    std::vector<float> native(elements), fromSwapped(elements);
    QVERIFY(dequantizeRange(typeId, data, elements, 0, native));
    QVERIFY(dequantizeRange(typeId, swapped, elements, 0, fromSwapped, true));
    QCOMPARE(firstBitMismatch(fromSwapped, native.data(), elements), qsizetype(-1));
}

void TestDequantize::bitnetI2S()
{
    // 256 elements: two 32-byte blocks of codes, then the 32-byte trailer with the f32 scale
    const uint64_t elements = 256;
    std::vector<uint8_t> data(elements / 4 + 32, 0);
    const float scale = -1.5f;
    std::memcpy(data.data() + elements / 4, &scale, sizeof scale);
    std::vector<int> codes(elements);
    for (uint64_t e = 0; e < elements; ++e) {
        codes[e] = static_cast<int>((e * 7 + e / 5) % 4);
        // element e of block b sits in byte b*32 + e%32, bit pair 3 - (e%128)/32 from the bottom
        const uint64_t within = e % 128;
        const int shift = 6 - 2 * static_cast<int>(within / 32);
        data[(e / 128) * 32 + within % 32] |= static_cast<uint8_t>(codes[e] << shift);
    }
    const float codeValue[4] = {-1.0f, 0.0f, 1.0f, 0.0f};

    std::vector<float> out(elements);
    QVERIFY(dequantizeRange(36, data, elements, 0, out));
    for (uint64_t e = 0; e < elements; ++e)
        QCOMPARE(bitsOf(out[e]), bitsOf(codeValue[codes[e]] * scale));

    // element 0 is in the top bits of byte 0, element 127 in the low bits of byte 31
    QCOMPARE(out[0], codeValue[codes[0]] * scale);
    std::vector<float> tail(3);
    QVERIFY(dequantizeRange(36, data, elements, 126, tail));
    for (int i = 0; i < 3; ++i)
        QCOMPARE(bitsOf(tail[i]), bitsOf(codeValue[codes[126 + i]] * scale));
}

void TestDequantize::q8_1HandBuiltBlock()
{
    // f16 d = 0.5 (0x3800), f16 s = 123.0 (ignored), qs = -16 … 15
    std::vector<uint8_t> block = {0x00, 0x38, 0xb0, 0x57};
    for (int j = 0; j < 32; ++j)
        block.push_back(static_cast<uint8_t>(static_cast<int8_t>(j - 16)));
    std::vector<float> out(32);
    QVERIFY(dequantizeRange(9, block, 32, 0, out));
    for (int j = 0; j < 32; ++j)
        QCOMPARE(out[j], static_cast<float>(j - 16) * 0.5f);
}

void TestDequantize::fp16ConversionIsExact()
{
    for (uint32_t h = 0; h <= 0xffff; ++h) {
        const uint32_t got = bitsOf(fp16ToFp32(static_cast<uint16_t>(h)));
        if (got != referenceHalfBits(static_cast<uint16_t>(h)))
            QFAIL(qPrintable(QStringLiteral("half 0x%1 → 0x%2").arg(h, 4, 16).arg(got, 8, 16)));
    }
    QCOMPARE(bitsOf(bf16ToFp32(0x7fc1)), 0x7fc10000u);
}

void TestDequantize::scaleConversions()
{
    // E8M0 half-scale is 2^(x-128); 0 and 1 are subnormal
    QCOMPARE(e8m0ToFp32Half(128), 1.0f);
    QCOMPARE(e8m0ToFp32Half(0), std::ldexp(1.0f, -128));
    QCOMPARE(e8m0ToFp32Half(1), std::ldexp(1.0f, -127));
    QCOMPARE(e8m0ToFp32Half(255), std::ldexp(1.0f, 127));
    // UE4M3 half-scale: (1 + m/8) * 2^(e-7) / 2; 0x00 and 0x7F are zero; bit 7 is ignored
    for (uint32_t x = 0; x < 256; ++x) {
        const int e = (x >> 3) & 0xf;
        const int m = x & 7;
        const float raw = e == 0 ? std::ldexp(static_cast<float>(m), -9) : std::ldexp(1.0f + m / 8.0f, e - 7);
        const float expected = (x == 0 || x == 0x7f) ? 0.0f : raw * 0.5f;
        QCOMPARE(bitsOf(kUe4m3HalfTable[x]), bitsOf(expected));
    }
}

void TestDequantize::codebooksAreWellFormed_data()
{
    // each grid: its allowed byte values and whether its entries ascend as integers
    QTest::addColumn<std::vector<uint64_t>>("entries");
    QTest::addColumn<int>("bytesPerEntry");
    QTest::addColumn<std::vector<int>>("allowedBytes");
    auto widen = [](const auto &table) { return std::vector<uint64_t>(table.begin(), table.end()); };
    QTest::newRow("iq2xxs_grid") << widen(tables::kIq2xxsGrid) << 8 << std::vector<int>{0x08, 0x19, 0x2b};
    QTest::newRow("iq2xs_grid") << widen(tables::kIq2xsGrid) << 8 << std::vector<int>{0x08, 0x19, 0x2b};
    QTest::newRow("iq2s_grid") << widen(tables::kIq2sGrid) << 8 << std::vector<int>{0x08, 0x19, 0x2b};
    QTest::newRow("iq3xxs_grid") << widen(tables::kIq3xxsGrid) << 4
                                 << std::vector<int>{0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x34, 0x3e};
    QTest::newRow("iq3s_grid") << widen(tables::kIq3sGrid) << 4 << std::vector<int>{1, 3, 5, 7, 9, 11, 13, 15};
    QTest::newRow("iq1s_grid_gpu") << widen(tables::kIq1sGridPacked) << 4
                                   << std::vector<int>{0x00, 0x01, 0x02, 0x10, 0x11, 0x12, 0x20, 0x21, 0x22};
}

void TestDequantize::codebooksAreWellFormed()
{
    QFETCH(std::vector<uint64_t>, entries);
    QFETCH(int, bytesPerEntry);
    QFETCH(std::vector<int>, allowedBytes);
    const bool packedIq1 = bytesPerEntry == 4 && allowedBytes.size() == 9;
    // ggml generated the grids in ascending order of their points (base-3 digits for IQ1)
    uint64_t previousKey = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
        uint64_t key = entries[i];
        if (packedIq1) {
            key = 0;
            for (int j = 7; j >= 0; --j)
                key = key * 3 + ((entries[i] >> (j < 4 ? 8 * j : 8 * (j - 4) + 4)) & 0xf);
        }
        for (int b = 0; b < bytesPerEntry; ++b) {
            const int byte = static_cast<int>((entries[i] >> (8 * b)) & 0xff);
            QVERIFY2(std::find(allowedBytes.begin(), allowedBytes.end(), byte) != allowedBytes.end(),
                     qPrintable(QStringLiteral("entry %1").arg(i)));
        }
        QVERIFY2(i == 0 || key > previousKey, qPrintable(QStringLiteral("entry %1 out of order").arg(i)));
        previousKey = key;
    }
}

void TestDequantize::iq1sGridMatchesGgml()
{
    // spot values of ggml's int8 iq1s_grid, which we expand from iq1s_grid_gpu
    QCOMPARE(tables::kIq1sGrid[0], 0xffffffffffffffffull);
    QCOMPARE(tables::kIq1sGrid[1], 0xffffffffffffff01ull);
    QCOMPARE(tables::kIq1sGrid[2], 0xffffffffffff0000ull);
    QCOMPARE(tables::kIq1sGrid[5], 0xffffffffff00ff00ull);
    QCOMPARE(tables::kIq1sGrid[2044], 0x010101010101ffffull);
    QCOMPARE(tables::kIq1sGrid[2046], 0x01010101010101ffull);
    QCOMPARE(tables::kIq1sGrid[2047], 0x0101010101010101ull);
    // ksigns_iq2xs: the 8th sign bit makes the number of minus signs even
    for (uint32_t i = 0; i < 128; ++i)
        QCOMPARE(static_cast<uint32_t>(tables::kSignsIq2xs[i]), i | ((std::popcount(i) & 1u) << 7));
}

QTEST_GUILESS_MAIN(TestDequantize)
#include "tst_dequantize.moc"
