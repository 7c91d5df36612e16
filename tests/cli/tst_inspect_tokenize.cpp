// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect tokenize` and `detokenize`: the ids of llama.cpp's test vectors, the JSON shape,
// the text sources and the exit statuses.
#include "tests/support/inspect_run.h"
#include "tests/support/pre_splice.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using gguf::test::inspect;

namespace {

const QString kData = gguf::test::dataDir();
const QString kSpm = kData + "/real/ggml-vocab-llama-spm.gguf";
const QString kGpt2 = kData + "/real/ggml-vocab-gpt-2.gguf";

} // namespace

class TestInspectTokenize : public QObject {
    Q_OBJECT

private slots:
    // Texts and ids from llama.cpp's test vectors (tests/data/tokenizer-tests)
    void ids()
    {
        auto run = inspect({"tokenize", kSpm, "ied 4 \xC2\xBD months"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("474 287 29871 29946 29871 30226 7378\n"));
        run = inspect({"tokenize", kGpt2, "Hello world"});
        QCOMPARE(run.out, QByteArray("15496 995\n"));
        run = inspect({"tokenize", kSpm, "Hello", "--add-special"});
        QCOMPARE(run.out, QByteArray("1 15043\n"));
        run = inspect({"tokenize", kGpt2, "<|endoftext|>", "--parse-special"});
        QCOMPARE(run.out, QByteArray("50256\n"));
    }
    void json()
    {
        const auto run = inspect({"tokenize", kGpt2, " Hello\n", "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonArray a = QJsonDocument::fromJson(run.out).array();
        QCOMPARE(a.size(), 2);
        QCOMPARE(a[0].toObject()["id"].toInt(), 18435);
        QCOMPARE(a[0].toObject()["token"].toString(), QString::fromUtf8("\xC4\xA0Hello")); // ĠHello
        QCOMPARE(a[0].toObject()["text"].toString(), QStringLiteral(" Hello"));
        QCOMPARE(a[1].toObject()["id"].toInt(), 198);
        QCOMPARE(a[1].toObject()["text"].toString(), QStringLiteral("\n"));
    }
    void fileAndStandardInput()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("text.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("Hello world");
        f.close();
        QCOMPARE(inspect({"tokenize", kGpt2, "--file", f.fileName()}).out, QByteArray("15496 995\n"));
        QProcess p;
        p.start(gguf::test::inspectPath(), {"tokenize", kGpt2, "--file", "-"});
        QVERIFY(p.waitForStarted());
        p.write("Hello world");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished());
        QCOMPARE(p.readAllStandardOutput(), QByteArray("15496 995\n"));
        const auto missing = inspect({"tokenize", kGpt2, "--file", dir.filePath("none.txt")});
        QCOMPARE(missing.exitCode, 1);
        QVERIFY(missing.err.contains("none.txt"));
    }
    void detokenize()
    {
        auto run = inspect({"detokenize", kSpm, "474", "287", "29871", "29946", "29871", "30226", "7378"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QByteArray("ied 4 \xC2\xBD months\n"));
        run = inspect({"detokenize", kGpt2, "15496", "995"});
        QCOMPARE(run.out, QByteArray("Hello world\n"));
        run = inspect({"detokenize", kGpt2, "50257"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("50257"));
        run = inspect({"detokenize", kGpt2, "12x"});
        QCOMPARE(run.exitCode, 2);
    }
    void badUse()
    {
        QCOMPARE(inspect({"tokenize", kGpt2, "a", "b"}).exitCode, 2);
        QCOMPARE(inspect({"tokenize", kGpt2, "a", "--file", "x"}).exitCode, 2);
        QCOMPARE(inspect({"info", kGpt2, "--add-special"}).exitCode, 2);
        // a file without a vocabulary
        const auto run = inspect({"tokenize", kData + "/ggml-reference/f32.gguf", "a"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("tokenizer.ggml.tokens"));
    }
    // A pre value llama.cpp does not know: it refuses the vocabulary, and so does tokenize (exit 1,
    // llama.cpp's error quoted, no ids); a value it learned after c392e509 tokenizes
    void unknownPreIsRefused()
    {
        QFile gpt2(kGpt2);
        QVERIFY(gpt2.open(QIODevice::ReadOnly));
        const QByteArray base = gpt2.readAll();
        QTemporaryDir dir;
        const auto write = [&](const QByteArray &pre) {
            const QString path = dir.filePath(QString::fromUtf8(pre) + ".gguf");
            QFile out(path);
            const QByteArray bytes = gguf::test::withPre(base, pre);
            return !bytes.isEmpty() && out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size() ? path
                                                                                                          : QString();
        };
        const QString unknown = write("gpt-9");
        QVERIFY(!unknown.isEmpty());
        const auto refused = inspect({"tokenize", unknown, "Hello world"});
        QCOMPARE(refused.exitCode, 1);
        QVERIFY2(refused.err.contains("llama.cpp refuses this vocabulary: \"unknown pre-tokenizer type: 'gpt-9'\""),
                 qPrintable(refused.err));
        QVERIFY(refused.out.isEmpty());
        const QString known = write("gpt-4o");
        const auto run = inspect({"tokenize", known, "Hello world"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(run.out, QString("15496 995\n")); // gpt-2's ids for "Hello" and " world"
    }
};

QTEST_GUILESS_MAIN(TestInspectTokenize)
#include "tst_inspect_tokenize.moc"
