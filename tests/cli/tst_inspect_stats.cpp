// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect stats`: exact by default — percentiles and the [min, max] histogram equal to
// NumPy's on values decoded by gguf-py (tests/data/numpy-stats), a chosen --range binned by the
// definition from ggml's own values — one-pass estimates with --fast, and its usage errors; a
// failed tensor's exit status, and a split set read as one model (with dequant).
#include "tests/support/exact_json.h"
#include "tests/support/ggml_reference.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/json_compare.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <vector>

using gguf::test::ExactJson;
using gguf::test::inspect;
using gguf::test::parsePythonJson;

namespace {

const QString kSample = gguf::test::sampleModel();
const QString kGolden = gguf::test::dataPath(u"numpy-stats/golden.json");

const char *const kLevels[] = {"p1", "p5", "p25", "p50", "p75", "p95", "p99"};

bool isBool(const ExactJson &value, bool want)
{
    return value.kind() == ExactJson::Kind::Bool && value.toBool() == want;
}

std::vector<uint8_t> f32Bytes(const std::vector<float> &values)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// Shard `number` (1 or 2) of a two-shard set: shard 1 the metadata and blk.0.w (values 1 … 32),
// shard 2 blk.1.w (values −0.5 · 0 … −0.5 · 63), both F32.
std::vector<uint8_t> splitShard(uint16_t number, const std::vector<float> &values)
{
    gguf::test::GgufBuilder builder;
    if (number == 1)
        builder.kv("general.architecture", gguf::test::V::str("llama"));
    builder.kv("split.no", gguf::test::V::u16(static_cast<uint16_t>(number - 1)))
        .kv("split.count", gguf::test::V::u16(2))
        .kv("split.tensors.count", gguf::test::V::i32(2))
        .tensor("blk." + std::to_string(number - 1) + ".w", {values.size()}, 0, f32Bytes(values));
    return builder.build().bytes();
}

} // namespace

class TestInspectStats : public QObject {
    Q_OBJECT

private slots:
    void matchesNumPy();
    void fastIsOnePassOfEstimates();
    void chosenRange_data();
    void chosenRange();
    void usage_data();
    void usage();
    void failedTensorMeansExitOne();
    void splitSetAsOneModel();
};

void TestInspectStats::matchesNumPy()
{
    const auto golden = parsePythonJson(gguf::test::readWholeFile(kGolden));
    QVERIFY(golden && golden->isArray());
    QStringList args{QStringLiteral("stats"), kSample};
    for (const ExactJson &g : golden->items())
        args << QString::fromStdString(g["name"].text());
    args << QStringLiteral("--bins") << QStringLiteral("64") << QStringLiteral("--json");
    const gguf::test::InspectRun run = inspect(args);
    QCOMPARE(run.exitCode, 0);
    const auto got = parsePythonJson(run.out);
    QVERIFY(got && got->isArray());
    QCOMPARE(got->items().size(), golden->items().size());
    for (size_t i = 0; i < golden->items().size(); ++i) {
        const ExactJson &g = golden->items()[i];
        const ExactJson &s = got->items()[i];
        QCOMPARE(s["name"].text(), g["name"].text());
        QCOMPARE(s["count"].toUInt64(), g["count"].toUInt64());
        QVERIFY(isBool(s["percentiles_exact"], true));
        for (const char *level : kLevels)
            QCOMPARE(s["percentiles"][level].toDouble().value_or(NAN), g["percentiles"][level].toDouble().value_or(0));
        QVERIFY(isBool(s["histogram"]["exact"], true));
        QCOMPARE(s["histogram"]["lo"].toDouble().value_or(NAN), g["histogram"]["lo"].toDouble().value_or(0));
        QCOMPARE(s["histogram"]["hi"].toDouble().value_or(NAN), g["histogram"]["hi"].toDouble().value_or(0));
        QCOMPARE(s["histogram"]["counts"].size(), g["histogram"]["counts"].size());
        for (size_t b = 0; b < g["histogram"]["counts"].size(); ++b)
            QCOMPARE(s["histogram"]["counts"].items()[b].toUInt64(), g["histogram"]["counts"].items()[b].toUInt64());
    }
}

void TestInspectStats::fastIsOnePassOfEstimates()
{
    // token_embd.weight (8.2 M values): one pass counts 16-bit keys; its histogram and
    // percentiles are estimates and say so
    const gguf::test::InspectRun run = inspect({QStringLiteral("stats"), kSample, QStringLiteral("token_embd.weight"),
                                                QStringLiteral("--fast"), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto got = parsePythonJson(run.out);
    QVERIFY(got && got->isArray() && got->items().size() == 1);
    const ExactJson &s = got->items()[0];
    QVERIFY(isBool(s["percentiles_exact"], false));
    QVERIFY(isBool(s["histogram"]["exact"], false));
    const auto golden = parsePythonJson(gguf::test::readWholeFile(kGolden));
    QVERIFY(golden);
    for (const ExactJson &g : golden->items()) {
        if (g["name"].text() != "token_embd.weight")
            continue;
        // an estimate within its stated bound (2^-7 relative), and not the exact figure
        const double exact = g["percentiles"]["p99"].toDouble().value_or(0);
        const double estimate = s["percentiles"]["p99"].toDouble().value_or(NAN);
        QVERIFY(std::abs(estimate - exact) <= std::abs(exact) / 128);
    }
    const gguf::test::InspectRun text =
        inspect({QStringLiteral("stats"), kSample, QStringLiteral("token_embd.weight"), QStringLiteral("--fast")});
    QVERIFY(text.out.contains("estimates"));
    const gguf::test::InspectRun exact =
        inspect({QStringLiteral("stats"), kSample, QStringLiteral("token_embd.weight")});
    QVERIFY(exact.out.contains("exact"));
}

void TestInspectStats::chosenRange_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<int>("bins");
    QTest::newRow("q4_K, inside") << "q4_K" << -0.5 << 0.25 << 9;
    QTest::newRow("q8_0, wider") << "q8_0" << -100.0 << 100.0 << 3;
    QTest::newRow("f16, one bin") << "f16" << -1.0 << 1.0 << 1;
}

void TestInspectStats::chosenRange()
{
    QFETCH(QString, file);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(int, bins);
    const gguf::test::InspectRun run =
        inspect({QStringLiteral("stats"), gguf::test::kGgmlReferenceDir + file + QStringLiteral(".gguf"),
                 QStringLiteral("--range"), QString::number(lo, 'g', 17), QString::number(hi, 'g', 17),
                 QStringLiteral("--bins"), QString::number(bins), QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    const auto got = parsePythonJson(run.out);
    QVERIFY(got && got->isArray() && got->items().size() == 1);
    const ExactJson &h = got->items()[0]["histogram"];
    // ggml's values, binned by the definition
    std::vector<uint64_t> counts(static_cast<size_t>(bins), 0);
    uint64_t below = 0, above = 0;
    for (const gguf::test::ReferenceTensor &r : gguf::test::ggmlReferenceTensors()) {
        if (r.file != file)
            continue;
        for (const float v : gguf::test::ggmlReferenceValues(r)) {
            if (!std::isfinite(v))
                continue;
            if (v < lo)
                ++below;
            else if (v > hi)
                ++above;
            else
                ++counts[static_cast<size_t>(std::min(std::floor((v - lo) / (hi - lo) * bins), bins - 1.0))];
        }
    }
    QVERIFY(isBool(h["exact"], true));
    QCOMPARE(h["lo"].toDouble().value_or(NAN), lo);
    QCOMPARE(h["hi"].toDouble().value_or(NAN), hi);
    QCOMPARE(h["below"].toUInt64(), std::optional<uint64_t>(below));
    QCOMPARE(h["above"].toUInt64(), std::optional<uint64_t>(above));
    QCOMPARE(h["counts"].size(), counts.size());
    for (size_t b = 0; b < counts.size(); ++b)
        QCOMPARE(h["counts"].items()[b].toUInt64(), std::optional<uint64_t>(counts[b]));
}

void TestInspectStats::usage_data()
{
    QTest::addColumn<QStringList>("args");
    const QString q4 = gguf::test::kGgmlReferenceDir + QStringLiteral("q4_K.gguf");
    QTest::newRow("range without values") << QStringList{"stats", q4, "--range"};
    QTest::newRow("range with one value") << QStringList{"stats", q4, "--range", "1"};
    QTest::newRow("range not numbers") << QStringList{"stats", q4, "--range", "a", "b"};
    QTest::newRow("range upside down") << QStringList{"stats", q4, "--range", "1", "-1"};
    QTest::newRow("range of zero width") << QStringList{"stats", q4, "--range", "2", "2"};
    QTest::newRow("range outside stats") << QStringList{"info", q4, "--range", "0", "1"};
    QTest::newRow("range as one option value") << QStringList{"stats", q4, "--range=1"};
    QTest::newRow("range as one option value, then one") << QStringList{"stats", q4, "--range=-1", "1"};
    QTest::newRow("fast outside stats") << QStringList{"tensors", q4, "--fast"};
}

void TestInspectStats::usage()
{
    QFETCH(QStringList, args);
    const gguf::test::InspectRun run = inspect(args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.out.isEmpty());
    QVERIFY(run.err.startsWith("gguf-inspect: "));
}

// A tensor whose statistics could not be computed makes the answer incomplete: exit 1 (#40), also
// when no tensor was named. The sample cut at 8 MiB keeps its header and loses the last tensors' data.
void TestInspectStats::failedTensorMeansExitOne()
{
    QFile sample(kSample);
    QVERIFY(sample.open(QIODevice::ReadOnly));
    const QByteArray cut = sample.read(8 << 20);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("cut.gguf"));
    QVERIFY(gguf::test::writeBytes(path, std::vector<uint8_t>(cut.begin(), cut.end())));
    const gguf::test::InspectRun run = inspect({QStringLiteral("stats"), path, QStringLiteral("--fast"), "--json"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("tensor '"), run.err.constData());
    const auto json = parsePythonJson(run.out);
    QVERIFY(json && json->size() == 38); // every tensor listed, the failed ones with null figures
}

// A shard of a split set is the whole model (#40): a tensor of shard 2 found from shard 1, its
// statistics and values those written into it.
void TestInspectStats::splitSetAsOneModel()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<float> first(32), second(64);
    for (size_t i = 0; i < first.size(); ++i)
        first[i] = static_cast<float>(i + 1);
    for (size_t i = 0; i < second.size(); ++i)
        second[i] = -0.5f * static_cast<float>(i);
    const QString shard1 = dir.filePath(QStringLiteral("m-00001-of-00002.gguf"));
    QVERIFY(gguf::test::writeBytes(shard1, splitShard(1, first)));
    QVERIFY(gguf::test::writeBytes(dir.filePath(QStringLiteral("m-00002-of-00002.gguf")), splitShard(2, second)));

    gguf::test::InspectRun run = inspect({QStringLiteral("stats"), shard1, QStringLiteral("blk.1.w"), "--json"});
    QCOMPARE(run.exitCode, 0);
    auto json = parsePythonJson(run.out);
    QVERIFY2(json && json->size() == 1, run.err.constData());
    const ExactJson &stats = json->items().front();
    QCOMPARE(stats["count"].toUInt64(), uint64_t(64));
    QCOMPARE(stats["min"].toDouble(), std::optional<double>(-31.5));
    QCOMPARE(stats["max"].toDouble(), std::optional<double>(0.0));
    // every tensor of the set when none is named
    run = inspect({QStringLiteral("stats"), shard1, QStringLiteral("--json")});
    QCOMPARE(run.exitCode, 0);
    json = parsePythonJson(run.out);
    QVERIFY(json && json->size() == 2);
    QCOMPARE(json->items()[1]["name"].text(), std::string("blk.1.w"));
    // dequant reads it from the other shard too: raw float32, the values written
    run = inspect({QStringLiteral("dequant"), shard1, QStringLiteral("blk.1.w"), "-o", "-"});
    QCOMPARE(run.exitCode, 0);
    const std::vector<uint8_t> want = f32Bytes(second);
    QCOMPARE(run.out, QByteArray(reinterpret_cast<const char *>(want.data()), qsizetype(want.size())));
}

QTEST_GUILESS_MAIN(TestInspectStats)
#include "tst_inspect_stats.moc"
