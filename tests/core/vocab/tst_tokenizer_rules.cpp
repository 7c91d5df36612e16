// SPDX-License-Identifier: GPL-3.0-or-later
// The tokenizer rules the real vocabularies do not reach: Unigram and RWKV on small built
// vocabularies, unknown models and pre-tokenizers, BOS/EOS per kind, special-token parsing and
// detokenization. Expected values follow from the rules in docs/TOKENIZER.md, worked out by hand.
#include "core/format/gguf_file.h"
#include "core/vocab/tokenizer.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/gguf_file_checks.h"
#include "tests/support/test_paths.h"

#include <QTest>

using namespace gguf;
using namespace gguf::test;

namespace {

const QString kData = gguf::test::dataDir();

std::shared_ptr<const Tokenizer> realTokenizer(const char *vocab)
{
    const auto opened = GgufFile::open((kData + "/real/ggml-vocab-" + vocab + ".gguf").toStdString());
    return opened.file ? Tokenizer::create(opened.file) : nullptr;
}

struct Tok {
    std::string text;
    float score;
    int32_t type; // 1 normal, 2 unknown, 3 control, 4 user-defined
};

std::shared_ptr<const Tokenizer> built(const std::string &model, const std::vector<Tok> &tokens,
                                       std::vector<std::pair<std::string, BuildValue>> extra = {})
{
    std::vector<std::string> texts;
    std::vector<BuildValue> scores, types;
    for (const Tok &t : tokens) {
        texts.push_back(t.text);
        scores.push_back(BuildValue::f32(t.score));
        types.push_back(BuildValue::i32(t.type));
    }
    GgufBuilder b;
    b.kv("general.architecture", BuildValue::str("llama"));
    b.kv("tokenizer.ggml.model", BuildValue::str(model));
    b.kv("tokenizer.ggml.tokens", BuildValue::stringArray(texts));
    b.kv("tokenizer.ggml.scores", BuildValue::array(ValueType::Float32, scores));
    b.kv("tokenizer.ggml.token_type", BuildValue::array(ValueType::Int32, types));
    for (auto &[key, value] : extra)
        b.kv(key, value);
    return Tokenizer::create(gguf_file_checks::openOk(b.build()));
}

std::vector<TokenId> tok(const std::shared_ptr<const Tokenizer> &t, const std::string &text, bool addSpecial = false,
                         bool parseSpecial = false)
{
    return t->tokenize(text, {addSpecial, parseSpecial});
}

bool mentions(const std::vector<std::string> &notes, const std::string &part)
{
    for (const std::string &n : notes)
        if (n.find(part) != std::string::npos)
            return true;
    return false;
}

const std::string kSp = "\xE2\x96\x81"; // ▁

} // namespace

class TestTokenizerRules : public QObject {
    Q_OBJECT

private slots:
    // Unigram: the best-scoring segmentation of the normalized text ("▁" for spaces, one prefixed)
    void unigram()
    {
        // ids:                0 pad        1 eos        2 unk        3 ▁          4 ▁a          5 b          6 ▁ab 7 a
        // 8 user "<x>"
        const auto t = built("t5",
                             {{"<pad>", 0, 3},
                              {"</s>", 0, 3},
                              {"<unk>", 0, 2},
                              {kSp, -3, 1},
                              {kSp + "a", -1, 1},
                              {"b", -1, 1},
                              {kSp + "ab", -1.5f, 1},
                              {"a", -2, 1},
                              {"<x>", -100, 4}},
                             {{"tokenizer.ggml.add_space_prefix", BuildValue::boolean(true)}});
        QVERIFY(t->canTokenize());
        QCOMPARE(t->kind(), TokenizerKind::Ugm);
        // "▁ab" -1.5 beats "▁a"+"b" -2 and "▁"+"a"+"b" -6
        QCOMPARE(tok(t, "ab"), (std::vector<TokenId>{6}));
        // "c" is no token: the unknown token (min score -2 minus 10); two unknown chars give one unk
        QCOMPARE(tok(t, "ac"), (std::vector<TokenId>{4, 2}));
        QCOMPARE(tok(t, "acc"), (std::vector<TokenId>{4, 2}));
        // a user-defined token scores 0 and passes normalization unchanged
        QCOMPARE(tok(t, "a<x>"), (std::vector<TokenId>{4, 8}));
        // spaces kept (no remove_extra_whitespaces): "▁a▁▁b", and "▁b" is no token
        QCOMPARE(tok(t, "a  b"), (std::vector<TokenId>{4, 3, 3, 5}));
        // add_special: EOS only (add_bos is false for t5)
        QCOMPARE(tok(t, "ab", true), (std::vector<TokenId>{6, 1}));
        // the space the prefix added is removed from the first piece
        QCOMPARE(t->detokenize(std::vector<TokenId>{6, 3, 5}), std::string("ab b"));
    }
    void unigramRemovesExtraWhitespace()
    {
        const auto t =
            built("t5", {{"<pad>", 0, 3}, {"</s>", 0, 3}, {"<unk>", 0, 2}, {kSp + "a", -1, 1}, {kSp + "b", -1, 1}},
                  {{"tokenizer.ggml.remove_extra_whitespaces", BuildValue::boolean(true)}});
        QCOMPARE(tok(t, "  a   b  "), (std::vector<TokenId>{3, 4}));
    }
    // RWKV: the longest token at each byte, over the tokens' unescaped bytes
    void rwkv()
    {
        const auto t =
            built("rwkv", {{"a", 0, 1}, {"ab", 0, 1}, {"abc", 0, 1}, {"\\n", 0, 1}, {"\\x41", 0, 1}, {"\\\\", 0, 1}});
        QCOMPARE(t->kind(), TokenizerKind::Rwkv);
        QCOMPARE(tok(t, "abcab\nA\\a"), (std::vector<TokenId>{2, 1, 3, 4, 5, 0}));
        // a byte no token starts with is skipped (llama.cpp's unknown id is null for RWKV)
        QCOMPARE(tok(t, "aZab"), (std::vector<TokenId>{0, 1}));
        QCOMPARE(t->detokenize(std::vector<TokenId>{3, 4, 5}), std::string("\nA\\"));
        QCOMPARE(tok(t, "ab", true), (std::vector<TokenId>{1})); // RWKV never adds BOS/EOS
    }

    void unknownModelCannotTokenize()
    {
        const auto t = built("no-such-model", {{"a", 0, 1}});
        QVERIFY(!t->canTokenize());
        QVERIFY(mentions(t->diagnostics(), "no-such-model"));
        QVERIFY(tok(t, "a").empty());
        QCOMPARE(t->detokenize(std::vector<TokenId>{0}), std::string());
    }
    // llama.cpp refuses a pre value it does not know ("unknown pre-tokenizer type"), so no ids are
    // given; the vocabulary itself is still read
    void unknownPreIsRefused()
    {
        const auto t = built("gpt2", {{"a", 0, 1}, {"b", 0, 1}, {"ab", 0, 1}},
                             {{"tokenizer.ggml.pre", BuildValue::str("made-up-pre")},
                              {"tokenizer.ggml.merges", BuildValue::stringArray({"a b"})}});
        QVERIFY(!t->canTokenize());
        QVERIFY(t->refusal().find("unknown pre-tokenizer type: 'made-up-pre'") != std::string::npos);
        QVERIFY(tok(t, "ab").empty());
        QCOMPARE(t->size(), uint64_t(3));
        QCOMPARE(t->tokenText(2), std::string_view("ab"));
        // a value llama.cpp learned after c392e509 is known
        const auto known = built("gpt2", {{"a", 0, 1}, {"b", 0, 1}, {"ab", 0, 1}},
                                 {{"tokenizer.ggml.pre", BuildValue::str("kimi-k2")},
                                  {"tokenizer.ggml.merges", BuildValue::stringArray({"a b"})}});
        QVERIFY(known->canTokenize());
        QVERIFY(known->refusal().empty());
        QCOMPARE(known->preType(), std::string_view("KIMI_K2"));
        QCOMPARE(tok(known, "ab"), (std::vector<TokenId>{2}));
    }
    // A long run of letters with TEKKEN's pattern outgrows PCRE2's default JIT stack; the letters and
    // the digit after them must still be separate words, so the merge "a 1" cannot apply
    void longRunsSplitAsShortOnes()
    {
        const auto t = built("gpt2", {{"a", 0, 1}, {"1", 0, 1}, {"a1", 0, 1}},
                             {{"tokenizer.ggml.pre", BuildValue::str("tekken")},
                              {"tokenizer.ggml.merges", BuildValue::stringArray({"a 1"})}});
        QCOMPARE(tok(t, "a1"), (std::vector<TokenId>{0, 1}));
        std::vector<TokenId> expected(5000, 0);
        expected.push_back(1);
        QCOMPARE(tok(t, std::string(5000, 'a') + "1"), expected);
    }
    // A default id past a small vocabulary names no token: nothing is added for it
    void defaultIdPastTheVocabulary()
    {
        // t5's defaults: eos 1, unk 2, pad 0
        const auto t = built("t5", {{"a", -1, 1}});
        QCOMPARE(t->eos(), kNoToken);
        QCOMPARE(t->unk(), kNoToken);
        QCOMPARE(t->pad(), 0);
        QCOMPARE(tok(t, "a", true), (std::vector<TokenId>{0}));
        QCOMPARE(tok(t, "ab", true), (std::vector<TokenId>{0})); // no unk to stand for "b"
        QVERIFY(mentions(t->diagnostics(), "past the vocabulary"));
    }
    void badSpecialIdKeepsDefault()
    {
        const auto t = built("llama", {{"<unk>", 0, 2}, {"<s>", 0, 3}, {"</s>", 0, 3}, {kSp + "a", -1, 1}},
                             {{"tokenizer.ggml.bos_token_id", BuildValue::u32(99)}});
        QCOMPARE(t->bos(), 1);
        QVERIFY(mentions(t->diagnostics(), "bos_token_id = 99"));
        QCOMPARE(tok(t, "a", true), (std::vector<TokenId>{1, 3}));
    }

    // WordPiece's normalizer as newer llama.cpp reads it: tokenizer.ggml.normalizer.lowercase and
    // .strip_accents (both true by default; strip_accents follows lowercase when absent). Stripping
    // drops every combining mark after the first-code-point decomposition ("x\u0301" is "x"), as
    // llama.cpp does since c392e509 (the bert-bge rows of tests/data/tokenizer-oracle check it on a
    // real vocabulary).
    void wordPieceNormalizer()
    {
        const std::vector<Tok> vocab{{"[UNK]", 0, 2},          {kSp + "x", 0, 1}, {kSp + "X", 0, 1},
                                     {kSp + "\xC3\xA9", 0, 1}, {kSp + "e", 0, 1}, {kSp + "x\xCC\x81", 0, 1}};
        const auto plain = built("bert", vocab, {{"tokenizer.ggml.unknown_token_id", BuildValue::u32(0)}});
        QVERIFY(plain && plain->canTokenize());
        QCOMPARE(tok(plain, "X"), (std::vector<TokenId>{1}));         // lower-cased
        QCOMPARE(tok(plain, "x\xCC\x81"), (std::vector<TokenId>{1})); // the mark dropped
        QCOMPARE(tok(plain, "\xC3\xA9"), (std::vector<TokenId>{4}));  // é decomposed: e
        const auto cased = built("bert", vocab,
                                 {{"tokenizer.ggml.unknown_token_id", BuildValue::u32(0)},
                                  {"tokenizer.ggml.normalizer.lowercase", BuildValue::boolean(false)}});
        QCOMPARE(tok(cased, "X"), (std::vector<TokenId>{2}));        // kept upper-case
        QCOMPARE(tok(cased, "\xC3\xA9"), (std::vector<TokenId>{3})); // and no stripping either
        QCOMPARE(tok(cased, "x\xCC\x81"), (std::vector<TokenId>{5}));
        const auto lowerOnly = built("bert", vocab,
                                     {{"tokenizer.ggml.unknown_token_id", BuildValue::u32(0)},
                                      {"tokenizer.ggml.normalizer.strip_accents", BuildValue::boolean(false)}});
        QCOMPARE(tok(lowerOnly, "X"), (std::vector<TokenId>{1}));
        QCOMPARE(tok(lowerOnly, "\xC3\xA9"), (std::vector<TokenId>{3}));
    }

    void addSpecialPerKind()
    {
        const auto spm = realTokenizer("llama-spm");
        QCOMPARE(tok(spm, "Hello", true).front(), 1); // BOS, no EOS
        QCOMPARE(tok(spm, "Hello", true).size(), tok(spm, "Hello").size() + 1);
        const auto bert = realTokenizer("bert-bge");
        const std::vector<TokenId> b = tok(bert, "hello", true);
        QCOMPARE(b.front(), 101); // [CLS]
        QCOMPARE(b.back(), 102);  // [SEP]
        const auto gpt2 = realTokenizer("gpt-2");
        QCOMPARE(tok(gpt2, "Hello", true), tok(gpt2, "Hello")); // no add_bos key: nothing added
        QCOMPARE(tok(spm, "", true), (std::vector<TokenId>{1}));
    }
    void parseSpecial()
    {
        const auto gpt2 = realTokenizer("gpt-2");
        QCOMPARE(tok(gpt2, "<|endoftext|>", false, true), (std::vector<TokenId>{50256}));
        const std::vector<TokenId> plain = tok(gpt2, "<|endoftext|>");
        QVERIFY(plain.size() > 1);
        QVERIFY(std::find(plain.begin(), plain.end(), 50256) == plain.end());
        // SentencePiece puts a space before the text after a special token
        const auto spm = realTokenizer("llama-spm");
        const std::vector<TokenId> v = tok(spm, "a</s>b", false, true);
        QCOMPARE(v[1], 2);
        QCOMPARE(std::vector<TokenId>(v.begin() + 2, v.end()), tok(spm, "b"));
    }
    // U+0085 is whitespace to llama.cpp: in " \x85b" the space and NEL are a run of whitespace
    // before a letter, so GPT-2's `\s+(?!\S)` takes the space alone and NEL is a piece of its own
    // (were NEL not whitespace, " ?[^\s\p{L}\p{N}]+" would take " \x85" as one piece)
    void unicodeWhitespaceSplits()
    {
        const auto gpt2 = realTokenizer("gpt-2");
        const std::string nel = "\xC2\x85";
        std::vector<TokenId> expected = tok(gpt2, " ");
        for (const std::string &piece : {nel, std::string("b")}) {
            const std::vector<TokenId> v = tok(gpt2, piece);
            expected.insert(expected.end(), v.begin(), v.end());
        }
        QCOMPARE(tok(gpt2, " " + nel + "b"), expected);
    }

    void pieces()
    {
        const auto spm = realTokenizer("llama-spm");
        QCOMPARE(spm->tokenToPiece(13), std::string("\n")); // <0x0A>
        QCOMPARE(spm->tokenToPiece(1), std::string("<s>"));
        QCOMPARE(spm->tokenToPiece(1, false), std::string());
        QCOMPARE(spm->tokenToPiece(29871), std::string(" ")); // ▁
        QCOMPARE(spm->tokenToPiece(29871, true, 1), std::string());
        // the leading space SentencePiece added is removed from the first token only: after a BOS
        // it stays, and llama.cpp keeps it when it drops the BOS too
        const std::vector<TokenId> v = tok(spm, "Hi", true);
        QCOMPARE(spm->detokenize(v), std::string("<s> Hi"));
        QCOMPARE(spm->detokenize(v, {true, true}), std::string(" Hi"));
        QCOMPARE(spm->detokenize(tok(spm, "Hi")), std::string("Hi"));
        const auto gpt2 = realTokenizer("gpt-2");
        QCOMPARE(gpt2->tokenToPiece(220), std::string(" ")); // Ġ
        QCOMPARE(gpt2->tokenToPiece(70000), std::string());
        // clean_spaces: " ," " 's" lose the space, " 't" keeps it
        QCOMPARE(gpt2->detokenize(tok(gpt2, "a , b 's c 't")), std::string("a, b's c 't"));
    }
};

QTEST_GUILESS_MAIN(TestTokenizerRules)
#include "tst_tokenizer_rules.moc"
