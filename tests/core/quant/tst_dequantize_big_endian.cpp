// SPDX-License-Identifier: GPL-3.0-or-later
// Tensors of big-endian files: every type of tests/data/ggml-reference written in the other byte
// order by this test's own table of block members must decode to ggml's values bit for bit; the
// files llama.cpp's converter made (tests/data/big-endian) must agree with that table and decode,
// and give statistics, as their little-endian originals do.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/ggml_reference.h"
#include "tests/support/test_paths.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <utility>

using namespace gguf;
using namespace gguf::test;

namespace {

/// `count` words of `width` bytes from byte `offset` of a block.
struct Words {
    int offset = 0;
    int width = 0;
    int count = 0;
};

// The multi-byte members of each block struct (ggml_half, uint16_t, int16_t, uint32_t, float), as
// ggml-org/ggml src/ggml-common.h (commit d99724f, the version tests/data/ggml-reference was made
// with) declares them; uint8_t and int8_t arrays are absent. A big-endian file stores exactly these
// in big-endian order (docs/FORMAT.md §2.3). Plain types are one word per element.
const std::map<QString, std::vector<Words>> kMultiByteMembers = {
    {"f32", {{0, 4, 1}}},
    {"f16", {{0, 2, 1}}},
    {"bf16", {{0, 2, 1}}},
    {"f64", {{0, 8, 1}}},
    {"i8", {}},
    {"i16", {{0, 2, 1}}},
    {"i32", {{0, 4, 1}}},
    {"i64", {{0, 8, 1}}},
    {"q4_0", {{0, 2, 1}}},               // d; qs[16]
    {"q4_1", {{0, 2, 2}}},               // d, m; qs[16]
    {"q5_0", {{0, 2, 1}}},               // d; qh[4] and qs[16] are byte arrays
    {"q5_1", {{0, 2, 2}}},               // d, m; qh[4]; qs[16]
    {"q8_0", {{0, 2, 1}}},               // d; qs[32]
    {"q1_0", {{0, 2, 1}}},               // d; qs[16]
    {"q2_0", {{0, 2, 1}}},               // d; qs[16]
    {"mxfp4", {}},                       // e; qs[16]
    {"nvfp4", {}},                       // d[4] (UE4M3 bytes); qs[32]
    {"q2_K", {{80, 2, 2}}},              // scales[16], qs[64]; d, dmin
    {"q3_K", {{108, 2, 1}}},             // hmask[32], qs[64], scales[12]; d
    {"q4_K", {{0, 2, 2}}},               // d, dmin; scales[12], qs[128]
    {"q5_K", {{0, 2, 2}}},               // d, dmin; scales[12], qh[32], qs[128]
    {"q6_K", {{208, 2, 1}}},             // ql[128], qh[64], scales[16]; d
    {"q8_K", {{0, 4, 1}, {260, 2, 16}}}, // float d; qs[256]; int16 bsums[16]
    {"iq2_xxs", {{0, 2, 33}}},           // d; uint16 qs[32]
    {"iq2_xs", {{0, 2, 33}}},            // d; uint16 qs[32]; scales[8]
    {"iq2_s", {{0, 2, 1}}},              // d; qs[64], qh[8], scales[8]
    {"iq3_xxs", {{0, 2, 1}}},            // d; qs[96]
    {"iq3_s", {{0, 2, 1}}},              // d; qs[64], qh[8], signs[32], scales[4]
    {"iq1_s", {{0, 2, 1}, {34, 2, 8}}},  // d; qs[32]; uint16 qh[8]
    {"iq1_m", {}},                       // qs[32], qh[16], scales[8]
    {"iq4_nl", {{0, 2, 1}}},             // d; qs[16]
    {"iq4_xs", {{0, 2, 2}}},             // d, scales_h; scales_l[4], qs[128]
    {"tq1_0", {{52, 2, 1}}},             // qs[48], qh[4]; d
    {"tq2_0", {{64, 2, 1}}},             // qs[64]; d
};

/// `data` (whole blocks of `blockBytes`) with the words of every block reversed.
std::vector<uint8_t> toOtherByteOrder(std::span<const uint8_t> data, size_t blockBytes, const std::vector<Words> &words)
{
    std::vector<uint8_t> out(data.begin(), data.end());
    for (size_t block = 0; block + blockBytes <= out.size(); block += blockBytes)
        for (const Words &w : words)
            for (int i = 0; i < w.count; ++i) {
                uint8_t *word = out.data() + block + w.offset + static_cast<size_t>(i * w.width);
                std::reverse(word, word + w.width);
            }
    return out;
}

QString mismatch(const std::vector<float> &got, const std::vector<float> &want)
{
    const qsizetype bad = firstBitMismatch(got, want.data(), want.size());
    if (bad < 0)
        return {};
    return QStringLiteral("element %1: got 0x%2, ggml gives 0x%3")
        .arg(bad)
        .arg(bitsOf(got[bad]), 8, 16, QLatin1Char('0'))
        .arg(bitsOf(want[bad]), 8, 16, QLatin1Char('0'));
}

} // namespace

class TestDequantizeBigEndian : public QObject {
    Q_OBJECT

private slots:
    void everyTypeInTheOtherByteOrder_data();
    void everyTypeInTheOtherByteOrder();
    void i2sScaleInTheOtherByteOrder();
    void converterFiles_data();
    void converterFiles();
};

void TestDequantizeBigEndian::everyTypeInTheOtherByteOrder_data()
{
    QTest::addColumn<int>("index");
    const std::vector<ReferenceTensor> tensors = ggmlReferenceTensors();
    QVERIFY(tensors.size() >= 30);
    for (size_t i = 0; i < tensors.size(); ++i)
        QTest::newRow(qPrintable(tensors[i].typeName)) << static_cast<int>(i);
}

void TestDequantizeBigEndian::everyTypeInTheOtherByteOrder()
{
    QFETCH(int, index);
    const ReferenceTensor r = ggmlReferenceTensors().at(static_cast<size_t>(index));
    const auto members = kMultiByteMembers.find(r.typeName);
    QVERIFY2(members != kMultiByteMembers.end(), "a type without a row in kMultiByteMembers");
    const QByteArray file = readWholeFile(kGgmlReferenceDir + r.file + QStringLiteral(".gguf"));
    QVERIFY(file.size() >= r.dataOffset + r.dataBytes);
    const std::vector<float> want = ggmlReferenceValues(r);
    QCOMPARE(want.size(), static_cast<size_t>(r.elements));

    const uint64_t blocks = static_cast<uint64_t>(r.elements) / typeTraits(r.typeId).blockSize;
    QCOMPARE(static_cast<uint64_t>(r.dataBytes) % blocks, 0u);
    const std::vector<uint8_t> swapped = toOtherByteOrder(bytesOf(file, r.dataOffset, r.dataBytes),
                                                          static_cast<size_t>(r.dataBytes / blocks), members->second);

    std::vector<float> got(want.size());
    QVERIFY(dequantizeRange(r.typeId, swapped, static_cast<uint64_t>(r.elements), 0, got, true));
    QVERIFY2(mismatch(got, want).isEmpty(), qPrintable(mismatch(got, want)));

    // a range that starts and ends inside blocks takes the same path
    const uint64_t first = r.elements > 3 ? 3 : 0;
    std::vector<float> part(static_cast<size_t>(r.elements - first - (r.elements > 3 ? 1 : 0)));
    QVERIFY(dequantizeRange(r.typeId, swapped, static_cast<uint64_t>(r.elements), first, part, true));
    QVERIFY(mismatch(part, std::vector<float>(want.begin() + static_cast<qsizetype>(first),
                                              want.begin() + static_cast<qsizetype>(first + part.size())))
                .isEmpty());

    // and where the type has multi-byte members, reading them as stored gives other values
    if (!members->second.empty()) {
        std::vector<float> asStored(want.size());
        QVERIFY(dequantizeRange(r.typeId, swapped, static_cast<uint64_t>(r.elements), 0, asStored, false));
        QVERIFY(!mismatch(asStored, want).isEmpty());
    }
}

void TestDequantizeBigEndian::i2sScaleInTheOtherByteOrder()
{
    // BitNet's I2_S: 2-bit codes (bytes, never swapped), then a tensor-wide f32 scale, a word like
    // any other (docs/FORMAT.md §3.3): element e is value(code) * scale, codes 0, 1, 2 → -1, 0, +1
    const uint64_t elements = 256;
    std::vector<uint8_t> data(elements / 4 + 32, 0);
    for (uint64_t i = 0; i < elements / 4; ++i)
        data[i] = static_cast<uint8_t>((i * 37 + 11) % 256);
    const float scale = 0.375f;
    const uint32_t bits = bitsOf(scale);
    for (int b = 0; b < 4; ++b)
        data[elements / 4 + static_cast<size_t>(b)] = static_cast<uint8_t>(bits >> (24 - 8 * b)); // big-endian
    const float codeValue[4] = {-1.0f, 0.0f, 1.0f, 0.0f};
    std::vector<float> got(elements);
    QVERIFY(dequantizeRange(36, data, elements, 0, got, true));
    for (uint64_t e = 0; e < elements; ++e) {
        // element e of block b sits in byte b*32 + e%32, bit pair 3 - (e%128)/32 from the bottom
        const uint64_t within = e % 128;
        const int code = (data[(e / 128) * 32 + within % 32] >> (6 - 2 * (within / 32))) & 3;
        QCOMPARE(bitsOf(got[e]), bitsOf(codeValue[code] * scale));
    }
}

void TestDequantizeBigEndian::converterFiles_data()
{
    QTest::addColumn<QString>("type");
    // every type gguf_convert_endian.py converts (tests/data/big-endian/README.md)
    for (const char *type : {"f32", "f16", "bf16", "q4_0", "q8_0", "q4_K", "q6_K", "mxfp4"})
        QTest::newRow(type) << QString::fromLatin1(type);
}

void TestDequantizeBigEndian::converterFiles()
{
    QFETCH(QString, type);
    const std::vector<ReferenceTensor> all = ggmlReferenceTensors();
    const auto r = std::find_if(all.begin(), all.end(), [&](const ReferenceTensor &t) { return t.file == type; });
    QVERIFY(r != all.end());
    const auto members = kMultiByteMembers.find(r->typeName);
    QVERIFY(members != kMultiByteMembers.end());

    const QString bigPath = gguf::test::dataPath(u"big-endian/") + type + QStringLiteral(".gguf");
    const QString littlePath = kGgmlReferenceDir + r->file + QStringLiteral(".gguf");
    const OpenResult big = GgufFile::open(bigPath.toStdString());
    const OpenResult little = GgufFile::open(littlePath.toStdString());
    QVERIFY2(big.file && !big.error, qPrintable(bigPath));
    QVERIFY(little.file && !little.error);
    QCOMPARE(big.file->byteOrder(), ByteOrder::Big);
    QVERIFY(big.file->swappedMagic());
    QCOMPARE(little.file->byteOrder(), ByteOrder::Little);
    QCOMPARE(big.file->tensors().size(), size_t(1));
    QCOMPARE(little.file->tensors().size(), size_t(1));
    const TensorInfo &bt = big.file->tensors()[0];
    const TensorInfo &lt = little.file->tensors()[0];
    QCOMPARE(bt.name, lt.name);
    QCOMPARE(bt.typeId, r->typeId);
    QCOMPARE(bt.ne, lt.ne);
    QCOMPARE(static_cast<qint64>(bt.elements), r->elements);

    // the converter swapped exactly the members our table names
    const std::span<const uint8_t> bigBytes = big.file->tensorBytes(bt);
    const std::span<const uint8_t> littleBytes = little.file->tensorBytes(lt);
    QCOMPARE(static_cast<qint64>(bigBytes.size()), r->dataBytes);
    const uint64_t blocks = static_cast<uint64_t>(r->elements) / typeTraits(r->typeId).blockSize;
    const std::vector<uint8_t> ours =
        toOtherByteOrder(littleBytes, static_cast<size_t>(r->dataBytes / blocks), members->second);
    QVERIFY(std::equal(ours.begin(), ours.end(), bigBytes.begin(), bigBytes.end()));

    // decoded through the file, as the window and gguf-inspect do: ggml's values bit for bit
    const TensorData bigData = tensorData(*big.file, bt);
    QVERIFY(bigData.swapBytes);
    const std::vector<float> want = ggmlReferenceValues(*r);
    std::vector<float> got(want.size());
    QVERIFY(dequantizeRange(bigData.typeId, bigData.bytes, bigData.elements, 0, got, bigData.swapBytes));
    QVERIFY2(mismatch(got, want).isEmpty(), qPrintable(mismatch(got, want)));

    // and the same statistics as the little-endian file, exact ones included
    const TensorData littleData = tensorData(*little.file, lt);
    QVERIFY(!littleData.swapBytes);
    TensorStatistics sb, sl;
    QCOMPARE(computeStatistics(bigData, {}, sb), StatsStatus::Ok);
    QCOMPARE(computeStatistics(littleData, {}, sl), StatsStatus::Ok);
    QCOMPARE(refineStatistics(bigData, {}, sb), StatsStatus::Ok);
    QCOMPARE(refineStatistics(littleData, {}, sl), StatsStatus::Ok);
    QCOMPARE(sb.finite, sl.finite);
    QCOMPARE(sb.nan, sl.nan);
    QCOMPARE(sb.posInf + sb.negInf, sl.posInf + sl.negInf);
    QCOMPARE(sb.zeros, sl.zeros);
    QCOMPARE(bitsOf(static_cast<float>(sb.min)), bitsOf(static_cast<float>(sl.min)));
    QCOMPARE(bitsOf(static_cast<float>(sb.max)), bitsOf(static_cast<float>(sl.max)));
    QCOMPARE(sb.mean, sl.mean);
    QCOMPARE(sb.std, sl.std);
    QVERIFY(sb.percentilesExact && sl.percentilesExact);
    QCOMPARE(sb.percentiles, sl.percentiles);
    QCOMPARE(sb.histogram.counts, sl.histogram.counts);
    // and these are not the figures of the bytes read as stored
    if (!members->second.empty()) {
        std::vector<float> asStored(want.size());
        QVERIFY(dequantizeRange(bigData.typeId, bigData.bytes, bigData.elements, 0, asStored, false));
        QVERIFY(!mismatch(asStored, want).isEmpty());
    }
}

QTEST_GUILESS_MAIN(TestDequantizeBigEndian)
#include "tst_dequantize_big_endian.moc"
