// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect` on a safetensors file (#43, first commands): the overview, info, tensors, validate
// and layout, and the refusal of the other commands, on files written here byte by byte.
#include "tests/support/inspect_run.h"
#include "tests/support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

using gguf::test::inspect;

namespace {

// The 8-byte little-endian header length, the header padded with spaces to a multiple of 8 (as the
// reference writer does), then `data`.
QByteArray fileOf(QByteArray header, const QByteArray &data)
{
    header.append(QByteArray((8 - header.size() % 8) % 8, ' '));
    QByteArray out(8, '\0');
    auto n = static_cast<quint64>(header.size());
    for (int i = 0; i < 8; ++i, n >>= 8)
        out[i] = static_cast<char>(n & 0xff);
    return out + header + data;
}

const QByteArray kHeader = "{\"__metadata__\":{\"format\":\"pt\"},"
                           "\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[4,3],\"data_offsets\":[0,24]},"
                           "\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[24,36]}}";

} // namespace

class TestInspectSafetensors : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_good = write("model.safetensors", fileOf(kHeader, QByteArray(36, '\x01')));
        // b overlaps a, and the file ends 4 bytes early
        m_bad = write("bad.bin", fileOf("{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                                        "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
                                        QByteArray(12, '\0')));
    }

    void info()
    {
        const auto run = inspect({"info", m_good, "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o["format"].toString(), QStringLiteral("safetensors"));
        QCOMPARE(o["file_size"].toInteger(), QFileInfo(m_good).size());
        const qint64 n = kHeader.size() + (8 - kHeader.size() % 8) % 8;
        QCOMPARE(o["header_length"].toInteger(), n);
        QCOMPARE(o["data_offset"].toInteger(), 8 + n);
        QCOMPARE(o["tensor_count"].toInt(), 2);
        QCOMPARE(o["parameter_count"].toInt(), 15);
        QCOMPARE(o["tensor_types"].toObject()["BF16"].toInt(), 1);
        QCOMPARE(o["metadata"].toObject()["format"].toString(), QStringLiteral("pt"));
        QVERIFY(o["accepted"].toBool());

        const auto overview = inspect({m_good});
        QCOMPARE(overview.exitCode, 0);
        QVERIFY(overview.out.contains("format:         safetensors"));
        QVERIFY(overview.out.contains("model.norm.weight"));
        QVERIFY(overview.out.contains("would load this file"));
    }

    void tensors()
    {
        const auto run = inspect({"tensors", m_good, "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray a = QJsonDocument::fromJson(run.out).array();
        QCOMPARE(a.size(), 2);
        const QJsonObject e = a[0].toObject();
        QCOMPARE(e["name"].toString(), QStringLiteral("model.embed_tokens.weight"));
        QCOMPARE(e["type"].toString(), QStringLiteral("BF16"));
        QCOMPARE(e["shape"].toArray(), (QJsonArray{4, 3}));
        QCOMPARE(e["dims"].toArray(), (QJsonArray{3, 4})); // innermost first, as for a GGUF
        QCOMPARE(e["bytes"].toInt(), 24);
        const qint64 dataOffset = 8 + kHeader.size() + (8 - kHeader.size() % 8) % 8;
        QCOMPARE(a[1].toObject()["offset"].toInt(), 24);
        QCOMPARE(a[1].toObject()["file_offset"].toInteger(), dataOffset + 24);
        const auto names = inspect({"tensors", m_good, "--names"});
        QCOMPARE(names.out, QByteArray("model.embed_tokens.weight\nmodel.norm.weight\n"));
    }

    void validate()
    {
        QCOMPARE(inspect({"validate", m_good}).exitCode, 0);
        const auto run = inspect({"validate", m_bad, "--json"});
        QCOMPARE(run.exitCode, 1);
        QStringList codes;
        for (const QJsonValue &f : QJsonDocument::fromJson(run.out).array())
            codes << f.toObject()["code"].toString();
        QVERIFY2(codes.contains("tensors_overlap"), qPrintable(codes.join(' ')));
        QVERIFY2(codes.contains("tensor_data_past_end"), qPrintable(codes.join(' ')));
        // the overlap is reported at b's data_offsets in the header
        QFile f(m_bad);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const qint64 where = f.readAll().indexOf("[8,16]");
        for (const QJsonValue &x : QJsonDocument::fromJson(run.out).array())
            if (x.toObject()["code"].toString() == "tensors_overlap")
                QCOMPARE(x.toObject()["offset"].toInteger(), where);
    }

    void layoutCoversEveryByte()
    {
        for (const QString &file : {m_good, m_bad}) {
            const auto run = inspect({"layout", file, "--json"});
            QCOMPARE(run.exitCode, 0);
            qint64 at = 0;
            for (const QJsonValue &r : QJsonDocument::fromJson(run.out).array()) {
                QCOMPARE(r.toObject()["offset"].toInteger(), at);
                at += r.toObject()["size"].toInteger();
            }
            QCOMPARE(at, QFileInfo(file).size());
        }
    }

    void valuesStatsAndDequant()
    {
        // F32 values and BF16 ones (the upper halves of other floats), a U8 tensor and an F8_E4M3 one
        std::vector<float> f32;
        f32.reserve(1000);
        for (int i = 0; i < 1000; ++i)
            f32.push_back(static_cast<float>((i * 7919) % 1000) / 100.0f - 5.0f);
        std::vector<float> bf16Values;
        bf16Values.reserve(40);
        QByteArray bf16;
        for (int i = 0; i < 40; ++i) {
            const float v = static_cast<float>(i) * 0.375f - 3.0f; // exact in bfloat16
            quint32 bits;
            std::memcpy(&bits, &v, 4);
            bf16.append(static_cast<char>((bits >> 16) & 0xff)).append(static_cast<char>(bits >> 24));
            bf16Values.push_back(v);
        }
        const QByteArray f32Bytes(reinterpret_cast<const char *>(f32.data()), static_cast<int>(f32.size() * 4));
        const QByteArray header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[10,100],\"data_offsets\":[0,4000]},"
                                  "\"h\":{\"dtype\":\"BF16\",\"shape\":[40],\"data_offsets\":[4000,4080]},"
                                  "\"u\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[4080,4083]},"
                                  "\"q\":{\"dtype\":\"F8_E4M3\",\"shape\":[3],\"data_offsets\":[4083,4086]}}";
        const QString file = write("values.safetensors", fileOf(header, f32Bytes + bf16 + QByteArray("\x01\x02\x03") +
                                                                            QByteArray("\x38\x7e\x01")));

        // statistics by their definitions, computed here
        const auto expected = [](std::vector<float> v) {
            std::sort(v.begin(), v.end());
            const double h = static_cast<double>(v.size() - 1) * 0.5;
            const auto i = static_cast<size_t>(h);
            const double a = v[i], b = v[i + 1], t = h - static_cast<double>(i);
            return std::tuple(static_cast<double>(v.front()), static_cast<double>(v.back()),
                              t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t);
        };
        const auto run = inspect({"stats", file, "w", "h", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray a = QJsonDocument::fromJson(run.out).array();
        QCOMPARE(a.size(), 2);
        for (int k = 0; k < 2; ++k) {
            const auto [lo, hi, median] = expected(k == 0 ? f32 : bf16Values);
            const QJsonObject o = a[k].toObject();
            QCOMPARE(o["min"].toDouble(), lo);
            QCOMPARE(o["max"].toDouble(), hi);
            QCOMPARE(o["percentiles"].toObject()["p50"].toDouble(), median);
            QVERIFY(o["percentiles_exact"].toBool());
        }
        // the values themselves, as raw float32
        const auto raw = inspect({"dequant", file, "h", "-o", "-"});
        QCOMPARE(raw.exitCode, 0);
        QCOMPARE(raw.out, QByteArray(reinterpret_cast<const char *>(bf16Values.data()), 160));
        // dtypes ggml has no type for: U8 as integers, F8_E4M3 by the OCP FP8 definition (1.0,
        // the largest value 448, the smallest subnormal 2^-9)
        const auto u = inspect({"dequant", file, "u", "-o", "-"});
        QCOMPARE(u.exitCode, 0);
        const float uValues[] = {1.0f, 2.0f, 3.0f};
        QCOMPARE(u.out, QByteArray(reinterpret_cast<const char *>(uValues), sizeof uValues));
        const auto q = inspect({"dequant", file, "q", "-o", "-"});
        QCOMPARE(q.exitCode, 0);
        const float qValues[] = {1.0f, 448.0f, 0.001953125f};
        QCOMPARE(q.out, QByteArray(reinterpret_cast<const char *>(qValues), sizeof qValues));
        const auto uStats = inspect({"stats", file, "u", "--json"});
        QCOMPARE(uStats.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(uStats.out).array()[0].toObject()["percentiles"].toObject()["p50"].toDouble(),
                 2.0);
    }

    // vocab: the tokenizer.json beside a checkpoint, against the file read here
    void vocabulary()
    {
        const QString dir = gguf::test::dataPath(u"hf-oracle/qwen2-f32");
        const auto run = inspect({"vocab", dir, "--json"});
        QCOMPARE(run.exitCode, 0);
        QFile f(dir + "/tokenizer.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject vocab = QJsonDocument::fromJson(f.readAll()).object()["model"].toObject()["vocab"].toObject();
        const QJsonArray tokens = QJsonDocument::fromJson(run.out).array();
        QCOMPARE(tokens.size(), vocab.size());
        for (auto it = vocab.begin(); it != vocab.end(); ++it)
            QCOMPARE(tokens[it.value().toInt()].toObject()["token"].toString(), it.key());
        const auto none = inspect({"vocab", m_good}); // no tokenizer.json beside it
        QCOMPARE(none.exitCode, 1);
        QVERIFY2(none.err.contains("no tokenizer.json"), none.err.constData());
    }

    // tokenize and detokenize: the tokenizer.json beside a checkpoint, against the Hugging Face
    // library's own ids and texts (tests/data/hf-tokenizers/golden.json; the library parses the
    // text of special tokens, hence --parse-special)
    void tokenizeAndDetokenize()
    {
        const QString dir = checkpointWithTokenizer("llama2");
        QFile g(gguf::test::dataPath(u"hf-tokenizers/golden.json"));
        QVERIFY(g.open(QIODevice::ReadOnly));
        const QJsonArray cases = QJsonDocument::fromJson(g.readAll())
                                     .object()["tokenizers"]
                                     .toObject()["llama2"]
                                     .toObject()["cases"]
                                     .toArray();
        QVERIFY(cases.size() > 100);
        for (int i = 0; i < cases.size(); i += 7) { // every 7th: both settings of add_special come up
            const QJsonObject c = cases[i].toObject();
            const QString textFile = write("text.txt", c["text"].toString().toUtf8());
            QStringList args{"tokenize", dir, "--file", textFile, "--parse-special", "--json"};
            if (c["add_special"].toBool())
                args << "--add-special";
            const auto run = inspect(args);
            QCOMPARE(run.exitCode, 0);
            const QJsonArray got = QJsonDocument::fromJson(run.out).array();
            QCOMPARE(got.size(), c["ids"].toArray().size());
            QStringList ids;
            for (int k = 0; k < got.size(); ++k) {
                QCOMPARE(got[k].toObject()["id"].toInteger(), c["ids"].toArray()[k].toInteger());
                QCOMPARE(got[k].toObject()["token"].toString(), c["tokens"].toArray()[k].toString());
                ids << QString::number(got[k].toObject()["id"].toInteger());
            }
            if (ids.isEmpty())
                continue;
            const auto back = inspect(QStringList{"detokenize", dir} + ids);
            QCOMPARE(back.exitCode, 0);
            QCOMPARE(QString::fromUtf8(back.out), c["decoded"].toString() + "\n");
        }
    }

    // Without --parse-special the text of a special token is text, as with the library's
    // encode_special_tokens: the ids the library gives for the file with its special added tokens
    // taken out (node, tokenizers 0.23.2, 2026-12-07), and with them.
    void specialTextNotParsed()
    {
        const QString dir = checkpointWithTokenizer("llama2");
        const QString text = "<|im_start|>user hi<s></s>";
        auto run = inspect({"tokenize", dir, text, "--add-special"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(
            run.out,
            QByteArray("1 523 28766 321 28730 2521 28766 28767 1838 295 28710 28789 28713 28767 700 28713 28767\n"));
        run = inspect({"tokenize", dir, text, "--add-special", "--parse-special"});
        QCOMPARE(run.out, QByteArray("1 523 28766 321 28730 2521 28766 28767 1838 295 28710 1 2\n"));
        run = inspect({"detokenize", dir, "1", "99999999"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("past the vocabulary"), run.err.constData());
    }

    // What cannot be tokenized says why: no tokenizer.json, a component not supported (named),
    // text that is not UTF-8.
    void tokenizeRefusals()
    {
        auto run = inspect({"tokenize", m_good, "hi"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("no tokenizer.json"), run.err.constData());
        const QString dir = checkpointWithTokenizer("llama2");
        QFile t(dir + "/tokenizer.json");
        QVERIFY(t.open(QIODevice::ReadWrite));
        QJsonObject o = QJsonDocument::fromJson(t.readAll()).object();
        o["normalizer"] = QJsonObject{{"type", "Precompiled"}, {"precompiled_charsmap", "AA=="}};
        QVERIFY(t.resize(0));
        t.write(QJsonDocument(o).toJson());
        t.close();
        run = inspect({"tokenize", dir, "hi"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("normalizer Precompiled is not supported"), run.err.constData());
        const QString good = checkpointWithTokenizer("qwen3");
        run = inspect({"tokenize", good, "--file", write("bad.txt", "a\xff")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("not UTF-8 at byte 1"), run.err.constData());
    }

    // dump: each shard's header as written, equal to the JSON read here from the file's bytes
    void dump()
    {
        const auto run = inspect({"dump", m_good, "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject o = QJsonDocument::fromJson(run.out).object();
        const QJsonObject shard = o["shards"].toArray()[0].toObject();
        QCOMPARE(shard["header"].toObject(), QJsonDocument::fromJson(kHeader).object());
        QCOMPARE(shard["header_length"].toInteger(), kHeader.size() + (8 - kHeader.size() % 8) % 8);
        QVERIFY(o["config"].isNull());
        const auto text = inspect({"dump", m_good});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(kHeader));
    }

    void otherCommandsSaySo()
    {
        const auto run = inspect({"memory", m_good});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("safetensors"), run.err.constData());
        QVERIFY(run.out.isEmpty());
    }

    void brokenHeader()
    {
        const QString cut = write("cut.safetensors", fileOf("{\"a\":{\"dtype\":", QByteArray()));
        const auto run = inspect({"info", cut});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("not JSON"), run.err.constData());
        const auto layout = inspect({"layout", cut, "--json"});
        const QJsonArray regions = QJsonDocument::fromJson(layout.out).array();
        QCOMPARE(regions.last().toObject()["kind"].toString(), QStringLiteral("unparsed"));
    }

    void shardedFolder()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto put = [&](const QString &name, const QByteArray &bytes) {
            QFile f(dir.filePath(name));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        };
        put("model-00001-of-00002.safetensors",
            fileOf("{\"x\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", QByteArray(4, '\0')));
        put("model-00002-of-00002.safetensors",
            fileOf("{\"y\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", QByteArray(4, '\0')));
        put("model.safetensors.index.json", "{\"weight_map\": {\"x\": \"model-00001-of-00002.safetensors\", "
                                            "\"y\": \"model-00002-of-00002.safetensors\"}}");
        put("config.json", "{\"architectures\": [\"Qwen2ForCausalLM\"], \"num_hidden_layers\": 2}");
        auto run = inspect({"info", dir.path(), "--json"});
        QCOMPARE(run.exitCode, 0);
        QJsonObject o = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(o["shards"].toArray().size(), 2);
        QCOMPARE(o["architecture"].toString(), QStringLiteral("Qwen2ForCausalLM"));
        QCOMPARE(o["config"].toObject()["num_hidden_layers"].toInt(), 2);
        QCOMPARE(o["tensor_count"].toInt(), 2);
        run = inspect({"tensors", dir.filePath("model.safetensors.index.json"), "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray tensors = QJsonDocument::fromJson(run.out).array();
        QCOMPARE(tensors.size(), 2);
        QVERIFY(tensors[1].toObject()["file"].toString().endsWith("model-00002-of-00002.safetensors"));
        QCOMPARE(inspect({"validate", dir.path()}).exitCode, 0);
        // a shard gone: said, and validate refuses
        QVERIFY(QFile::remove(dir.filePath("model-00002-of-00002.safetensors")));
        run = inspect({"validate", dir.path(), "--json"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.out.contains("shard_missing"), run.out.constData());
        run = inspect({dir.path()});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.out.contains("not read"));
    }

private:
    // A folder with the good shard and hf-tokenizers/NAME.tokenizer.json as its tokenizer.json.
    QString checkpointWithTokenizer(const QString &name)
    {
        const QString dir = m_dir.filePath("with-" + name + "-" + QString::number(++m_folders));
        if (!QDir().mkpath(dir) || !QFile::copy(m_good, dir + "/model.safetensors") ||
            !QFile::copy(gguf::test::dataPath(u"hf-tokenizers/") + name + ".tokenizer.json", dir + "/tokenizer.json"))
            return {};
        QFile(dir + "/tokenizer.json").setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return dir;
    }

    QString write(const QString &name, const QByteArray &bytes)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            return {};
        return f.fileName();
    }

    QTemporaryDir m_dir;
    QString m_good, m_bad;
    int m_folders = 0;
};

QTEST_GUILESS_MAIN(TestInspectSafetensors)
#include "tst_inspect_safetensors.moc"
