// SPDX-License-Identifier: GPL-3.0-or-later
// gguf::Vocabulary and gguf::MergeIndex on llama.cpp's real vocabulary files: stored text and the
// decoding of GPT-2 byte-level, SentencePiece and WordPiece tokens (expected strings worked out
// from the GPT-2 byte table and SentencePiece's rules, not from our decoder), merge halves, the
// merges that produce a token, the counts per type and the special tokens.
#include "core/format/gguf_file.h"
#include "core/vocab/merge_index.h"
#include "core/vocab/vocabulary.h"
#include "tests/support/test_paths.h"

#include <QtTest>

using namespace gguf;

namespace {

std::shared_ptr<const GgufFile> openReal(const QString &name)
{
    return GgufFile::open((gguf::test::dataPath(u"real/") + name).toStdString()).file;
}

QByteArray bytes(std::string_view s)
{
    return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

} // namespace

class TestVocabulary : public QObject {
    Q_OBJECT

private slots:
    void decoding_data();
    void decoding();
    void decodedIntoReusesTheBuffer();
    void mergeParts_data();
    void mergeParts();
    void mergesProducingAToken_data();
    void mergesProducingAToken();
    void mergeIndexCancels();
    void stats_data();
    void stats();
    void specialTokens();
    void outOfRange();
};

void TestVocabulary::decoding_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<quint64>("id");
    QTest::addColumn<QByteArray>("stored");
    QTest::addColumn<QByteArray>("decoded");
    // GPT-2: printable bytes stand for themselves; the 68 others are U+0100 + their position
    // among the unprintable bytes (0x00–0x20 → U+0100–U+0120, 0x7F–0xA0 → U+0121–U+0142, 0xAD → U+0143).
    const QString gpt2 = QStringLiteral("ggml-vocab-gpt-2.gguf");
    QTest::newRow("gpt-2 space (U+0120)") << gpt2 << quint64(220) << QByteArray("\xC4\xA0") << QByteArray(" ");
    QTest::newRow("gpt-2 word after a space")
        << gpt2 << quint64(29871) << QByteArray("\xC4\xA0mortar") << QByteArray(" mortar");
    QTest::newRow("gpt-2 newline (U+010A)") << gpt2 << quint64(198) << QByteArray("\xC4\x8A") << QByteArray("\n");
    QTest::newRow("gpt-2 tab (U+0109)") << gpt2 << quint64(197) << QByteArray("\xC4\x89") << QByteArray("\t");
    QTest::newRow("gpt-2 two-byte character (Ã© = C3 A9)")
        << gpt2 << quint64(2634) << QByteArray("\xC3\x83\xC2\xA9") << QByteArray("\xC3\xA9");
    QTest::newRow("gpt-2 incomplete character (âĢ = E2 80)")
        << gpt2 << quint64(447) << QByteArray("\xC3\xA2\xC4\xA2") << QByteArray("\xE2\x80");
    QTest::newRow("gpt-2 space and em dash")
        << gpt2 << quint64(851) << QByteArray("\xC4\xA0\xC3\xA2\xC4\xA2\xC4\xB6") << QByteArray(" \xE2\x80\x94");
    QTest::newRow("gpt-2 control token is a name")
        << gpt2 << quint64(50256) << QByteArray("<|endoftext|>") << QByteArray("<|endoftext|>");
    // SentencePiece: ▁ (E2 96 81) is a space; <0xNN> is the byte NN.
    const QString spm = QStringLiteral("ggml-vocab-llama-spm.gguf");
    QTest::newRow("spm byte token newline") << spm << quint64(13) << QByteArray("<0x0A>") << QByteArray("\n");
    QTest::newRow("spm byte token zero") << spm << quint64(3) << QByteArray("<0x00>") << QByteArray("\0", 1);
    QTest::newRow("spm space") << spm << quint64(29871) << QByteArray("\xE2\x96\x81") << QByteArray(" ");
    QTest::newRow("spm two spaces") << spm << quint64(259) << QByteArray("\xE2\x96\x81\xE2\x96\x81")
                                    << QByteArray("  ");
    QTest::newRow("spm word") << spm << quint64(278) << QByteArray("\xE2\x96\x81the") << QByteArray(" the");
    QTest::newRow("spm character kept") << spm << quint64(30010) << QByteArray("\xE2\x80\x99")
                                        << QByteArray("\xE2\x80\x99");
    QTest::newRow("spm control token") << spm << quint64(1) << QByteArray("<s>") << QByteArray("<s>");
    const QString phi3 = QStringLiteral("ggml-vocab-phi-3.gguf");
    QTest::newRow("phi-3 user-defined token") << phi3 << quint64(2) << QByteArray("</s>") << QByteArray("</s>");
    QTest::newRow("phi-3 chat control token")
        << phi3 << quint64(32007) << QByteArray("<|end|>") << QByteArray("<|end|>");
    // BERT as llama.cpp's converter stores it: ▁ starts a word, continuations lose their ##.
    const QString bert = QStringLiteral("ggml-vocab-bert-bge.gguf");
    QTest::newRow("bert word start") << bert << quint64(1996) << QByteArray("\xE2\x96\x81the") << QByteArray(" the");
    QTest::newRow("bert continuation") << bert << quint64(2075) << QByteArray("ing") << QByteArray("ing");
}

void TestVocabulary::decoding()
{
    QFETCH(QString, file);
    QFETCH(quint64, id);
    QFETCH(QByteArray, stored);
    QFETCH(QByteArray, decoded);
    const auto f = openReal(file);
    QVERIFY(f);
    const Vocabulary vocab(*f);
    QVERIFY(vocab.isValid());
    QCOMPARE(bytes(vocab.token(id)), stored);
    QCOMPARE(bytes(vocab.decoded(id)), decoded);
}

void TestVocabulary::decodedIntoReusesTheBuffer()
{
    const auto f = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    std::string buffer = "left over from before";
    vocab.decodedInto(262, buffer);
    QCOMPARE(buffer, std::string(" the"));
    vocab.decodeTextInto("\xC4\xA0t", buffer); // "Ġt", a merge result
    QCOMPARE(buffer, std::string(" t"));
}

void TestVocabulary::mergeParts_data()
{
    QTest::addColumn<quint64>("rank");
    QTest::addColumn<QByteArray>("left");
    QTest::addColumn<QByteArray>("right");
    QTest::newRow("first rule") << quint64(0) << QByteArray("\xC4\xA0") << QByteArray("t");
    QTest::newRow("plain letters") << quint64(2) << QByteArray("h") << QByteArray("e");
    QTest::newRow("the") << quint64(6) << QByteArray("\xC4\xA0t") << QByteArray("he");
    QTest::newRow("mortar") << quint64(29615) << QByteArray("\xC4\xA0mort") << QByteArray("ar");
    QTest::newRow("past the end") << quint64(50000) << QByteArray() << QByteArray();
}

void TestVocabulary::mergeParts()
{
    QFETCH(quint64, rank);
    QFETCH(QByteArray, left);
    QFETCH(QByteArray, right);
    const auto f = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    QCOMPARE(vocab.mergeCount(), quint64(50000));
    const auto [l, r] = vocab.mergeParts(rank);
    QCOMPARE(bytes(l), left);
    QCOMPARE(bytes(r), right);
}

void TestVocabulary::mergesProducingAToken_data()
{
    QTest::addColumn<quint64>("id");
    QTest::addColumn<QList<quint64>>("ranks");
    QTest::newRow("Ġthe from Ġt + he") << quint64(262) << QList<quint64>{6};
    QTest::newRow("Ġmortar from Ġmort + ar") << quint64(29871) << QList<quint64>{29615};
    QTest::newRow("a single byte is not merged") << quint64(220) << QList<quint64>{};
    QTest::newRow("a control token is not merged") << quint64(50256) << QList<quint64>{};
}

void TestVocabulary::mergesProducingAToken()
{
    QFETCH(quint64, id);
    QFETCH(QList<quint64>, ranks);
    const auto f = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const auto index = MergeIndex::build(vocab);
    QVERIFY(index);
    QCOMPARE(index->size(), quint64(50000));
    const std::vector<uint64_t> found = index->producing(vocab, vocab.token(id));
    QCOMPARE(QList<quint64>(found.begin(), found.end()), ranks);
}

void TestVocabulary::mergeIndexCancels()
{
    const auto f = openReal(QStringLiteral("ggml-vocab-gpt-2.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    int calls = 0;
    const auto index = MergeIndex::build(vocab, [&calls](uint64_t, uint64_t) { return ++calls < 2; });
    QVERIFY(!index);
    QCOMPARE(calls, 2);
}

void TestVocabulary::stats_data()
{
    // counts from `gguf-inspect vocab --json` of each file
    QTest::addColumn<QString>("file");
    QTest::addColumn<QList<quint64>>("typeCounts"); // index = token type 0–6
    QTest::addColumn<bool>("scores");
    QTest::newRow("gpt-2 (no scores)") << "ggml-vocab-gpt-2.gguf" << QList<quint64>{0, 50256, 0, 1, 0, 0, 0} << false;
    QTest::newRow("llama-spm") << "ggml-vocab-llama-spm.gguf" << QList<quint64>{0, 31741, 1, 2, 0, 0, 256} << true;
    QTest::newRow("phi-3") << "ggml-vocab-phi-3.gguf" << QList<quint64>{0, 31741, 53, 13, 1, 0, 256} << true;
}

void TestVocabulary::stats()
{
    QFETCH(QString, file);
    QFETCH(QList<quint64>, typeCounts);
    QFETCH(bool, scores);
    const auto f = openReal(file);
    QVERIFY(f);
    const Vocabulary vocab(*f);
    const VocabularyStats s = vocab.stats();
    QCOMPARE(QList<quint64>(s.typeCounts.begin(), s.typeCounts.end()), typeCounts);
    QCOMPARE(s.untyped, quint64(0));
    QCOMPARE(s.minScore.has_value(), scores);
    if (scores) {
        QCOMPARE(*s.minScore, -1e9f);
        QCOMPARE(*s.maxScore, 0.0f);
    }
}

void TestVocabulary::specialTokens()
{
    const auto f = openReal(QStringLiteral("ggml-vocab-phi-3.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    QStringList seen;
    for (const SpecialToken &s : vocab.specialTokens())
        seen << QStringLiteral("%1=%2").arg(QLatin1String(s.role.data(), qsizetype(s.role.size()))).arg(s.id);
    QCOMPARE(seen, (QStringList{"bos=1", "eos=32000", "unknown=0", "padding=32000"}));
}

void TestVocabulary::outOfRange()
{
    const auto f = openReal(QStringLiteral("ggml-vocab-llama-spm.gguf"));
    QVERIFY(f);
    const Vocabulary vocab(*f);
    QVERIFY(vocab.token(32000).empty());
    QVERIFY(vocab.decoded(1u << 31).empty());
    QVERIFY(!vocab.type(32000));
    QVERIFY(!vocab.score(32000));
    QCOMPARE(vocab.mergeCount(), quint64(0));
    QVERIFY(vocab.merge(0).empty());
}

QTEST_GUILESS_MAIN(TestVocabulary)
#include "tst_vocabulary.moc"
