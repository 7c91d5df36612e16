// SPDX-License-Identifier: GPL-3.0-or-later
// tokenizer.json pipelines against the Hugging Face tokenizers library itself: the ids, tokens and
// decoded texts it gave (tests/data/hf-tokenizers/golden.json, made by
// scripts/oracle/hf_tokenizer_oracle.mjs with the Rust library through its Node bindings) for
// real models' tokenizer.json files, trimmed, on llama.cpp's tokenizer test texts and more.
#include "core/vocab/tokenizer_json.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <algorithm>

using namespace gguf;

namespace {

const QString kDir = gguf::test::dataDir() + "/hf-tokenizers";

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QJsonObject golden()
{
    static const QJsonObject all = QJsonDocument::fromJson(readAll(kDir + "/golden.json")).object();
    return all.value("tokenizers").toObject();
}

std::shared_ptr<const JsonTokenizer> load(const QString &file)
{
    const QByteArray text = readAll(kDir + "/" + file);
    std::string why;
    auto t = JsonTokenizer::create(std::string_view(text.constData(), size_t(text.size())), why);
    if (!t)
        qWarning("%s: %s", qPrintable(file), why.c_str());
    return t;
}

QString join(const std::vector<TokenId> &ids)
{
    QStringList s;
    for (TokenId id : ids)
        s << QString::number(id);
    return s.join(' ');
}

QString join(const QJsonArray &ids)
{
    QStringList s;
    for (const QJsonValue &id : ids)
        s << QString::number(id.toInteger());
    return s.join(' ');
}

} // namespace

class TestTokenizerJson : public QObject {
    Q_OBJECT
private slots:
    void golden_data();
    void golden();
    void progressAndCancel();
    void edges_data();
    void edges();
};

// Small tokenizer.json files for the library's corner cases (tests/data/hf-tokenizers/edges.json,
// scripts/oracle/hf_tokenizer_edges.mjs): a token found inside the spaces an rstrip took, empty
// texts, Metaspace's "first" after a normalizer removed or added at the front, \s and U+180E,
// Unicode's \w (Alphabetic: Ⓐ), BertNormalizer keeping unassigned code points, empty regex
// matches, an empty String pattern, a template's sequence without special tokens, ByteFallback's
// sign.
void TestTokenizerJson::edges_data()
{
    QTest::addColumn<QJsonObject>("edge");
    const QJsonArray all = QJsonDocument::fromJson(readAll(kDir + "/edges.json")).object().value("edges").toArray();
    QVERIFY(all.size() >= 13);
    for (const QJsonValue &e : all)
        QTest::newRow(qPrintable(e.toObject().value("name").toString())) << e.toObject();
}

void TestTokenizerJson::edges()
{
    QFETCH(QJsonObject, edge);
    const QByteArray json = QJsonDocument(edge.value("tokenizer").toObject()).toJson(QJsonDocument::Compact);
    std::string why;
    const auto tokenizer = JsonTokenizer::create(std::string_view(json.constData(), size_t(json.size())), why);
    QVERIFY2(tokenizer, why.c_str());
    for (const QJsonValue &value : edge.value("cases").toArray()) {
        const QJsonObject c = value.toObject();
        std::vector<TokenId> want;
        for (const QJsonValue &id : c.value(c.contains("decode_only") ? "decode_only" : "ids").toArray())
            want.push_back(TokenId(id.toInteger()));
        const QString text = c.value("text").toString();
        if (!c.contains("decode_only")) {
            const QByteArray utf8 = text.toUtf8();
            const auto encoding = tokenizer->encodeTokens(std::string_view(utf8.constData(), size_t(utf8.size())),
                                                          TokenizeOptions{c.value("add_special").toBool(), true});
            QVERIFY(encoding);
            QCOMPARE(join(encoding->ids), join(c.value("ids").toArray()));
            QStringList tokens;
            for (const std::string &t : encoding->tokens)
                tokens << QString::fromStdString(t);
            QCOMPARE(tokens, c.value("tokens").toVariant().toStringList());
            QCOMPARE(QString::fromStdString(tokenizer->decode(want, true)), c.value("decoded_skip").toString());
        }
        QCOMPARE(QString::fromStdString(tokenizer->decode(want, false)), c.value("decoded").toString());
    }
}

// A long text with no added token in it (one part): progress comes while its pieces are tokenized,
// rising to the whole; a false from it stops the encoding; the ids are those of the plain call.
void TestTokenizerJson::progressAndCancel()
{
    const auto tokenizer = load("llama3.tokenizer.json");
    QVERIFY(tokenizer);
    std::string text;
    for (int i = 0; i < 20000; ++i)
        text += "word" + std::to_string(i % 97) + " ";
    std::vector<uint64_t> seen;
    const auto encoding = tokenizer->encodeTokens(text, {}, [&](uint64_t done, uint64_t total) {
        seen.push_back(done);
        return total == text.size();
    });
    QVERIFY(encoding);
    QVERIFY(seen.size() > 10);
    QVERIFY(std::is_sorted(seen.begin(), seen.end()));
    QCOMPARE(seen.back(), uint64_t(text.size()));
    QCOMPARE(encoding->ids, tokenizer->encode(text, {}));
    int calls = 0;
    QVERIFY(!tokenizer->encodeTokens(text, {}, [&](uint64_t, uint64_t) { return ++calls < 3; }));
    QCOMPARE(calls, 3);
}

void TestTokenizerJson::golden_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QJsonArray>("cases");
    const QJsonObject all = ::golden();
    QVERIFY(all.size() >= 14);
    for (auto it = all.begin(); it != all.end(); ++it) {
        const QJsonObject t = it.value().toObject();
        QTest::newRow(qPrintable(it.key())) << t.value("file").toString() << t.value("cases").toArray();
    }
}

void TestTokenizerJson::golden()
{
    QFETCH(QString, file);
    QFETCH(QJsonArray, cases);
    const auto tokenizer = load(file);
    QVERIFY(tokenizer);
    QVERIFY(cases.size() > 100);
    int failures = 0;
    for (const QJsonValue &value : cases) {
        const QJsonObject c = value.toObject();
        const QByteArray text = c.value("text").toString().toUtf8();
        const bool addSpecial = c.value("add_special").toBool();
        const auto encoding = tokenizer->encodeTokens(std::string_view(text.constData(), size_t(text.size())),
                                                      TokenizeOptions{addSpecial, true});
        QVERIFY(encoding);
        const QString got = join(encoding->ids), want = join(c.value("ids").toArray());
        QStringList tokens;
        for (const std::string &t : encoding->tokens)
            tokens << QString::fromStdString(t);
        QStringList wantTokens;
        for (const QJsonValue &t : c.value("tokens").toArray())
            wantTokens << t.toString();
        std::vector<TokenId> wantIds;
        for (const QJsonValue &id : c.value("ids").toArray())
            wantIds.push_back(TokenId(id.toInteger()));
        const QString decoded = QString::fromStdString(tokenizer->decode(wantIds, false));
        const QString decodedSkip = QString::fromStdString(tokenizer->decode(wantIds, true));
        const bool ok = got == want && tokens == wantTokens && decoded == c.value("decoded").toString() &&
                        decodedSkip == c.value("decoded_skip").toString();
        if (!ok && ++failures <= 5)
            qWarning().noquote() << "text" << c.value("text").toString().left(80) << "add_special" << addSpecial
                                 << "\n  ids  " << got.left(300) << "\n  want " << want.left(300) << "\n  decoded "
                                 << decoded.left(120) << "\n  want    " << c.value("decoded").toString().left(120)
                                 << "\n  skip " << decodedSkip.left(120) << "\n  want "
                                 << c.value("decoded_skip").toString().left(120);
    }
    QCOMPARE(failures, 0);
}

QTEST_GUILESS_MAIN(TestTokenizerJson)
#include "tst_tokenizer_json.moc"
