// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect diff`: the JSON document of the command contract, the measures against sums
// written plainly here, --values and --tensor, split sets, and the exit statuses (0 identical,
// 1 different, 2 usage, 3 a file that cannot be read).
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/plain_diff.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using gguf::test::inspect;

namespace {

const QString kData = gguf::test::dataDir();
const QString kQ4 = gguf::test::sampleModel(); // tiny-llama-tied-q4_k_m.gguf
const QString kQ8 = kData + "/real/tiny-llama-tied-q8_0.gguf";
const QString kOther = kData + "/real/tiny-llama-q4_k_m.gguf";

QJsonObject tensorEntry(const QJsonObject &doc, const QString &name)
{
    for (const QJsonValue &t : doc["tensors"].toArray())
        if (t["name"].toString() == name)
            return t.toObject();
    return {};
}

std::vector<float> decode(const QString &path, const char *tensor)
{
    const gguf::OpenResult r = gguf::GgufFile::open(path.toStdString());
    const gguf::TensorInfo *t = r.file ? r.file->findTensor(tensor) : nullptr;
    if (!t)
        return {};
    std::vector<float> v(static_cast<size_t>(t->elements));
    if (!gguf::dequantizeRange(t->typeId, r.file->tensorBytes(*t), t->elements, 0, v))
        return {};
    return v;
}

} // namespace

class TestInspectDiff : public QObject {
    Q_OBJECT

private slots:
    void quantizedTwoWays()
    {
        const auto run = inspect({"diff", kQ4, kQ8, "--values", "--json"});
        QCOMPARE(run.exitCode, 1);
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(run.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError); // strict JSON: no NaN or Infinity literals
        QCOMPARE(doc["a"].toString(), kQ4);
        QCOMPARE(doc["b"].toString(), kQ8);
        QCOMPARE(doc["identical"].toBool(), false);
        const QJsonObject metadata = doc["metadata"].toObject();
        QCOMPARE(metadata["added"].toArray().size(), 0);
        QCOMPARE(metadata["removed"].toArray().size(), 0);
        const QJsonArray changed = metadata["changed"].toArray();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0]["key"].toString(), QStringLiteral("general.file_type"));
        QCOMPARE(changed[0]["a"].toInt(), 15); // MOSTLY_Q4_K_M
        QCOMPARE(changed[0]["b"].toInt(), 7);  // MOSTLY_Q8_0
        QCOMPARE(doc["tokenizer"]["verdict"].toString(), QStringLiteral("same vocabulary"));
        QCOMPARE(doc["tensors"].toArray().size(), 38);

        // a quantized pair: the measures of the issue, summed plainly in long double
        const QJsonObject k = tensorEntry(doc, "blk.0.attn_k.weight");
        QCOMPARE(k["status"].toString(), QStringLiteral("type-changed"));
        QCOMPARE(k["a_type"].toString(), QStringLiteral("Q4_K"));
        QCOMPARE(k["b_type"].toString(), QStringLiteral("Q8_0"));
        QCOMPARE(k["a_dims"].toArray(), QJsonArray({256, 128}));
        const std::vector<float> a = decode(kQ4, "blk.0.attn_k.weight"), b = decode(kQ8, "blk.0.attn_k.weight");
        QCOMPARE(a.size(), size_t(256 * 128));
        const gguf::test::Plain expected = gguf::test::plainMeasures(a, b);
        const auto close = [](double actual, double wanted) {
            return std::fabs(actual - wanted) <= 1e-12 * std::fabs(wanted);
        };
        QVERIFY(close(k["rmse"].toDouble(), expected.rmse));
        QCOMPARE(k["max_abs"].toDouble(), expected.maxAbs);
        QVERIFY(close(k["mean_abs_rel"].toDouble(), expected.meanAbsRel));
        QVERIFY(close(k["cosine"].toDouble(), expected.cosine));
        QVERIFY(close(k["snr_db"].toDouble(), expected.snrDb));
        QVERIFY(close(k["rel_l2"].toDouble(), expected.relL2));

        // an F32 norm, equal in both files: same bytes, and the measures of identical values
        const QJsonObject norm = tensorEntry(doc, "blk.0.attn_norm.weight");
        QCOMPARE(norm["status"].toString(), QStringLiteral("same-bytes"));
        QCOMPARE(norm["rmse"].toDouble(-1), 0.0);
        QCOMPARE(norm["cosine"].toDouble(), 1.0);
        QVERIFY(norm["snr_db"].isNull()); // +∞
    }

    void withoutValuesTheIndexOnly()
    {
        const auto run = inspect({"diff", kQ4, kOther, "--json"});
        QCOMPARE(run.exitCode, 1);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["tensors"].toArray().size(), 39);
        const QJsonObject output = tensorEntry(doc, "output.weight");
        QCOMPARE(output["status"].toString(), QStringLiteral("only-b"));
        QVERIFY(output["a_type"].isNull());
        QVERIFY(output["a_dims"].isNull());
        QCOMPARE(output["b_dims"].toArray(), QJsonArray({256, 32000}));
        const QJsonObject q = tensorEntry(doc, "blk.0.attn_q.weight");
        QCOMPARE(q["status"].toString(), QStringLiteral("not-compared"));
        QVERIFY(!q.contains("rmse"));
        const QJsonArray changed = doc["metadata"]["changed"].toArray();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0]["key"].toString(), QStringLiteral("general.name"));
        QCOMPARE(changed[0]["a"].toString(), QStringLiteral("tiny-llama-oracle-tied"));

        const auto text = inspect({"diff", kQ4, kOther});
        QCOMPARE(text.exitCode, 1);
        QVERIFY(text.out.contains("output.weight      only-b"));
        QVERIFY(text.out.contains("37 tensors of the same type and shape: data not compared"));
    }

    void namedTensors()
    {
        auto run = inspect({"diff", kQ4, kOther, "--tensor", "blk.1.attn_q.weight", "--json"});
        QCOMPARE(run.exitCode, 1);
        QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["tensors"].toArray().size(), 1);
        QCOMPARE(doc["tensors"][0]["status"].toString(), QStringLiteral("changed"));
        QVERIFY(doc["tensors"][0]["rmse"].toDouble() > 0);
        // NAME NAME… after --tensor, and the same name twice counts once
        run = inspect({"diff", kQ4, kQ8, "--json", "--tensor", "output_norm.weight", "blk.3.ffn_up.weight",
                       "output_norm.weight"});
        doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["tensors"].toArray().size(), 2);
        QCOMPARE(doc["tensors"][0]["status"].toString(), QStringLiteral("same-bytes"));
        QCOMPARE(doc["tensors"][1]["status"].toString(), QStringLiteral("type-changed"));
        run = inspect({"diff", kQ4, kQ8, "--tensor", "no.such.tensor"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("no.such.tensor"));
    }

    void fileWithItself()
    {
        auto run = inspect({"diff", kQ4, kQ4, "--values"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("The two are identical."));
        run = inspect({"diff", kQ4, kQ4, "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["identical"].toBool(), true);
        QCOMPARE(doc["values_compared"].toBool(), false);
        QCOMPARE(doc["metadata"]["same"].toInt(), 25);
    }

    // A copy cut short is not identical (#40): without --values the data ranges are checked, and a
    // tensor whose data runs past the end of its file differs.
    void cutCopyDiffers()
    {
        QTemporaryDir dir;
        QFile source(kQ4);
        QVERIFY(source.open(QIODevice::ReadOnly));
        const QByteArray whole = source.readAll();
        const QString cut = dir.filePath("cut.gguf");
        QVERIFY(gguf::test::writeBytes(cut, std::vector<uint8_t>(whole.begin(), whole.begin() + whole.size() / 2)));
        // which tensors lose data: those whose range ends past the cut, read from the builder-free reader
        const gguf::OpenResult r = gguf::GgufFile::open(kQ4.toStdString());
        QVERIFY(r.file);
        int lost = 0;
        for (const gguf::TensorInfo &t : r.file->tensors())
            lost += t.fileOffset + t.byteSize > uint64_t(whole.size() / 2);
        QVERIFY(lost > 0);
        const auto run = inspect({"diff", kQ4, cut, "--json"});
        QCOMPARE(run.exitCode, 1);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["identical"].toBool(true), false);
        int withProblem = 0;
        for (const QJsonValue &t : doc["tensors"].toArray())
            withProblem += t["problem"].toString().contains("runs past the end of its file");
        QCOMPARE(withProblem, lost);
        const auto text = inspect({"diff", kQ4, cut});
        QCOMPARE(text.exitCode, 1);
        QVERIFY2(text.out.contains("The two differ."), text.out.constData());
    }

    // identical means the same bytes or the same values, never "not looked at" (#40): a copy compared
    // without --values is "no difference found" (identical null, status 0), naming what was not compared.
    void withoutValuesNothingIsAssumed()
    {
        QTemporaryDir dir;
        const QString copy = dir.filePath("copy.gguf");
        QVERIFY(QFile::copy(kQ4, copy));
        auto run = inspect({"diff", kQ4, copy, "--json"});
        QCOMPARE(run.exitCode, 0);
        QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QVERIFY(doc.contains("identical") && doc["identical"].isNull());
        QCOMPARE(doc["tensors_not_compared"].toInt(), 38);
        run = inspect({"diff", kQ4, copy});
        QVERIFY2(run.out.contains("No difference found, but the data of 38 tensors was not compared"),
                 run.out.constData());
        run = inspect({"diff", kQ4, copy, "--values", "--json"});
        QCOMPARE(run.exitCode, 0);
        doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["identical"].toBool(false), true);
        QCOMPARE(doc["tensors_not_compared"].toInt(), 0);
    }

    // Two files in other byte orders hold the same values in other bytes: the diff says so (#40).
    void byteOrderIsNamed()
    {
        const QString little = kData + "/ggml-reference/q4_K.gguf", big = kData + "/big-endian/q4_K.gguf";
        auto run = inspect({"diff", little, big, "--values", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["format"]["same"].toBool(true), false);
        QCOMPARE(doc["format"]["a"]["byte_order"].toString(), QStringLiteral("little"));
        QCOMPARE(doc["format"]["b"]["byte_order"].toString(), QStringLiteral("big"));
        QCOMPARE(doc["tensors"][0]["status"].toString(), QStringLiteral("same-values"));
        run = inspect({"diff", little, big});
        QVERIFY2(run.out.contains("Format: GGUF v3, little-endian, alignment 32 → GGUF v3, big-endian, alignment 32"),
                 run.out.constData());
    }

    void splitSetAgainstMergedFile()
    {
        QTemporaryDir dir;
        for (uint16_t number : {1, 2})
            QVERIFY(gguf::test::writeBytes(
                dir.filePath(QStringLiteral("m-%1-of-00002.gguf").arg(number, 5, 10, QLatin1Char('0'))),
                gguf::test::twoFileSplitShard(number)));
        using gguf::test::V;
        QVERIFY(gguf::test::writeBytes(dir.filePath("merged.gguf"), gguf::test::GgufBuilder()
                                                                        .kv("general.architecture", V::str("llama"))
                                                                        .tensor("blk.1.w", {32}, 0)
                                                                        .tensor("blk.2.w", {32}, 0)
                                                                        .build()
                                                                        .bytes()));
        const auto run =
            inspect({"diff", dir.filePath("m-00001-of-00002.gguf"), dir.filePath("merged.gguf"), "--values", "--json"});
        QCOMPARE(run.exitCode, 1); // the split.* keys differ
        const QJsonObject doc = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(doc["metadata"]["removed"].toArray(), QJsonArray({"split.no", "split.count", "split.tensors.count"}));
        QCOMPARE(doc["tensors"].toArray().size(), 2);
        for (const QJsonValue &t : doc["tensors"].toArray())
            QCOMPARE(t["status"].toString(), QStringLiteral("same-bytes"));

        QVERIFY(QFile::remove(dir.filePath("m-00002-of-00002.gguf")));
        const auto missing = inspect({"diff", dir.filePath("m-00001-of-00002.gguf"), dir.filePath("merged.gguf")});
        QCOMPARE(missing.exitCode, 3);
        QVERIFY(missing.err.contains("m-00002-of-00002.gguf"));
    }

    void unreadableFiles()
    {
        QTemporaryDir dir;
        QFile text(dir.filePath("notes.txt"));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("not a model at all\n");
        text.close();
        QFile source(kQ8);
        QVERIFY(source.open(QIODevice::ReadOnly));
        QFile cut(dir.filePath("cut.gguf"));
        QVERIFY(cut.open(QIODevice::WriteOnly));
        cut.write(source.read(5000)); // inside the metadata
        cut.close();
        for (const QString &bad : {dir.filePath("missing.gguf"), dir.path(), text.fileName(), cut.fileName()}) {
            const auto run = inspect({"diff", kQ4, bad});
            QCOMPARE(run.exitCode, 3);
            QVERIFY2(run.err.contains(QFileInfo(bad).fileName().toUtf8()), run.err.constData());
            QVERIFY(run.out.isEmpty());
            QCOMPARE(inspect({"diff", bad, kQ4}).exitCode, 3);
        }
    }

    // A report that cannot be written is not a verdict: exit 3, not 1 ("the two differ").
    void unwritableOutput()
    {
        QVERIFY(QFileInfo(QStringLiteral("/dev/full")).exists()); // Linux's always-full device
        QProcess process;
        process.setStandardOutputFile(QStringLiteral("/dev/full"));
        process.start(gguf::test::inspectPath(), {QStringLiteral("diff"), kQ4, kQ8, QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 3);
        QVERIFY(process.readAllStandardError().contains("cannot write to standard output"));
    }

    void strictJsonAndUncomparableData()
    {
        using gguf::test::GgufBuilder;
        using gguf::test::V;
        QTemporaryDir dir;
        // non-finite metadata floats are null in strict JSON
        QVERIFY(gguf::test::writeBytes(dir.filePath("nan.gguf"),
                                       GgufBuilder().kv("x", V::f32Bits(0x7fc00000)).build().bytes()));
        QVERIFY(gguf::test::writeBytes(dir.filePath("inf.gguf"),
                                       GgufBuilder().kv("x", V::f32Bits(0x7f800000)).build().bytes()));
        auto run = inspect({"diff", dir.filePath("nan.gguf"), dir.filePath("inf.gguf"), "--json"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(!run.out.contains("NaN") && !run.out.contains("Infinity"), run.out.constData());
        QJsonParseError error;
        const QJsonObject doc = QJsonDocument::fromJson(run.out, &error).object();
        QCOMPARE(error.error, QJsonParseError::NoError);
        QVERIFY(doc["metadata"]["changed"][0]["a"].isNull());

        // data that cannot be compared is not "identical": a type the decoder lacks, other bytes
        const std::vector<uint8_t> one(64, 1), two(64, 2);
        QVERIFY(gguf::test::writeBytes(dir.filePath("u1.gguf"),
                                       GgufBuilder().tensor({"t", {64}, 99, one, std::nullopt}).build().bytes()));
        QVERIFY(gguf::test::writeBytes(dir.filePath("u2.gguf"), GgufBuilder()
                                                                    .byteOrder(gguf::test::Endian::Big)
                                                                    .tensor({"t", {64}, 99, two, std::nullopt})
                                                                    .build()
                                                                    .bytes()));
        run = inspect({"diff", dir.filePath("u1.gguf"), dir.filePath("u2.gguf"), "--values", "--json"});
        const QJsonObject u = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(run.exitCode, 1);
        QCOMPARE(u["identical"].toBool(), false);
        QVERIFY(u["tensors"][0].toObject().contains("problem"));
    }

    void usage()
    {
        auto run = inspect({"diff", kQ4});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("missing the second FILE"));
        QCOMPARE(inspect({"diff", kQ4, kQ8, "extra"}).exitCode, 2);
        QCOMPARE(inspect({"stats", kQ4, "--values"}).exitCode, 2);
        QCOMPARE(inspect({"info", kQ4, "--tensor", "x"}).exitCode, 2);
        QVERIFY(inspect({"--help"}).out.contains("diff A B"));
    }
};

QTEST_GUILESS_MAIN(TestInspectDiff)
#include "tst_inspect_diff.moc"
