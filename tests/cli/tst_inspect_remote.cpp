// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-inspect on a URL prints byte for byte what it prints on the local file (the path given is
// the only difference), reading through a real HTTP server on 127.0.0.1; and a failing server
// gives a one-line message and exit status 1.
#include "tests/support/inspect_run.h"
#include "tests/support/range_server/range_server.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using gguf::test::inspect;
using gguf::test::RangeServer;

namespace {

const QString kModel = gguf::test::dataPath(u"real/tiny-llama-q4_k_m.gguf");
const QString kVocab = gguf::test::dataPath(u"real/ggml-vocab-gpt-2.gguf");

} // namespace

class TestInspectRemote : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void sameOutputAsLocal_data();
    void sameOutputAsLocal();
    void failuresAreOneLine_data();
    void failuresAreOneLine();
    void diffAgainstTheLocalCopy();
    void dequantWritesTheSameValues();
    void sampledStatisticsFetchLess();
    void editingARemoteFileIsRefused();
    void safetensorsCheckpoint();
    void checkpointDiff();
    void reportSameAsLocal();

private:
    RangeServer m_server;
    QTemporaryDir m_checkpoint;
};

void TestInspectRemote::initTestCase()
{
    qputenv("no_proxy", "127.0.0.1,localhost");
    qputenv("NO_PROXY", "127.0.0.1,localhost");
    // small blocks, so that the header takes several requests
    qputenv("GGUF_BLOCK_KB", "64");
    QVERIFY(m_server.start());
    m_server.serve("/m/model.gguf", kModel.toStdString());
    m_server.serve("/m/vocab.gguf", kVocab.toStdString());
    m_server.setStatus("/m/missing.gguf", 404);
    m_server.setStatus("/m/gated.gguf", 401);
}

void TestInspectRemote::sameOutputAsLocal_data()
{
    QTest::addColumn<QString>("local");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QStringList>("args");
    const QList<QStringList> commands = {{"info"},  {"info", "--json"},  {"tensors"},        {"tensors", "--json"},
                                         {"dump"},  {"dump", "--json"},  {"validate"},       {"layout"},
                                         {"stats"}, {"stats", "--json"}, {"stats", "--fast"}};
    for (const QStringList &c : commands)
        QTest::newRow(qPrintable("model: " + c.join(' '))) << kModel << "/m/model.gguf" << c;
    for (const QStringList &c : QList<QStringList>{
             {"info"}, {"dump", "--json", "--json-array"}, {"vocab"}, {"tokenize", "Hello world, héllo!"}})
        QTest::newRow(qPrintable("vocabulary: " + c.join(' '))) << kVocab << "/m/vocab.gguf" << c;
}

void TestInspectRemote::sameOutputAsLocal()
{
    QFETCH(QString, local);
    QFETCH(QString, path);
    QFETCH(QStringList, args);
    const QString url = QString::fromStdString(m_server.url(path.toStdString()));
    QStringList localArgs = args, remoteArgs = args;
    localArgs.insert(1, local);
    remoteArgs.insert(1, url);
    const auto a = inspect(localArgs), b = inspect(remoteArgs);
    QVERIFY2(a.exitCode >= 0, a.err.constData());
    QCOMPARE(b.exitCode, a.exitCode);
    QByteArray expected = a.out;
    expected.replace(local.toUtf8(), url.toUtf8());
    if (b.out != expected) {
        // show where they part
        qsizetype at = 0;
        while (at < b.out.size() && at < expected.size() && b.out[at] == expected[at])
            ++at;
        QFAIL(qPrintable(QStringLiteral("outputs differ at byte %1:\nlocal:  %2\nremote: %3")
                             .arg(at)
                             .arg(QString::fromUtf8(expected.mid(std::max<qsizetype>(0, at - 40), 120)),
                                  QString::fromUtf8(b.out.mid(std::max<qsizetype>(0, at - 40), 120)))));
    }
    QVERIFY(!a.out.isEmpty());
}

void TestInspectRemote::failuresAreOneLine_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("says");
    QTest::newRow("404") << "/m/missing.gguf"
                         << "no such file on the server (HTTP 404)";
    QTest::newRow("401") << "/m/gated.gguf"
                         << "HTTP 401 (login required)";
    QTest::newRow("nothing listens") << "closed"
                                     << "cannot connect to 127.0.0.1";
}

void TestInspectRemote::failuresAreOneLine()
{
    QFETCH(QString, path);
    QFETCH(QString, says);
    QString url = QString::fromStdString(m_server.url(path.toStdString()));
    if (path == QLatin1String("closed")) {
        RangeServer closed;
        QVERIFY(closed.start());
        url = QString::fromStdString(closed.url("/x.gguf"));
    }
    const auto run = inspect({QStringLiteral("info"), url});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.out.isEmpty());
    QCOMPARE(run.err.count('\n'), 1);
    QVERIFY2(run.err.startsWith(("gguf-inspect: " + url + ": ").toUtf8()), run.err.constData());
    QVERIFY2(run.err.contains(says.toUtf8()), run.err.constData());
}

void TestInspectRemote::diffAgainstTheLocalCopy()
{
    const QString url = QString::fromStdString(m_server.url("/m/model.gguf"));
    const auto run = inspect({QStringLiteral("diff"), url, kModel, QStringLiteral("--values")});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(run.err.isEmpty(), run.err.constData());
}

void TestInspectRemote::dequantWritesTheSameValues()
{
    QTemporaryDir dir;
    const QString url = QString::fromStdString(m_server.url("/m/model.gguf"));
    const QString a = dir.filePath(QStringLiteral("local.npy")), b = dir.filePath(QStringLiteral("remote.npy"));
    const auto runA = inspect({QStringLiteral("dequant"), kModel, QStringLiteral("blk.1.ffn_down.weight"), "-o", a});
    const auto runB = inspect({QStringLiteral("dequant"), url, QStringLiteral("blk.1.ffn_down.weight"), "-o", b});
    QCOMPARE(runA.exitCode, 0);
    QCOMPARE(runB.exitCode, 0);
    QFile fa(a), fb(b);
    QVERIFY(fa.open(QIODevice::ReadOnly) && fb.open(QIODevice::ReadOnly));
    const QByteArray x = fa.readAll(), y = fb.readAll();
    QVERIFY(x.size() > 1000);
    QVERIFY(x == y);
}

void TestInspectRemote::sampledStatisticsFetchLess()
{
    // the two 6.7 and 4.6 MB tensors, 1 MiB of each: 16 blocks of 64 KiB
    const QString url = QString::fromStdString(m_server.url("/m/model.gguf"));
    const QStringList tensors = {QStringLiteral("output.weight"), QStringLiteral("token_embd.weight")};
    m_server.resetCounters();
    const auto sampled =
        inspect(QStringList{QStringLiteral("stats"), url} + tensors +
                QStringList{QStringLiteral("--sample"), QStringLiteral("1"), QStringLiteral("--json")});
    QCOMPARE(sampled.exitCode, 0);
    const uint64_t sampledBytes = m_server.bodyBytesSent();
    const QJsonArray entries = QJsonDocument::fromJson(sampled.out).array();
    QCOMPARE(entries.size(), 2);
    for (const QJsonValue &e : entries) {
        const double read = e[QStringLiteral("sampled_elements")].toDouble();
        QVERIFY(read > 0);
        QVERIFY(read < e[QStringLiteral("count")].toDouble() / 3);
    }
    // the header (under 1 MB) and 32 blocks, where the whole tensors are 11.3 MB
    QVERIFY2(sampledBytes < 1000000 + 32 * 65536, QByteArray::number(qulonglong(sampledBytes)).constData());
    // without --sample the output keeps its shape: no sampled_elements
    const auto whole = inspect({QStringLiteral("stats"), url, tensors[0], QStringLiteral("--json")});
    QCOMPARE(whole.exitCode, 0);
    QVERIFY(!whole.out.contains("sampled_elements"));
    QVERIFY(m_server.bodyBytesSent() - sampledBytes > 6700000);
    // the text table says what was read
    const auto text =
        inspect({QStringLiteral("stats"), url, tensors[0], QStringLiteral("--sample"), QStringLiteral("1")});
    QVERIFY2(text.out.contains("(--sample: tensors over 1 MiB were read in evenly spaced blocks"),
             text.out.constData());
    const auto wrong = inspect({QStringLiteral("info"), url, QStringLiteral("--sample"), QStringLiteral("1")});
    QCOMPARE(wrong.exitCode, 2);
}

void TestInspectRemote::editingARemoteFileIsRefused()
{
    QTemporaryDir dir;
    const QString url = QString::fromStdString(m_server.url("/m/model.gguf"));
    const auto run = inspect({QStringLiteral("set"), url, QStringLiteral("general.name=x"), QStringLiteral("-o"),
                              dir.filePath(QStringLiteral("out.gguf"))});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("is remote; download it, then edit the copy"), run.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out.gguf"))));
}

// A sharded safetensors checkpoint (#43) at URLs: its index, shards and config.json are found
// beside each other; every command prints what it prints for the local files.
void TestInspectRemote::safetensorsCheckpoint()
{
    QVERIFY(m_checkpoint.isValid());
    const auto shard = [](const QByteArray &name, const QByteArray &dtype, int elements, int size) {
        QByteArray header = "{\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" +
                            QByteArray::number(elements) + "],\"data_offsets\":[0," + QByteArray::number(size) + "]}}";
        header.append(QByteArray((8 - header.size() % 8) % 8, ' '));
        QByteArray out(8, '\0');
        auto n = static_cast<quint64>(header.size());
        for (int i = 0; i < 8; ++i, n >>= 8)
            out[i] = static_cast<char>(n & 0xff);
        QByteArray data;
        for (int i = 0; i < size; ++i)
            data.append(static_cast<char>((i * 37) & 0x3f)); // small positive floats and halves
        return out + header + data;
    };
    const QList<QPair<QString, QByteArray>> files = {
        {"model-00001-of-00002.safetensors", shard("w", "F32", 64, 256)},
        {"model-00002-of-00002.safetensors", shard("h", "BF16", 32, 64)},
        {"model.safetensors.index.json",
         "{\"metadata\": {\"total_size\": 320}, \"weight_map\": {\"w\": "
         "\"model-00001-of-00002.safetensors\", \"h\": \"model-00002-of-00002.safetensors\"}}"},
        {"config.json", "{\"architectures\": [\"LlamaForCausalLM\"], \"num_hidden_layers\": 1}"}};
    for (const auto &[name, bytes] : files) {
        QFile f(m_checkpoint.filePath(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
        f.close();
        m_server.serve(("/st/" + name).toStdString(), f.fileName().toStdString());
    }
    const QString localIndex = m_checkpoint.filePath("model.safetensors.index.json");
    const QString url = QString::fromStdString(m_server.url("/st/model.safetensors.index.json"));
    const QString localDir = m_checkpoint.path() + "/";
    const QString urlDir = url.left(url.lastIndexOf('/') + 1);
    for (const QStringList &args : QList<QStringList>{
             {"info", "--json"}, {"tensors", "--json"}, {"validate", "--json"}, {"stats", "--json"}, {"layout"}}) {
        const auto a = inspect(QStringList{args[0], localIndex} + args.mid(1));
        const auto b = inspect(QStringList{args[0], url} + args.mid(1));
        QCOMPARE(a.exitCode, 0);
        QCOMPARE(b.exitCode, 0);
        QByteArray expected = a.out;
        expected.replace(localDir.toUtf8(), urlDir.toUtf8());
        QCOMPARE(b.out, expected);
    }
    const auto info = inspect({"info", url, "--json"});
    const QJsonObject o = QJsonDocument::fromJson(info.out).object();
    QCOMPARE(o["architecture"].toString(), QStringLiteral("LlamaForCausalLM")); // config.json beside the index
    QCOMPARE(o["shards"].toArray().size(), 2);
}

// `diff MODEL.gguf CHECKPOINT --values` with both at URLs (#43): the sharded mixtral checkpoint of
// hf-oracle (experts stacked from two shards, q/k rows regrouped) gives what the local files give.
void TestInspectRemote::checkpointDiff()
{
    const QString dir = gguf::test::dataPath(u"hf-oracle");
    for (const QString &name : {QStringLiteral("mixtral-bf16.q8_0.gguf"), QStringLiteral("mixtral-bf16/config.json"),
                                QStringLiteral("mixtral-bf16/model.safetensors.index.json"),
                                QStringLiteral("mixtral-bf16/model-00001-of-00002.safetensors"),
                                QStringLiteral("mixtral-bf16/model-00002-of-00002.safetensors")})
        m_server.serve(("/hf/" + name).toStdString(), (dir + "/" + name).toStdString());
    const QString model = QString::fromStdString(m_server.url("/hf/mixtral-bf16.q8_0.gguf"));
    const QString index = QString::fromStdString(m_server.url("/hf/mixtral-bf16/model.safetensors.index.json"));
    const auto local = inspect({"diff", dir + "/mixtral-bf16.q8_0.gguf",
                                dir + "/mixtral-bf16/model.safetensors.index.json", "--values", "--json"});
    const auto remote = inspect({"diff", model, index, "--values", "--json"});
    QCOMPARE(local.exitCode, 1); // quantized: the values differ
    QCOMPARE(remote.exitCode, 1);
    QByteArray expected = local.out;
    expected.replace((dir + "/").toUtf8(), model.left(model.lastIndexOf('/') + 1).toUtf8());
    QCOMPARE(remote.out, expected);
    QCOMPARE(remote.out.count("\"undone\": [\"4 experts stacked\"]"), 6); // gate, up, down of 2 layers
}

// `report` of a URL (#45): the same document as of the local file but for its title and path (it
// reads the header only), in both forms.
void TestInspectRemote::reportSameAsLocal()
{
    const QString url = QString::fromStdString(m_server.url("/m/model.gguf"));
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char *ending : {".md", ".html"}) {
        const QString a = dir.filePath(QStringLiteral("local") + ending),
                      b = dir.filePath(QStringLiteral("remote") + ending);
        QCOMPARE(inspect({QStringLiteral("report"), kModel, QStringLiteral("-o"), a}).exitCode, 0);
        QCOMPARE(inspect({QStringLiteral("report"), url, QStringLiteral("-o"), b}).exitCode, 0);
        const auto lines = [](const QString &path) {
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly))
                return QStringList();
            QStringList out;
            for (const QString &line : QString::fromUtf8(f.readAll()).split(u'\n'))
                if (!line.contains(u"GGUF report:") && !line.contains(u">path<") && !line.startsWith(u"| path |"))
                    out << line;
            return out;
        };
        const QStringList local = lines(a), remote = lines(b);
        QVERIFY(local.size() > 100);
        QCOMPARE(remote, local);
    }
}

QTEST_GUILESS_MAIN(TestInspectRemote)
#include "tst_inspect_remote.moc"
