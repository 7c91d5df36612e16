// SPDX-License-Identifier: GPL-3.0-or-later
// The Bytes page: the two-way link with the metadata tree and the tensor table (select an item →
// its bytes; click a byte → its item), hover explanations, go-to bounds, find forward and
// backward on a worker, and copying as hex and as a C array.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/hex_fixture.h"
#include "ui/common/tensor_ref.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_find_bar.h"
#include "ui/hex/hex_inspector.h"
#include "ui/hex/hex_text.h"
#include "ui/metadata/metadata_page.h"
#include "ui/metadata/metadata_tree_model.h"
#include "ui/tensors/tensors_page.h"

#include <QApplication>
#include <QClipboard>
#include <QHelpEvent>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QToolTip>
#include <QTreeView>

using namespace hex_fixture;
using Range = std::pair<uint64_t, uint64_t>;

Q_DECLARE_METATYPE(gguf::SearchDirection)

class TestHexPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_built = std::make_unique<BuiltFile>(buildFile());
        m_file = GgufFile::openBuffer(m_built->bytes()).file;
        QVERIFY(m_file && m_file->complete());
        m_model = SplitModel::single(m_file);
    }

    void metadataTreeAndBytesLinkBothWays()
    {
        MetadataPage metadata;
        HexPage page;
        // the two pages linked as the window links them: each follows the other's links
        connect(&metadata, &Page::linkActivated, &page, &Page::follow);
        connect(&page, &Page::linkActivated, &metadata, &Page::follow);
        metadata.setFile(m_file);
        page.resize(1000, 500);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setModel(m_model);
        QVERIFY(waitReady(page));
        // select a key in the tree → its bytes
        const KvLayout &kv = *m_built->layout().kv("u32");
        metadata.selectMetadataEntry(5);
        QCOMPARE(page.view()->selection(), Range(kv.offset, kv.end));
        QCOMPARE(page.view()->cursorOffset(), kv.offset);
        // click a byte → its key in the tree; the tree's answer does not move the hex view
        QSignalSpy activated(&page, &Page::linkActivated);
        const KvLayout &name = *m_built->layout().kv("string");
        clickByte(page.view(), name.valueOffset + 9);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().first().value<Link>(), Link::metadataEntry(9).inBackground());
        QCOMPARE(metadata.view()->currentIndex().data(MetadataTreeModel::KeyRole).toString(), QStringLiteral("string"));
        QCOMPARE(page.view()->cursorOffset(), name.valueOffset + 9);
        QCOMPARE(page.view()->cursorField(), Range(name.valueOffset + 8, name.valueOffset + 12));
        QCOMPARE(page.inspector()->labelText(), QStringLiteral("key 9 `string`: value (STRING, 4 bytes) = \"text\""));
        // hovering explains the byte
        const QRect cell = page.view()->layout().byteRect(name.keyOffset, HexLayout::Area::Text, page.view()->topRow());
        const QPoint at = cell.center() - QPoint(page.view()->horizontalScrollBar()->value(), 0);
        QHelpEvent help(QEvent::ToolTip, at, page.view()->viewport()->mapToGlobal(at));
        QApplication::sendEvent(page.view()->viewport(), &help);
        QTRY_VERIFY(QToolTip::isVisible());
        QVERIFY2(QToolTip::text().contains(QStringLiteral("key 9 `string`: key text")), qPrintable(QToolTip::text()));
        QVERIFY(QToolTip::text().contains(QStringLiteral("The key: UTF-8 text")));
        QToolTip::hideText();
        // a filtered-out key is shown anyway
        metadata.setFilterText(QStringLiteral("arr_"));
        clickByte(page.view(), m_built->layout().kv("u8")->keyOffset);
        QCOMPARE(metadata.view()->currentIndex().data(MetadataTreeModel::KeyRole).toString(), QStringLiteral("u8"));
    }

    void tensorTableAndBytesLinkBothWays()
    {
        TensorsPage tensors;
        HexPage page;
        connect(&tensors, &Page::linkActivated, &page, &Page::follow);
        connect(&page, &Page::linkActivated, &tensors, &Page::follow);
        tensors.setModel(m_model);
        page.resize(1000, 500);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setModel(m_model);
        QVERIFY(waitReady(page));
        const TensorLayout &q4k = *m_built->layout().tensor("blk.0.ffn.weight");
        // select a tensor in the table → its info record; one more step → its data
        tensors.selectTensor({0, 2});
        QCOMPARE(page.view()->selection(), Range(q4k.infoOffset, q4k.infoEnd));
        page.goToTensorData();
        QCOMPARE(page.view()->selection(), Range(q4k.dataOffset, q4k.dataOffset + q4k.dataSize));
        // click data of another tensor → that row in the table
        const TensorLayout &f16 = *m_built->layout().tensor("output.weight");
        QSignalSpy activated(&page, &Page::linkActivated);
        clickByte(page.view(), f16.dataOffset + 3);
        QCOMPARE(activated.count(), 1);
        QCOMPARE(activated.first().at(0).value<Link>(), Link::tensor(TensorRef{0, 5}).inBackground());
        QCOMPARE(tensors.view()->currentIndex().siblingAtColumn(1).data().toString(), QStringLiteral("output.weight"));
        QCOMPARE(page.view()->cursorOffset(), f16.dataOffset + 3);
        // double-click on data → its info record; on the info record → its data
        clickByte(page.view(), f16.dataOffset + 3, true);
        QCOMPARE(page.view()->selection(), Range(f16.infoOffset, f16.infoEnd));
        clickByte(page.view(), f16.nameOffset, true);
        QCOMPARE(page.view()->selection(), Range(f16.dataOffset, f16.dataOffset + f16.dataSize));
    }

    // A byte range of another shard of a split model (the heatmap's "Show bytes" for a tensor of
    // shard 2) opens that shard's file.
    void byteRangeOfAnotherShard()
    {
        QTemporaryDir dir;
        for (const uint16_t number : {uint16_t(1), uint16_t(2)}) {
            QFile file(dir.filePath(QStringLiteral("m-0000%1-of-00002.gguf").arg(number)));
            const auto bytes = gguf::test::twoFileSplitShard(number);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(reinterpret_cast<const char *>(bytes.data()), static_cast<qsizetype>(bytes.size()));
        }
        gguf::Error error;
        const auto model =
            gguf::SplitModel::open(dir.filePath(QStringLiteral("m-00001-of-00002.gguf")).toStdString(), error);
        QVERIFY(model && model->shards().size() == 2 && model->shards()[1].file);
        HexPage page;
        QVERIFY(showReady(page, model, QSize(1000, 500)));
        QCOMPARE(page.shard(), 0);
        const gguf::TensorInfo &second = model->shards()[1].file->tensors()[0];
        page.showShardBytes(1, second.fileOffset, 64);
        QCOMPARE(page.shard(), 1);
        QCOMPARE(page.view()->selection(), Range(second.fileOffset, second.fileOffset + 64));
        // a metadata range is always of the primary file
        page.showByteRange(8, 8);
        QCOMPARE(page.shard(), 0);
        QCOMPARE(page.view()->selection(), Range(8, 16));
    }

    void goTo_data()
    {
        QTest::addColumn<QString>("expression");
        QTest::addColumn<qint64>("offset"); // -1: refused
        QTest::addColumn<QString>("message");
        const uint64_t size = m_file->fileSize(), data = m_file->dataOffset();
        QTest::newRow("decimal") << "20" << qint64(20) << "";
        QTest::newRow("hex") << "0x1F" << qint64(31) << "";
        QTest::newRow("data region") << "data" << qint64(data) << "";
        QTest::newRow("relative to the data") << "data+0x22" << qint64(data + 34) << "";
        QTest::newRow("last byte") << "end-1" << qint64(size - 1) << "";
        QTest::newRow("relative to the cursor") << "+16" << qint64(100 + 16) << "";
        QTest::newRow("back from the cursor") << "-0x10" << qint64(100 - 16) << "";
        QTest::newRow("the end itself") << "end" << qint64(-1) << "past the end of the file";
        QTest::newRow("one past the last byte") << QStringLiteral("0x%1").arg(size, 0, 16) << qint64(-1)
                                                << QStringLiteral("0x%1 is past the end of the file (the last byte "
                                                                  "is 0x%2)")
                                                       .arg(size, 0, 16)
                                                       .arg(size - 1, 0, 16);
        QTest::newRow("far past the end") << "data+0xffffffffff" << qint64(-1) << "past the end";
        QTest::newRow("before the start") << "-200" << qint64(-1) << "before the start";
        QTest::newRow("overflow") << "0xfffffffffffffffffff" << qint64(-1) << "too large";
        QTest::newRow("not an offset") << "blk.0" << qint64(-1) << "Not an offset";
    }

    void goTo()
    {
        QFETCH(QString, expression);
        QFETCH(qint64, offset);
        QFETCH(QString, message);
        HexPage page;
        page.setModel(m_model);
        page.view()->setCursorOffset(100);
        const bool ok = page.goTo(expression);
        QCOMPARE(ok, offset >= 0);
        if (ok) {
            QCOMPARE(page.view()->cursorOffset(), uint64_t(offset));
            QVERIFY(page.messageText().isEmpty());
        } else {
            QCOMPARE(page.view()->cursorOffset(), uint64_t(100)); // refused: nothing moved
            QVERIFY2(page.messageText().contains(message), qPrintable(page.messageText()));
        }
    }

    void find_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("hex");
        QTest::addColumn<SearchDirection>("direction");
        QTest::addColumn<uint64_t>("cursor");
        QTest::addColumn<qint64>("found"); // -1: none
        const Layout &l = m_built->layout();
        const auto F = SearchDirection::Forward, B = SearchDirection::Backward;
        QTest::newRow("magic from the start") << "GGUF" << false << F << uint64_t(0) << qint64(0);
        QTest::newRow("hex version") << "03 00 00 00" << true << F << uint64_t(0) << qint64(4);
        QTest::newRow("key text forward")
            << "weight" << false << F << uint64_t(0) << qint64(l.tensor("token_embd.weight")->nameOffset + 11);
        QTest::newRow("key text backward from the end") << "weight" << false << B << uint64_t(m_file->fileSize() - 1)
                                                        << qint64(l.tensor("output.weight")->nameOffset + 7);
        QTest::newRow("backward before a key")
            << "u32" << false << B << uint64_t(l.kv("u32")->keyOffset + 2) << qint64(l.kv("u32")->keyOffset);
        QTest::newRow("nothing forward") << "GGUF" << false << F << uint64_t(1) << qint64(-1);
        QTest::newRow("hex 0x-prefixed") << "0x62,0x63,0x64" << true << F << uint64_t(0)
                                         << qint64(l.kv("arr_string")->elementOffsets[2] + 8);
    }

    void find()
    {
        QFETCH(QString, text);
        QFETCH(bool, hex);
        QFETCH(SearchDirection, direction);
        QFETCH(uint64_t, cursor);
        QFETCH(qint64, found);
        HexPage page;
        page.setModel(m_model);
        page.view()->setCursorOffset(cursor);
        QSignalSpy finished(&page, &HexPage::searchFinished);
        QVERIFY(page.find(text, hex, direction));
        QVERIFY(finished.wait(5000));
        QCOMPARE(finished.first().first().toBool(), found >= 0);
        if (found >= 0) {
            const uint64_t length =
                hex ? uint64_t(text.count(u',') + 1 + text.count(u' ')) : uint64_t(text.toUtf8().size());
            QCOMPARE(page.view()->selection(), Range(uint64_t(found), uint64_t(found) + length));
            // the next search in the same direction moves past this match
            QVERIFY(page.find(text, hex, direction));
            QVERIFY(finished.wait(5000));
        } else {
            QVERIFY(page.messageText().startsWith(QStringLiteral("No match")));
        }
    }

    void badPatternsAreRefused()
    {
        HexPage page;
        page.setModel(m_model);
        QVERIFY(!page.find(QStringLiteral("4 7"), true, SearchDirection::Forward));
        QVERIFY(page.messageText().contains(QStringLiteral("odd number")));
        QVERIFY(!page.find(QStringLiteral("zz"), true, SearchDirection::Forward));
        QVERIFY(page.messageText().contains(QStringLiteral("not a hex digit")));
    }

    void copyAsHexAndCArray()
    {
        HexPage page;
        page.setModel(m_model);
        QVERIFY(waitReady(page));
        page.view()->select(0, 4);
        QCOMPARE(page.copyText(HexPage::CopyFormat::Hex), QStringLiteral("47 47 55 46"));
        QCOMPARE(page.copyText(HexPage::CopyFormat::CArray),
                 QStringLiteral("const unsigned char bytes_0x0[4] = {\n    0x47, 0x47, 0x55, 0x46,\n};\n"));
        // without a selection: the field at the cursor (here the u32 value 3)
        page.view()->setCursorOffset(m_built->layout().kv("u32")->valueOffset + 1);
        QCOMPARE(page.copyText(HexPage::CopyFormat::Hex), QStringLiteral("03 00 00 00"));
        // 14 bytes: the C array wraps after 12
        page.view()->select(16, 30);
        QVERIFY(page.copyText(HexPage::CopyFormat::CArray).contains(QStringLiteral(",\n    0x")));
    }

    void copyOfAHugeSelectionIsRefused()
    {
        const BuiltFile big = GgufBuilder().tensor("big", {1 << 21}, id(GgmlType::F32)).build();
        HexPage page;
        page.setModel(SplitModel::single(GgufFile::openBuffer(big.bytes()).file));
        page.view()->select(0, big.size());
        QVERIFY(page.copyText(HexPage::CopyFormat::Hex).isEmpty());
        QVERIFY(page.messageText().contains(QStringLiteral("copying is limited")));
    }

    void shortcuts()
    {
        HexPage page;
        page.resize(1000, 500);
        page.show();
        page.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&page));
        page.setModel(m_model);
        QVERIFY(waitReady(page));
        // Ctrl+G from anywhere on the page goes to the offset box; Return there jumps
        page.view()->setFocus();
        QTest::keyClick(page.view(), Qt::Key_G, Qt::ControlModifier);
        QVERIFY(page.findBar()->goToEdit()->hasFocus());
        QTest::keyClicks(page.findBar()->goToEdit(), QStringLiteral("0x10"));
        QTest::keyClick(page.findBar()->goToEdit(), Qt::Key_Return);
        QCOMPARE(page.view()->cursorOffset(), uint64_t(16));
        QVERIFY(page.view()->hasFocus());
        // keys move the cursor; shift extends the selection; Ctrl+C copies it as hex
        QTest::keyClick(page.view(), Qt::Key_Right, Qt::ShiftModifier);
        QTest::keyClick(page.view(), Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(page.view()->selection(), Range(16, 19));
        QTest::keyClick(page.view(), Qt::Key_C, Qt::ControlModifier);
        QCOMPARE(QApplication::clipboard()->text(), HexText::toHex(m_file->bytes(16, 3)));
        QTest::keyClick(page.view(), Qt::Key_Down);
        QCOMPARE(page.view()->cursorOffset(), uint64_t(18 + 16));
        QTest::keyClick(page.view(), Qt::Key_End, Qt::ControlModifier);
        QCOMPARE(page.view()->cursorOffset(), m_file->fileSize() - 1);
        QTest::keyClick(page.view(), Qt::Key_Home, Qt::ControlModifier);
        QCOMPARE(page.view()->cursorOffset(), uint64_t(0));
    }

private:
    std::unique_ptr<BuiltFile> m_built;
    std::shared_ptr<const GgufFile> m_file;
    std::shared_ptr<const SplitModel> m_model;
};

QTEST_MAIN(TestHexPage)
#include "tst_hex_page.moc"
