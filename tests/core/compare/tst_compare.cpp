// SPDX-License-Identifier: GPL-3.0-or-later
// core/compare on tensors: matching by name, the status of each pair, and the error measures
// against sums written plainly here, on real files (the sample's F32 model quantized two ways by
// llama-quantize, and another model) and on built ones.
#include "core/compare/tensor_diff.h"
#include "core/compare/value_diff.h"
#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/quant/dequantize.h"
#include "core/util/cpu_features.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/plain_diff.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace gguf;
using namespace gguf::test;

namespace {

const QString kReal = gguf::test::dataPath(u"real/");

void compareClose(double actual, double expected, double relative, const char *what)
{
    const double tolerance = relative * std::max(1e-300, std::fabs(expected));
    if (!(std::fabs(actual - expected) <= tolerance))
        QFAIL(qPrintable(QStringLiteral("%1: %2, expected %3")
                             .arg(QLatin1String(what))
                             .arg(actual, 0, 'g', 17)
                             .arg(expected, 0, 'g', 17)));
}

std::vector<float> decodeAll(const SplitModel &model, int position)
{
    const SplitModel::TensorRef &ref = model.tensors()[static_cast<size_t>(position)];
    const GgufFile &file = *model.shards()[ref.shard].file;
    std::vector<float> values(static_cast<size_t>(ref.info->elements));
    if (!dequantizeRange(ref.info->typeId, file.tensorBytes(*ref.info), ref.info->elements, 0, values,
                         file.byteSwapped()))
        return {};
    return values;
}

QByteArray sha256(const std::vector<float> &values)
{
    return QCryptographicHash::hash(QByteArrayView(reinterpret_cast<const char *>(values.data()),
                                                   static_cast<qsizetype>(values.size() * sizeof(float))),
                                    QCryptographicHash::Sha256)
        .toHex();
}

// name → (dequant_sha256, raw_sha256) of ggml's reference statistics for a real file
QHash<QString, QPair<QByteArray, QByteArray>> referenceHashes(const QString &statsFile)
{
    QFile f(statsFile);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QHash<QString, QPair<QByteArray, QByteArray>> out;
    for (const QJsonValue &t : QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("tensors")).toArray())
        out.insert(t[QStringLiteral("name")].toString(), {t[QStringLiteral("dequant_sha256")].toString().toLatin1(),
                                                          t[QStringLiteral("raw_sha256")].toString().toLatin1()});
    return out;
}

std::shared_ptr<const SplitModel> openReal(const QString &path)
{
    Error error;
    auto model = SplitModel::open(path.toStdString(), error);
    return error ? nullptr : model;
}

std::shared_ptr<const SplitModel> openBuilt(const GgufBuilder &builder)
{
    OpenResult r = GgufFile::openBuffer(builder.build().bytes());
    return r.file && !r.error ? SplitModel::single(r.file) : nullptr;
}

std::vector<uint8_t> f32Bytes(const std::vector<float> &values, bool bigEndian = false)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    if (bigEndian)
        for (size_t i = 0; i < bytes.size(); i += 4)
            std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(i),
                         bytes.begin() + static_cast<std::ptrdiff_t>(i) + 4);
    return bytes;
}

TensorData f32Data(const std::vector<uint8_t> &bytes)
{
    TensorData d;
    d.typeId = 0;
    d.bytes = bytes;
    d.elements = bytes.size() / 4;
    return d;
}

const TensorPair *findPair(const std::vector<TensorPair> &pairs, std::string_view name)
{
    for (const TensorPair &p : pairs)
        if (p.name == name)
            return &p;
    return nullptr;
}

} // namespace

class TestCompare : public QObject {
    Q_OBJECT

private slots:
    void quantizedTwoWaysMatchesPlainSums();
    void anotherModelIsMatchedByName();
    void fileWithItselfIsSameBytes();
    void nonFinitePairs();
    void sameValuesInOtherBytes();
    void otherTypeSameValues();
    void shapeChangeIsNotMeasured();
    void resultDoesNotDependOnThreadsOrSimd();
    void cancelLeavesThePairAsItWas();
    void splitSetMatchesMergedFile();
    void differenceHistogram();
    void undefinedMeasures();
    void repeatedNamesPairInOrder();
    void emptyTensorsAreTheSame();
    void differenceHeatmap();
};

void TestCompare::quantizedTwoWaysMatchesPlainSums()
{
    const auto a = openReal(gguf::test::sampleModel());
    const auto b = openReal(kReal + QStringLiteral("tiny-llama-tied-q8_0.gguf"));
    QVERIFY(a && b);
    const auto hashesA = referenceHashes(kReal + QStringLiteral("tiny-llama-tied-q4_k_m.stats.json"));
    const auto hashesB = referenceHashes(kReal + QStringLiteral("tiny-llama-tied-q8_0.stats.json"));
    QCOMPARE(hashesA.size(), 38);
    QCOMPARE(hashesB.size(), 38);

    std::vector<TensorPair> pairs = matchTensors(*a, *b);
    QCOMPARE(pairs.size(), size_t(38));
    int sameBytes = 0, measured = 0;
    for (TensorPair &p : pairs) {
        const QString name = QString::fromUtf8(p.name.data(), static_cast<qsizetype>(p.name.size()));
        QVERIFY2(p.a && p.b, qPrintable(name));
        QCOMPARE(compareTensorData(*a, *b, p), StatsStatus::Ok);
        if (hashesA[name].second == hashesB[name].second) { // ggml's raw bytes are the same
            QCOMPARE(p.status, TensorDiffStatus::SameBytes);
            QVERIFY(!p.valuesCompared);
            ++sameBytes;
            continue;
        }
        QCOMPARE(p.status, p.a->typeId == p.b->typeId ? TensorDiffStatus::Changed : TensorDiffStatus::TypeChanged);
        QVERIFY(p.valuesCompared);
        const std::vector<float> va = decodeAll(*a, p.positionA), vb = decodeAll(*b, p.positionB);
        // the inputs of the plain sums are ggml's own dequantized values
        QCOMPARE(sha256(va), hashesA[name].first);
        QCOMPARE(sha256(vb), hashesB[name].first);
        const Plain expected = plainMeasures(va, vb);
        const ValueDiff &v = p.values;
        QCOMPARE(v.elements, va.size());
        QCOMPARE(v.finitePairs, expected.finite);
        QCOMPARE(v.nonFinitePairs, uint64_t(0));
        QCOMPARE(v.differing, expected.differing);
        QCOMPARE(std::bit_cast<uint64_t>(v.maxAbsDiff), std::bit_cast<uint64_t>(expected.maxAbs)); // one right answer
        compareClose(v.rmse(), expected.rmse, 1e-12, "rmse");
        compareClose(v.meanAbsRelative(), expected.meanAbsRel, 1e-12, "mean_abs_rel");
        compareClose(v.cosine(), expected.cosine, 1e-12, "cosine");
        compareClose(v.snrDb(), expected.snrDb, 1e-11, "snr_db");
        compareClose(v.relativeL2(), expected.relL2, 1e-12, "rel_l2");
        // what llama-quantize did: Q8_0 against Q4_K/Q6_K of the same F32 weights
        QVERIFY2(v.cosine() > 0.99 && v.cosine() < 1.0, qPrintable(name));
        ++measured;
    }
    QCOMPARE(sameBytes, 9); // the F32 norms
    QCOMPARE(measured, 29);
}

void TestCompare::anotherModelIsMatchedByName()
{
    const auto a = openReal(gguf::test::sampleModel());
    const auto b = openReal(kReal + QStringLiteral("tiny-llama-q4_k_m.gguf"));
    QVERIFY(a && b);
    std::vector<TensorPair> pairs = matchTensors(*a, *b);
    QCOMPARE(pairs.size(), size_t(39));
    const TensorPair *output = findPair(pairs, "output.weight");
    QVERIFY(output);
    QCOMPARE(output->status, TensorDiffStatus::OnlyB);
    QVERIFY(!output->a && output->b && output->positionA == -1);
    QCOMPARE(&pairs.back(), output); // B's extra tensors come after A's
    const TensorPair *q = findPair(pairs, "blk.1.attn_q.weight");
    QVERIFY(q && q->status == TensorDiffStatus::NotCompared);
    TensorPair pair = *q;
    QCOMPARE(compareTensorData(*a, *b, pair), StatsStatus::Ok);
    QCOMPARE(pair.status, TensorDiffStatus::Changed);
    // random weights of another model: nearly orthogonal
    const Plain expected = plainMeasures(decodeAll(*a, pair.positionA), decodeAll(*b, pair.positionB));
    compareClose(pair.values.cosine(), expected.cosine, 1e-9, "cosine");
    QVERIFY(std::fabs(pair.values.cosine()) < 0.1);
    compareClose(pair.values.rmse(), expected.rmse, 1e-12, "rmse");
    TensorPair onlyB = *output;
    QCOMPARE(compareTensorData(*a, *b, onlyB), StatsStatus::NoData);
    QCOMPARE(onlyB.status, TensorDiffStatus::OnlyB);
}

void TestCompare::fileWithItselfIsSameBytes()
{
    const auto a = openReal(gguf::test::sampleModel());
    const auto b = openReal(gguf::test::sampleModel()); // opened twice: other mappings
    QVERIFY(a && b);
    std::vector<TensorPair> pairs = matchTensors(*a, *b);
    QCOMPARE(pairs.size(), a->tensors().size());
    for (TensorPair &p : pairs) {
        QCOMPARE(p.status, TensorDiffStatus::NotCompared);
        QCOMPARE(compareTensorData(*a, *b, p), StatsStatus::Ok);
        QCOMPARE(p.status, TensorDiffStatus::SameBytes);
    }
}

void TestCompare::nonFinitePairs()
{
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> a(1000), b(1000);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = std::sin(static_cast<float>(i)) * 3.0f;
        b[i] = a[i] + (i % 7 == 0 ? 0.25f : 0.0f);
    }
    a[10] = nan; // NaN against a number: differs
    a[20] = nan;
    b[20] = nan; // NaN and NaN: the same
    a[30] = inf;
    b[30] = inf; // the same infinity
    a[40] = inf;
    b[40] = -inf; // not the same
    b[999] = -inf;
    const std::vector<uint8_t> ba = f32Bytes(a), bb = f32Bytes(b);
    ValueDiff v;
    QCOMPARE(compareValues(f32Data(ba), f32Data(bb), {}, v), StatsStatus::Ok);
    const Plain expected = plainMeasures(a, b);
    QCOMPARE(expected.nonFinite, uint64_t(5));
    QCOMPARE(v.nonFinitePairs, expected.nonFinite);
    QCOMPARE(v.finitePairs, uint64_t(995));
    QCOMPARE(v.differing, expected.differing);
    QVERIFY(std::isfinite(v.rmse()));
    compareClose(v.rmse(), expected.rmse, 1e-12, "rmse");
    compareClose(v.cosine(), expected.cosine, 1e-12, "cosine");
    QCOMPARE(v.maxAbsDiff, expected.maxAbs);
    QVERIFY(std::fabs(v.maxAbsDiff - 0.25) < 1e-6);
}

void TestCompare::sameValuesInOtherBytes()
{
    // -0 against +0, and a little-endian file against a big-endian one holding the same values
    std::vector<float> values(64);
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(i) * 0.5f - 7.0f;
    std::vector<float> signedZero = values;
    signedZero[14] = -0.0f; // values[14] is +0
    const auto a = openBuilt(GgufBuilder().tensor("w", {64}, 0, f32Bytes(values)));
    const auto b = openBuilt(GgufBuilder().tensor("w", {64}, 0, f32Bytes(signedZero)));
    const auto big =
        openBuilt(GgufBuilder().byteOrder(Endian::Big).tensor("w", {64}, 0, f32Bytes(values, /*bigEndian=*/true)));
    QVERIFY(a && b && big);
    QVERIFY(big->primary().byteSwapped());
    for (const auto &other : {b, big}) {
        std::vector<TensorPair> pairs = matchTensors(*a, *other);
        QCOMPARE(pairs.size(), size_t(1));
        QCOMPARE(compareTensorData(*a, *other, pairs[0]), StatsStatus::Ok);
        QCOMPARE(pairs[0].status, TensorDiffStatus::SameValues);
        QCOMPARE(pairs[0].values.differing, uint64_t(0));
        QCOMPARE(pairs[0].values.rmse(), 0.0);
        QVERIFY(pairs[0].values.cosine() == 1.0); // exactly: QCOMPARE would allow 1 ± 2⁻⁵²
        QCOMPARE(pairs[0].values.snrDb(), std::numeric_limits<double>::infinity());
    }
}

void TestCompare::otherTypeSameValues()
{
    // halves of small integers are exact in F16: an F32 → F16 conversion that lost nothing
    std::vector<float> values(256);
    std::vector<uint8_t> f16(512);
    for (size_t i = 0; i < values.size(); ++i) {
        const int k = static_cast<int>(i) - 128;
        values[i] = static_cast<float>(k) * 0.5f;
        // the f16 bits written plainly: sign, exponent, 10-bit mantissa
        uint16_t bits = 0;
        if (k != 0) {
            const double m = std::fabs(k * 0.5);
            const int e = static_cast<int>(std::floor(std::log2(m)));
            const auto mant = static_cast<uint16_t>(std::lround((m / std::ldexp(1.0, e) - 1.0) * 1024.0));
            bits = static_cast<uint16_t>((k < 0 ? 0x8000 : 0) | ((e + 15) << 10) | mant);
        }
        f16[2 * i] = static_cast<uint8_t>(bits & 0xff);
        f16[2 * i + 1] = static_cast<uint8_t>(bits >> 8);
    }
    const auto a = openBuilt(GgufBuilder().tensor("w", {256}, 0, f32Bytes(values)));
    const auto b = openBuilt(GgufBuilder().tensor("w", {256}, 1, f16));
    QVERIFY(a && b);
    std::vector<TensorPair> pairs = matchTensors(*a, *b);
    QCOMPARE(pairs[0].status, TensorDiffStatus::TypeChanged);
    QCOMPARE(compareTensorData(*a, *b, pairs[0]), StatsStatus::Ok);
    QCOMPARE(pairs[0].status, TensorDiffStatus::TypeChanged); // stays, with its measures
    QVERIFY(pairs[0].valuesCompared);
    QCOMPARE(pairs[0].values.differing, uint64_t(0));
    QCOMPARE(pairs[0].values.maxAbsDiff, 0.0);
    QCOMPARE(pairs[0].values.relativeL2(), 0.0);
}

void TestCompare::shapeChangeIsNotMeasured()
{
    const auto a = openBuilt(GgufBuilder().tensor("w", {32, 2}, 0).tensor("x", {8}, 0));
    const auto b = openBuilt(GgufBuilder().tensor("w", {64}, 0).tensor("y", {8}, 0));
    QVERIFY(a && b);
    std::vector<TensorPair> pairs = matchTensors(*a, *b);
    QCOMPARE(pairs.size(), size_t(3));
    QCOMPARE(pairs[0].status, TensorDiffStatus::ShapeChanged);
    QCOMPARE(pairs[1].status, TensorDiffStatus::OnlyA);
    QCOMPARE(pairs[2].status, TensorDiffStatus::OnlyB);
    QCOMPARE(pairs[2].name, std::string_view("y"));
    QVERIFY(!pairs[0].comparable());
    QCOMPARE(compareTensorData(*a, *b, pairs[0]), StatsStatus::NoData);
    QCOMPARE(pairs[0].status, TensorDiffStatus::ShapeChanged);
    QVERIFY(!pairs[0].valuesCompared);
}

void TestCompare::resultDoesNotDependOnThreadsOrSimd()
{
    // 3 million pairs (several chunks), a few NaNs in one run, a tail that is not a multiple of 16
    std::mt19937 rng(7);
    std::normal_distribution<float> normal(0.0f, 0.02f);
    std::vector<float> a(3'000'003), b(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = normal(rng);
        b[i] = a[i] + normal(rng) * 0.05f;
    }
    a[1'234'567] = std::numeric_limits<float>::quiet_NaN();
    b[2'000'001] = std::numeric_limits<float>::infinity();
    const std::vector<uint8_t> ba = f32Bytes(a), bb = f32Bytes(b);
    std::vector<ValueDiff> results;
    for (const int simd : {2, 1, 0})
        for (const unsigned threads : {1u, 2u, 3u, 8u}) {
#if GGUF_X86_KERNELS
            detail::setSimdCeiling(simd);
#endif
            ValueDiffOptions options;
            options.threads = threads;
            ValueDiff v;
            QCOMPARE(compareValues(f32Data(ba), f32Data(bb), options, v), StatsStatus::Ok);
            results.push_back(v);
        }
#if GGUF_X86_KERNELS
    detail::setSimdCeiling(2);
#endif
    const auto bits = [](double d) { return std::bit_cast<uint64_t>(d); }; // QCOMPARE on doubles is fuzzy
    for (const ValueDiff &v : results) {
        QCOMPARE(bits(v.sumSqDiff), bits(results[0].sumSqDiff));
        QCOMPARE(bits(v.sumAbsDiff), bits(results[0].sumAbsDiff));
        QCOMPARE(bits(v.sumAbsA), bits(results[0].sumAbsA));
        QCOMPARE(bits(v.sumAB), bits(results[0].sumAB));
        QCOMPARE(bits(v.sumSqA), bits(results[0].sumSqA));
        QCOMPARE(bits(v.sumSqB), bits(results[0].sumSqB));
        QCOMPARE(bits(v.maxAbsDiff), bits(results[0].maxAbsDiff));
        QCOMPARE(v.differing, results[0].differing);
    }
    const Plain expected = plainMeasures(a, b);
    QCOMPARE(results[0].nonFinitePairs, uint64_t(2));
    QCOMPARE(results[0].differing, expected.differing);
    compareClose(results[0].rmse(), expected.rmse, 1e-11, "rmse");
    compareClose(results[0].cosine(), expected.cosine, 1e-11, "cosine");
    compareClose(results[0].meanAbsRelative(), expected.meanAbsRel, 1e-11, "mean_abs_rel");
}

void TestCompare::cancelLeavesThePairAsItWas()
{
    std::vector<float> a(4'000'000, 1.0f), b(a.size(), 2.0f);
    const auto ma = openBuilt(GgufBuilder().tensor("w", {a.size()}, 0, f32Bytes(a)));
    const auto mb = openBuilt(GgufBuilder().tensor("w", {b.size()}, 0, f32Bytes(b)));
    QVERIFY(ma && mb);
    std::vector<TensorPair> pairs = matchTensors(*ma, *mb);
    ValueDiffOptions options;
    options.threads = 1;
    int calls = 0;
    options.progress = [&](uint64_t, uint64_t) { return ++calls < 2; };
    QCOMPARE(compareTensorData(*ma, *mb, pairs[0], options), StatsStatus::Cancelled);
    QCOMPARE(pairs[0].status, TensorDiffStatus::NotCompared);
    QVERIFY(!pairs[0].valuesCompared);
    options.progress = {};
    QCOMPARE(compareTensorData(*ma, *mb, pairs[0], options), StatsStatus::Ok);
    QCOMPARE(pairs[0].status, TensorDiffStatus::Changed);
    QCOMPARE(pairs[0].values.maxAbsDiff, 1.0);
    QCOMPARE(pairs[0].values.rmse(), 1.0);
}

void TestCompare::splitSetMatchesMergedFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (uint16_t number : {1, 2}) {
        QVERIFY(writeBytes(dir.filePath(QStringLiteral("m-%1-of-00002.gguf").arg(number, 5, 10, QLatin1Char('0'))),
                           twoFileSplitShard(number)));
    }
    const auto merged = openBuilt(GgufBuilder()
                                      .kv("general.architecture", V::str("llama"))
                                      .tensor("blk.1.w", {32}, 0)
                                      .tensor("blk.2.w", {32}, 0));
    Error error;
    const auto split = SplitModel::open(dir.filePath(QStringLiteral("m-00001-of-00002.gguf")).toStdString(), error);
    QVERIFY(split && !error && merged);
    QVERIFY(split->isSplit());
    std::vector<TensorPair> pairs = matchTensors(*split, *merged);
    QCOMPARE(pairs.size(), size_t(2));
    for (TensorPair &p : pairs) {
        QCOMPARE(p.status, TensorDiffStatus::NotCompared);
        QCOMPARE(compareTensorData(*split, *merged, p), StatsStatus::Ok);
        QCOMPARE(p.status, TensorDiffStatus::SameBytes);
    }
    QCOMPARE(split->tensors()[static_cast<size_t>(pairs[1].positionA)].shard, uint32_t(1)); // in the second file
}

void TestCompare::differenceHistogram()
{
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> a(100'000), b(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = u(rng);
        b[i] = a[i] + u(rng) * 0.1f;
    }
    b[5] = std::numeric_limits<float>::quiet_NaN();
    a[6] = b[6] + 5.0f; // far outside the range: above
    const std::vector<uint8_t> ba = f32Bytes(a), bb = f32Bytes(b);
    const double lo = -0.08, hi = 0.08;
    const uint32_t bins = 40;
    Histogram h;
    QCOMPARE(computeDiffHistogram(f32Data(ba), f32Data(bb), lo, hi, bins, {}, h), StatsStatus::Ok);
    // the same binning written out: floor((d - lo) / (hi - lo) * bins), the last bin closed
    std::vector<uint64_t> expected(bins, 0);
    uint64_t below = 0, above = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i]))
            continue;
        const double d = double(a[i]) - double(b[i]);
        if (d < lo)
            ++below;
        else if (d > hi)
            ++above;
        else
            ++expected[std::min<size_t>(bins - 1, static_cast<size_t>(std::floor((d - lo) / (hi - lo) * bins)))];
    }
    QCOMPARE(h.counts, expected);
    QCOMPARE(h.below, below);
    QCOMPARE(h.above, above);
    QVERIFY(above >= 1);
    QCOMPARE(h.lo, lo);
    Histogram bad;
    QCOMPARE(computeDiffHistogram(f32Data(ba), f32Data(bb), 1.0, 1.0, bins, {}, bad), StatsStatus::NoData);
}

void TestCompare::differenceHeatmap()
{
    // 6 rows × 10 columns, a grid of 3 × 2 tiles of 2 rows × 5 columns
    std::vector<float> a(60), b(60);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = static_cast<float>(i);
        b[i] = static_cast<float>(i) - static_cast<float>((i * 7) % 5) * 0.5f; // a - b in {0, 0.5, …, 2}
    }
    b[13] = std::numeric_limits<float>::infinity(); // left out of tile (1, 0)
    const std::vector<uint8_t> ba = f32Bytes(a), bb = f32Bytes(b);
    HeatmapOptions options;
    options.rows = 3;
    options.cols = 2;
    Heatmap h;
    QCOMPARE(computeDiffHeatmap(f32Data(ba), f32Data(bb), 10, options, h), StatsStatus::Ok);
    QCOMPARE(h.gridRows, 3u);
    QCOMPARE(h.gridCols, 2u);
    for (uint32_t r = 0; r < 3; ++r)
        for (uint32_t c = 0; c < 2; ++c) {
            double sum = 0, maxAbs = 0;
            int n = 0;
            for (size_t y = 2 * r; y < 2 * r + 2; ++y)
                for (size_t x = 5 * c; x < 5 * c + 5; ++x) {
                    const size_t i = y * 10 + x;
                    if (!std::isfinite(b[i]))
                        continue;
                    const double d = std::fabs(double(a[i]) - double(b[i]));
                    sum += d;
                    maxAbs = std::max(maxAbs, d);
                    ++n;
                }
            const size_t cell = size_t(r) * 2 + c;
            QCOMPARE(h.meanAbs[cell], static_cast<float>(sum / n));
            QCOMPARE(h.maxAbs[cell], static_cast<float>(maxAbs));
        }
}

void TestCompare::undefinedMeasures()
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<uint8_t> allNan = f32Bytes({nan, nan, nan, nan}), finite = f32Bytes({1, 2, 3, 4});
    ValueDiff v;
    QCOMPARE(compareValues(f32Data(allNan), f32Data(finite), {}, v), StatsStatus::Ok);
    QCOMPARE(v.finitePairs, uint64_t(0));
    QCOMPARE(v.differing, uint64_t(4));
    QVERIFY(!v.sameValues());
    for (const double m : {v.rmse(), v.meanAbsRelative(), v.cosine(), v.snrDb(), v.relativeL2()})
        QVERIFY(std::isnan(m)); // nothing to measure: undefined, not "perfect"
    // an all-zero A against a non-zero B
    const std::vector<uint8_t> zeros = f32Bytes({0, 0, 0, 0});
    QCOMPARE(compareValues(f32Data(zeros), f32Data(finite), {}, v), StatsStatus::Ok);
    QVERIFY(std::isnan(v.cosine()));
    QCOMPARE(v.snrDb(), -std::numeric_limits<double>::infinity());
    QCOMPARE(v.relativeL2(), std::numeric_limits<double>::infinity());
    QCOMPARE(v.rmse(), std::sqrt(30.0 / 4.0));
}

void TestCompare::repeatedNamesPairInOrder()
{
    // a broken file may name two tensors alike: the k-th use in A meets the k-th in B
    const auto a = openBuilt(
        GgufBuilder().tensor("x", {4}, 0, f32Bytes({1, 2, 3, 4})).tensor("x", {4}, 0, f32Bytes({5, 6, 7, 8})));
    const auto b = openBuilt(
        GgufBuilder().tensor("x", {4}, 0, f32Bytes({1, 2, 3, 4})).tensor("x", {4}, 0, f32Bytes({9, 9, 9, 9})));
    QVERIFY(a && b);
    std::vector<TensorPair> pairs = matchTensors(*a, *b);
    QCOMPARE(pairs.size(), size_t(2));
    QCOMPARE(pairs[1].positionA, 1);
    QCOMPARE(pairs[1].positionB, 1);
    for (TensorPair &p : pairs)
        QCOMPARE(compareTensorData(*a, *b, p), StatsStatus::Ok);
    QCOMPARE(pairs[0].status, TensorDiffStatus::SameBytes);
    QCOMPARE(pairs[1].status, TensorDiffStatus::Changed);
    // a third "x" only in B
    const auto c = openBuilt(GgufBuilder().tensor("x", {4}, 0).tensor("x", {4}, 0).tensor("x", {4}, 0));
    QVERIFY(c);
    const std::vector<TensorPair> more = matchTensors(*a, *c);
    QCOMPARE(more.size(), size_t(3));
    QCOMPARE(more[2].status, TensorDiffStatus::OnlyB);
    QCOMPARE(more[2].positionB, 2);
}

void TestCompare::emptyTensorsAreTheSame()
{
    const auto a = openBuilt(GgufBuilder().tensor("e", {0}, 0).tensor("w", {2}, 0));
    QVERIFY(a);
    std::vector<TensorPair> pairs = matchTensors(*a, *a);
    QCOMPARE(compareTensorData(*a, *a, pairs[0]), StatsStatus::Ok);
    QCOMPARE(pairs[0].status, TensorDiffStatus::SameBytes);
    QVERIFY(pairs[0].problem.empty());
}

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
