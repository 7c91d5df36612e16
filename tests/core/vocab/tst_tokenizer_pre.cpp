// SPDX-License-Identifier: GPL-3.0-or-later
// Every tokenizer.ggml.pre value llama.cpp knows, against llama.cpp itself: the ids it gave
// (tests/data/tokenizer-pre-oracle, made through node-llama-cpp 3.22.1) for a real BPE vocabulary
// whose pre value is the one under test (spliced in as the oracle's script did), with and without
// special-token parsing.
#include "core/format/gguf_file.h"
#include "core/vocab/tokenizer.h"
#include "tests/support/pre_splice.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gguf;

namespace {

const QString kData = gguf::test::dataDir();

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::vector<uint8_t> withPre(const QByteArray &base, const QByteArray &pre)
{
    const QByteArray out = gguf::test::withPre(base, pre);
    return {out.begin(), out.end()};
}

QJsonObject oracle()
{
    static const QJsonObject doc =
        QJsonDocument::fromJson(readAll(kData + "/tokenizer-pre-oracle/pre-oracle.json")).object();
    return doc;
}

} // namespace

class TestTokenizerPre : public QObject {
    Q_OBJECT

private slots:
    void preValues_data()
    {
        QTest::addColumn<QString>("pre");
        QTest::addColumn<int>("base");
        const QJsonObject doc = oracle();
        const QJsonObject pre = doc["pre"].toObject();
        const QJsonArray bases = doc["bases"].toArray();
        // llama.cpp de3ff815 knows 90 values (src/llama-vocab.cpp impl::load)
        QCOMPARE(pre.size(), 90);
        QVERIFY(bases.size() >= 2);
        for (const QString &value : pre.keys()) {
            QCOMPARE(pre[value].toArray().size(), bases.size());
            for (int b = 0; b < bases.size(); ++b)
                QTest::addRow("%s/%s", qPrintable(value), qPrintable(bases[b].toString())) << value << b;
        }
    }
    void preValues()
    {
        QFETCH(QString, pre);
        QFETCH(int, base);
        const QJsonObject doc = oracle();
        const QByteArray bytes = readAll(kData + "/real/" + doc["bases"].toArray()[base].toString());
        QVERIFY(!bytes.isEmpty());
        const auto opened = GgufFile::openBuffer(withPre(bytes, pre.toUtf8()), pre.toStdString());
        QVERIFY(opened.file);
        QCOMPARE(opened.file->value("tokenizer.ggml.pre").toStringView(), std::string_view(pre.toStdString()));
        const auto tokenizer = Tokenizer::create(opened.file);
        QVERIFY2(tokenizer->canTokenize(), tokenizer->refusal().c_str());
        const QJsonArray texts = doc["texts"].toArray();
        const QJsonObject expected =
            doc["results"].toArray()[doc["pre"].toObject()[pre].toArray()[base].toInt()].toObject();
        int compared = 0, aborted = 0;
        for (const bool parse : {false, true}) {
            const QJsonArray lists = expected[parse ? "parse_special" : "plain"].toArray();
            QCOMPARE(lists.size(), texts.size());
            for (int i = 0; i < texts.size(); ++i) {
                if (lists[i].isNull()) { // llama.cpp aborted on this text (docs/TOKENIZER.md §11.4); here
                    // the same merge rules simply find no rank for a pair with a space
                    (void)tokenizer->tokenize(texts[i].toString().toStdString(), {false, parse});
                    ++aborted;
                    continue;
                }
                std::vector<TokenId> want;
                for (const QJsonValue &id : lists[i].toArray())
                    want.push_back(id.toInt());
                const std::vector<TokenId> got = tokenizer->tokenize(texts[i].toString().toStdString(), {false, parse});
                if (got != want) {
                    QStringList a, b;
                    for (TokenId id : got)
                        a << QString::number(id);
                    for (TokenId id : want)
                        b << QString::number(id);
                    QFAIL(qPrintable(QStringLiteral("text %1 (%2), %3:\n  ours:      %4\n  llama.cpp: %5")
                                         .arg(i)
                                         .arg(texts[i].toString().left(60), parse ? "parse_special" : "plain",
                                              a.join(' '), b.join(' '))));
                }
                ++compared;
            }
        }
        QCOMPARE(compared + aborted, 2 * static_cast<int>(texts.size()));
        // only "whitespace" keeps raw spaces inside words, where llama.cpp's merge lookup asserts
        QVERIFY(pre == "whitespace" ? compared > 0 && aborted > 0 : aborted == 0);
    }

    // A value llama.cpp does not know is refused as llama.cpp refuses it
    void unknownValueIsRefused()
    {
        const QByteArray base = readAll(kData + "/real/" + oracle()["bases"].toArray()[0].toString());
        const auto opened = GgufFile::openBuffer(withPre(base, "gpt-5-preview"));
        QVERIFY(opened.file);
        const auto tokenizer = Tokenizer::create(opened.file);
        QVERIFY(!tokenizer->canTokenize());
        QVERIFY(tokenizer->refusal().find("unknown pre-tokenizer type: 'gpt-5-preview'") != std::string::npos);
        QVERIFY(tokenizer->tokenize("hello").empty());
    }
};

QTEST_GUILESS_MAIN(TestTokenizerPre)
#include "tst_tokenizer_pre.moc"
