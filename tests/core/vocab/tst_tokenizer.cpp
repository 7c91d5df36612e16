// SPDX-License-Identifier: GPL-3.0-or-later
// The tokenizers against llama.cpp: its own test vectors (tests/data/tokenizer-tests), ids made
// with llama.cpp for the other vocabularies (tests/data/tokenizer-oracle), and round trips.
#include "core/format/gguf_file.h"
#include "core/vocab/tokenizer.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gguf;

namespace {

const QString kData = gguf::test::dataDir();

std::shared_ptr<const Tokenizer> tokenizerOf(const QString &vocab)
{
    static std::map<QString, std::shared_ptr<const Tokenizer>> cache;
    auto &t = cache[vocab];
    if (!t) {
        const auto opened = GgufFile::open((kData + "/real/ggml-vocab-" + vocab + ".gguf").toStdString());
        if (!opened.file)
            return nullptr;
        t = Tokenizer::create(opened.file);
    }
    return t;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString ids(const std::vector<TokenId> &v)
{
    QStringList s;
    for (TokenId id : v)
        s << QString::number(id);
    return s.join(' ');
}

// The texts of a .inp file as llama.cpp's test-tokenizer-0 cuts them.
QList<QByteArray> vectorTexts(const QString &vocab)
{
    QList<QByteArray> texts = readAll(kData + "/tokenizer-tests/ggml-vocab-" + vocab + ".gguf.inp")
                                  .split('\n'); // rebuilt below: the separator is a whole line
    QList<QByteArray> out;
    QByteArray current;
    bool first = true;
    for (const QByteArray &line : texts) {
        if (line == "__ggml_vocab_test__") {
            out << current;
            current.clear();
            first = true;
            continue;
        }
        if (!first)
            current += '\n';
        current += line;
        first = false;
    }
    return out;
}

// The vocabularies with test vectors, and how many texts each .inp holds.
const std::vector<std::pair<QString, int>> kVectorVocabs = {
    {"bert-bge", 46}, {"deepseek-coder", 46}, {"gpt-2", 46},  {"llama-spm", 46},
    {"mpt", 46},      {"phi-3", 46},          {"refact", 46}, {"qwen35", 50}};
const QStringList kAllVocabs = {"baichuan", "bert-bge", "deepseek-coder", "deepseek-llm",
                                "falcon",   "gpt-2",    "gpt-neox",       "llama-spm",
                                "mpt",      "phi-3",    "refact",         "starcoder"};

} // namespace

class TestTokenizer : public QObject {
    Q_OBJECT

private slots:
    void testVectors_data()
    {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        for (const auto &[vocab, count] : kVectorVocabs) {
            const QList<QByteArray> texts = vectorTexts(vocab);
            const QList<QByteArray> lines =
                readAll(kData + "/tokenizer-tests/ggml-vocab-" + vocab + ".gguf.out").split('\n');
            QCOMPARE(texts.size(), count);
            QVERIFY(lines.size() >= count);
            for (int i = 0; i < texts.size(); ++i)
                QTest::addRow("%s/%d", qPrintable(vocab), i)
                    << vocab << texts[i] << QString::fromLatin1(lines[i].trimmed());
        }
    }
    // llama.cpp's test-tokenizer-0: add_special = false, parse_special = false
    void testVectors()
    {
        QFETCH(QString, vocab);
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const auto t = tokenizerOf(vocab);
        QVERIFY(t && t->canTokenize());
        QCOMPARE(ids(t->tokenize(text.toStdString())), expected);
    }

    void oracle_data()
    {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("parseSpecial");
        QTest::addColumn<QString>("expected");
        const QJsonObject doc = QJsonDocument::fromJson(readAll(kData + "/tokenizer-oracle/oracle.json")).object();
        const QJsonArray texts = doc["texts"].toArray();
        QCOMPARE(texts.size(), 61);
        const QJsonObject all = doc["ids"].toObject();
        QCOMPARE(all.size(), 12);
        for (const QString &vocab : all.keys())
            for (const bool parse : {false, true}) {
                const QJsonArray lists = all[vocab].toObject()[parse ? "parse_special" : "plain"].toArray();
                QCOMPARE(lists.size(), texts.size());
                for (int i = 0; i < texts.size(); ++i) {
                    std::vector<TokenId> v;
                    for (const QJsonValue &id : lists[i].toArray())
                        v.push_back(id.toInt());
                    QTest::addRow("%s/%s/%d", qPrintable(vocab), parse ? "special" : "plain", i)
                        << vocab << texts[i].toString() << parse << ids(v);
                }
            }
    }
    void oracle()
    {
        QFETCH(QString, vocab);
        QFETCH(QString, text);
        QFETCH(bool, parseSpecial);
        QFETCH(QString, expected);
        const auto t = tokenizerOf(vocab);
        QVERIFY(t && t->canTokenize());
        QCOMPARE(ids(t->tokenize(text.toStdString(), {false, parseSpecial})), expected);
    }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("vocab");
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<bool>("lossless");
        const QList<QByteArray> texts = vectorTexts("gpt-2");
        for (const QString &vocab : kAllVocabs) {
            const auto t = tokenizerOf(vocab);
            QVERIFY(t);
            // WordPiece lower-cases and drops whitespace; BPE vocabularies that clean spaces lose
            // the space before punctuation (llama.cpp's clean_spaces)
            const bool cleans =
                t->kind() == TokenizerKind::Bpe && !QStringList{"deepseek-coder", "deepseek-llm"}.contains(vocab);
            for (int i = 0; i < texts.size(); ++i) {
                bool lossless = t->kind() != TokenizerKind::Wpm;
                for (const char *p : {" ?", " !", " .", " ,", " '"})
                    lossless = lossless && !(cleans && texts[i].contains(p));
                QTest::addRow("%s/%d", qPrintable(vocab), i) << vocab << texts[i] << lossless;
            }
        }
    }
    // Every vocabulary tokenizes every test text into ids of its own; where the tokenizer keeps all
    // information, detokenizing gives the text back
    void roundTrip()
    {
        QFETCH(QString, vocab);
        QFETCH(QByteArray, text);
        QFETCH(bool, lossless);
        const auto t = tokenizerOf(vocab);
        QVERIFY(t && t->canTokenize());
        const std::vector<TokenId> v = t->tokenize(text.toStdString());
        if (text.isEmpty())
            QVERIFY(v.empty());
        for (TokenId id : v)
            QVERIFY(id >= 0 && static_cast<uint64_t>(id) < t->size());
        if (lossless)
            QCOMPARE(QByteArray::fromStdString(t->detokenize(v)), text);
    }
};

QTEST_GUILESS_MAIN(TestTokenizer)
#include "tst_tokenizer.moc"
