// SPDX-License-Identifier: GPL-3.0-or-later
// The vocabulary of a tokenizer.json beside a checkpoint (#43): BPE's {token: id} with merges and
// added tokens, Unigram's [token, score] list, gaps in the ids, and what is not a tokenizers file.
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/hf_tokenizer.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using gguf::Error;
using gguf::ErrorKind;
using gguf::st::parseHfTokenizer;

class TestHfTokenizer : public QObject {
    Q_OBJECT

private slots:
    void bpeWithAddedTokens()
    {
        Error error;
        const auto t = parseHfTokenizer("{\"added_tokens\": [{\"id\": 4, \"content\": \"<s>\", \"special\": true},"
                                        " {\"id\": 5, \"content\": \"<tool>\", \"special\": false}],"
                                        " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"ab\": 3},"
                                        " \"merges\": [\"a b\"]}}",
                                        "tokenizer.json", error);
        QVERIFY2(t, error.message.c_str());
        QCOMPARE(t->model, std::string("BPE"));
        QCOMPARE(t->tokens.size(), size_t(6));
        QCOMPARE(t->tokens[3].text, std::string("ab"));
        QCOMPARE(t->merges, uint64_t(1));
        QCOMPARE(t->gaps, uint64_t(1)); // id 2
        QVERIFY(!t->tokens[2].named);
        QVERIFY(t->tokens[4].added && t->tokens[4].special);
        QVERIFY(t->tokens[5].added && !t->tokens[5].special);
        QVERIFY(!t->tokens[0].score);
    }

    void unigramScores()
    {
        Error error;
        const auto t = parseHfTokenizer(
            "{\"model\": {\"type\": \"Unigram\", \"vocab\": [[\"<unk>\", 0.0], [\"\\u2581a\", -1.5], [\"b\", -2e1]]}}",
            "t.json", error);
        QVERIFY2(t, error.message.c_str());
        QCOMPARE(t->tokens.size(), size_t(3));
        QCOMPARE(t->tokens[1].text, std::string("\xe2\x96\x81"
                                                "a"));
        QCOMPARE(*t->tokens[1].score, -1.5);
        QCOMPARE(*t->tokens[2].score, -20.0);
    }

    void refusals()
    {
        Error error;
        QVERIFY(!parseHfTokenizer("{\"model\": {\"vocab\": {\"a\": 0,}}}", "t.json", error));
        QCOMPARE(error.kind, ErrorKind::Malformed);
        QCOMPARE(error.offset, uint64_t(28)); // the } after the comma
        QVERIFY(!parseHfTokenizer("{\"version\": \"1.0\"}", "t.json", error));
        QVERIFY(error.message.find("model.vocab") != std::string::npos);
        QVERIFY(!parseHfTokenizer("{\"model\": {\"vocab\": {\"a\": 99999999999}}}", "t.json", error));
        QVERIFY(!parseHfTokenizer("{\"model\": {\"vocab\": {\"a\": -1}}}", "t.json", error));
        QVERIFY(!parseHfTokenizer("{\"model\": {\"vocab\": [[1, 2]]}}", "t.json", error));
    }

    // The tokenizer.json the hf-oracle generator wrote beside each checkpoint: 64 tokens "t0"…"t63".
    void besideACheckpoint()
    {
        Error error;
        const auto checkpoint =
            gguf::st::Checkpoint::open(gguf::test::dataPath(u"hf-oracle/qwen3-bf16").toStdString(), error);
        QVERIFY(checkpoint);
        const auto t = gguf::st::readHfTokenizer(*checkpoint, error);
        QVERIFY2(t, error.message.c_str());
        QCOMPARE(t->tokens.size(), size_t(64));
        QCOMPARE(t->tokens[63].text, std::string("t63"));
        QCOMPARE(t->gaps, uint64_t(0));
        QTemporaryDir empty;
        writeNothing(empty);
    }

private:
    static void writeNothing(const QTemporaryDir &dir)
    {
        QFile f(dir.filePath("model.safetensors"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        // an empty header: a checkpoint without tensors, and without a tokenizer.json
        f.write(QByteArray("\x08\x00\x00\x00\x00\x00\x00\x00{}      ", 16));
        f.close();
        Error error;
        const auto c = gguf::st::Checkpoint::open(f.fileName().toStdString(), error);
        QVERIFY(c);
        QVERIFY(!gguf::st::readHfTokenizer(*c, error));
        QCOMPARE(error.kind, ErrorKind::NotFound);
    }
};

QTEST_GUILESS_MAIN(TestHfTokenizer)
#include "tst_hf_tokenizer.moc"
