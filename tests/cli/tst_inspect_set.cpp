// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect set`: the edited file read back with `dump --json --json-array` (every untouched
// key identical in type and value), every tensor's bytes identical (hashes), llama.cpp's checks
// passed; the in-place and the copy path; values by the key's type; usage errors write nothing.
#include "core/format/gguf_file.h"
#include "tests/support/exact_json.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/json_compare.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using gguf::test::ExactJson;
using gguf::test::inspect;

namespace {

const QString kData = gguf::test::dataDir();
const QString kSample = gguf::test::sampleModel();

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ExactJson dumpOf(const QString &path)
{
    const auto run = inspect({"dump", path, "--json", "--json-array"});
    auto doc = gguf::test::parsePythonJson(run.out); // gguf_dump.py's NaN and Infinity included
    if (run.exitCode != 0 || !doc)
        qWarning("dump %s failed: %s", qPrintable(path), run.err.constData());
    return doc ? *doc : ExactJson();
}

// Hashes of every tensor's bytes, by name.
QMap<QString, QByteArray> tensorHashes(const QString &path)
{
    QMap<QString, QByteArray> out;
    const gguf::OpenResult r = gguf::GgufFile::open(path.toStdString());
    if (!r.file)
        return out;
    for (const gguf::TensorInfo &t : r.file->tensors()) {
        const auto b = r.file->tensorBytes(t);
        out.insert(QString::fromUtf8(t.name.data(), static_cast<qsizetype>(t.name.size())),
                   QCryptographicHash::hash(QByteArrayView(b.data(), static_cast<qsizetype>(b.size())),
                                            QCryptographicHash::Sha256));
    }
    return out;
}

// Every key of `before` but `touched` is in `after` with the same type, value and element types.
QString untouchedDifference(const ExactJson &before, const ExactJson &after, const QStringList &touched)
{
    const ExactJson &a = before["metadata"], &b = after["metadata"];
    for (const auto &[key, entry] : a.members()) {
        if (touched.contains(QString::fromStdString(key)) || key.starts_with("GGUF."))
            continue;
        const ExactJson *other = b.find(key);
        if (!other)
            return QString::fromStdString(key) + " is gone";
        for (const char *field : {"type", "value", "array_types"}) {
            const QString d =
                gguf::test::jsonDifference(entry[field], (*other)[field], QString::fromStdString(key) + "." + field);
            if (!d.isEmpty())
                return d;
        }
    }
    return {};
}

} // namespace

class TestInspectSet : public QObject {
    Q_OBJECT

private slots:
    void init()
    {
        m_dir = std::make_unique<QTemporaryDir>();
        m_model = m_dir->filePath("model.gguf");
        QVERIFY(QFile::copy(kSample, m_model));
        QVERIFY(QFile::setPermissions(m_model, QFile::ReadOwner | QFile::WriteOwner));
    }

    void refusesWithoutADestination()
    {
        const QByteArray before = readAll(m_model);
        auto run = inspect({"set", m_model, "general.name=x"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.err.contains("-o OUT") && run.err.contains("--in-place"));
        run = inspect({"set", m_model, "general.name=x", "-o", m_dir->filePath("o.gguf"), "--in-place"});
        QCOMPARE(run.exitCode, 2);
        run = inspect({"set", m_model, "--in-place"});
        QCOMPARE(run.exitCode, 2); // nothing to change
        run = inspect({"info", m_model, "--in-place"});
        QCOMPARE(run.exitCode, 2);
        QCOMPARE(readAll(m_model), before);
        QVERIFY(!QFile::exists(m_dir->filePath("o.gguf")));
    }

    void editsInPlace()
    {
        // a shorter name: the header shrinks, the padding key keeps the data where it is
        const ExactJson before = dumpOf(m_model);
        const auto hashes = tensorHashes(m_model);
        const auto run = inspect({"set", m_model,
                                  "general.name=a shorter name than the sample's own name, "
                                  "and then some more words to make it longer first",
                                  "--in-place", "--json"});
        QCOMPARE(run.exitCode, 0);
        // (grew: a copy); now shrink it back in place
        const auto run2 = inspect({"set", m_model, "general.name=x", "--in-place", "--json", "--reserve", "0"});
        QCOMPARE(run2.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(run.out).object();
        const QJsonObject report2 = QJsonDocument::fromJson(run2.out).object();
        QCOMPARE(report["in_place"].toBool(), false);
        QCOMPARE(report2["in_place"].toBool(), true);
        QVERIFY(report2["padding_key_bytes"].toInteger() > 0);
        const ExactJson after = dumpOf(m_model);
        QCOMPARE(untouchedDifference(before, after, {"general.name"}), QString());
        QCOMPARE(after["metadata"]["general.name"]["value"].text(), std::string("x"));
        QCOMPARE(tensorHashes(m_model), hashes);
        QCOMPARE(inspect({"validate", m_model}).exitCode, 0);
        // the copy that grew the header added no key; the save in place that shrank it did, and the
        // text says why (#40)
        QVERIFY(after["metadata"].find("gguf_explorer.padding"));
        QVERIFY(inspect({"set", m_model,
                         "general.name=a much longer name again, so that the header grows past its "
                         "padding and the file is written by a copy",
                         "--in-place"})
                    .exitCode == 0);
        QVERIFY(!dumpOf(m_model)["metadata"].find("gguf_explorer.padding"));
        const auto text = inspect({"set", m_model, "general.name=x", "--in-place"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY2(text.out.contains("note: the header shrank; to keep the data in place, the program's own key "
                                   "gguf_explorer.padding fills"),
                 text.out.constData());
    }

    void writesANewFileByTheKeysTypes()
    {
        const QString out = m_dir->filePath("edited.gguf");
        const QByteArray original = readAll(m_model);
        const ExactJson before = dumpOf(m_model);
        const QString templ = m_dir->filePath("t.jinja");
        {
            QFile f(templ);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{% for m in messages %}{{ m.content }}{% endfor %}\n");
        }
        const auto run = inspect({"set", m_model, "llama.context_length=8192", "tokenizer.ggml.bos_token_id=2",
                                  "tokenizer.ggml.tokens[5]=<new>", "my.list=[1, 2, 65535]", "--type",
                                  "my.list=ARRAY[UINT16]", "my.flag=true", "--type", "my.flag=bool", "--remove",
                                  "tokenizer.ggml.add_bos_token", "--chat-template-file", templ, "-o", out});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(readAll(m_model), original); // -o leaves FILE alone
        const ExactJson after = dumpOf(out);
        const QStringList touched{"llama.context_length", "tokenizer.ggml.bos_token_id", "tokenizer.ggml.tokens",
                                  "tokenizer.ggml.add_bos_token", "tokenizer.chat_template"};
        QCOMPARE(untouchedDifference(before, after, touched), QString());
        const ExactJson &m = after["metadata"];
        QCOMPARE(m["llama.context_length"]["type"].text(), before["metadata"]["llama.context_length"]["type"].text());
        QCOMPARE(m["llama.context_length"]["value"].toUInt64(), std::optional<uint64_t>(8192));
        QCOMPARE(m["tokenizer.ggml.bos_token_id"]["type"].text(),
                 before["metadata"]["tokenizer.ggml.bos_token_id"]["type"].text());
        QCOMPARE(m["tokenizer.ggml.tokens"]["value"].items()[5].text(), std::string("<new>"));
        // the other tokens are the same, in the same places
        const auto &tokensBefore = before["metadata"]["tokenizer.ggml.tokens"]["value"].items();
        const auto &tokensAfter = m["tokenizer.ggml.tokens"]["value"].items();
        QCOMPARE(tokensAfter.size(), tokensBefore.size());
        for (size_t i = 0; i < tokensBefore.size(); ++i)
            if (i != 5)
                QCOMPARE(tokensAfter[i].text(), tokensBefore[i].text());
        QCOMPARE(m["my.list"]["type"].text(), std::string("ARRAY"));
        QCOMPARE(m["my.list"]["array_types"].items()[0].text(), std::string("UINT16"));
        QCOMPARE(m["my.list"]["value"].items()[2].toUInt64(), std::optional<uint64_t>(65535));
        QCOMPARE(m["my.flag"]["type"].text(), std::string("BOOL"));
        QVERIFY(before["metadata"].find("tokenizer.ggml.add_bos_token"));
        QVERIFY(!m.find("tokenizer.ggml.add_bos_token"));
        QCOMPARE(m["tokenizer.chat_template"]["value"].text(),
                 std::string("{% for m in messages %}{{ m.content }}{% endfor %}\n"));
        QCOMPARE(tensorHashes(out), tensorHashes(m_model));
        QCOMPARE(inspect({"validate", out}).exitCode, 0);
        // a new file carries only what was put in it: no padding key, unless --reserve asks for room (#40)
        QVERIFY(!m.find("gguf_explorer.padding"));
        const QString roomy = m_dir->filePath("roomy.gguf");
        QCOMPARE(
            inspect({"set", m_model, "general.name=" + QString(300, 'n'), "--reserve", "4096", "-o", roomy}).exitCode,
            0);
        const ExactJson reserved = dumpOf(roomy);
        QVERIFY(reserved["metadata"].find("gguf_explorer.padding"));
        QCOMPARE(tensorHashes(roomy), tensorHashes(m_model));
    }

    // The names the window offers for an enum key are taken too (#40: "not an integer"), and a chat
    // template that does not parse is refused unless --force (#40: taken without a word).
    void enumNamesAndTemplateCheck()
    {
        const QString out = m_dir->filePath("named.gguf");
        auto run = inspect({"set", m_model, "general.file_type=Q8_0", "-o", out});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(dumpOf(out)["metadata"]["general.file_type"]["value"].toUInt64(), std::optional<uint64_t>(7));
        QCOMPARE(dumpOf(out)["metadata"]["general.file_type"]["type"].text(),
                 dumpOf(m_model)["metadata"]["general.file_type"]["type"].text());
        run = inspect({"set", m_model, "general.file_type=no_such_type", "-o", out});
        QCOMPARE(run.exitCode, 2);

        const QString templ = m_dir->filePath("broken.jinja");
        {
            QFile f(templ);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{% for m in messages %}{{ m.content }}\n");
        }
        const QString refused = m_dir->filePath("refused.gguf");
        run = inspect({"set", m_model, "--chat-template-file", templ, "-o", refused});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("does not parse") && run.err.contains("line 1"), run.err.constData());
        QVERIFY(!QFile::exists(refused));
        run = inspect({"set", m_model, "--chat-template-file", templ, "--force", "-o", refused});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.err.contains("warning: ") && run.err.contains("does not parse"), run.err.constData());
        QCOMPARE(dumpOf(refused)["metadata"]["tokenizer.chat_template"]["value"].text(),
                 std::string("{% for m in messages %}{{ m.content }}\n"));
    }

    void rejectsBadValues_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("words");
        QTest::newRow("out of range") << QStringList{"llama.context_length=-1"} << "0 to 4294967295";
        QTest::newRow("not a number") << QStringList{"llama.rope.freq_base=fast"} << "not a number";
        QTest::newRow("new key without a type") << QStringList{"my.new=1"} << "--type my.new=TYPE";
        QTest::newRow("bad type") << QStringList{"my.new=1", "--type", "my.new=int"} << "KEY=TYPE";
        QTest::newRow("element past the end") << QStringList{"tokenizer.ggml.scores[999999]=1"} << "past the end";
        QTest::newRow("element of a scalar") << QStringList{"general.name[0]=x"} << "not an array";
        QTest::newRow("alignment") << QStringList{"general.alignment=64"} << "alignment";
        QTest::newRow("padding key") << QStringList{"--remove", "gguf_explorer.padding"} << "reserved";
        QTest::newRow("missing key removed") << QStringList{"--remove", "no.such"} << "no such key";
        QTest::newRow("not an assignment") << QStringList{"general.name"} << "not KEY=VALUE";
        QTest::newRow("missing template") << QStringList{"--chat-template-file", "/no/such/file"} << "cannot read";
    }

    void rejectsBadValues()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, words);
        const QByteArray before = readAll(m_model);
        const auto run = inspect(QStringList{"set", m_model} + args + QStringList{"--in-place"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(words.toUtf8()), run.err.constData());
        QCOMPARE(readAll(m_model), before);
    }

    void keepsByteOrderAndLayout_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("big-endian") << kData + "/big-endian/q4_K.gguf";
        QTest::newRow("big-endian gguf_dump") << kData + "/gguf-dump/synthetic-be.gguf";
    }

    void keepsByteOrderAndLayout()
    {
        QFETCH(QString, file);
        const QString out = m_dir->filePath("be.gguf");
        const ExactJson before = dumpOf(file);
        const auto run =
            inspect({"set", file, "general.name=edited big-endian file", "--type", "general.name=STRING", "-o", out});
        QCOMPARE(run.exitCode, 0);
        const ExactJson after = dumpOf(out);
        QCOMPARE(after["endian"].text(), before["endian"].text());
        QCOMPARE(untouchedDifference(before, after, {"general.name"}), QString());
        QCOMPARE(after["metadata"]["general.name"]["value"].text(), std::string("edited big-endian file"));
        QCOMPARE(tensorHashes(out), tensorHashes(file));
    }

    void unreadableFile()
    {
        const QString bad = m_dir->filePath("bad.gguf");
        QVERIFY(gguf::test::writeBytes(bad, {'G', 'G', 'U', 'F', 3, 0}));
        const auto run = inspect({"set", bad, "general.name=x", "--in-place"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY(run.err.contains("bad.gguf"));
    }

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_model;
};

QTEST_GUILESS_MAIN(TestInspectSet)
#include "tst_inspect_set.moc"
