// SPDX-License-Identifier: GPL-3.0-or-later
// TensorTableModel and TensorSortFilterProxy: columns, sorting by raw value on every column,
// natural name order, substring/regex filters, grouping by layer and the totals of visible rows —
// always under QAbstractItemModelTester.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "ui/common/text_format.h"
#include "ui/tensors/tensor_sort_filter_proxy.h"
#include "ui/tensors/tensor_table_model.h"
#include "ui/tensors/tensors_page.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

constexpr uint32_t kF32 = 0;
constexpr uint32_t kQ8_0 = 8;

std::shared_ptr<const SplitModel> sample()
{
    Error error;
    return SplitModel::open(gguf::test::sampleModel().toStdString(), error);
}

// Tensors whose names only sort right in natural order.
std::shared_ptr<const SplitModel> naturalNames()
{
    GgufBuilder builder;
    builder.tensor("blk.10.w", {32}, kF32)
        .tensor("blk.2.w", {64}, kQ8_0)
        .tensor("token_embd.weight", {32, 4}, kF32)
        .tensor("blk.1.w", {32}, kF32)
        .tensor("blk.2.b", {32}, kF32);
    OpenResult r = GgufFile::openBuffer(builder.build().bytes(), "natural.gguf");
    return r.file ? SplitModel::single(r.file) : nullptr;
}

QStringList column(const QAbstractItemModel &model, int col, const QModelIndex &parent = {})
{
    QStringList out;
    for (int row = 0; row < model.rowCount(parent); ++row)
        out << model.index(row, col, parent).data().toString();
    return out;
}

} // namespace

class TestTensorTableModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_sample = sample();
        QVERIFY(m_sample);
        QCOMPARE(m_sample->tensors().size(), size_t(38));
    }

    void columnsOfSample()
    {
        TensorTableModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setModel(m_sample);
        QCOMPARE(model.rowCount(), 38);
        QCOMPARE(model.columnCount(), int(TensorTableModel::ColumnCount));
        // token_embd.weight: Q6_K, 256 × 32000.
        const QModelIndex embd = model.index(1, 0);
        const TensorInfo *info = model.tensorAt(embd);
        QVERIFY(info);
        QCOMPARE(QString::fromUtf8(info->name.data(), qsizetype(info->name.size())),
                 QStringLiteral("token_embd.weight"));
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::NameColumn).data().toString(),
                 QStringLiteral("token_embd.weight"));
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::TypeColumn).data().toString(), QStringLiteral("Q6_K"));
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::ShapeColumn).data().toString(), QStringLiteral("256 × 32000"));
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::ElementsColumn).data(TensorTableModel::SortRole).toULongLong(),
                 8192000ull);
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::BytesColumn).data(TensorTableModel::SortRole).toULongLong(),
                 info->byteSize);
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::BitsPerWeightColumn).data().toString(), QStringLiteral("6.56"));
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::OffsetColumn).data(TensorTableModel::SortRole).toULongLong(),
                 info->relativeOffset);
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::FileOffsetColumn).data().toString(),
                 QStringLiteral("0x") + QString::number(info->fileOffset, 16));
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::LayerColumn).data(), QVariant());
        QCOMPARE(embd.siblingAtColumn(TensorTableModel::ShardColumn).data().toInt(), 1);
        QCOMPARE(model.index(2, TensorTableModel::LayerColumn).data().toInt(), 0);
        model.setModel(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void naturalOrder_data()
    {
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::addColumn<int>("order");
        QTest::newRow("2 before 10") << "blk.2.w"
                                     << "blk.10.w" << -1;
        QTest::newRow("10 after 9") << "blk.10.w"
                                    << "blk.9.w" << 1;
        QTest::newRow("same number, text decides") << "blk.2.a"
                                                   << "blk.2.b" << -1;
        QTest::newRow("leading zeros") << "x007"
                                       << "x7" << -1;
        QTest::newRow("equal") << "output.weight"
                               << "output.weight" << 0;
        QTest::newRow("prefix first") << "blk"
                                      << "blk.0" << -1;
        QTest::newRow("case-insensitive") << "B.1"
                                          << "a.2" << 1;
        QTest::newRow("long numbers") << "n.99999999999999999999"
                                      << "n.100000000000000000000" << -1;
    }

    void naturalOrder()
    {
        QFETCH(QString, a);
        QFETCH(QString, b);
        QFETCH(int, order);
        QCOMPARE(TensorSortFilterProxy::compareNatural(a, b), order);
        QCOMPARE(TensorSortFilterProxy::compareNatural(b, a), -order);
    }

    void sortsNamesNaturally()
    {
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        QAbstractItemModelTester sourceTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setModel(naturalNames());
        proxy.sort(TensorTableModel::NameColumn, Qt::AscendingOrder);
        QCOMPARE(column(proxy, TensorTableModel::NameColumn),
                 (QStringList{"blk.1.w", "blk.2.b", "blk.2.w", "blk.10.w", "token_embd.weight"}));
        proxy.sort(TensorTableModel::NameColumn, Qt::DescendingOrder);
        QCOMPARE(column(proxy, TensorTableModel::NameColumn).first(), QStringLiteral("token_embd.weight"));
        proxy.sort(TensorTableModel::LayerColumn, Qt::AscendingOrder);
        QCOMPARE(column(proxy, TensorTableModel::NameColumn),
                 (QStringList{"token_embd.weight", "blk.1.w", "blk.2.w", "blk.2.b", "blk.10.w"}));
    }

    void sortsEveryColumnByRawValue_data()
    {
        QTest::addColumn<int>("col");
        for (int c = 0; c < TensorTableModel::ColumnCount; ++c)
            QTest::addRow("%s", TensorTableModel().headerData(c, Qt::Horizontal).toString().toUtf8().constData()) << c;
    }

    void sortsEveryColumnByRawValue()
    {
        QFETCH(int, col);
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setModel(m_sample);
        for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
            proxy.sort(col, order);
            QCOMPARE(proxy.rowCount(), 38);
            for (int row = 1; row < proxy.rowCount(); ++row) {
                const QVariant prev = proxy.index(row - 1, col).data(TensorTableModel::SortRole);
                const QVariant next = proxy.index(row, col).data(TensorTableModel::SortRole);
                int cmp = 0;
                if (prev.typeId() == QMetaType::QString)
                    cmp = TensorSortFilterProxy::compareNatural(prev.toString(), next.toString());
                else if (prev.typeId() == QMetaType::QVariantList)
                    cmp = 0; // shapes: checked below through elements of the same shape
                else if (prev.typeId() == QMetaType::Double)
                    cmp = prev.toDouble() < next.toDouble() ? -1 : prev.toDouble() > next.toDouble() ? 1 : 0;
                else
                    cmp = prev.toLongLong() < next.toLongLong() ? -1 : prev.toLongLong() > next.toLongLong() ? 1 : 0;
                QVERIFY2(order == Qt::AscendingOrder ? cmp <= 0 : cmp >= 0,
                         qPrintable(QStringLiteral("rows %1 and %2 out of order").arg(row - 1).arg(row)));
            }
        }
    }

    void sortsBytesNumerically()
    {
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        proxy.setSourceModel(&model);
        model.setModel(m_sample);
        proxy.sort(TensorTableModel::BytesColumn, Qt::DescendingOrder);
        // 6.41 MiB sorts above 157.50 KiB although "6" < "1" would not hold as text.
        QCOMPARE(proxy.index(0, TensorTableModel::NameColumn).data().toString(), QStringLiteral("token_embd.weight"));
        proxy.sort(TensorTableModel::ShapeColumn, Qt::AscendingOrder);
        QCOMPARE(proxy.index(0, TensorTableModel::ShapeColumn).data().toString(), QStringLiteral("256"));
        QCOMPARE(proxy.index(37, TensorTableModel::ShapeColumn).data().toString(), QStringLiteral("768 × 256"));
    }

    void filters_data()
    {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<bool>("regex");
        QTest::addColumn<int>("rows");
        QTest::newRow("everything") << "" << false << 38;
        QTest::newRow("substring") << "attn_q" << false << 4;
        QTest::newRow("substring, any case") << "ATTN_Q" << false << 4;
        QTest::newRow("type name") << "q6_k" << false << 5;
        QTest::newRow("no match") << "nothing-like-this" << false << 0;
        QTest::newRow("regex layers 0 and 2") << "^blk\\.[02]\\." << true << 18;
        QTest::newRow("regex type") << "^Q4_K$" << true << 24;
        QTest::newRow("regex norms") << "norm\\.weight$" << true << 9;
    }

    void filters()
    {
        QFETCH(QString, pattern);
        QFETCH(bool, regex);
        QFETCH(int, rows);
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setModel(m_sample);
        QVERIFY(proxy.setFilter(pattern, regex ? TensorSortFilterProxy::Syntax::RegularExpression
                                               : TensorSortFilterProxy::Syntax::Substring));
        QCOMPARE(proxy.rowCount(), rows);
        QCOMPARE(proxy.visibleTotals().tensors, rows);
        // Grouped, the same tensors stay visible inside their layers.
        model.setGroupedByLayer(true);
        QCOMPARE(proxy.visibleTotals().tensors, rows);
    }

    void invalidRegexShowsEverything()
    {
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        proxy.setSourceModel(&model);
        model.setModel(m_sample);
        QVERIFY(!proxy.setFilter(QStringLiteral("blk.(0"), TensorSortFilterProxy::Syntax::RegularExpression));
        QVERIFY(proxy.errorString().contains(QStringLiteral("character")));
        QCOMPARE(proxy.rowCount(), 38);
        QVERIFY(proxy.setFilter(QStringLiteral("blk.(0"), TensorSortFilterProxy::Syntax::Substring));
        QVERIFY(proxy.errorString().isEmpty());
        QCOMPARE(proxy.rowCount(), 0);
    }

    void groupsByLayer()
    {
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        QAbstractItemModelTester sourceTester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        proxy.setSourceModel(&model);
        model.setModel(m_sample);
        model.setGroupedByLayer(true);
        QCOMPARE(column(model, TensorTableModel::NameColumn),
                 (QStringList{"layer 0", "layer 1", "layer 2", "layer 3", "other tensors"}));
        QCOMPARE(model.rowCount(model.index(0, 0)), 9);
        QCOMPARE(model.rowCount(model.index(4, 0)), 2);
        QVERIFY(model.index(0, 0).data(TensorTableModel::IsGroupRole).toBool());
        QVERIFY(!model.tensorAt(model.index(0, 0)));
        QCOMPARE(model.shardAt(model.index(0, 0)), -1);
        const QModelIndex firstInLayer1 = model.index(0, TensorTableModel::NameColumn, model.index(1, 0));
        QVERIFY(firstInLayer1.data().toString().startsWith(QStringLiteral("blk.1.")));
        QCOMPARE(model.parent(firstInLayer1), model.index(1, 0));
        QCOMPARE(model.tensorAt(firstInLayer1)->layer, 1);
        // Group rows add up their tensors.
        quint64 bytes = 0;
        for (int row = 0; row < model.rowCount(); ++row)
            bytes += model.index(row, TensorTableModel::BytesColumn).data(TensorTableModel::SortRole).toULongLong();
        QCOMPARE(bytes, m_sample->primary().tensorDataBytes());
        // A filter keeps only the groups with matching tensors.
        proxy.setFilter(QStringLiteral("blk.3."), TensorSortFilterProxy::Syntax::Substring);
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.index(0, TensorTableModel::NameColumn).data().toString(), QStringLiteral("layer 3"));
        QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 9);
        proxy.setFilter(QString(), TensorSortFilterProxy::Syntax::Substring);
        proxy.sort(TensorTableModel::BytesColumn, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, TensorTableModel::NameColumn).data().toString(), QStringLiteral("other tensors"));
        model.setGroupedByLayer(false);
        QCOMPARE(model.rowCount(), 38);
    }

    // A filtered layer group counts what it shows (#40: "9 tensors" above the one shown).
    void groupCountsWhatTheFilterShows()
    {
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        proxy.setSourceModel(&model);
        model.setModel(m_sample);
        model.setGroupedByLayer(true);
        proxy.setFilter(QStringLiteral("blk.3.attn_q"), TensorSortFilterProxy::Syntax::Substring);
        QCOMPARE(proxy.rowCount(), 1);
        const QModelIndex group = proxy.index(0, 0);
        QCOMPARE(proxy.rowCount(group), 1);
        QCOMPARE(proxy.index(0, TensorTableModel::ShapeColumn).data().toString(), QStringLiteral("1 of 9 tensors"));
        const TensorInfo *q = m_sample->primary().findTensor("blk.3.attn_q.weight");
        QVERIFY(q);
        QCOMPARE(proxy.index(0, TensorTableModel::ElementsColumn).data().toString(), QLocale().toString(q->elements));
        QCOMPARE(proxy.index(0, TensorTableModel::BytesColumn).data().toString(), TextFormat::byteSize(q->byteSize));
        // unfiltered, the group's own figures
        proxy.setFilter(QString(), TensorSortFilterProxy::Syntax::Substring);
        QCOMPARE(proxy.index(3, TensorTableModel::ShapeColumn).data().toString(), QStringLiteral("9 tensors"));
    }

    // A damaged file whose first tensor info broke off: the footer says what its one row is (#40: it
    // read "0 of 0 tensors shown" above a visible row).
    void damagedFooterExplainsTheLastRow()
    {
        QFile source(gguf::test::dataPath(u"ggml-reference/q4_K.gguf"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cut.gguf"));
        const QByteArray cut = source.readAll().left(270); // inside the only tensor info
        QVERIFY(gguf::test::writeBytes(path, std::vector<uint8_t>(cut.begin(), cut.end())));
        Error error;
        const auto model = SplitModel::open(path.toStdString(), error);
        QVERIFY(model);
        TensorsPage page;
        page.setModel(model);
        const auto *totals = page.findChild<QLabel *>(QStringLiteral("tensorTotals"));
        QVERIFY(totals);
        QVERIFY2(
            totals->text().contains(QStringLiteral("reading stopped in tensor info 0 of the 1 the header declares")),
            qPrintable(totals->text()));
    }

    void totalsOfVisibleRows()
    {
        TensorTableModel model;
        TensorSortFilterProxy proxy;
        proxy.setSourceModel(&model);
        QCOMPARE(proxy.visibleTotals().tensors, 0);
        model.setModel(m_sample);
        TensorSortFilterProxy::Totals totals = proxy.visibleTotals();
        QCOMPARE(totals.tensors, 38);
        QCOMPARE(totals.elements, m_sample->parameterCount());
        QCOMPARE(totals.bytes, m_sample->primary().tensorDataBytes());
        proxy.setFilter(QStringLiteral("token_embd"), TensorSortFilterProxy::Syntax::Substring);
        totals = proxy.visibleTotals();
        QCOMPARE(totals.tensors, 1);
        QCOMPARE(totals.elements, 8192000ull);
        QCOMPARE(totals.bytes, m_sample->primary().findTensor("token_embd.weight")->byteSize);
    }

    // "#" counts the tensors of a split set as one list: it restarted at 0 in shard 2 (#40), while
    // the Shard column says which file holds each.
    void indexCountsAcrossShards()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (uint16_t n : {1, 2})
            QVERIFY(gguf::test::writeBytes(
                dir.filePath(QStringLiteral("m-%1-of-00002.gguf").arg(n, 5, 10, QLatin1Char('0'))),
                gguf::test::twoFileSplitShard(n)));
        gguf::Error error;
        const auto set = SplitModel::open(dir.filePath(QStringLiteral("m-00001-of-00002.gguf")).toStdString(), error);
        QVERIFY(set && set->shards().size() == 2 && set->tensors().size() == 2);
        TensorTableModel model;
        model.setModel(set);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, TensorTableModel::IndexColumn).data().toInt(), 0);
        QCOMPARE(model.index(1, TensorTableModel::IndexColumn).data().toInt(), 1);
        QCOMPARE(model.index(1, TensorTableModel::ShardColumn).data().toInt(), 2);
    }

private:
    std::shared_ptr<const SplitModel> m_sample;
};

QTEST_MAIN(TestTensorTableModel)
#include "tst_tensor_table_model.moc"
