// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect memory`: the JSON contract (../shared/DESIGN.md), llama.cpp's own figures for
// tiny-llama-tied-q8_0 (../shared/tools/README.md: KV 8.00 MiB at 4096, 4.25 MiB in q8_0, output
// buffer 0.12 MiB), the budget search, usage errors and unreadable files.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <map>

using namespace gguf::test;

namespace {

const QString kTiny = gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf");
constexpr double MiB = 1024.0 * 1024.0;

QJsonObject memoryJson(QStringList args)
{
    args.prepend(kTiny);
    args.prepend(QStringLiteral("memory"));
    args.append(QStringLiteral("--json"));
    const InspectRun run = inspect(args);
    if (run.exitCode != 0)
        qWarning("memory %s: exit %d: %s", qPrintable(args.join(' ')), run.exitCode, run.err.constData());
    QJsonParseError error{};
    const QJsonObject doc = QJsonDocument::fromJson(run.out, &error).object();
    if (error.error != QJsonParseError::NoError)
        qWarning("not JSON: %s", qPrintable(error.errorString()));
    return doc;
}

QJsonObject device(const QJsonObject &doc, const char *name)
{
    for (const QJsonValue &d : doc.value(QStringLiteral("devices")).toArray())
        if (d.toObject().value(QStringLiteral("name")).toString() == QLatin1String(name))
            return d.toObject();
    return {};
}

double field(const QJsonObject &o, const char *key)
{
    return o.value(QLatin1String(key)).toDouble(-1);
}

} // namespace

class TestInspectMemory : public QObject {
    Q_OBJECT
private slots:
    void contract()
    {
        const QJsonObject doc = memoryJson({QStringLiteral("--ctx"), QStringLiteral("4096")});
        const QJsonObject inputs = doc.value(QStringLiteral("inputs")).toObject();
        QCOMPARE(field(inputs, "ctx"), 4096.0);
        QCOMPARE(inputs.value(QStringLiteral("cache_type_k")).toString(), QStringLiteral("f16"));
        QCOMPARE(inputs.value(QStringLiteral("flash_attn")).toBool(true), false);
        QCOMPARE(field(inputs, "gpu_layers"), 5.0); // 4 layers and the output
        const QJsonObject cpu = device(doc, "cpu"), gpu = device(doc, "gpu");
        QVERIFY(!cpu.isEmpty() && !gpu.isEmpty());
        QCOMPARE(field(gpu, "kv"), 8 * MiB);      // llama_kv_cache: size = 8.00 MiB
        QCOMPARE(field(cpu, "output"), 128000.0); // 32000 logits × 4 B = 0.12 MiB
        for (const QJsonObject &d : {cpu, gpu})
            QCOMPARE(field(d, "total"),
                     field(d, "weights") + field(d, "kv") + field(d, "compute") + field(d, "output"));
        const QJsonArray layers = doc.value(QStringLiteral("kv_per_layer")).toArray();
        QCOMPARE(layers.size(), 4);
        for (const QJsonValue &l : layers) {
            QCOMPARE(field(l.toObject(), "k"), 1 * MiB);
            QCOMPARE(l.toObject().value(QStringLiteral("kind")).toString(), QStringLiteral("full"));
        }
        QVERIFY(doc.value(QStringLiteral("max_context_for_budget")).isNull());
        QVERIFY(!doc.value(QStringLiteral("terms")).toArray().isEmpty());
    }

    void cacheTypesAndOffload()
    {
        QJsonObject doc = memoryJson({QStringLiteral("--ctx"), QStringLiteral("4096"), QStringLiteral("--cache-type-k"),
                                      QStringLiteral("q8_0"), QStringLiteral("--cache-type-v"), QStringLiteral("q8_0"),
                                      QStringLiteral("--flash-attn")});
        QCOMPARE(field(device(doc, "gpu"), "kv"), 4.25 * MiB); // size = 4.25 MiB
        doc = memoryJson({QStringLiteral("--gpu-layers"), QStringLiteral("0")});
        QCOMPARE(field(device(doc, "gpu"), "total"), 0.0);
        const auto file = gguf::GgufFile::open(kTiny.toStdString()).file;
        QVERIFY(file);
        QCOMPARE(field(device(doc, "cpu"), "weights"), double(file->tensorDataBytes()));
        QCOMPARE(field(doc.value(QStringLiteral("inputs")).toObject(), "ctx"), 2048.0); // the model's own
    }

    void inputsAsGiven()
    {
        const QJsonObject doc =
            memoryJson({QStringLiteral("--ctx"), QStringLiteral("3000"), QStringLiteral("--parallel"),
                        QStringLiteral("2"), QStringLiteral("--ubatch"), QStringLiteral("256"),
                        QStringLiteral("--gpu-layers"), QStringLiteral("-1"), QStringLiteral("--no-mmap")});
        const QJsonObject inputs = doc.value(QStringLiteral("inputs")).toObject();
        QCOMPARE(field(inputs, "ctx"), 3000.0);
        QCOMPARE(field(inputs, "n_ctx_padded"), 3072.0); // 3000 → 3072, 1536 per sequence
        QCOMPARE(field(inputs, "parallel"), 2.0);
        QCOMPARE(field(inputs, "ubatch"), 256.0);
        QCOMPARE(field(inputs, "gpu_layers"), 5.0); // -1: all
        QCOMPARE(inputs.value(QStringLiteral("mmap")).toBool(true), false);
        // two streams of 1536 cells: 4 layers × 1536 × 2 × (K + V) 256 B
        QCOMPARE(field(device(doc, "gpu"), "kv"), double(4 * 1536 * 2 * 512));
        QCOMPARE(field(device(doc, "cpu"), "output"), 2 * 128000.0);
        QVERIFY(doc.value(QStringLiteral("refusals")).toArray().isEmpty());
        // a quantized V cache without flash attention: estimated, and llama.cpp's refusal said
        const QJsonObject refused = memoryJson({QStringLiteral("--cache-type-v"), QStringLiteral("q8_0")});
        QCOMPARE(refused.value(QStringLiteral("refusals")).toArray().size(), 1);
    }

    void budget()
    {
        const QJsonObject doc = memoryJson({QStringLiteral("--budget"), QStringLiteral("0.1")});
        const double best = field(doc, "max_context_for_budget");
        QVERIFY(best >= 256);
        QCOMPARE(std::fmod(best, 256.0), 0.0);
        const double budget = 0.1 * 1024 * MiB;
        QCOMPARE(field(doc.value(QStringLiteral("inputs")).toObject(), "budget"), std::floor(budget));
        // the answer fits on the GPU and 256 more cells do not
        QVERIFY(field(device(memoryJson({QStringLiteral("--ctx"), QString::number(best)}), "gpu"), "total") <= budget);
        if (best < 2048) // the model's context is the most it looks for
            QVERIFY(field(device(memoryJson({QStringLiteral("--ctx"), QString::number(best + 256)}), "gpu"), "total") >
                    budget);
        const InspectRun text =
            inspect({QStringLiteral("memory"), kTiny, QStringLiteral("--budget"), QStringLiteral("0.1")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains("the largest context that fits is " + QByteArray::number(qint64(best))));
        QVERIFY(text.out.contains("How each figure is made"));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("ctx not a number") << QStringList{"memory", kTiny, "--ctx", "many"};
        QTest::newRow("ctx zero") << QStringList{"memory", kTiny, "--ctx", "0"};
        QTest::newRow("cache type not allowed") << QStringList{"memory", kTiny, "--cache-type-k", "q4_k"};
        QTest::newRow("cache type unknown") << QStringList{"memory", kTiny, "--cache-type-v", "f12"};
        QTest::newRow("negative budget") << QStringList{"memory", kTiny, "--budget", "-1"};
        QTest::newRow("gpu layers") << QStringList{"memory", kTiny, "--gpu-layers", "-2"};
        QTest::newRow("parallel zero") << QStringList{"memory", kTiny, "--parallel", "0"};
        QTest::newRow("option of another command") << QStringList{"info", kTiny, "--ctx", "4096"};
        QTest::newRow("device without memory") << QStringList{"memory", kTiny, "--device", "CUDA0"};
        QTest::newRow("device twice") << QStringList{"memory", kTiny, "--device", "A=1", "--device", "A=2"};
        QTest::newRow("unknown buffer") << QStringList{"memory", kTiny, "--device", "CUDA0=8", "-ot", "ffn=CUDA1"};
        QTest::newRow("not a regex") << QStringList{"memory", kTiny, "--device", "CUDA0=8", "-ot", "blk.(=CPU"};
        QTest::newRow("split mode") << QStringList{"memory", kTiny, "--device", "CUDA0=8", "--split-mode", "rows"};
        QTest::newRow("main gpu") << QStringList{"memory", kTiny, "--device", "CUDA0=8", "--main-gpu", "1"};
        QTest::newRow("split values") << QStringList{"memory", kTiny, "--device", "A=8", "--tensor-split", "1,x"};
        QTest::newRow("budget with devices") << QStringList{"memory", kTiny, "--device", "A=8", "--budget", "4"};
    }

    // --device, -ot, --n-cpu-moe (#44): `devices` is cpu then each device in order, `placement`
    // names every tensor once with its device and why, the totals add up, and llama.cpp's one-dash
    // spellings (-ot, -ts, -ngl) are read.
    void devices()
    {
        const QJsonObject doc = memoryJson({"--ctx", "4096", "--device", "CUDA0=24", "--device", "CUDA1=8", "-ngl", "3",
                                            "-ts", "1,1", "-ot", "output\\.=CUDA0,ffn_down=CPU"});
        const QJsonArray devices = doc.value(QStringLiteral("devices")).toArray();
        QCOMPARE(devices.size(), 3);
        QCOMPARE(devices[0].toObject().value("name").toString(), QStringLiteral("cpu"));
        QCOMPARE(devices[1].toObject().value("name").toString(), QStringLiteral("CUDA0"));
        QCOMPARE(field(devices[1].toObject(), "free"), 24.0 * 1024 * MiB);
        // 4 layers + output, ngl 3: start 2, act 3; 1,1: slots 2 (0) and 3 (1/3) on CUDA0, 4 (2/3) CUDA1
        const QJsonArray layers = doc.value(QStringLiteral("layers")).toArray();
        QCOMPARE(layers.toVariantList(), (QVariantList{"cpu", "cpu", "CUDA0", "CUDA0", "CUDA1"}));
        const auto file = gguf::GgufFile::open(kTiny.toStdString()).file;
        QVERIFY(file);
        std::map<QString, double> sums;
        std::map<QString, int> seen;
        for (const QJsonValue &v : doc.value(QStringLiteral("placement")).toArray()) {
            const QJsonObject p = v.toObject();
            const QString name = p.value("tensor").toString();
            QVERIFY(!p.value("why").toString().isEmpty());
            ++seen[name];
            sums[p.value("device").toString()] += field(p, "bytes");
            if (name.contains(QStringLiteral("ffn_down")))
                QCOMPARE(p.value("device").toString(), QStringLiteral("cpu"));
            if (name.startsWith(QStringLiteral("output_norm")))
                QCOMPARE(p.value("device").toString(), QStringLiteral("CUDA1"));
        }
        // every tensor once, and the tied model's token embedding again for the output layer
        QCOMPARE(seen.size(), file->tensors().size());
        for (const auto &[name, n] : seen)
            QCOMPARE(n, name == QStringLiteral("token_embd.weight") ? 2 : 1);
        for (const QJsonValue &d : devices) {
            const QJsonObject o = d.toObject();
            QCOMPARE(field(o, "weights"), sums[o.value("name").toString()]);
            QCOMPARE(field(o, "total"),
                     field(o, "weights") + field(o, "kv") + field(o, "compute") + field(o, "output"));
        }
        const QJsonArray rules = doc.value(QStringLiteral("rules")).toArray();
        QCOMPARE(rules.size(), 2);
        QCOMPARE(field(rules[1].toObject(), "tensors"), 4.0); // blk.0–3.ffn_down
    }

    void usageErrors()
    {
        QFETCH(QStringList, args);
        const InspectRun run = inspect(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY(run.err.startsWith("gguf-inspect: "));
    }

    // fit (#44): its llama.cpp arguments, given back to memory as they are, fit every device with
    // the margin left; with one more layer's experts on the GPU they would not.
    void fitGivenBackToMemory()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("moe.gguf"));
        QVERIFY(writeBytes(path, moeSample(256, 512).build().bytes()));
        const QStringList devices{"--device", "CUDA0=0.015625", "--device", "CUDA1=0.0078125"}; // 16 and 8 MiB
        const QStringList common = QStringList{"--flash-attn", "--ubatch", "128"} + devices;
        const InspectRun fit = inspect(QStringList{"fit", path, "--ctx", "4096", "--margin", "1", "--json"} + common);
        QCOMPARE(fit.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(fit.out).object();
        QStringList args;
        for (const QJsonValue &a : doc.value(QStringLiteral("args")).toArray())
            args << a.toString();
        QVERIFY2(args.contains(QStringLiteral("--n-cpu-moe")), qPrintable(args.join(' ')));
        QVERIFY(doc.value(QStringLiteral("command")).toString().startsWith(QStringLiteral("llama-server -m ")));
        QCOMPARE(doc.value(QStringLiteral("why_not_more")).toArray().size(), 3);
        const auto totalsOf = [&](const QStringList &llamaArgs) {
            const InspectRun run =
                inspect(QStringList{"memory", path, "--json", "--ubatch", "128"} + devices + llamaArgs);
            std::vector<std::pair<double, double>> out; // total, free
            for (const QJsonValue &d : QJsonDocument::fromJson(run.out).object().value("devices").toArray())
                if (d.toObject().value("name").toString() != QStringLiteral("cpu"))
                    out.emplace_back(field(d.toObject(), "total"), field(d.toObject(), "free"));
            return out;
        };
        const auto fitsAll = [](const std::vector<std::pair<double, double>> &devs) {
            return !devs.empty() &&
                   std::all_of(devs.begin(), devs.end(), [](const auto &d) { return d.first + MiB <= d.second; });
        };
        QVERIFY(fitsAll(totalsOf(args)));
        QStringList fewer = args;
        const qsizetype at = fewer.indexOf(QStringLiteral("--n-cpu-moe")) + 1;
        fewer[at] = QString::number(fewer[at].toInt() - 1);
        QVERIFY(!fitsAll(totalsOf(fewer)));
        // fit needs devices
        QCOMPARE(inspect({"fit", path}).exitCode, 2);
    }

    void unreadableFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString text = dir.filePath(QStringLiteral("notes.gguf"));
        QFile out(text);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("not a model at all\n");
        out.close();
        // a GGUF llama.cpp would refuse to run: more layers than it can hold
        const QString many = dir.filePath(QStringLiteral("many-layers.gguf"));
        GgufBuilder b;
        b.kv("general.architecture", BuildValue::str("llama")).kv("llama.block_count", BuildValue::u32(100000));
        QVERIFY(writeBytes(many, b.build().bytes()));
        const InspectRun refused = inspect({QStringLiteral("memory"), many});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("block_count 100000"), refused.err.constData());
        // no weights, no estimate (#40: a vocabulary file was given gigabytes, an imatrix "no .block_count")
        const InspectRun vocab = inspect({QStringLiteral("memory"), dataPath(u"real/ggml-vocab-llama-spm.gguf")});
        QCOMPARE(vocab.exitCode, 1);
        QVERIFY(vocab.out.isEmpty());
        QVERIFY2(vocab.err.contains("no tensors") && vocab.err.contains("no weights"), vocab.err.constData());
        const QString imatrix = dir.filePath(QStringLiteral("imatrix.gguf"));
        QVERIFY(writeBytes(imatrix, GgufBuilder()
                                        .kv("general.type", BuildValue::str("imatrix"))
                                        .tensor("blk.0.ffn_up.weight.in_sum2", {8}, 0)
                                        .build()
                                        .bytes()));
        const InspectRun importance = inspect({QStringLiteral("memory"), imatrix});
        QCOMPARE(importance.exitCode, 1);
        QVERIFY2(importance.err.contains("general.type is \"imatrix\"") && !importance.err.contains(" .block_count"),
                 importance.err.constData());
        for (const QString &path : {text, dir.path(), dir.filePath(QStringLiteral("missing.gguf"))}) {
            const InspectRun run = inspect({QStringLiteral("memory"), path});
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(run.err.contains(QFile::encodeName(path)), run.err.constData());
            QVERIFY(run.out.isEmpty());
        }
    }
};

QTEST_GUILESS_MAIN(TestInspectMemory)
#include "tst_inspect_memory.moc"
