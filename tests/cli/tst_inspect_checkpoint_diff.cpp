// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect diff MODEL.gguf CHECKPOINT --values` (#43) against llama.cpp's own converter: the
// checkpoints of tests/data/hf-oracle (random weights, each architecture's config.json layout) were
// converted by convert_hf_to_gguf.py, so every tensor of the lossless GGUF must pair with its
// original and compare equal once the conversion is undone, and the Q8_0/Q4_0 copies must give the
// measures NumPy computed from gguf-py's dequantization (golden.json; how: hf-oracle/README.md).
#include "tests/support/inspect_run.h"
#include "tests/support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>

using gguf::test::inspect;

namespace {

QString oracle(const QString &name)
{
    return gguf::test::dataPath(QString(QStringLiteral("hf-oracle/") + name));
}

QJsonObject golden()
{
    QFile f(oracle(QStringLiteral("golden.json")));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

QJsonObject diffJson(const QStringList &args, int expectedExit)
{
    const auto run = inspect(QStringList{"diff"} + args + QStringList{"--values", "--json"});
    if (run.exitCode != expectedExit) {
        qWarning() << args << run.exitCode << run.err.left(2000);
        return {};
    }
    return QJsonDocument::fromJson(run.out).object();
}

// A measure of ours against NumPy's: equal to 1e-9 relative (sums in another order), null where
// NumPy's is infinite or undefined.
bool close(const QJsonValue &ours, const QJsonValue &numpy)
{
    if (numpy.isNull())
        return ours.isNull();
    const double a = ours.toDouble(), b = numpy.toDouble();
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

} // namespace

class TestInspectCheckpointDiff : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_golden = golden();
        QVERIFY(m_golden.size() >= 11);
    }

    // Every lossless conversion: each GGUF tensor paired, every value equal.
    void losslessEqual_data()
    {
        QTest::addColumn<QString>("tag");
        for (const QString &copy : m_golden.keys())
            if (copy.endsWith(QLatin1String(".q8_0.gguf")))
                QTest::newRow(qPrintable(copy)) << m_golden[copy].toObject()["checkpoint"].toString();
    }
    void losslessEqual()
    {
        QFETCH(QString, tag);
        const QJsonObject d = diffJson({oracle(tag + ".gguf"), oracle(tag)}, 0);
        QVERIFY(!d.isEmpty());
        QVERIFY(d["identical"].toBool());
        QCOMPARE(d["checkpoint"].toString(), QStringLiteral("b"));
        QVERIFY(d["paired_by_conversion"].toBool());
        const QJsonObject expected = m_golden[tag + ".q8_0.gguf"].toObject()["tensors"].toObject();
        const QJsonArray tensors = d["tensors"].toArray();
        QCOMPARE(tensors.size(), expected.size()); // nothing only in one of them
        for (const QJsonValue &v : tensors) {
            const QJsonObject t = v.toObject();
            QVERIFY2(expected.contains(t["name"].toString()), qPrintable(t["name"].toString()));
            QVERIFY2(t["name_b"].isString(), qPrintable(t["name"].toString()));
            QCOMPARE(t["status"].toString(), QStringLiteral("same-values"));
            QCOMPARE(t["rmse"].toDouble(), 0.0);
            QCOMPARE(t["differing"].toInt(), 0);
        }
    }

    // The quantized copies: NumPy's measures of gguf-py's dequantization against the lossless values.
    void quantizedMeasures_data()
    {
        QTest::addColumn<QString>("copy");
        for (const QString &copy : m_golden.keys())
            QTest::newRow(qPrintable(copy)) << copy;
    }
    void quantizedMeasures()
    {
        QFETCH(QString, copy);
        const QJsonObject entry = m_golden[copy].toObject();
        const QJsonObject expected = entry["tensors"].toObject();
        const QJsonObject d = diffJson({oracle(copy), oracle(entry["checkpoint"].toString())}, 1);
        QVERIFY(!d.isEmpty());
        QVERIFY(!d["identical"].toBool());
        const QJsonArray tensors = d["tensors"].toArray();
        QCOMPARE(tensors.size(), expected.size());
        int quantized = 0;
        for (const QJsonValue &v : tensors) {
            const QJsonObject t = v.toObject(), e = expected[t["name"].toString()].toObject();
            QVERIFY2(!e.isEmpty(), qPrintable(t["name"].toString()));
            QCOMPARE(t["a_type"].toString(), e["type"].toString());
            quantized += e["type"].toString() != QLatin1String("F32");
            for (const auto &[ours, numpy] :
                 {std::pair{"rmse", "rmse"}, std::pair{"max_abs", "max_abs"},
                  std::pair{"mean_abs_rel", "mean_abs_relative"}, std::pair{"cosine", "cosine"},
                  std::pair{"snr_db", "snr_db"}, std::pair{"rel_l2", "relative_l2"}})
                QVERIFY2(close(t[ours], e[numpy]), qPrintable(t["name"].toString() + " " + ours + " " +
                                                              QString::number(t[ours].toDouble(), 'g', 17) + " vs " +
                                                              QString::number(e[numpy].toDouble(), 'g', 17)));
        }
        QVERIFY(quantized > 0);
    }

    // The checkpoint first: names swap sides, the symmetric measures stay.
    void checkpointFirst()
    {
        const QJsonObject d = diffJson({oracle("mixtral-bf16"), oracle("mixtral-bf16.q8_0.gguf")}, 1);
        QVERIFY(!d.isEmpty());
        QCOMPARE(d["checkpoint"].toString(), QStringLiteral("a"));
        const QJsonObject e = m_golden["mixtral-bf16.q8_0.gguf"].toObject()["tensors"].toObject();
        bool sawExperts = false;
        for (const QJsonValue &v : d["tensors"].toArray()) {
            const QJsonObject t = v.toObject();
            const QString gguf = t["name_b"].toString();
            QVERIFY(close(t["rmse"], e[gguf].toObject()["rmse"]));
            QVERIFY(close(t["cosine"], e[gguf].toObject()["cosine"]));
            if (gguf == QLatin1String("blk.1.ffn_down_exps.weight")) {
                sawExperts = true;
                QCOMPARE(t["name"].toString(),
                         QStringLiteral("model.layers.1.block_sparse_moe.experts.{0…3}.w2.weight"));
                QCOMPARE(t["a_dims"].toArray(), (QJsonArray{32, 32, 4}));
            }
        }
        QVERIFY(sawExperts);
    }

    // A sharded checkpoint through its index, and a single file, as well as the folder.
    void checkpointPaths()
    {
        const QJsonObject index =
            diffJson({oracle("qwen3moe-bf16.gguf"), oracle("qwen3moe-bf16/model.safetensors.index.json")}, 0);
        QVERIFY(index["identical"].toBool());
        const QJsonObject file = diffJson({oracle("phi3-bf16.gguf"), oracle("phi3-bf16/model.safetensors")}, 0);
        QVERIFY(file["identical"].toBool());
    }

    // What was undone is said, and a conversion not undone is not equal: llama's q rows are
    // regrouped, so comparing them in the checkpoint's order (a qwen2-style pairing) would differ.
    void undoneIsNamed()
    {
        const auto run = inspect({"diff", oracle("llama-f32.gguf"), oracle("llama-f32"), "--values"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.contains("Pairing: llama.cpp's conversion of llama undone"));
        QVERIFY(run.out.contains("blk.0.attn_q.weight: undone: rows regrouped over 4 heads (RoPE)"));
        QVERIFY(run.out.contains("blk.0.attn_k.weight: undone: rows regrouped over 2 heads (RoPE)"));
        QVERIFY(run.out.contains("Every value equals the checkpoint's"));
        const auto gemma = inspect({"diff", oracle("gemma2-bf16.gguf"), oracle("gemma2-bf16"), "--values"});
        QCOMPARE(gemma.exitCode, 0);
        QVERIFY(gemma.out.contains("blk.1.post_ffw_norm.weight: undone: +1 (gemma norm)"));
    }

    // Another model's checkpoint: names pair, values do not; a tensor the rules cannot place is
    // listed on its side alone, never guessed.
    void wrongCheckpoint()
    {
        const QJsonObject d = diffJson({oracle("qwen2-f32.gguf"), oracle("llama-f32")}, 1);
        QVERIFY(!d.isEmpty());
        QVERIFY(!d["identical"].toBool());
        int changed = 0, onlyA = 0;
        for (const QJsonValue &v : d["tensors"].toArray()) {
            const QString status = v.toObject()["status"].toString();
            changed += status == QLatin1String("changed");
            onlyA += status == QLatin1String("only-a");
            if (status == QLatin1String("only-a"))
                QVERIFY(v.toObject()["name"].toString().endsWith(QLatin1String(".bias"))); // llama has none
        }
        QCOMPARE(onlyA, 6);
        QVERIFY(changed > 10);
    }

    void unknownArchitecture()
    {
        const QString vocabOnly = gguf::test::dataPath(u"real/ggml-vocab-gpt-2.gguf");
        const auto run = inspect({"diff", vocabOnly, oracle("llama-f32"), "--json"});
        QCOMPARE(run.exitCode, 1);
        const QJsonObject d = QJsonDocument::fromJson(run.out).object();
        QVERIFY(!d["paired_by_conversion"].toBool());
        QVERIFY(d["problem"].toString().contains("gpt2"));
        for (const QJsonValue &v : d["tensors"].toArray())
            QCOMPARE(v.toObject()["status"].toString(), QStringLiteral("only-b"));
    }

    // memory and fit on a checkpoint (#43): what the converter's GGUF would need, figure for figure
    // and tensor by tensor (placement), equal to the same commands on the GGUF the converter made.
    void memoryAsConverted_data() { losslessEqual_data(); }
    void memoryAsConverted()
    {
        QFETCH(QString, tag);
        const QList<QStringList> settings{
            {"memory", "--json"},
            {"memory", "--json", "--ctx", "512", "--gpu-layers", "1", "--cache-type-k", "q8_0", "--parallel", "2"},
            {"memory", "--json", "--device", "CUDA0=0.02", "--device", "CUDA1=0.01", "-ot", "exps=CPU"},
            {"fit", "--json", "--device", "CUDA0=0.03", "--device", "CUDA1=0.02", "--margin", "1", "--max-ctx"}};
        for (const QStringList &s : settings) {
            const QStringList options = s.mid(1);
            const auto onCheckpoint = inspect(QStringList{s[0], oracle(tag)} + options);
            const auto onGguf = inspect(QStringList{s[0], oracle(tag + ".gguf")} + options);
            QCOMPARE(onCheckpoint.exitCode, 0);
            QCOMPARE(onGguf.exitCode, 0);
            QVERIFY2(onCheckpoint.err.isEmpty(), onCheckpoint.err.constData()); // every tensor mapped
            QJsonObject a = QJsonDocument::fromJson(onCheckpoint.out).object();
            const QJsonObject b = QJsonDocument::fromJson(onGguf.out).object();
            QVERIFY(!b.isEmpty() && !b["placement"].toArray().isEmpty());
            // fit's command line names the GGUF the converter would write beside the checkpoint
            if (s[0] == u"fit")
                QCOMPARE(a["command"].toString(), b["command"].toString());
            QVERIFY2(a == b,
                     qPrintable(s.join(u' ') + "\n" + onCheckpoint.out.left(1500) + "\n" + onGguf.out.left(1500)));
        }
        // the text says what the figures are of
        const auto text = inspect({"memory", oracle(tag)});
        QVERIFY2(text.out.startsWith("A Hugging Face checkpoint, as llama.cpp's converter would make it"),
                 text.out.left(300).constData());
    }

    // A model_type whose conversion is not known is refused, naming it; tensors no rule maps are
    // named on stderr and left out.
    void memoryOfAnUnknownConversion()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (const char *file : {"config.json", "model.safetensors"})
            QVERIFY(QFile::copy(oracle(QStringLiteral("llama-f32/") + file), dir.filePath(file)));
        QFile config(dir.filePath("config.json"));
        QVERIFY(config.open(QIODevice::ReadWrite));
        QByteArray text = config.readAll();
        QVERIFY(text.contains("\"model_type\": \"llama\""));
        text.replace("\"model_type\": \"llama\"", "\"model_type\": \"gpt_bigcode\"");
        QVERIFY(config.resize(0) && config.write(text) == text.size());
        config.close();
        const auto run = inspect({"memory", dir.path()});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("gpt_bigcode") && run.err.contains("not known"), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }

    // Two checkpoints: tensors paired by name, config.json key by key. A copy of a checkpoint is
    // identical (its split into shards too); a copy with one value raised by 0.5 and one config
    // value changed gives that tensor's measures, computed here, and the key.
    void twoCheckpoints()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath("a"), b = dir.filePath("b");
        for (const QString &d : {a, b}) {
            QVERIFY(QDir().mkpath(d));
            for (const char *f : {"config.json", "model.safetensors"})
                QVERIFY(QFile::copy(oracle("llama-f32/") + f, d + "/" + f));
        }
        QJsonObject same = diffJson({a, b}, 0);
        QCOMPARE(same["identical"].toBool(), true);
        QCOMPARE(same["metadata"].toObject()["same"].toInt(), 19); // config.json's 18 keys, __metadata__'s one
        for (const QJsonValue &t : same["tensors"].toArray())
            QCOMPARE(t.toObject()["status"].toString(), QStringLiteral("same-bytes"));
        // the same checkpoint in three shards and an index
        const QString c = dir.filePath("c");
        QVERIFY(QDir().mkpath(c));
        QVERIFY(QFile::copy(oracle("llama-f32/config.json"), c + "/config.json"));
        QCOMPARE(inspect({"split", a, "-o", c + "/model", "--split-max-tensors", "8"}).exitCode, 0);
        same = diffJson({a, c}, 0);
        QCOMPARE(same["identical"].toBool(), true);
        QCOMPARE(same["tensors"].toArray().size(), 21);

        // b: model.norm.weight[3] + 0.5 (data offsets [90624, 90752) of the header read here) and
        // hidden_act "gelu"
        QFile model(b + "/model.safetensors");
        QVERIFY(model.open(QIODevice::ReadWrite));
        const QByteArray bytes = model.readAll();
        quint64 n = 0;
        for (int i = 7; i >= 0; --i)
            n = (n << 8) | static_cast<uchar>(bytes[i]);
        const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, qsizetype(n))).object();
        const qint64 at =
            8 + qint64(n) + header["model.norm.weight"].toObject()["data_offsets"].toArray()[0].toInteger() + 3 * 4;
        float value = 0;
        std::memcpy(&value, bytes.constData() + at, 4);
        const float raised = value + 0.5f;
        QVERIFY(model.seek(at));
        QCOMPARE(model.write(reinterpret_cast<const char *>(&raised), 4), qint64(4));
        model.close();
        QFile config(b + "/config.json");
        QVERIFY(config.open(QIODevice::ReadWrite));
        QByteArray text = config.readAll().replace("\"silu\"", "\"gelu\"");
        QVERIFY(config.resize(0));
        config.write(text);
        config.close();

        const QJsonObject diff = diffJson({a, b}, 1);
        QCOMPARE(diff["identical"].toBool(), false);
        const QJsonArray changed = diff["metadata"].toObject()["changed"].toArray();
        QCOMPARE(changed.size(), 1);
        QCOMPARE(changed[0].toObject()["key"].toString(), QStringLiteral("hidden_act"));
        QCOMPARE(changed[0].toObject()["a"].toString(), QStringLiteral("\"silu\""));
        QCOMPARE(changed[0].toObject()["b"].toString(), QStringLiteral("\"gelu\""));
        int changedTensors = 0;
        for (const QJsonValue &v : diff["tensors"].toArray()) {
            const QJsonObject t = v.toObject();
            if (t["name"].toString() != QStringLiteral("model.norm.weight")) {
                QCOMPARE(t["status"].toString(), QStringLiteral("same-bytes"));
                continue;
            }
            ++changedTensors;
            QCOMPARE(t["status"].toString(), QStringLiteral("changed"));
            QCOMPARE(t["differing"].toInt(), 1);
            const double d = double(raised) - double(value);
            QCOMPARE(t["max_abs"].toDouble(), d);
            QVERIFY(std::abs(t["rmse"].toDouble() - std::sqrt(d * d / 32)) < 1e-12);
        }
        QCOMPARE(changedTensors, 1);
        const auto text2 = inspect({"diff", a, b});
        QCOMPARE(text2.exitCode, 1);
        QVERIFY2(text2.out.contains("hidden_act") && text2.out.contains("The two differ."), text2.out.constData());
    }

private:
    QJsonObject m_golden;
};

QTEST_GUILESS_MAIN(TestInspectCheckpointDiff)
#include "tst_inspect_checkpoint_diff.moc"
