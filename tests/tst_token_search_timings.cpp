// SPDX-License-Identifier: GPL-3.0-or-later
// How long TokenSearch takes on a synthetic 256k-token vocabulary (GPT-2 style, with types, scores
// and merge rules): every search mode, the sort orders and the merge index, printed in ms. Nothing
// is asserted about time — the machine decides the figure; only the counts are checked.
#include "core/format/gguf_file.h"
#include "core/vocab/merge_index.h"
#include "core/vocab/vocabulary.h"
#include "tests/support/gguf_builder.h"
#include "ui/models/token_search.h"

#include <QElapsedTimer>
#include <QtTest>

#include <cstring>
#include <random>

using namespace gguf;
using namespace gguf::test;
using Mode = TokenSearch::Mode;
using Field = TokenSearch::Field;
using SortKey = TokenSearch::SortKey;

namespace {

TokenSearch::Query query(Mode mode, const QString &text, Field field = Field::StoredOrDecoded,
                         bool caseSensitive = false, int typeFilter = TokenSearch::kAnyType)
{
    return TokenSearch::Query{mode, text, field, caseSensitive, typeFilter};
}

// A GPT-2-style vocabulary of `count` tokens: the 256 byte tokens, then pseudo-words of 2–10
// letters, most of them starting with Ġ; types, scores and one merge rule per word.
BuiltFile syntheticVocabulary(uint32_t count)
{
    std::mt19937 rng(7);
    std::vector<std::string> tokens, merges;
    tokens.reserve(count);
    for (int b = 0; b < 256; ++b)
        tokens.push_back(b >= 33 && b <= 126 ? std::string(1, char(b)) : "\xC4" + std::string(1, char(0x80 + b % 64)));
    std::uniform_int_distribution<int> letter('a', 'z'), length(2, 10), coin(0, 9);
    while (tokens.size() < count) {
        std::string word;
        for (int n = length(rng); n > 0; --n)
            word += char(letter(rng));
        if (coin(rng) < 6)
            word = "\xC4\xA0" + word; // Ġ
        merges.push_back(word.substr(0, word.size() - 1) + " " + word.substr(word.size() - 1));
        tokens.push_back(std::move(word));
    }
    std::vector<uint8_t> types(size_t(count) * 4), scores(size_t(count) * 4);
    for (uint32_t i = 0; i < count; ++i) {
        const int32_t type = i < 256 ? 6 : 1;
        const float score = -float(i);
        std::memcpy(&types[size_t(i) * 4], &type, 4);
        std::memcpy(&scores[size_t(i) * 4], &score, 4);
    }
    // fixed-size arrays written as raw element bytes after the count, so no BuildValue per element
    BuildValue typeArray = V::array(ValueType::Int32, {});
    typeArray.writtenCount = count;
    typeArray.payload = std::move(types);
    BuildValue scoreArray = V::array(ValueType::Float32, {});
    scoreArray.writtenCount = count;
    scoreArray.payload = std::move(scores);
    return GgufBuilder()
        .kv("tokenizer.ggml.model", V::str("gpt2"))
        .kv("tokenizer.ggml.tokens", V::stringArray(std::move(tokens)))
        .kv("tokenizer.ggml.token_type", std::move(typeArray))
        .kv("tokenizer.ggml.scores", std::move(scoreArray))
        .kv("tokenizer.ggml.merges", V::stringArray(std::move(merges)))
        .kv("tokenizer.ggml.bos_token_id", V::u32(1))
        .build();
}

} // namespace

class TestTokenSearchTimings : public QObject {
    Q_OBJECT

private slots:
    void on256kTokens();
};

void TestTokenSearchTimings::on256kTokens()
{
    constexpr uint32_t kTokens = 256000;
    const BuiltFile built = syntheticVocabulary(kTokens);
    const auto f = GgufFile::openBuffer(built.bytes(), "synthetic-256k.gguf").file;
    QVERIFY(f);
    const Vocabulary vocab(*f);
    QCOMPARE(vocab.size(), quint64(kTokens));
    vocab.token(0); // the offsets index is built once, on first use: not part of any search
    const auto time = [](const char *what, const auto &run) {
        QElapsedTimer timer;
        timer.start();
        const size_t found = run();
        qInfo("%-40s %8.1f ms  (%zu found)", what, double(timer.nsecsElapsed()) / 1e6, found);
    };
    const auto tokens = [&vocab](const TokenSearch::Query &q) {
        return [&vocab, q] { return TokenSearch(q).tokens(vocab, nullptr, false)->size(); };
    };
    qInfo("TokenSearch over %u tokens and %llu merge rules:", kTokens,
          static_cast<unsigned long long>(vocab.mergeCount()));
    time("substring \"ing\" (stored or decoded)", tokens(query(Mode::Text, "ing")));
    time("substring \"ing\", case-sensitive, stored", tokens(query(Mode::Text, "ing", Field::Stored, true)));
    time("decoded text \" th\"", tokens(query(Mode::Text, " th", Field::Decoded)));
    time("regex ^Ġ[a-c]+s$ (stored or decoded)",
         tokens(query(Mode::RegularExpression, QString::fromUtf8("^\u0120?[a-c]+s$"))));
    time("regex, non-ASCII text, any case", tokens(query(Mode::Text, QString::fromUtf8("\u00c9"))));
    time("ids 1000-2000, 5", tokens(query(Mode::Id, "1000-2000, 5")));
    time("bytes 20 71 (decoded)", tokens(query(Mode::Bytes, "20 71", Field::Decoded)));
    time("type byte", tokens(query(Mode::Text, "", Field::StoredOrDecoded, false, 6)));
    std::optional<TokenSearch::Ids> byLength;
    time("sort by token", [&vocab] { return TokenSearch::sortOrder(vocab, SortKey::Token)->size(); });
    time("sort by score", [&vocab] { return TokenSearch::sortOrder(vocab, SortKey::Score)->size(); });
    time("sort by length", [&vocab, &byLength] {
        byLength = TokenSearch::sortOrder(vocab, SortKey::Length);
        return byLength->size();
    });
    time("substring \"ing\" in length order, descending",
         [&vocab, &byLength] { return TokenSearch(query(Mode::Text, "ing")).tokens(vocab, &*byLength, true)->size(); });
    time("merge rules: substring \"ing\"",
         [&vocab] { return TokenSearch(query(Mode::Text, "ing")).merges(vocab)->size(); });
    time("merge index build", [&vocab] { return size_t(MergeIndex::build(vocab)->size()); });
}

QTEST_GUILESS_MAIN(TestTokenSearchTimings)
#include "tst_token_search_timings.moc"
