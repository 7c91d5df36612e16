// SPDX-License-Identifier: GPL-3.0-or-later
// core/compare on metadata and tokenizers: every kind of key difference (added, removed, value,
// type, float bits, strings, arrays element by element, nested arrays, byte order) and every kind
// of tokenizer difference, on built files and on real vocabularies.
#include "core/compare/metadata_diff.h"
#include "core/compare/text_diff.h"
#include "core/compare/tokenizer_diff.h"
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_paths.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace gguf;
using namespace gguf::test;

namespace {

const QString kReal = gguf::test::dataPath(u"real/");

std::shared_ptr<const GgufFile> built(const GgufBuilder &builder)
{
    OpenResult r = GgufFile::openBuffer(builder.build().bytes());
    return r.error ? nullptr : r.file;
}

std::shared_ptr<const GgufFile> real(const char *name)
{
    OpenResult r = GgufFile::open((kReal + QLatin1String(name)).toStdString());
    return r.error ? nullptr : r.file;
}

const MetadataDifference *entry(const MetadataDiff &diff, std::string_view key)
{
    for (const MetadataDifference &d : diff.entries)
        if (d.key == key)
            return &d;
    return nullptr;
}

// A small vocabulary: tokens, scores, types and merges, each given whole.
GgufBuilder vocab(std::vector<std::string> tokens, std::vector<float> scores, std::vector<int32_t> types,
                  std::vector<std::string> merges = {}, uint32_t bos = 1)
{
    std::vector<BuildValue> s, t;
    for (float v : scores)
        s.push_back(V::f32(v));
    for (int32_t v : types)
        t.push_back(V::i32(v));
    GgufBuilder b;
    b.kv("tokenizer.ggml.model", V::str(merges.empty() ? "llama" : "gpt2"))
        .kv("tokenizer.ggml.tokens", V::stringArray(std::move(tokens)))
        .kv("tokenizer.ggml.scores", V::array(ValueType::Float32, std::move(s)))
        .kv("tokenizer.ggml.token_type", V::array(ValueType::Int32, std::move(t)))
        .kv("tokenizer.ggml.bos_token_id", V::u32(bos));
    if (!merges.empty())
        b.kv("tokenizer.ggml.merges", V::stringArray(std::move(merges)));
    return b;
}

} // namespace

class TestCompareMetadata : public QObject {
    Q_OBJECT

private slots:
    void everyKindOfKeyDifference();
    void arraysElementByElement();
    void floatsByTheirBits();
    void byteOrderDoesNotMatter();
    void realFileWithItself();
    void realVocabulariesDiffer();
    void tokenizerVerdicts_data();
    void tokenizerVerdicts();
    void tokenChangesById();
    void mergesAddedRemovedAndReranked();
    void boolsByValue();
    void repeatedMergesAndKeysCountOnce();
    void textDifferenceByLines_data();
    void textDifferenceByLines();
};

void TestCompareMetadata::everyKindOfKeyDifference()
{
    const auto a = built(GgufBuilder()
                             .kv("general.name", V::str("alpha"))
                             .kv("same.key", V::u32(7))
                             .kv("type.key", V::u32(7))
                             .kv("gone.key", V::boolean(true))
                             .kv("value.key", V::i64(-5)));
    const auto b = built(GgufBuilder()
                             .kv("new.key", V::f64(0.5))
                             .kv("value.key", V::i64(-6))
                             .kv("type.key", V::i32(7))
                             .kv("same.key", V::u32(7))
                             .kv("general.name", V::str("beta")));
    QVERIFY(a && b);
    const MetadataDiff diff = compareMetadata(*a, *b);
    QCOMPARE(diff.entries.size(), size_t(6));
    QCOMPARE(diff.same, uint64_t(1));
    QCOMPARE(diff.changed, uint64_t(3));
    QCOMPARE(diff.added, uint64_t(1));
    QCOMPARE(diff.removed, uint64_t(1));
    QVERIFY(!diff.identical());
    // A's order, then B's new keys
    QCOMPARE(diff.entries.front().key, std::string_view("general.name"));
    QCOMPARE(diff.entries.back().key, std::string_view("new.key"));
    QCOMPARE(diff.entries.back().status, DiffStatus::Added);
    QVERIFY(!diff.entries.back().a && diff.entries.back().b);
    QCOMPARE(entry(diff, "same.key")->status, DiffStatus::Same);
    QCOMPARE(entry(diff, "gone.key")->status, DiffStatus::Removed);
    QVERIFY(!entry(diff, "gone.key")->b);
    // a u32 7 that became an i32 7 is a change of type
    const MetadataDifference *type = entry(diff, "type.key");
    QCOMPARE(type->status, DiffStatus::Changed);
    QVERIFY(type->typeChanged);
    QCOMPARE(type->b->value.toInt(), std::optional<int64_t>(7));
    QVERIFY(!entry(diff, "value.key")->typeChanged);
    QCOMPARE(entry(diff, "value.key")->status, DiffStatus::Changed);
    QCOMPARE(entry(diff, "general.name")->status, DiffStatus::Changed);
    QCOMPARE(diffStatusName(DiffStatus::Added), std::string_view("added"));
}

void TestCompareMetadata::arraysElementByElement()
{
    std::vector<BuildValue> ints, otherInts, longer;
    for (int i = 0; i < 100; ++i) {
        ints.push_back(V::i32(i));
        otherInts.push_back(V::i32(i % 10 == 3 ? -i : i)); // 3, 13, …, 93 differ: 10 elements
    }
    longer = ints;
    for (int i = 0; i < 5; ++i)
        longer.push_back(V::i32(1000 + i));
    std::vector<BuildValue> nested{V::array(ValueType::Uint8, {V::u8(1), V::u8(2)}),
                                   V::array(ValueType::Uint8, {V::u8(3)})};
    std::vector<BuildValue> otherNested{V::array(ValueType::Uint8, {V::u8(1), V::u8(2)}),
                                        V::array(ValueType::Uint8, {V::u8(4)})};
    const auto a = built(GgufBuilder()
                             .kv("ints", V::array(ValueType::Int32, ints))
                             .kv("grow", V::array(ValueType::Int32, ints))
                             .kv("strings", V::stringArray({"a", "b", "c"}))
                             .kv("elements", V::array(ValueType::Int32, ints))
                             .kv("nested", V::array(ValueType::Array, nested)));
    const auto b = built(GgufBuilder()
                             .kv("ints", V::array(ValueType::Int32, otherInts))
                             .kv("grow", V::array(ValueType::Int32, longer))
                             .kv("strings", V::stringArray({"a", "B", "c"}))
                             .kv("elements", V::array(ValueType::Uint32, {}))
                             .kv("nested", V::array(ValueType::Array, otherNested)));
    QVERIFY(a && b);
    const MetadataDiff diff = compareMetadata(*a, *b);
    QCOMPARE(diff.changed, uint64_t(5));

    const MetadataDifference *d = entry(diff, "ints");
    QCOMPARE(d->differingElements, uint64_t(10));
    QCOMPARE(d->firstDifferences.size(), size_t(8)); // the default list length
    QCOMPARE(d->firstDifferences[0].index, uint64_t(3));
    QCOMPARE(d->firstDifferences[0].a, std::string("3"));
    QCOMPARE(d->firstDifferences[0].b, std::string("-3"));
    QCOMPARE(d->firstDifferences[7].index, uint64_t(73));

    d = entry(diff, "grow");
    QCOMPARE(d->differingElements, uint64_t(5));
    QCOMPARE(d->firstDifferences.front().index, uint64_t(100));
    QCOMPARE(d->firstDifferences.front().a, std::string()); // past the end of A
    QCOMPARE(d->firstDifferences.front().b, std::string("1000"));

    d = entry(diff, "strings");
    QCOMPARE(d->differingElements, uint64_t(1));
    QCOMPARE(d->firstDifferences[0].b, std::string("\"B\""));

    d = entry(diff, "elements");
    QVERIFY(d->typeChanged); // INT32 elements became UINT32
    QCOMPARE(d->differingElements, uint64_t(0));

    d = entry(diff, "nested");
    QCOMPARE(d->differingElements, uint64_t(1));
    QCOMPARE(d->firstDifferences[0].index, uint64_t(1));

    MetadataDiffOptions few;
    few.maxElementDifferences = 2;
    const MetadataDiff shortList = compareMetadata(*a, *b, few);
    QCOMPARE(entry(shortList, "ints")->firstDifferences.size(), size_t(2));
    QCOMPARE(entry(shortList, "ints")->differingElements, uint64_t(10));
    QCOMPARE(entry(shortList, "grow")->differingElements, uint64_t(5));
}

void TestCompareMetadata::floatsByTheirBits()
{
    const auto a = built(GgufBuilder()
                             .kv("zero", V::f32(0.0f))
                             .kv("nan", V::f32Bits(0x7fc00001))
                             .kv("other.nan", V::f32Bits(0x7fc00001))
                             .kv("f64", V::f64(0.1)));
    const auto b = built(GgufBuilder()
                             .kv("zero", V::f32(-0.0f))
                             .kv("nan", V::f32Bits(0x7fc00001))
                             .kv("other.nan", V::f32Bits(0x7fc00002))
                             .kv("f64", V::f64(0.1)));
    QVERIFY(a && b);
    const MetadataDiff diff = compareMetadata(*a, *b);
    QCOMPARE(entry(diff, "zero")->status, DiffStatus::Changed);
    QCOMPARE(entry(diff, "nan")->status, DiffStatus::Same);
    QCOMPARE(entry(diff, "other.nan")->status, DiffStatus::Changed);
    QCOMPARE(entry(diff, "f64")->status, DiffStatus::Same);

    // a signalling NaN against the quiet one: a widening to double would make them alike
    const auto sa = built(GgufBuilder()
                              .kv("s", V::f32Bits(0x7f800001))
                              .kv("v", V::array(ValueType::Float32, {V::f32(1), V::f32Bits(0x7f800001)})));
    const auto sb = built(GgufBuilder()
                              .kv("s", V::f32Bits(0x7fc00001))
                              .kv("v", V::array(ValueType::Float32, {V::f32(1), V::f32Bits(0x7fc00001)})));
    QVERIFY(sa && sb);
    const MetadataDiff signalling = compareMetadata(*sa, *sb);
    QCOMPARE(entry(signalling, "s")->status, DiffStatus::Changed);
    QCOMPARE(entry(signalling, "v")->status, DiffStatus::Changed);
    QCOMPARE(entry(signalling, "v")->differingElements, uint64_t(1));
    // and in a big-endian file the same bits are the same value
    const auto big = built(GgufBuilder()
                               .byteOrder(Endian::Big)
                               .kv("s", V::f32Bits(0x7f800001))
                               .kv("v", V::array(ValueType::Float32, {V::f32(1), V::f32Bits(0x7f800001)})));
    QVERIFY(big);
    QVERIFY(compareMetadata(*sa, *big).identical());
}

void TestCompareMetadata::byteOrderDoesNotMatter()
{
    const auto content = [](GgufBuilder b) {
        return b.kv("n", V::u32(0x01020304))
            .kv("f", V::f32(1.5f))
            .kv("v", V::array(ValueType::Uint16, {V::u16(1), V::u16(0x0102)}))
            .kv("s", V::str("text"));
    };
    const auto little = built(content(GgufBuilder()));
    const auto big = built(content(GgufBuilder().byteOrder(Endian::Big)));
    QVERIFY(little && big);
    QVERIFY(big->byteSwapped());
    const MetadataDiff diff = compareMetadata(*little, *big);
    QVERIFY(diff.identical());
    QCOMPARE(diff.same, uint64_t(4));
}

void TestCompareMetadata::realFileWithItself()
{
    const auto a = real("ggml-vocab-phi-3.gguf");
    const auto b = real("ggml-vocab-phi-3.gguf");
    QVERIFY(a && b);
    const MetadataDiff diff = compareMetadata(*a, *b);
    QVERIFY(diff.identical());
    QCOMPARE(diff.same, uint64_t(a->metadata().size()));
    const TokenizerDiff t = compareTokenizers(*a, *b);
    QVERIFY(t.identical());
    QCOMPARE(t.verdict, std::string("same vocabulary"));
    QCOMPARE(t.sizeA, uint64_t(32064));
}

void TestCompareMetadata::realVocabulariesDiffer()
{
    // llama-spm (32,000) and phi-3 (32,064): phi-3 appends 64 tokens to the llama vocabulary
    const auto a = real("ggml-vocab-llama-spm.gguf");
    const auto b = real("ggml-vocab-phi-3.gguf");
    QVERIFY(a && b);
    const TokenizerDiff t = compareTokenizers(*a, *b);
    QCOMPARE(t.sizeA, uint64_t(32000));
    QCOMPARE(t.sizeB, uint64_t(32064));
    QCOMPARE(t.added, uint64_t(64));
    QCOMPARE(t.removed, uint64_t(0));
    // every changed id, counted here by reading both arrays plainly
    const ArrayRef ta = a->value("tokenizer.ggml.tokens").array(), tb = b->value("tokenizer.ggml.tokens").array();
    const ArrayRef ya = a->value("tokenizer.ggml.token_type").array(),
                   yb = b->value("tokenizer.ggml.token_type").array();
    const ArrayRef sa = a->value("tokenizer.ggml.scores").array(), sb = b->value("tokenizer.ggml.scores").array();
    uint64_t text = 0, type = 0, score = 0;
    for (uint64_t i = 0; i < 32000; ++i) {
        text += ta.stringAt(i) != tb.stringAt(i);
        type += ya.at(i).toInt() != yb.at(i).toInt();
        const double x = *sa.at(i).toDouble(), y = *sb.at(i).toDouble();
        score += !(x == y && std::signbit(x) == std::signbit(y));
    }
    QCOMPARE(t.textChanged, text);
    QCOMPARE(t.typeChanged, type);
    QCOMPARE(t.scoreChanged, score);
    const std::string expectedStart = text > 0 ? "different vocabulary" : "B extends A's vocabulary by 64 tokens";
    QVERIFY2(t.verdict.starts_with(expectedStart), t.verdict.c_str());

    // gpt-2 against gpt-neox: both BPE with merges, other vocabularies
    const auto g2 = real("ggml-vocab-gpt-2.gguf"), neox = real("ggml-vocab-gpt-neox.gguf");
    QVERIFY(g2 && neox);
    const TokenizerDiff m = compareTokenizers(*g2, *neox);
    QCOMPARE(m.mergesA, uint64_t(50000));
    QVERIFY(m.mergesAdded > 0 && m.mergesRemoved > 0);
    QCOMPARE(m.mergesA - m.mergesRemoved, m.mergesB - m.mergesAdded); // the merges both have
    QVERIFY(m.verdict.starts_with("different vocabulary"));
}

void TestCompareMetadata::tokenizerVerdicts_data()
{
    QTest::addColumn<int>("variant");
    QTest::addColumn<QString>("verdict");
    QTest::newRow("same") << 0 << "same vocabulary";
    QTest::newRow("scores") << 1 << "same tokens, different scores";
    QTest::newRow("types and scores") << 2 << "same tokens, different token types and scores";
    QTest::newRow("extended") << 3 << "B extends A's vocabulary by 1 token";
    QTest::newRow("dropped") << 4 << "B drops the last 1 token of A";
    QTest::newRow("text") << 5 << "different vocabulary: 1 of 4 tokens differ";
    QTest::newRow("special") << 6 << "same tokens, different special tokens";
    QTest::newRow("none") << 7 << "only A has a tokenizer";
}

void TestCompareMetadata::tokenizerVerdicts()
{
    QFETCH(int, variant);
    QFETCH(QString, verdict);
    const auto a = built(vocab({"<unk>", "<s>", "a", "b"}, {0, 0, -1, -2}, {2, 3, 1, 1}));
    std::shared_ptr<const GgufFile> b;
    switch (variant) {
    case 0: b = built(vocab({"<unk>", "<s>", "a", "b"}, {0, 0, -1, -2}, {2, 3, 1, 1})); break;
    case 1: b = built(vocab({"<unk>", "<s>", "a", "b"}, {0, 0, -1, -3}, {2, 3, 1, 1})); break;
    case 2: b = built(vocab({"<unk>", "<s>", "a", "b"}, {0, 0, -1, -3}, {2, 3, 1, 6})); break;
    case 3: b = built(vocab({"<unk>", "<s>", "a", "b", "c"}, {0, 0, -1, -2, -3}, {2, 3, 1, 1, 1})); break;
    case 4: b = built(vocab({"<unk>", "<s>", "a"}, {0, 0, -1}, {2, 3, 1})); break;
    case 5: b = built(vocab({"<unk>", "<s>", "a", "B"}, {0, 0, -1, -2}, {2, 3, 1, 1})); break;
    case 6: b = built(vocab({"<unk>", "<s>", "a", "b"}, {0, 0, -1, -2}, {2, 3, 1, 1}, {}, 2)); break;
    default: b = built(GgufBuilder().kv("general.name", V::str("no tokenizer"))); break;
    }
    QVERIFY(a && b);
    const TokenizerDiff t = compareTokenizers(*a, *b);
    QCOMPARE(QString::fromStdString(t.verdict), verdict);
    QCOMPARE(t.identical(), variant == 0);
}

void TestCompareMetadata::tokenChangesById()
{
    const auto a = built(vocab({"<unk>", "<s>", "a", "b", "c"}, {0, 0, -1, -2, -3}, {2, 3, 1, 1, 1}));
    const auto b = built(vocab({"<unk>", "<s>", "x", "b", "c"}, {0, 0, -1, -2.5f, -3}, {2, 4, 1, 1, 1}, {}, 3));
    QVERIFY(a && b);
    const TokenizerDiff t = compareTokenizers(*a, *b);
    QCOMPARE(t.changes.size(), size_t(3));
    QCOMPARE(t.changes[0].id, uint64_t(1));
    QCOMPARE(t.changes[0].what, uint8_t(TokenChange::Type));
    QCOMPARE(t.changes[0].typeA, std::optional<int32_t>(3));
    QCOMPARE(t.changes[0].typeB, std::optional<int32_t>(4));
    QCOMPARE(t.changes[1].id, uint64_t(2));
    QCOMPARE(t.changes[1].what, uint8_t(TokenChange::Text));
    QCOMPARE(t.changes[1].textB, std::string_view("x"));
    QCOMPARE(t.changes[2].what, uint8_t(TokenChange::Score));
    QCOMPARE(t.changes[2].scoreB, std::optional<float>(-2.5f));
    QCOMPARE(t.special.size(), size_t(1));
    QCOMPARE(t.special[0].key, std::string_view("tokenizer.ggml.bos_token_id"));
    QCOMPARE(t.special[0].a, std::optional<uint64_t>(1));
    QCOMPARE(t.special[0].b, std::optional<uint64_t>(3));
    TokenizerDiffOptions few;
    few.maxTokenChanges = 1;
    const TokenizerDiff listed = compareTokenizers(*a, *b, few);
    QCOMPARE(listed.changes.size(), size_t(1));
    QCOMPARE(listed.textChanged + listed.typeChanged + listed.scoreChanged, uint64_t(3)); // still counted
}

void TestCompareMetadata::mergesAddedRemovedAndReranked()
{
    const std::vector<std::string> tokens{"a", "b", "c", "ab", "bc", "abc"};
    const std::vector<float> scores(6, 0.0f);
    const std::vector<int32_t> types(6, 1);
    const auto a = built(vocab(tokens, scores, types, {"a b", "b c", "ab c"}));
    const auto b = built(vocab(tokens, scores, types, {"b c", "a b", "a bc"}));
    QVERIFY(a && b);
    const TokenizerDiff t = compareTokenizers(*a, *b);
    QCOMPARE(t.mergesAdded, uint64_t(1));
    QCOMPARE(t.mergesRemoved, uint64_t(1));
    QCOMPARE(t.mergesReranked, uint64_t(2)); // "a b" and "b c" swapped ranks
    QCOMPARE(t.firstMergesAdded, std::vector<std::string_view>{"a bc"});
    QCOMPARE(t.firstMergesRemoved, std::vector<std::string_view>{"ab c"});
    QCOMPARE(t.verdict, std::string("same tokens, different merges"));
}

void TestCompareMetadata::boolsByValue()
{
    // a BOOL byte of 2 is true, as 1 is
    auto two = GgufBuilder().kv("flags", V::array(ValueType::Bool, {V::boolean(true), V::boolean(false)})).build();
    const auto one = built(GgufBuilder().kv("flags", V::array(ValueType::Bool, {V::boolean(true), V::boolean(false)})));
    const uint64_t element = two.layout().kv("flags")->valueOffset + 4 + 8; // type, count, then the elements
    two.overwrite(element, {2});
    OpenResult r = GgufFile::openBuffer(two.bytes());
    QVERIFY(r.file && one);
    QCOMPARE(r.file->value("flags").array().at(0).toBool(), std::optional<bool>(true));
    QVERIFY(compareMetadata(*one, *r.file).identical());
}

void TestCompareMetadata::repeatedMergesAndKeysCountOnce()
{
    // a file against itself is the same, even with a merge rule and a special key given twice
    const std::vector<std::string> tokens{"a", "b", "ab"};
    auto builder = vocab(tokens, {0, 0, 0}, {1, 1, 1}, {"a b", "a b"});
    builder.kv("tokenizer.ggml.bos_token_id", V::u32(2)); // the second use of the key
    const auto a = built(builder), b = built(builder);
    QVERIFY(a && b);
    const TokenizerDiff t = compareTokenizers(*a, *b);
    QCOMPARE(t.mergesReranked, uint64_t(0));
    QVERIFY(t.special.empty());
    QVERIFY(t.identical());
    QCOMPARE(t.verdict, std::string("same vocabulary"));
}

void TestCompareMetadata::textDifferenceByLines_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<QString>("expected"); // one letter per line: = same, - removed, + added
    QTest::addColumn<qulonglong>("maxCells");
    QTest::newRow("same") << "x\ny\n"
                          << "x\ny\n"
                          << "==" << 1000ull;
    QTest::newRow("one changed") << "a\nb\nc"
                                 << "a\nB\nc"
                                 << "=-+=" << 1000ull;
    QTest::newRow("inserted") << "a\nc"
                              << "a\nb\nc"
                              << "=+=" << 1000ull;
    QTest::newRow("deleted") << "a\nb\nc\nd"
                             << "a\nd"
                             << "=--=" << 1000ull;
    QTest::newRow("moved line") << "p\na\nb\nc\nq"
                                << "p\nb\nc\na\nq"
                                << "=-==+=" << 1000ull;
    QTest::newRow("empty A") << ""
                             << "a\nb"
                             << "++" << 1000ull;
    QTest::newRow("too big: middle replaced") << "h\na\nb\nt"
                                              << "h\nb\nc\nt"
                                              << "=--++=" << 1ull;
}

void TestCompareMetadata::textDifferenceByLines()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(QString, expected);
    QFETCH(qulonglong, maxCells);
    const std::string ta = a.toStdString(), tb = b.toStdString();
    const std::vector<DiffLine> lines = diffLines(ta, tb, maxCells);
    QString kinds;
    std::string backA, backB;
    for (const DiffLine &l : lines) {
        kinds += l.kind == DiffLine::Kind::Same ? '=' : l.kind == DiffLine::Kind::Removed ? '-' : '+';
        if (l.kind != DiffLine::Kind::Added)
            backA += std::string(l.text) + "\n";
        if (l.kind != DiffLine::Kind::Removed)
            backB += std::string(l.text) + "\n";
    }
    QCOMPARE(kinds, expected);
    // each side comes back from its lines (texts here end without or with one newline)
    const auto lineEnded = [](std::string t) { return t.empty() || t.back() == '\n' ? t : t + "\n"; };
    QCOMPARE(backA, lineEnded(ta));
    QCOMPARE(backB, lineEnded(tb));
}

QTEST_GUILESS_MAIN(TestCompareMetadata)
#include "tst_compare_metadata.moc"
