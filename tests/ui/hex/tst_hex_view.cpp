// SPDX-License-Identifier: GPL-3.0-or-later
// The hex view and what it shows: what every byte of a built file is (labels, fields, colours)
// for every value type and several quant types, shading, readable colours in light and dark
// palettes, the inspector's decoding, painting, and a sparse 30 GB file that paints at its last
// byte at once; the sample's first rows read like an annotated walk through the format.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/contrast.h"
#include "tests/support/hex_fixture.h"
#include "tests/support/pending_events.h"
#include "tests/support/screenshots.h"
#include "tests/support/test_paths.h"
#include "ui/common/job_tracker.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_colors.h"
#include "ui/hex/hex_inspector.h"
#include "ui/hex/hex_notes.h"
#include "ui/hex/hex_search.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFloat16>
#include <QTemporaryDir>
#include <QtEndian>

#include <cstring>

using namespace hex_fixture;
using Item = HexAnnotator::Item;

Q_DECLARE_METATYPE(gguf::RegionKind)
Q_DECLARE_METATYPE(HexAnnotator::Item)

class TestHexView : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_built = std::make_unique<BuiltFile>(buildFile());
        m_file = GgufFile::openBuffer(m_built->bytes()).file;
        QVERIFY(m_file && m_file->complete());
        m_model = SplitModel::single(m_file);
        m_annotator = std::make_unique<HexAnnotator>(m_file);
    }

    void describe_data()
    {
        QTest::addColumn<uint64_t>("offset");
        QTest::addColumn<RegionKind>("kind");
        QTest::addColumn<QString>("label");
        QTest::addColumn<uint64_t>("unitOffset");
        QTest::addColumn<uint64_t>("unitSize");
        QTest::addColumn<Item>("item");
        QTest::addColumn<uint>("index");
        const Layout &l = m_built->layout();
        const KvLayout &s = *l.kv("string");
        const KvLayout &arr = *l.kv("arr_string");
        const auto t = [&](const char *name) { return *l.tensor(name); };
        QTest::newRow("magic") << uint64_t(2) << RegionKind::Magic << "magic \"GGUF\"" << uint64_t(0) << uint64_t(4)
                               << Item::None << 0u;
        QTest::newRow("version") << uint64_t(5) << RegionKind::Version << "version = 3" << uint64_t(4) << uint64_t(4)
                                 << Item::None << 0u;
        QTest::newRow("tensor count") << uint64_t(8) << RegionKind::TensorCount << "tensor_count = 6" << uint64_t(8)
                                      << uint64_t(8) << Item::None << 0u;
        QTest::newRow("kv count") << uint64_t(20) << RegionKind::KvCount
                                  << QStringLiteral("kv_count = %1").arg(l.kvs.size()) << uint64_t(16) << uint64_t(8)
                                  << Item::None << 0u;
        QTest::newRow("key length") << s.offset + 1 << RegionKind::KeyLength << "key 9 `string`: key length = 6"
                                    << s.offset << uint64_t(8) << Item::Metadata << 9u;
        QTest::newRow("key text") << s.keyOffset + 3 << RegionKind::Key << "key 9 `string`: key text" << s.keyOffset
                                  << uint64_t(6) << Item::Metadata << 9u;
        QTest::newRow("value type") << s.typeOffset << RegionKind::ValueType
                                    << "key 9 `string`: value type = 8 (STRING)" << s.typeOffset << uint64_t(4)
                                    << Item::Metadata << 9u;
        QTest::newRow("string length") << s.valueOffset + 7 << RegionKind::Value << "key 9 `string`: string length = 4"
                                       << s.valueOffset << uint64_t(8) << Item::Metadata << 9u;
        QTest::newRow("string text") << s.valueOffset + 9 << RegionKind::Value
                                     << "key 9 `string`: value (STRING, 4 bytes) = \"text\"" << s.valueOffset + 8
                                     << uint64_t(4) << Item::Metadata << 9u;
        QTest::newRow("u32 value") << l.kv("u32")->valueOffset << RegionKind::Value << "key 5 `u32`: value (UINT32) = 3"
                                   << l.kv("u32")->valueOffset << uint64_t(4) << Item::Metadata << 5u;
        QTest::newRow("f64 value") << l.kv("f64")->valueOffset + 7 << RegionKind::Value
                                   << "key 12 `f64`: value (FLOAT64) = 0.25" << l.kv("f64")->valueOffset << uint64_t(8)
                                   << Item::Metadata << 12u;
        QTest::newRow("array element type")
            << arr.valueOffset << RegionKind::ArrayType << "key 14 `arr_string`: array element type = 8 (STRING)"
            << arr.valueOffset << uint64_t(4) << Item::Metadata << 14u;
        QTest::newRow("array count") << arr.countOffset << RegionKind::ArrayCount
                                     << "key 14 `arr_string`: array count = 3" << arr.countOffset << uint64_t(8)
                                     << Item::Metadata << 14u;
        QTest::newRow("string element text")
            << arr.elementOffsets[2] + 9 << RegionKind::ArrayElements << "arr_string element 2: \"bcd\""
            << arr.elementOffsets[2] + 8 << uint64_t(3) << Item::Metadata << 14u;
        QTest::newRow("string element length") << arr.elementOffsets[2] << RegionKind::ArrayElements
                                               << "arr_string element 2: \"bcd\" — its length field (3 bytes)"
                                               << arr.elementOffsets[2] << uint64_t(8) << Item::Metadata << 14u;
        QTest::newRow("empty string element") << arr.elementOffsets[1] + 2 << RegionKind::ArrayElements
                                              << "arr_string element 1: \"\" — its length field (0 bytes)"
                                              << arr.elementOffsets[1] << uint64_t(8) << Item::Metadata << 14u;
        QTest::newRow("f32 element") << l.kv("arr_f32")->elementOffsets[1] + 3 << RegionKind::ArrayElements
                                     << "arr_f32 element 1 = 2" << l.kv("arr_f32")->elementOffsets[1] << uint64_t(4)
                                     << Item::Metadata << 13u;
        QTest::newRow("nested element") << l.kv("arr_nested")->elementOffsets[1] << RegionKind::ArrayElements
                                        << "arr_nested element 1: nested [STRING × 1]"
                                        << l.kv("arr_nested")->elementOffsets[1]
                                        << l.kv("arr_nested")->end - l.kv("arr_nested")->elementOffsets[1]
                                        << Item::Metadata << 15u;
        QTest::newRow("tensor name length") << t("token_embd.weight").infoOffset << RegionKind::TensorNameLength
                                            << "tensor info #0 `token_embd.weight`: name length = 17"
                                            << t("token_embd.weight").infoOffset << uint64_t(8) << Item::Tensor << 0u;
        QTest::newRow("tensor dims[1]") << t("token_embd.weight").dimsOffset + 9 << RegionKind::TensorDims
                                        << "tensor info #0 `token_embd.weight`: dims[1] = 3"
                                        << t("token_embd.weight").dimsOffset + 8 << uint64_t(8) << Item::Tensor << 0u;
        QTest::newRow("tensor type") << t("blk.0.ffn.weight").typeOffset << RegionKind::TensorType
                                     << "tensor info #2 `blk.0.ffn.weight`: type = 12 (Q4_K)"
                                     << t("blk.0.ffn.weight").typeOffset << uint64_t(4) << Item::Tensor << 2u;
        QTest::newRow("tensor offset") << t("blk.0.attn_norm.weight").offsetFieldOffset << RegionKind::TensorOffset
                                       << QStringLiteral("tensor info #1 `blk.0.attn_norm.weight`: offset = 0x%1 "
                                                         "(file offset 0x%2)")
                                              .arg(t("blk.0.attn_norm.weight").relativeOffset, 0, 16)
                                              .arg(t("blk.0.attn_norm.weight").dataOffset, 0, 16)
                                       << t("blk.0.attn_norm.weight").offsetFieldOffset << uint64_t(8) << Item::Tensor
                                       << 1u;
        if (l.dataOffset > l.tensorInfoEnd)
            QTest::newRow("padding before the data")
                << l.tensorInfoEnd << RegionKind::Padding
                << QStringLiteral("alignment padding (%1 bytes)").arg(l.dataOffset - l.tensorInfoEnd) << l.tensorInfoEnd
                << l.dataOffset - l.tensorInfoEnd << Item::None << 0u;
        const uint64_t q8 = t("token_embd.weight").dataOffset;
        QTest::newRow("Q8_0 d") << q8 + 34 + 1 << RegionKind::TensorData
                                << "Q8_0 block 1 of `token_embd.weight`, field `d` = 0" << q8 + 34 << uint64_t(2)
                                << Item::Tensor << 0u;
        QTest::newRow("Q8_0 qs") << q8 + 34 * 5 + 2 << RegionKind::TensorData
                                 << "Q8_0 block 5 of `token_embd.weight`, field `qs`" << q8 + 34 * 5 + 2 << uint64_t(32)
                                 << Item::Tensor << 0u;
        const uint64_t q4k = t("blk.0.ffn.weight").dataOffset;
        QTest::newRow("Q4_K scales") << q4k + 144 + 7 << RegionKind::TensorData
                                     << "Q4_K block 1 of `blk.0.ffn.weight`, field `scales`" << q4k + 144 + 4
                                     << uint64_t(12) << Item::Tensor << 2u;
        QTest::newRow("Q4_K dmin") << q4k + 3 << RegionKind::TensorData
                                   << "Q4_K block 0 of `blk.0.ffn.weight`, field `dmin` = 0" << q4k + 2 << uint64_t(2)
                                   << Item::Tensor << 2u;
        const uint64_t q51 = t("q51.weight").dataOffset;
        QTest::newRow("Q5_1 qh") << q51 + 24 + 5 << RegionKind::TensorData << "Q5_1 block 1 of `q51.weight`, field `qh`"
                                 << q51 + 24 + 4 << uint64_t(4) << Item::Tensor << 3u;
        const uint64_t i2s = t("bitnet.weight").dataOffset;
        QTest::newRow("I2_S codes") << i2s + 40 << RegionKind::TensorData
                                    << "I2_S block 1 of `bitnet.weight`, field `qs`" << i2s + 32 << uint64_t(32)
                                    << Item::Tensor << 4u;
        QTest::newRow("I2_S trailing scale")
            << i2s + 64 + 3 << RegionKind::TensorData << "I2_S tensor scale of `bitnet.weight` = 0" << i2s + 64
            << uint64_t(4) << Item::Tensor << 4u;
        QTest::newRow("F32 element") << t("blk.0.attn_norm.weight").dataOffset + 9 << RegionKind::TensorData
                                     << "F32 element 2 of `blk.0.attn_norm.weight` (row 0, column 2) = 0"
                                     << t("blk.0.attn_norm.weight").dataOffset + 8 << uint64_t(4) << Item::Tensor << 1u;
        QTest::newRow("F16 element") << t("output.weight").dataOffset + 13 << RegionKind::TensorData
                                     << "F16 element 6 of `output.weight` (row 0, column 6) = 0"
                                     << t("output.weight").dataOffset + 12 << uint64_t(2) << Item::Tensor << 5u;
    }

    // A block field of a big-endian file (made by llama.cpp's converter, tests/data/big-endian) is
    // described with the value it holds in that byte order: the little-endian original's value.
    void bigEndianBlockFields_data()
    {
        QTest::addColumn<QString>("type");
        QTest::addColumn<uint64_t>("fieldOffset"); // of an f16 member within the block
        QTest::addColumn<QString>("field");
        QTest::newRow("Q4_K d") << "q4_K" << uint64_t(0) << "d";
        QTest::newRow("Q4_K dmin") << "q4_K" << uint64_t(2) << "dmin";
        QTest::newRow("Q6_K d") << "q6_K" << uint64_t(208) << "d";
        QTest::newRow("Q8_0 d") << "q8_0" << uint64_t(0) << "d";
    }

    void bigEndianBlockFields()
    {
        QFETCH(QString, type);
        QFETCH(uint64_t, fieldOffset);
        QFETCH(QString, field);
        const auto open = [](const QString &path) { return GgufFile::open(path.toStdString()).file; };
        const auto little = open(gguf::test::dataPath(u"ggml-reference/%1.gguf").arg(type));
        const auto big = open(gguf::test::dataPath(u"big-endian/%1.gguf").arg(type));
        QVERIFY(little && big && big->byteSwapped());
        const HexAnnotator littleNotes(little), bigNotes(big);
        const uint64_t blockBytes = typeTraits(little->tensors()[0].typeId).typeSize;
        for (uint64_t block : {uint64_t(0), uint64_t(5)}) {
            const uint64_t l = little->tensors()[0].fileOffset + block * blockBytes + fieldOffset;
            const uint64_t b = big->tensors()[0].fileOffset + block * blockBytes + fieldOffset;
            // the value, decoded here with Qt's own f16 from the little-endian original's bytes
            const auto lb = little->bytes(l, 2);
            QCOMPARE(lb.size(), size_t(2));
            const quint16 bits = qFromLittleEndian<quint16>(lb.data());
            qfloat16 half;
            std::memcpy(static_cast<void *>(&half), &bits, sizeof bits);
            const QString value = QString::number(float(half), 'g', 6);
            const QString want = QStringLiteral("%1 block %2 of `%3.weight`, field `%4` = %5")
                                     .arg(QString::fromStdString(typeName(little->tensors()[0].typeId)))
                                     .arg(block)
                                     .arg(type, field, value);
            QCOMPARE(littleNotes.describe(l + 1).label, want);
            QCOMPARE(bigNotes.describe(b).label, want);
            QCOMPARE(bigNotes.describe(b).unitOffset, b);
            QCOMPARE(bigNotes.describe(b).unitSize, uint64_t(2));
            // the big-endian bytes are the little-endian ones reversed
            const auto bb = big->bytes(b, 2);
            QCOMPARE(bb[0], lb[1]);
            QCOMPARE(bb[1], lb[0]);
        }
    }

    void describe()
    {
        QFETCH(uint64_t, offset);
        QFETCH(RegionKind, kind);
        QFETCH(QString, label);
        QFETCH(uint64_t, unitOffset);
        QFETCH(uint64_t, unitSize);
        QFETCH(Item, item);
        QFETCH(uint, index);
        const HexAnnotator::Description d = m_annotator->describe(offset);
        QCOMPARE(d.kind, kind);
        QCOMPARE(d.category, HexAnnotator::categoryOf(kind));
        QCOMPARE(d.label, label);
        QCOMPARE(d.unitOffset, unitOffset);
        QCOMPARE(d.unitSize, unitSize);
        QCOMPARE(d.item, item);
        QCOMPARE(d.index, index);
        QVERIFY(!d.explanation.isEmpty());
        QVERIFY(d.regionOffset <= offset && offset < d.regionOffset + d.regionSize);
        QVERIFY(d.unitOffset <= offset && offset < d.unitOffset + d.unitSize);
    }

    void shadesFollowTheByteMap()
    {
        // every byte gets its region's category
        const uint64_t size = m_file->fileSize();
        std::vector<HexAnnotator::Shade> shades(size);
        m_annotator->shades(0, size, shades.data());
        for (const Region &r : m_annotator->byteMap().regions())
            for (uint64_t o = r.offset; o < r.end(); ++o)
                QCOMPARE(shades[o].category, HexAnnotator::categoryOf(r.kind));
        // block fields are told apart: Q4_K d, dmin, scales, qs are fields 1..4; blocks alternate
        const TensorLayout &q4k = *m_built->layout().tensor("blk.0.ffn.weight");
        const uint64_t at = q4k.dataOffset;
        QCOMPARE(shades[at].field, uint8_t(1));
        QCOMPARE(shades[at + 2].field, uint8_t(2));
        QCOMPARE(shades[at + 4].field, uint8_t(3));
        QCOMPARE(shades[at + 16].field, uint8_t(4));
        QVERIFY(!shades[at].odd);
        QVERIFY(shades[at + 144].odd);
        // plain elements and array elements alternate too
        const uint64_t f32 = m_built->layout().tensor("blk.0.attn_norm.weight")->dataOffset;
        QCOMPARE(shades[f32].field, uint8_t(0));
        QVERIFY(!shades[f32 + 3].odd);
        QVERIFY(shades[f32 + 4].odd);
        const KvLayout &arr = *m_built->layout().kv("arr_string");
        QVERIFY(!shades[arr.elementOffsets[0]].odd);
        QVERIFY(shades[arr.elementOffsets[1] + 3].odd);
        QVERIFY(!shades[arr.elementOffsets[2] + 9].odd);
        // the I2_S trailer has a field of its own
        QCOMPARE(shades[m_built->layout().tensor("bitnet.weight")->dataOffset + 64].field, uint8_t(8));
    }

    void coloursAreDistinct_data()
    {
        QTest::addColumn<QPalette>("palette");
        QPalette light;
        light.setColor(QPalette::Base, Qt::white);
        light.setColor(QPalette::Text, Qt::black);
        QPalette dark;
        dark.setColor(QPalette::Base, QColor(0x23, 0x26, 0x29));
        dark.setColor(QPalette::Text, QColor(0xfc, 0xfc, 0xfc));
        QTest::newRow("light") << light;
        QTest::newRow("dark") << dark;
    }

    void coloursAreDistinct()
    {
        QFETCH(QPalette, palette);
        const HexColors colors(palette);
        QSet<QRgb> seen;
        for (int c = 0; c < HexAnnotator::kCategoryCount; ++c) {
            const auto category = HexAnnotator::Category(c);
            for (const bool odd : {false, true}) {
                const QColor bg = colors.background({category, 0, odd});
                // text stays readable: clearly lighter or darker than every background (padding's
                // text is dimmed on purpose, a little less so)
                const double contrast = category == HexAnnotator::Category::Padding ? 0.3 : 0.5;
                QVERIFY2(qAbs(bg.lightnessF() - colors.text(category).lightnessF()) > contrast,
                         qPrintable(HexAnnotator::categoryName(category)));
                QVERIFY2(!seen.contains(bg.rgb()), qPrintable(HexAnnotator::categoryName(category)));
                seen.insert(bg.rgb());
            }
        }
        for (int f = 1; f <= 8; ++f)
            QVERIFY(!seen.contains(colors.background({HexAnnotator::Category::TensorData, uint8_t(f), false}).rgb()));
    }

    void inspectorDecodes_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("swapped");
        QTest::addColumn<QStringList>("values"); // u8 i8 u16 i16 u32 i32 u64 i64 f16 bf16 f32 f64
        QTest::newRow("f64 one, little-endian")
            << QByteArray::fromHex("000000000000f03f") << false
            << QStringList{"0", "0", "0", "0", "0", "0", "4607182418800017408", "4607182418800017408",
                           "0", "0", "0", "1"};
        QTest::newRow("f16 one and negative bytes")
            << QByteArray::fromHex("003cffff") << false
            << QStringList{"0", "0", "15360", "15360", "4294917120", "-50176", "—", "—", "1", "0.0078125", "-nan", "—"};
        QTest::newRow("big-endian") << QByteArray::fromHex("3f800000") << true
                                    << QStringList{"63", "63", "16256", "16256", "1065353216", "1065353216",
                                                   "—",  "—",  "1.875", "1",     "1",          "—"};
        QTest::newRow("nothing") << QByteArray() << false << QStringList(12, QStringLiteral("—"));
    }

    void inspectorDecodes()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, swapped);
        QFETCH(QStringList, values);
        const auto rows =
            HexInspector::decode({reinterpret_cast<const uint8_t *>(bytes.data()), size_t(bytes.size())}, swapped);
        QStringList got;
        for (const auto &row : rows)
            got << row.second;
        QCOMPARE(got.size(), 12);
        for (int i = 0; i < 12; ++i)
            if (values[i] != QLatin1String("-nan"))
                QCOMPARE(got[i], values[i]);
    }

    void paintsColouredBytes()
    {
        HexPage page;
        QVERIFY(showReady(page, m_model, QSize(1100, 500)));
        HexView *view = page.view();
        view->setCursorOffset(200); // away from the bytes sampled
        const QImage image = view->viewport()->grab().toImage();
        const HexColors colors(view->palette());
        // a corner of the magic's first byte and of the version's first byte
        const auto corner = [&](uint64_t offset) {
            return image.pixel(view->layout().byteRect(offset, HexLayout::Area::Hex, 0).topLeft() + QPoint(1, 1));
        };
        QCOMPARE(corner(0), colors.background({HexAnnotator::Category::Magic, 0, false}).rgb());
        QCOMPARE(corner(4), colors.background({HexAnnotator::Category::Version, 0, false}).rgb());
        QVERIFY(corner(0) != corner(4));
    }

    void sparse30GigabyteFileJumpsToItsLastByteAtOnce()
    {
        // a valid header whose one tensor claims 30 GiB, then the file extended as a hole
        constexpr uint64_t kRows = (uint64_t(30) << 30) / 4096;
        BuiltFile built = GgufBuilder()
                              .kv("general.architecture", V::str("llama"))
                              .tensor("huge.weight", {1024, 1}, id(GgmlType::F32))
                              .build();
        built.setTensorDim(0, 1, kRows);
        const uint64_t dataOffset = built.layout().dataOffset;
        const uint64_t fileSize = dataOffset + kRows * 4096;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("huge.gguf"));
        {
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write(reinterpret_cast<const char *>(built.bytes().data()), qint64(dataOffset));
            QVERIFY(out.resize(qint64(fileSize))); // `truncate -s`: no bytes written
        }
        const OpenResult opened = GgufFile::open(path.toStdString());
        QVERIFY(opened.file && opened.file->complete());
        QCOMPARE(opened.file->tensors()[0].byteSize, kRows * 4096);

        HexPage page;
        page.resize(1100, 600);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setModel(SplitModel::single(opened.file));
        QVERIFY(waitReady(page));
        HexView *view = page.view();
        for (const int bytesPerRow : {16, 8}) {
            view->setBytesPerRow(bytesPerRow);
            QElapsedTimer timer;
            timer.start();
            QVERIFY(page.goTo(QStringLiteral("end-1")));
            view->viewport()->repaint();
            const qint64 ms = timer.elapsed();
            qInfo("bytes per row %d: go to the last byte and paint: %lld ms", bytesPerRow, ms);
            QVERIFY2(ms < 1000, qPrintable(QString::number(ms)));
            QCOMPARE(view->cursorOffset(), fileSize - 1);
            QCOMPARE(view->topRow(), view->layout().maxTopRow(view->viewport()->height()));
            QCOMPARE(view->verticalScrollBar()->value(), view->verticalScrollBar()->maximum());
        }
        // 3.75 billion rows at 8 per row: the scroll bar is scaled to ints
        QCOMPARE(view->verticalScrollBar()->maximum(), INT_MAX);
        QVERIFY(page.inspector()->labelText().startsWith(QStringLiteral("F32 element 8053063679 of `huge.weight`")));
        // dragging the scroll bar half-way lands half-way through the rows
        view->verticalScrollBar()->setValue(INT_MAX / 2);
        const double share = double(view->topRow()) / double(view->layout().maxTopRow(view->viewport()->height()));
        QVERIFY(qAbs(share - 0.5) < 1e-6);
        view->viewport()->repaint();
        // a search through 30 GB runs on a worker and can be cancelled
        QSignalSpy finished(&page, &HexPage::searchFinished);
        QVERIFY(page.goTo(QStringLiteral("0")));
        auto *search = page.findChild<HexSearch *>();
        QVERIFY(search);
        QSignalSpy searchProgress(search, &HexSearch::progressChanged);
        QVERIFY(page.find(QStringLiteral("de ad be ef"), true, SearchDirection::Forward));
        QVERIFY(page.isSearching());
        QVERIFY(searchProgress.wait(10000)); // the worker is reading the file
        page.cancelSearch();
        QVERIFY(!page.isSearching());
        QCOMPARE(page.messageText(), QStringLiteral("Search cancelled"));
        QVERIFY(gguf::test::settlePool(JobTracker::pool()));
        QCOMPARE(finished.count(), 0);
        if (!gguf::test::screenshotDir().isEmpty()) {
            QVERIFY(page.goTo(QStringLiteral("end-1")));
            QVERIFY(gguf::test::saveScreenshot(page, QStringLiteral("hex-sparse-30g-end")));
        }
    }

    void sampleReadsLikeAnAnnotatedWalkThrough()
    {
        const std::shared_ptr<const GgufFile> sample = GgufFile::open(gguf::test::sampleModel().toStdString()).file;
        QVERIFY(sample);
        HexPage page;
        page.resize(1200, 640);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        page.setModel(SplitModel::single(sample));
        QVERIFY(waitReady(page));
        const HexAnnotator &a = *page.annotator();
        // each row names the fields that start in it, as the ggml blog's walk through mnist-fc-f32.gguf does
        const QStringList rows = {
            QStringLiteral("magic · version 3 · tensor_count 38"),
            QStringLiteral("kv_count 25 · key #0 length 20"),
            QStringLiteral("\"tokenizer.ggml.model\""),
            QStringLiteral("type STRING · = \"llama\""),
        };
        for (int r = 0; r < rows.size(); ++r)
            QCOMPARE(HexNotes::forRow(a, uint64_t(r) * 16, uint64_t(r + 1) * 16, 200), rows[r]);
        QCOMPARE(page.inspector()->labelText(), QStringLiteral("magic \"GGUF\""));
        if (gguf::test::screenshotDir().isEmpty())
            return;
        const auto shot = [&](const QString &name) {
            QVERIFY(gguf::test::saveScreenshot(page, QStringLiteral("hex-") + name));
        };
        shot(QStringLiteral("header"));
        QVERIFY(page.goTo(QStringLiteral("0x90")));
        shot(QStringLiteral("tokens"));
        page.showTensor({0, 1});
        page.goToTensorData();
        shot(QStringLiteral("q4k-data"));
        page.setPalette(gguf::test::breezeDarkPalette());
        QVERIFY(page.goTo(QStringLiteral("0")));
        shot(QStringLiteral("header-dark"));
    }

private:
    std::unique_ptr<BuiltFile> m_built;
    std::shared_ptr<const GgufFile> m_file;
    std::shared_ptr<const SplitModel> m_model;
    std::unique_ptr<HexAnnotator> m_annotator;
};

QTEST_MAIN(TestHexView)
#include "tst_hex_view.moc"
