// SPDX-License-Identifier: GPL-3.0-or-later
// ValueGridModel under QAbstractItemModelTester: values, indexes and headers of a small tensor; the
// right values at far positions of a big quantized tensor while decoding only the chunk asked for;
// paging; the bounded cache; types that cannot be decoded.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "ui/weights/value_grid_model.h"

#include <QAbstractItemModelTester>
#include <QtTest>

#include <cstring>
#include <memory>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const GgufFile> open(const GgufBuilder &builder)
{
    OpenResult result = GgufFile::openBuffer(builder.build().bytes());
    return result.file;
}

std::vector<uint8_t> f32Bytes(const std::vector<float> &values)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// Q8_0 with scale 1.0: element e decodes to q(e) exactly.
int8_t q(uint64_t e)
{
    return static_cast<int8_t>(static_cast<int>(e % 251) - 125);
}

std::vector<uint8_t> q8Bytes(uint64_t elements)
{
    std::vector<uint8_t> bytes;
    bytes.reserve(elements / 32 * 34);
    for (uint64_t block = 0; block < elements / 32; ++block) {
        bytes.push_back(0x00); // f16 1.0 = 0x3c00, little-endian
        bytes.push_back(0x3c);
        for (uint64_t j = 0; j < 32; ++j)
            bytes.push_back(static_cast<uint8_t>(q(block * 32 + j)));
    }
    return bytes;
}

constexpr uint64_t kBigColumns = 64;
constexpr uint64_t kBigRows = 100000;

} // namespace

class TestValueGridModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_big = open(GgufBuilder().tensor("big.weight", {kBigColumns, kBigRows}, 8, q8Bytes(kBigColumns * kBigRows)));
        QVERIFY(m_big);
        QCOMPARE(m_big->tensors().size(), size_t(1));
    }

    void smallTensorValuesAndHeaders()
    {
        std::vector<float> values(15);
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<float>(i) * 0.5f - 2.0f;
        auto file = open(GgufBuilder().tensor("small", {5, 3}, 0, f32Bytes(values)));
        QVERIFY(file);
        ValueGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(file, &file->tensors()[0]);
        QVERIFY(model.problem().isEmpty());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(model.columnCount(), 5);
        QCOMPARE(model.data(model.index(2, 4), ValueGridModel::ValueRole).toDouble(), 5.0);
        QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("-2"));
        QCOMPARE(model.data(model.index(1, 3)).toString(), QStringLiteral("2"));
        QCOMPARE(model.data(model.index(1, 3), ValueGridModel::ElementRole).toULongLong(), 8ull);
        QVERIFY(model.data(model.index(1, 3), Qt::ToolTipRole).toString().contains(QStringLiteral("(3, 1)")));
        QCOMPARE(model.headerData(2, Qt::Vertical).toString(), QStringLiteral("2"));
        QCOMPARE(model.headerData(4, Qt::Horizontal).toString(), QStringLiteral("4"));
        model.setTensor(nullptr, nullptr);
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.columnCount(), 0);
    }

    void farPositionOfABigTensor()
    {
        ValueGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(m_big, &m_big->tensors()[0]);
        QCOMPARE(model.tensorRows(), kBigRows);
        QCOMPARE(model.tensorColumns(), kBigColumns);
        const quint64 decodedBefore = model.decodedChunks();
        const QModelIndex last = model.locate(kBigRows - 1, kBigColumns - 1);
        QVERIFY(last.isValid());
        QCOMPARE(last.row(), static_cast<int>(kBigRows - 1));
        const uint64_t element = kBigRows * kBigColumns - 1;
        QCOMPARE(model.data(last, ValueGridModel::ValueRole).toDouble(), static_cast<double>(q(element)));
        // Only the chunk holding that cell was decoded, never the tensor.
        QCOMPARE(model.decodedChunks(), decodedBefore + 1);
        QCOMPARE(model.data(last.siblingAtColumn(0), ValueGridModel::ValueRole).toDouble(),
                 static_cast<double>(q(element - kBigColumns + 1)));
        QCOMPARE(model.decodedChunks(), decodedBefore + 1); // same chunk: served from the cache
    }

    void pagesOfABigTensor()
    {
        ValueGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(m_big, &m_big->tensors()[0]);
        model.setPageSize(1000, 16);
        QCOMPARE(model.rowCount(), 1000);
        QCOMPARE(model.columnCount(), 16);
        QSignalSpy pages(&model, &ValueGridModel::pageChanged);
        const QModelIndex cell = model.locate(98765, 50);
        QCOMPARE(pages.count(), 1);
        QCOMPARE(model.firstRow(), 98000ull);
        QCOMPARE(model.firstColumn(), 48ull);
        QCOMPARE(cell.row(), 765);
        QCOMPARE(cell.column(), 2);
        QCOMPARE(model.headerData(765, Qt::Vertical).toString(), QStringLiteral("98765"));
        QCOMPARE(model.headerData(2, Qt::Horizontal).toString(), QStringLiteral("50"));
        QCOMPARE(model.data(cell, ValueGridModel::ValueRole).toDouble(), static_cast<double>(q(98765 * 64 + 50)));
        // The last page is partial: 100000 rows = 100 pages of 1000; 64 columns = 4 pages of 16.
        const QModelIndex byElement = model.locateElement(kBigRows * kBigColumns - 1);
        QCOMPARE(model.firstRow(), 99000ull);
        QCOMPARE(model.firstColumn(), 48ull);
        QCOMPARE(byElement.row(), 999);
        QCOMPARE(byElement.column(), 15);
        QVERIFY(!model.locate(kBigRows, 0).isValid());
        QVERIFY(!model.locate(0, kBigColumns).isValid());
    }

    void cacheStaysBounded()
    {
        ValueGridModel model;
        model.setTensor(m_big, &m_big->tensors()[0]);
        const int rows = static_cast<int>(ValueGridModel::kCacheChunks) + 500;
        for (int r = 0; r < rows; ++r)
            QCOMPARE(model.data(model.index(r, 1), ValueGridModel::ValueRole).toDouble(),
                     static_cast<double>(q(static_cast<uint64_t>(r) * kBigColumns + 1)));
        QCOMPARE(model.decodedChunks(), static_cast<quint64>(rows));
        QCOMPARE(model.cachedChunks(), ValueGridModel::kCacheChunks);
    }

    void oneDimensionalTensorPagesItsColumns()
    {
        std::vector<float> values(40000);
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = static_cast<float>(i);
        auto file = open(GgufBuilder().tensor("norm", {40000}, 0, f32Bytes(values)));
        ValueGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(file, &file->tensors()[0]);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.columnCount(), static_cast<int>(ValueGridModel::kPageColumns));
        const QModelIndex cell = model.locateElement(39999);
        QCOMPARE(model.firstColumn(), 2 * ValueGridModel::kPageColumns);
        QCOMPARE(model.data(cell, ValueGridModel::ValueRole).toDouble(), 39999.0);
        QCOMPARE(model.data(cell).toString(), QStringLiteral("39999"));
    }

    void typesThatCannotBeDecoded()
    {
        // Q4_2 (id 4) was removed from ggml: the file opens, the values cannot be shown.
        auto file = open(GgufBuilder().tensor(TensorSpec{"old", {32, 2}, 4, std::vector<uint8_t>(40, 0), 0}));
        QVERIFY(file);
        ValueGridModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTensor(file, &file->tensors()[0]);
        QVERIFY2(model.problem().contains(QStringLiteral("cannot be decoded")), qPrintable(model.problem()));
        QCOMPARE(model.rowCount(), 0);
    }

private:
    std::shared_ptr<const GgufFile> m_big;
};

QTEST_GUILESS_MAIN(TestValueGridModel)
#include "tst_value_grid_model.moc"
