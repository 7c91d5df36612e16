// SPDX-License-Identifier: GPL-3.0-or-later
// MergesModel under QAbstractItemModelTester: the merge rules of GPT-2's real vocabulary split into
// halves, joined and decoded; rows from a search; a vocabulary without merges.
#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"
#include "tests/support/test_paths.h"
#include "ui/tokenizer/merges_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

using namespace gguf;

namespace {

std::shared_ptr<const Vocabulary> realVocabulary(const QString &name)
{
    return Vocabulary::shared(GgufFile::open((gguf::test::dataPath(u"real/") + name).toStdString()).file);
}

QStringList row(const QAbstractItemModel &model, int r)
{
    QStringList cells;
    for (int c = 0; c < model.columnCount(); ++c)
        cells << model.index(r, c).data().toString();
    return cells;
}

} // namespace

class TestMergesModel : public QObject {
    Q_OBJECT

private slots:
    void rules_data()
    {
        QTest::addColumn<int>("rank");
        QTest::addColumn<QStringList>("cells"); // Rank, Left, Right, Result, Decoded result
        QTest::newRow("first rule") << 0
                                    << QStringList{"0", QString::fromUtf8("\u0120"), "t", QString::fromUtf8("\u0120t"),
                                                   QString::fromUtf8("\u00b7t")};
        QTest::newRow("the") << 6
                             << QStringList{"6", QString::fromUtf8("\u0120t"), "he", QString::fromUtf8("\u0120the"),
                                            QString::fromUtf8("\u00b7the")};
        QTest::newRow("mortar") << 29615
                                << QStringList{"29615", QString::fromUtf8("\u0120mort"), "ar",
                                               QString::fromUtf8("\u0120mortar"), QString::fromUtf8("\u00b7mortar")};
    }

    void rules()
    {
        QFETCH(int, rank);
        QFETCH(QStringList, cells);
        MergesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-gpt-2.gguf")));
        QCOMPARE(model.rowCount(), 50000);
        QCOMPARE(model.columnCount(), int(MergesModel::ColumnCount));
        QCOMPARE(row(model, rank), cells);
        QCOMPARE(model.index(rank, 0).data(MergesModel::RankRole).toULongLong(), quint64(rank));
        QVERIFY(model.index(rank, MergesModel::DecodedColumn).data(Qt::ToolTipRole).toString().contains(u"20 "));
    }

    void rowsFromASearch()
    {
        MergesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-gpt-2.gguf")));
        model.setRows(std::make_shared<const MergesModel::Rows>(MergesModel::Rows{6, 29615}));
        QVERIFY(model.isFiltered());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.mergeCount(), 50000);
        QCOMPARE(row(model, 1).first(), QStringLiteral("29615"));
        QCOMPARE(*model.rankAt(0), 6u);
        QVERIFY(!model.rankAt(2));
        model.setRows(nullptr);
        QCOMPARE(model.rowCount(), 50000);
    }

    void noMerges()
    {
        MergesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setVocabulary(realVocabulary(QStringLiteral("ggml-vocab-llama-spm.gguf")));
        QCOMPARE(model.rowCount(), 0);
        model.setVocabulary(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }
};

QTEST_MAIN(TestMergesModel)
#include "tst_merges_model.moc"
