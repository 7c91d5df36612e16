// SPDX-License-Identifier: GPL-3.0-or-later
// VocabularyModel under QAbstractItemModelTester: every column of GPT-2 and SentencePiece tokens
// with invisible characters made visible, rows from a search, special tokens marked, sort requests;
// and TokenText, which draws token bytes as visible text.
#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"
#include "tests/support/test_paths.h"
#include "ui/common/token_text.h"
#include "ui/tokenizer/vocabulary_model.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFont>
#include <QtTest>

using namespace gguf;

namespace {

// The vocabulary of a real file, holding the file alive.
std::shared_ptr<const Vocabulary> realVocabulary(const QString &name)
{
    return Vocabulary::shared(GgufFile::open((gguf::test::dataPath(u"real/") + name).toStdString()).file);
}

QString cell(const QAbstractItemModel &model, int row, int column, int role = Qt::DisplayRole)
{
    return model.index(row, column).data(role).toString();
}

} // namespace

class TestVocabularyModel : public QObject {
    Q_OBJECT

private slots:
    void visibleText_data();
    void visibleText();
    void hexText();
    void columns_data();
    void columns();
    void rowsFromASearch();
    void specialTokensMarked();
    void sortIsRequested();
    void emptyAndReset();
};

void TestVocabularyModel::visibleText_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("maxChars");
    QTest::addColumn<QString>("text");
    QTest::newRow("space") << QByteArray(" the") << 200 << QString::fromUtf8("\u00b7the");
    QTest::newRow("newline and tab") << QByteArray("\n\t") << 200 << QString::fromUtf8("\u21b5\u2192");
    QTest::newRow("carriage return") << QByteArray("\r") << 200 << "\\r";
    QTest::newRow("other control characters") << QByteArray("\x1b\x7f\0", 3) << 200 << "\\x1b\\x7f\\x00";
    QTest::newRow("not UTF-8") << QByteArray("\xE2\x80") << 200 << "\\xe2\\x80";
    QTest::newRow("overlong encoding") << QByteArray("\xC0\xAF") << 200 << "\\xc0\\xaf";
    QTest::newRow("no-break space") << QByteArray("\xC2\xA0") << 200 << QString::fromUtf8("\u2039U+00A0\u203a");
    QTest::newRow("zero-width space") << QByteArray("a\xE2\x80\x8B") << 200 << QString::fromUtf8("a\u2039U+200B\u203a");
    QTest::newRow("letters kept") << QByteArray("\xC3\xA9\xE2\x80\x94") << 200 << QString::fromUtf8("\u00e9\u2014");
    QTest::newRow("stored spellings kept")
        << QByteArray("\xC4\xA0\xE2\x96\x81") << 200 << QString::fromUtf8("\u0120\u2581");
    QTest::newRow("cut") << QByteArray("abcdef") << 3 << QString::fromUtf8("abc\u2026");
}

void TestVocabularyModel::visibleText()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, maxChars);
    QFETCH(QString, text);
    QCOMPARE(TokenText::visible(std::string_view(bytes.constData(), size_t(bytes.size())), maxChars), text);
}

void TestVocabularyModel::hexText()
{
    QCOMPARE(TokenText::hex(" the"), QStringLiteral("20 74 68 65"));
    QCOMPARE(TokenText::hex(""), QString());
    QCOMPARE(TokenText::hex(std::string_view("\xff\x00\x10", 3), 2), QString::fromUtf8("ff 00 \u2026"));
}

void TestVocabularyModel::columns_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("id");
    QTest::addColumn<QStringList>("cells"); // Id, Token, Decoded, Bytes, Length, Type, Score
    QTest::newRow("gpt-2 space") << "ggml-vocab-gpt-2.gguf" << 220
                                 << QStringList{
                                        "220",    QString::fromUtf8("\u0120"), QString::fromUtf8("\u00b7"), "20", "1",
                                        "normal", QString::fromUtf8("\u2014")};
    QTest::newRow("gpt-2 word") << "ggml-vocab-gpt-2.gguf" << 29871 << QStringList{"29871",
                                                                                   QString::fromUtf8("\u0120mortar"),
                                                                                   QString::fromUtf8("\u00b7mortar"),
                                                                                   "20 6d 6f 72 74 61 72",
                                                                                   "7",
                                                                                   "normal",
                                                                                   QString::fromUtf8("\u2014")};
    QTest::newRow("gpt-2 newline") << "ggml-vocab-gpt-2.gguf" << 198
                                   << QStringList{
                                          "198",    QString::fromUtf8("\u010a"), QString::fromUtf8("\u21b5"), "0a", "1",
                                          "normal", QString::fromUtf8("\u2014")};
    QTest::newRow("gpt-2 half a character")
        << "ggml-vocab-gpt-2.gguf" << 447
        << QStringList{"447",    QString::fromUtf8("\u00e2\u0122"), "\\xe2\\x80", "e2 80", "2",
                       "normal", QString::fromUtf8("\u2014")};
    QTest::newRow("spm byte token") << "ggml-vocab-llama-spm.gguf" << 13
                                    << QStringList{"13", "<0x0A>", QString::fromUtf8("\u21b5"), "0a", "1", "byte", "0"};
    QTest::newRow("spm space")
        << "ggml-vocab-llama-spm.gguf" << 29871
        << QStringList{"29871", QString::fromUtf8("\u2581"), QString::fromUtf8("\u00b7"), "20", "1", "normal",
                       "-1e+09"};
    QTest::newRow("spm word") << "ggml-vocab-llama-spm.gguf" << 278 << QStringList{"278",
                                                                                   QString::fromUtf8("\u2581the"),
                                                                                   QString::fromUtf8("\u00b7the"),
                                                                                   "20 74 68 65",
                                                                                   "4",
                                                                                   "normal",
                                                                                   "-19"};
    QTest::newRow("phi-3 user-defined") << "ggml-vocab-phi-3.gguf" << 2
                                        << QStringList{"2", "</s>",         "</s>", "3c 2f 73 3e",
                                                       "4", "user-defined", "-1000"};
}

void TestVocabularyModel::columns()
{
    QFETCH(QString, file);
    QFETCH(int, id);
    QFETCH(QStringList, cells);
    VocabularyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto vocab = realVocabulary(file);
    QVERIFY(vocab);
    model.setVocabulary(vocab);
    QCOMPARE(model.rowCount(), int(vocab->size()));
    QCOMPARE(model.columnCount(), int(VocabularyModel::ColumnCount));
    QStringList got;
    for (int c = 0; c < VocabularyModel::ColumnCount; ++c)
        got << cell(model, id, c);
    QCOMPARE(got, cells);
    QCOMPARE(model.index(id, 0).data(VocabularyModel::TokenIdRole).toULongLong(), quint64(id));
    const std::string_view stored = vocab->token(quint64(id));
    QCOMPARE(model.index(id, VocabularyModel::TokenColumn).data(VocabularyModel::RawTextRole).toByteArray(),
             QByteArray(stored.data(), qsizetype(stored.size())));
    QVERIFY(cell(model, id, 0, Qt::ToolTipRole).startsWith(QStringLiteral("Token %1").arg(id)));
}

void TestVocabularyModel::rowsFromASearch()
{
    VocabularyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-gpt-2.gguf")));
    QVERIFY(!model.isFiltered());
    QCOMPARE(model.rowOf(50256), 50256);
    model.setRows(std::make_shared<const VocabularyModel::Rows>(VocabularyModel::Rows{29871, 220, 262}));
    QVERIFY(model.isFiltered());
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.tokenCount(), 50257);
    QCOMPARE(cell(model, 1, VocabularyModel::IdColumn), QStringLiteral("220"));
    QCOMPARE(*model.idAt(2), 262u);
    QVERIFY(!model.idAt(3));
    QCOMPARE(model.rowOf(29871), 0);
    QCOMPARE(model.rowOf(0), -1);
    QCOMPARE(model.rowOf(99999), -1);
    model.setRows(nullptr);
    QCOMPARE(model.rowCount(), 50257);
}

void TestVocabularyModel::specialTokensMarked()
{
    VocabularyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-phi-3.gguf")));
    // eos and padding are both 32000
    QCOMPARE(model.specialRoles(32000), (QStringList{"eos", "padding"}));
    QCOMPARE(model.index(32000, 0).data(VocabularyModel::SpecialRolesRole).toStringList(),
             (QStringList{"eos", "padding"}));
    QVERIFY(cell(model, 32000, 1, Qt::ToolTipRole).contains(QStringLiteral("Special token: eos, padding")));
    QVERIFY(model.index(32000, VocabularyModel::TokenColumn).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(model.index(32000, VocabularyModel::IdColumn).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(model.index(32000, 0).data(Qt::ForegroundRole).value<QColor>().isValid());
    // an ordinary token: fixed font for text, no colour, no roles
    QVERIFY(!model.index(32001, VocabularyModel::TokenColumn).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(!model.index(32001, 0).data(Qt::ForegroundRole).isValid());
    QVERIFY(model.specialRoles(32001).isEmpty());
    QVERIFY(!cell(model, 32001, 1, Qt::ToolTipRole).contains(QStringLiteral("Special")));
}

void TestVocabularyModel::sortIsRequested()
{
    VocabularyModel model;
    model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-llama-spm.gguf")));
    QSignalSpy requested(&model, &VocabularyModel::sortRequested);
    model.sort(VocabularyModel::ScoreColumn, Qt::DescendingOrder);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.first().at(0).toInt(), int(VocabularyModel::ScoreColumn));
    QCOMPARE(model.rowCount(), 32000); // the model itself does not reorder
    QVERIFY(VocabularyModel::sortKeyOf(VocabularyModel::ScoreColumn) >= 0);
    QCOMPARE(VocabularyModel::sortKeyOf(VocabularyModel::DecodedColumn), -1);
    QCOMPARE(VocabularyModel::sortKeyOf(VocabularyModel::BytesColumn), -1);
}

void TestVocabularyModel::emptyAndReset()
{
    VocabularyModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.rowOf(0), -1);
    model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-bert-bge.gguf")));
    QCOMPARE(model.rowCount(), 30522);
    QCOMPARE(cell(model, 1996, VocabularyModel::DecodedColumn), QString::fromUtf8("\u00b7the"));
    QCOMPARE(cell(model, 0, VocabularyModel::ScoreColumn), QString::fromUtf8("\u2014")); // no scores
    model.setVocabulary(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

QTEST_MAIN(TestVocabularyModel)
#include "tst_vocabulary_model.moc"
