// SPDX-License-Identifier: GPL-3.0-or-later
// The safetensors dtypes without a ggml type (#43, ExtendedType): U8–U64, BOOL, F8_E4M3, F8_E5M2
// decoded by dequantizeRange. Expected values come from the formats' definitions, written here
// independently of the decoders: the OCP 8-bit floating point specification (OFP8, 2023) for the
// two FP8 formats — its named values (E4M3 max 448, min normal 2⁻⁶, min subnormal 2⁻⁹, NaN at
// S.1111.111, no infinity; E5M2 max 57344, min subnormal 2⁻¹⁶, infinities) and its formula for
// every other byte — and C's integer-to-float conversion for the integers.
#include "core/format/ggml_types.h"
#include "core/quant/dequantize.h"

#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using gguf::ExtendedType;

namespace {

std::vector<float> decode(ExtendedType type, const std::vector<uint8_t> &bytes, uint32_t width)
{
    std::vector<float> out(bytes.size() / width);
    if (!gguf::dequantizeRange(gguf::extendedTypeId(type), bytes, out.size(), 0, out))
        return {};
    return out;
}

// (-1)^s · 2^(e − bias) · (1 + m / 2^mbits), or the subnormal 2^(1 − bias) · m / 2^mbits.
double ofp8(uint8_t b, int ebits, int mbits, int bias)
{
    const int s = b >> 7, e = (b >> mbits) & ((1 << ebits) - 1), m = b & ((1 << mbits) - 1);
    const double v =
        e == 0 ? std::ldexp(m / double(1 << mbits), 1 - bias) : std::ldexp(1.0 + m / double(1 << mbits), e - bias);
    return s ? -v : v;
}

std::vector<uint8_t> everyByte()
{
    std::vector<uint8_t> all(256);
    for (int i = 0; i < 256; ++i)
        all[size_t(i)] = static_cast<uint8_t>(i);
    return all;
}

} // namespace

class TestExtendedTypes : public QObject {
    Q_OBJECT

private slots:
    void traits()
    {
        const gguf::TypeTraits &u16 = gguf::typeTraits(gguf::extendedTypeId(ExtendedType::U16));
        QCOMPARE(QString::fromUtf8(u16.name.data(), qsizetype(u16.name.size())), QStringLiteral("U16"));
        QCOMPARE(u16.blockSize, 1u);
        QCOMPARE(u16.typeSize, 2u);
        QVERIFY(!u16.upstream); // never accepted in a GGUF
        QCOMPARE(gguf::typeName(gguf::extendedTypeId(ExtendedType::F8_E4M3)), std::string("F8_E4M3"));
        QVERIFY(gguf::typeTraits(gguf::kExtendedTypeFirst + gguf::kExtendedTypeCount).name.empty());
        for (uint32_t i = 0; i < gguf::kExtendedTypeCount; ++i)
            QVERIFY(gguf::canDequantize(gguf::kExtendedTypeFirst + i));
        QVERIFY(!gguf::canDequantize(gguf::kExtendedTypeFirst + gguf::kExtendedTypeCount));
    }

    void f8e4m3()
    {
        const std::vector<float> v = decode(ExtendedType::F8_E4M3, everyByte(), 1);
        QCOMPARE(v.size(), size_t(256));
        QCOMPARE(v[0x7e], 448.0f); // the largest
        QCOMPARE(v[0xfe], -448.0f);
        QCOMPARE(v[0x08], 0.015625f);    // 2⁻⁶, the smallest normal
        QCOMPARE(v[0x01], 0.001953125f); // 2⁻⁹, the smallest subnormal
        QCOMPARE(v[0x38], 1.0f);
        QVERIFY(std::isnan(v[0x7f]) && std::isnan(v[0xff]));
        QVERIFY(std::signbit(v[0x80]) && v[0x80] == 0.0f);
        for (int b = 0; b < 256; ++b)
            if ((b & 0x7f) != 0x7f) // no infinity: S.1111.xxx below NaN are ordinary numbers
                QCOMPARE(double(v[size_t(b)]), ofp8(static_cast<uint8_t>(b), 4, 3, 7));
    }

    void f8e5m2()
    {
        const std::vector<float> v = decode(ExtendedType::F8_E5M2, everyByte(), 1);
        QCOMPARE(v[0x7b], 57344.0f); // the largest
        QCOMPARE(v[0x01], std::ldexp(1.0f, -16));
        QCOMPARE(v[0x3c], 1.0f);
        QCOMPARE(v[0x7c], std::numeric_limits<float>::infinity());
        QCOMPARE(v[0xfc], -std::numeric_limits<float>::infinity());
        for (int b : {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff})
            QVERIFY(std::isnan(v[size_t(b)]));
        for (int b = 0; b < 256; ++b)
            if ((b & 0x7c) != 0x7c)
                QCOMPARE(double(v[size_t(b)]), ofp8(static_cast<uint8_t>(b), 5, 2, 15));
    }

    void integersAndBool()
    {
        QCOMPARE(decode(ExtendedType::U8, {0, 1, 200, 255}, 1), (std::vector<float>{0, 1, 200, 255}));
        QCOMPARE(decode(ExtendedType::Bool, {0, 1, 2, 255}, 1), (std::vector<float>{0, 1, 1, 1}));
        const uint16_t u16[] = {0, 1, 65535};
        std::vector<uint8_t> b16(sizeof u16);
        std::memcpy(b16.data(), u16, sizeof u16);
        QCOMPARE(decode(ExtendedType::U16, b16, 2), (std::vector<float>{0, 1, 65535}));
        const uint32_t u32[] = {7, 4294967295u};
        std::vector<uint8_t> b32(sizeof u32);
        std::memcpy(b32.data(), u32, sizeof u32);
        QCOMPARE(decode(ExtendedType::U32, b32, 4), (std::vector<float>{7, static_cast<float>(4294967295u)}));
        const uint64_t u64[] = {3, std::numeric_limits<uint64_t>::max()};
        std::vector<uint8_t> b64(sizeof u64);
        std::memcpy(b64.data(), u64, sizeof u64);
        QCOMPARE(decode(ExtendedType::U64, b64, 8),
                 (std::vector<float>{3, static_cast<float>(std::numeric_limits<uint64_t>::max())}));
        // a range in the middle, and big-endian bytes
        std::vector<float> mid(1);
        QVERIFY(gguf::dequantizeRange(gguf::extendedTypeId(ExtendedType::U16), b16, 3, 2, mid));
        QCOMPARE(mid[0], 65535.0f);
        const std::vector<uint8_t> bigEndian{0x01, 0x02};
        QVERIFY(gguf::dequantizeRange(gguf::extendedTypeId(ExtendedType::U16), bigEndian, 1, 0, mid, true));
        QCOMPARE(mid[0], 258.0f);
    }
};

QTEST_GUILESS_MAIN(TestExtendedTypes)
#include "tst_extended_types.moc"
