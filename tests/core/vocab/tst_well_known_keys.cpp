// SPDX-License-Identifier: GPL-3.0-or-later
// The enum tables of well-known keys: llama_ftype names, pooling, rope scaling and gating types,
// token types, token-id keys and key namespaces.
#include "core/vocab/well_known_keys.h"

#include <QtTest>

using namespace gguf;

class TestWellKnownKeys : public QObject {
    Q_OBJECT

private slots:
    void fileTypeNames_data()
    {
        QTest::addColumn<quint64>("value");
        QTest::addColumn<QString>("name");
        const std::pair<quint64, const char *> rows[] = {
            {0, "ALL_F32"},    {1, "MOSTLY_F16"}, {2, "Q4_0"},       {3, "Q4_1"},    {7, "Q8_0"},     {8, "Q5_0"},
            {9, "Q5_1"},       {10, "Q2_K"},      {11, "Q3_K_S"},    {12, "Q3_K_M"}, {13, "Q3_K_L"},  {14, "Q4_K_S"},
            {15, "Q4_K_M"},    {16, "Q5_K_S"},    {17, "Q5_K_M"},    {18, "Q6_K"},   {19, "IQ2_XXS"}, {20, "IQ2_XS"},
            {21, "Q2_K_S"},    {22, "IQ3_XS"},    {23, "IQ3_XXS"},   {24, "IQ1_S"},  {25, "IQ4_NL"},  {26, "IQ3_S"},
            {27, "IQ3_M"},     {28, "IQ2_S"},     {29, "IQ2_M"},     {30, "IQ4_XS"}, {31, "IQ1_M"},   {32, "BF16"},
            {36, "TQ1_0"},     {37, "TQ2_0"},     {38, "MXFP4_MOE"}, {39, "NVFP4"},  {40, "Q1_0"},    {41, "Q2_0"},
            {1024, "GUESSED"},
        };
        for (const auto &[value, name] : rows)
            QTest::addRow("%llu %s", static_cast<unsigned long long>(value), name)
                << value << QString::fromLatin1(name);
        for (quint64 undefined : {5ull, 6ull, 33ull, 34ull, 35ull, 42ull, 1023ull, 1025ull, ~0ull})
            QTest::addRow("%llu undefined", static_cast<unsigned long long>(undefined)) << undefined << QString();
    }

    void fileTypeNames()
    {
        QFETCH(quint64, value);
        QFETCH(QString, name);
        const auto found = fileTypeName(value);
        QCOMPARE(found ? QString::fromLatin1(found->data(), qsizetype(found->size())) : QString(), name);
    }

    void enumValueNames_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<qint64>("value");
        QTest::addColumn<QString>("name");
        QTest::newRow("file type") << "general.file_type" << qint64(15) << "Q4_K_M";
        QTest::newRow("file type negative") << "general.file_type" << qint64(-1) << "";
        QTest::newRow("token type control") << "tokenizer.ggml.token_type" << qint64(3) << "control";
        QTest::newRow("token type undefined") << "tokenizer.ggml.token_type" << qint64(0) << "undefined";
        QTest::newRow("token type out of range") << "tokenizer.ggml.token_type" << qint64(7) << "";
        QTest::newRow("pooling unspecified") << "bert.pooling_type" << qint64(-1) << "UNSPECIFIED";
        QTest::newRow("pooling cls") << "nomic-bert.pooling_type" << qint64(2) << "CLS";
        QTest::newRow("pooling out of range") << "bert.pooling_type" << qint64(5) << "";
        QTest::newRow("rope scaling longrope") << "phi3.rope.scaling.type" << qint64(3) << "LONGROPE";
        QTest::newRow("gating softmax") << "deepseek2.expert_gating_func" << qint64(1) << "SOFTMAX";
        QTest::newRow("plain number") << "llama.context_length" << qint64(2) << "";
    }

    void enumValueNames()
    {
        QFETCH(QString, key);
        QFETCH(qint64, value);
        QFETCH(QString, name);
        const auto found = enumValueName(key.toStdString(), value);
        QCOMPARE(found ? QString::fromStdString(*found) : QString(), name);
    }

    void tokenIdKeys_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<bool>("tokenId");
        QTest::newRow("bos") << "tokenizer.ggml.bos_token_id" << true;
        QTest::newRow("eot") << "tokenizer.ggml.eot_token_id" << true;
        QTest::newRow("padding") << "tokenizer.ggml.padding_token_id" << true;
        QTest::newRow("add_bos flag") << "tokenizer.ggml.add_bos_token" << false;
        QTest::newRow("other namespace") << "llama.bos_token_id" << false;
    }

    void tokenIdKeys()
    {
        QFETCH(QString, key);
        QFETCH(bool, tokenId);
        QCOMPARE(isTokenIdKey(key.toStdString()), tokenId);
    }

    void namespaces_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("ns");
        QTest::newRow("general") << "general.name"
                                 << "general";
        QTest::newRow("two levels") << "llama.attention.head_count"
                                    << "llama.attention";
        QTest::newRow("tokenizer") << "tokenizer.ggml.tokens"
                                   << "tokenizer.ggml";
        QTest::newRow("no dot") << "orphan"
                                << "";
    }

    void namespaces()
    {
        QFETCH(QString, key);
        QFETCH(QString, ns);
        const std::string k = key.toStdString();
        const std::string_view found = keyNamespace(k);
        QCOMPARE(QString::fromLatin1(found.data(), qsizetype(found.size())), ns);
    }
};

QTEST_GUILESS_MAIN(TestWellKnownKeys)
#include "tst_well_known_keys.moc"
