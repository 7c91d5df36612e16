// SPDX-License-Identifier: GPL-3.0-or-later
// gguf::TokenSearch (core/vocab): parsing of ids and hex bytes, every search mode on llama.cpp's real vocabularies
// (expected counts from `gguf-inspect vocab --json`, worked out with Python), type filters, sort
// orders, merge rule searches and cancelling.
#include "core/format/gguf_file.h"
#include "core/vocab/token_search.h"
#include "core/vocab/vocabulary.h"
#include "tests/support/test_paths.h"

#include <QtTest>

using namespace gguf;
using Mode = TokenSearch::Mode;
using Field = TokenSearch::Field;
using SortKey = TokenSearch::SortKey;

Q_DECLARE_METATYPE(TokenSearch::Mode)
Q_DECLARE_METATYPE(TokenSearch::Field)
Q_DECLARE_METATYPE(TokenSearch::SortKey)
Q_DECLARE_METATYPE(TokenSearch::Query)
Q_DECLARE_METATYPE(TokenSearch::QueryError)

namespace {

std::shared_ptr<const GgufFile> openReal(const QString &name)
{
    return GgufFile::open((gguf::test::dataPath(u"real/") + name).toStdString()).file;
}

TokenSearch::Query query(Mode mode, const QString &text, Field field = Field::StoredOrDecoded,
                         bool caseSensitive = false, int typeFilter = TokenSearch::kAnyType)
{
    return TokenSearch::Query{mode, text.toStdString(), field, caseSensitive, typeFilter};
}

} // namespace

class TestTokenSearch : public QObject {
    Q_OBJECT

private slots:
    void parseHexBytes_data();
    void parseHexBytes();
    void parseIdRanges_data();
    void parseIdRanges();
    void badQueries_data();
    void badQueries();
    void searchRealVocabularies_data();
    void searchRealVocabularies();
    void emptyQueryMatchesAll();
    void sortOrders_data();
    void sortOrders();
    void descendingAndFilteredInOrder();
    void searchMerges_data();
    void searchMerges();
    void cancelling();
};

void TestTokenSearch::parseHexBytes_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("one byte") << "0a" << true << QByteArray("\n");
    QTest::newRow("spaced") << "e2 96 81" << true << QByteArray("\xE2\x96\x81");
    QTest::newRow("run together, upper case") << "E29681" << true << QByteArray("\xE2\x96\x81");
    QTest::newRow("C escapes") << "\\xe2\\x96\\x81" << true << QByteArray("\xE2\x96\x81");
    QTest::newRow("0x prefixes and commas") << "0xE2, 0x80" << true << QByteArray("\xE2\x80");
    QTest::newRow("zero byte") << "00" << true << QByteArray("\0", 1);
    QTest::newRow("nothing") << "  " << true << QByteArray();
    QTest::newRow("odd digit count") << "abc" << false << QByteArray();
    QTest::newRow("not hex") << "zz" << false << QByteArray();
}

void TestTokenSearch::parseHexBytes()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QByteArray, bytes);
    const auto parsed = TokenSearch::parseHexBytes(text.toStdString());
    QCOMPARE(parsed.has_value(), ok);
    if (ok)
        QCOMPARE(QByteArray(parsed->data(), qsizetype(parsed->size())), bytes);
}

void TestTokenSearch::parseIdRanges_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QList<quint64>>("bounds"); // first, last, first, last, …
    QTest::newRow("one id") << "42" << true << QList<quint64>{42, 42};
    QTest::newRow("range") << "100-200" << true << QList<quint64>{100, 200};
    QTest::newRow("range with spaces") << "100 - 200" << true << QList<quint64>{100, 200};
    QTest::newRow("dotted range") << "3..5" << true << QList<quint64>{3, 5};
    QTest::newRow("reversed range") << "5-3" << true << QList<quint64>{3, 5};
    QTest::newRow("list") << "1, 2 7" << true << QList<quint64>{1, 1, 2, 2, 7, 7};
    QTest::newRow("word") << "abc" << false << QList<quint64>{};
    QTest::newRow("negative") << "-4" << false << QList<quint64>{};
}

void TestTokenSearch::parseIdRanges()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(QList<quint64>, bounds);
    const auto parsed = TokenSearch::parseIdRanges(text.toStdString());
    QCOMPARE(parsed.has_value(), ok);
    if (!ok)
        return;
    QList<quint64> got;
    for (const auto &[first, last] : *parsed)
        got << first << last;
    QCOMPARE(got, bounds);
}

void TestTokenSearch::badQueries_data()
{
    QTest::addColumn<Mode>("mode");
    QTest::addColumn<QString>("text");
    QTest::addColumn<TokenSearch::QueryError>("error");
    QTest::newRow("unclosed group") << Mode::RegularExpression << "(the" << TokenSearch::QueryError::BadPattern;
    QTest::newRow("odd hex") << Mode::Bytes << "e2 9" << TokenSearch::QueryError::BadBytes;
    QTest::newRow("id word") << Mode::Id << "eos" << TokenSearch::QueryError::BadIds;
}

void TestTokenSearch::badQueries()
{
    QFETCH(Mode, mode);
    QFETCH(QString, text);
    QFETCH(TokenSearch::QueryError, error);
    const TokenSearch search(query(mode, text));
    QVERIFY(!search.isValid());
    QCOMPARE(search.error(), error);
    if (error == TokenSearch::QueryError::BadPattern) {
        // PCRE2's own words, and where in the pattern: after the 4 code points of "(the"
        QCOMPARE(QString::fromStdString(search.patternError()), QStringLiteral("missing closing parenthesis"));
        QCOMPARE(search.patternErrorOffset(), size_t(4));
    }
    const auto file = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(file);
    const Vocabulary vocab(*file);
    QVERIFY(search.tokens(vocab, nullptr, false)->empty());
}

void TestTokenSearch::searchRealVocabularies_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<TokenSearch::Query>("q");
    QTest::addColumn<int>("count");             // -1: not checked
    QTest::addColumn<QList<quint64>>("some");   // ids that must be found
    QTest::addColumn<QList<quint64>>("others"); // ids that must not be
    const QString gpt2 = QStringLiteral("ggml-vocab-gpt-2.gguf");
    const QString spm = QStringLiteral("ggml-vocab-llama-spm.gguf");
    QTest::newRow("substring, any case") << gpt2 << query(Mode::Text, "MORTAR") << 1 << QList<quint64>{29871}
                                         << QList<quint64>{};
    QTest::newRow("substring, case-sensitive") << gpt2 << query(Mode::Text, "MORTAR", Field::StoredOrDecoded, true) << 0
                                               << QList<quint64>{} << QList<quint64>{29871};
    QTest::newRow("substring of the stored Ġ spelling")
        << gpt2 << query(Mode::Text, QString::fromUtf8("\u0120mort"), Field::Stored, true) << 8
        << QList<quint64>{5596, 29871, 49008} << QList<quint64>{};
    QTest::newRow("a space finds every Ġ token")
        << gpt2 << query(Mode::Text, " ") << 33135 << QList<quint64>{220, 262, 29871} << QList<quint64>{0, 50256};
    QTest::newRow("a space is no stored gpt-2 text")
        << gpt2 << query(Mode::Text, " ", Field::Stored) << 0 << QList<quint64>{} << QList<quint64>{220};
    QTest::newRow("a space finds every ▁ token and <0x20>")
        << spm << query(Mode::Text, " ", Field::Decoded) << 16410 << QList<quint64>{29871, 259, 278, 35}
        << QList<quint64>{13};
    QTest::newRow("regular expression") << gpt2
                                        << query(Mode::RegularExpression, QString::fromUtf8("^\u0120mort"),
                                                 Field::StoredOrDecoded, true)
                                        << 8 << QList<quint64>{5596, 12430, 13682, 22122, 28465, 29871, 30401, 49008}
                                        << QList<quint64>{};
    QTest::newRow("regular expression, any case")
        << gpt2 << query(Mode::RegularExpression, QString::fromUtf8("^\u0120mort")) << 13 << QList<quint64>{5596, 29871}
        << QList<quint64>{};
    QTest::newRow("regular expression on decoded text")
        << gpt2 << query(Mode::RegularExpression, "^ mortars?$", Field::Decoded) << 1 << QList<quint64>{29871}
        << QList<quint64>{};
    QTest::newRow("non-ASCII case folding") << spm << query(Mode::Text, QString::fromUtf8("\u0409")) << 12
                                            << QList<quint64>{30488, 7393} << QList<quint64>{};
    QTest::newRow("ids and a range") << gpt2 << query(Mode::Id, "10-12, 50256") << 4
                                     << QList<quint64>{10, 11, 12, 50256} << QList<quint64>{13};
    QTest::newRow("decoded bytes: em dash") << gpt2 << query(Mode::Bytes, "e2 80 94", Field::Decoded) << 12
                                            << QList<quint64>{851, 960, 44839} << QList<quint64>{};
    QTest::newRow("stored bytes: ▁") << spm << query(Mode::Bytes, "e2 96 81", Field::Stored) << 16409
                                     << QList<quint64>{29871, 278} << QList<quint64>{35};
    QTest::newRow("byte tokens only") << spm << query(Mode::Text, "", Field::StoredOrDecoded, false, 6) << 256
                                      << QList<quint64>{3, 13, 258} << QList<quint64>{2, 259};
    QTest::newRow("special tokens only") << QStringLiteral("ggml-vocab-phi-3.gguf")
                                         << query(Mode::Text, "", Field::StoredOrDecoded, false,
                                                  TokenSearch::kSpecialTokens)
                                         << 3 << QList<quint64>{0, 1, 32000} << QList<quint64>{2};
    QTest::newRow("text within a type") << spm << query(Mode::Text, "s", Field::StoredOrDecoded, false, 3) << 2
                                        << QList<quint64>{1, 2} << QList<quint64>{0};
}

void TestTokenSearch::searchRealVocabularies()
{
    QFETCH(QString, file);
    QFETCH(TokenSearch::Query, q);
    QFETCH(int, count);
    QFETCH(QList<quint64>, some);
    QFETCH(QList<quint64>, others);
    const auto f = openReal(file);
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const TokenSearch search(q);
    QVERIFY2(search.isValid(), search.patternError().c_str());
    const auto ids = search.tokens(vocab, nullptr, false);
    QVERIFY(ids);
    QVERIFY(std::is_sorted(ids->begin(), ids->end()));
    if (count >= 0)
        QCOMPARE(int(ids->size()), count);
    for (const quint64 id : some)
        QVERIFY2(std::binary_search(ids->begin(), ids->end(), uint32_t(id)), qPrintable(QString::number(id)));
    for (const quint64 id : others)
        QVERIFY2(!std::binary_search(ids->begin(), ids->end(), uint32_t(id)), qPrintable(QString::number(id)));
}

void TestTokenSearch::emptyQueryMatchesAll()
{
    QVERIFY(TokenSearch(query(Mode::Text, "")).matchesAll());
    QVERIFY(TokenSearch(query(Mode::Id, "  ")).matchesAll());
    QVERIFY(!TokenSearch(query(Mode::Text, " ")).matchesAll()); // a space is a search
    QVERIFY(!TokenSearch(query(Mode::Text, "", Field::Stored, false, 1)).matchesAll());
}

void TestTokenSearch::sortOrders_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<SortKey>("key");
    QTest::newRow("gpt-2 by token") << "ggml-vocab-gpt-2.gguf" << SortKey::Token;
    QTest::newRow("gpt-2 by length") << "ggml-vocab-gpt-2.gguf" << SortKey::Length;
    QTest::newRow("gpt-2 by score (none)") << "ggml-vocab-gpt-2.gguf" << SortKey::Score;
    QTest::newRow("spm by score") << "ggml-vocab-llama-spm.gguf" << SortKey::Score;
    QTest::newRow("phi-3 by type") << "ggml-vocab-phi-3.gguf" << SortKey::Type;
}

void TestTokenSearch::sortOrders()
{
    QFETCH(QString, file);
    QFETCH(SortKey, key);
    const auto f = openReal(file);
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const auto order = TokenSearch::sortOrder(vocab, key);
    QVERIFY(order);
    QCOMPARE(order->size(), size_t(vocab.size()));
    std::vector<bool> seen(order->size());
    for (const uint32_t id : *order)
        seen[id] = true;
    QVERIFY(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; })); // a permutation
    // every neighbour pair in order by the key, ties by id
    for (size_t i = 1; i < order->size(); ++i) {
        const uint32_t a = (*order)[i - 1], b = (*order)[i];
        int cmp = 0;
        switch (key) {
        case SortKey::Token: cmp = vocab.token(a).compare(vocab.token(b)); break;
        case SortKey::Length: cmp = int(vocab.decoded(a).size()) - int(vocab.decoded(b).size()); break;
        case SortKey::Score:
            cmp = vocab.score(a).value_or(0) < vocab.score(b).value_or(0)   ? -1
                  : vocab.score(a).value_or(0) > vocab.score(b).value_or(0) ? 1
                                                                            : 0;
            break;
        case SortKey::Type: cmp = *vocab.type(a) - *vocab.type(b); break;
        case SortKey::Id: break;
        }
        QVERIFY2(cmp < 0 || (cmp == 0 && a < b), qPrintable(QStringLiteral("%1 before %2").arg(a).arg(b)));
    }
}

void TestTokenSearch::descendingAndFilteredInOrder()
{
    const auto f = openReal(QStringLiteral("ggml-vocab-llama-spm.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const auto byScore = TokenSearch::sortOrder(vocab, SortKey::Score);
    QVERIFY(byScore);
    // the byte tokens (score 0) in descending score order: ties come in descending id order
    const auto ids =
        TokenSearch(query(Mode::Text, "", Field::StoredOrDecoded, false, 6)).tokens(vocab, &*byScore, true);
    QVERIFY(ids);
    QCOMPARE(ids->size(), size_t(256));
    QCOMPARE(ids->front(), 258u);
    QCOMPARE(ids->back(), 3u);
    const auto all = TokenSearch(query(Mode::Text, "")).tokens(vocab, nullptr, true);
    QCOMPARE(all->front(), 31999u);
}

void TestTokenSearch::searchMerges_data()
{
    QTest::addColumn<TokenSearch::Query>("q");
    QTest::addColumn<QList<quint64>>("some");
    QTest::addColumn<int>("count");
    QTest::newRow("result as stored") << query(Mode::Text, QString::fromUtf8("\u0120the"), Field::Stored, true)
                                      << QList<quint64>{6} << -1;
    QTest::newRow("rule as stored") << query(Mode::Text, QString::fromUtf8("\u0120t he"), Field::Stored, true)
                                    << QList<quint64>{6} << 1;
    QTest::newRow("decoded result") << query(Mode::RegularExpression, "^ mortar$", Field::Decoded)
                                    << QList<quint64>{29615} << 1;
    QTest::newRow("ranks") << query(Mode::Id, "6, 29615") << QList<quint64>{6, 29615} << 2;
    QTest::newRow("everything") << query(Mode::Text, "") << QList<quint64>{0, 49999} << 50000;
}

void TestTokenSearch::searchMerges()
{
    QFETCH(TokenSearch::Query, q);
    QFETCH(QList<quint64>, some);
    QFETCH(int, count);
    const auto f = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const auto ranks = TokenSearch(q).merges(vocab);
    QVERIFY(ranks);
    if (count >= 0)
        QCOMPARE(int(ranks->size()), count);
    for (const quint64 rank : some)
        QVERIFY(std::binary_search(ranks->begin(), ranks->end(), uint32_t(rank)));
}

void TestTokenSearch::cancelling()
{
    const auto f = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const auto stop = [](uint64_t, uint64_t) { return false; };
    QVERIFY(!TokenSearch(query(Mode::Text, "a")).tokens(vocab, nullptr, false, stop));
    QVERIFY(!TokenSearch(query(Mode::Text, "a")).merges(vocab, stop));
    QVERIFY(!TokenSearch::sortOrder(vocab, SortKey::Length, stop));
}

QTEST_GUILESS_MAIN(TestTokenSearch)
#include "tst_token_search.moc"
