// SPDX-License-Identifier: GPL-3.0-or-later
// HexLayout: offset ↔ row/column, visible ranges, hit testing, selection rectangles and the
// scroll-bar mapping, for 8/16/32 bytes per row and 64-bit offsets (2^40 and beyond), without a widget.
#include "ui/hex/hex_layout.h"

#include <QtTest>

#include <climits>

namespace {

constexpr int kCharWidth = 8;
constexpr int kLineHeight = 16;
constexpr quint64 kTiB = quint64(1) << 40;

HexLayout layout(uint64_t fileSize, int bytesPerRow)
{
    HexLayout l;
    l.setFileSize(fileSize);
    l.setBytesPerRow(bytesPerRow);
    l.setCharSize(kCharWidth, kLineHeight);
    return l;
}

// A span of one row: row, first and last column (inclusive).
struct Span {
    quint64 firstRow, lastRow;
    int firstColumn, lastColumn;
};

} // namespace

Q_DECLARE_METATYPE(HexLayout::Area)
Q_DECLARE_METATYPE(QList<Span>)

class TestHexLayout : public QObject {
    Q_OBJECT

private slots:
    void rowsAndColumns_data()
    {
        QTest::addColumn<quint64>("fileSize");
        QTest::addColumn<int>("bytesPerRow");
        QTest::addColumn<quint64>("offset");
        QTest::addColumn<quint64>("row");
        QTest::addColumn<int>("column");
        QTest::addColumn<quint64>("rowCount");
        QTest::newRow("first byte, 16") << quint64(100) << 16 << quint64(0) << quint64(0) << 0 << quint64(7);
        QTest::newRow("end of a row, 8") << quint64(100) << 8 << quint64(15) << quint64(1) << 7 << quint64(13);
        QTest::newRow("exact rows, 32") << quint64(64) << 32 << quint64(63) << quint64(1) << 31 << quint64(2);
        QTest::newRow("2^40 + 17, 16") << kTiB * 2 << 16 << kTiB + 17 << kTiB / 16 + 1 << 1 << kTiB / 8;
        QTest::newRow("2^40 + 17, 8") << kTiB * 2 << 8 << kTiB + 17 << kTiB / 8 + 2 << 1 << kTiB / 4;
        QTest::newRow("2^40 + 17, 32") << kTiB * 2 << 32 << kTiB + 17 << kTiB / 32 << 17 << kTiB / 16;
        QTest::newRow("last byte of 100 GB, 8")
            << quint64(100) * (1 << 30) << 8 << quint64(100) * (1 << 30) - 1 << quint64(100) * (1 << 30) / 8 - 1 << 7
            << quint64(100) * (1 << 30) / 8;
        QTest::newRow("empty file") << quint64(0) << 16 << quint64(0) << quint64(0) << 0 << quint64(0);
    }

    void rowsAndColumns()
    {
        QFETCH(quint64, fileSize);
        QFETCH(int, bytesPerRow);
        QFETCH(quint64, offset);
        QFETCH(quint64, row);
        QFETCH(int, column);
        QFETCH(quint64, rowCount);
        const HexLayout l = layout(fileSize, bytesPerRow);
        QCOMPARE(l.rowOf(offset), row);
        QCOMPARE(l.columnOf(offset), column);
        QCOMPARE(l.rowStart(row) + quint64(column), offset);
        QCOMPARE(l.rowCount(), rowCount);
    }

    void visibleBytes_data()
    {
        QTest::addColumn<quint64>("fileSize");
        QTest::addColumn<int>("bytesPerRow");
        QTest::addColumn<quint64>("topRow");
        QTest::addColumn<int>("height");
        QTest::addColumn<quint64>("begin");
        QTest::addColumn<quint64>("end");
        QTest::newRow("top, 10 rows") << quint64(10000) << 16 << quint64(0) << 160 << quint64(0) << quint64(160);
        QTest::newRow("partly visible last row counts")
            << quint64(10000) << 16 << quint64(2) << 170 << quint64(32) << quint64(32 + 11 * 16);
        QTest::newRow("cut at the end of the file")
            << quint64(100) << 32 << quint64(2) << 320 << quint64(64) << quint64(100);
        QTest::newRow("near 2^43, 8 per row") << kTiB * 16 << 8 << kTiB << 32 << kTiB * 8 << kTiB * 8 + 16;
        QTest::newRow("top past the rows") << quint64(64) << 16 << quint64(99) << 160 << quint64(64) << quint64(64);
    }

    void visibleBytes()
    {
        QFETCH(quint64, fileSize);
        QFETCH(int, bytesPerRow);
        QFETCH(quint64, topRow);
        QFETCH(int, height);
        QFETCH(quint64, begin);
        QFETCH(quint64, end);
        const auto range = layout(fileSize, bytesPerRow).visibleBytes(topRow, height);
        QCOMPARE(range.first, begin);
        QCOMPARE(range.second, end);
    }

    void topRowToShow_data()
    {
        QTest::addColumn<quint64>("offset");
        QTest::addColumn<quint64>("topRow");
        QTest::addColumn<quint64>("expected");
        // 16 bytes per row, 10 full rows in view, 1000 rows in the file
        QTest::newRow("already visible") << quint64(16 * 5) << quint64(0) << quint64(0);
        QTest::newRow("above") << quint64(16 * 3) << quint64(20) << quint64(3);
        QTest::newRow("below: last row of the view") << quint64(16 * 50) << quint64(0) << quint64(41);
        QTest::newRow("last byte: clamped to the last page") << quint64(16000 - 1) << quint64(0) << quint64(990);
    }

    void topRowToShow()
    {
        QFETCH(quint64, offset);
        QFETCH(quint64, topRow);
        QFETCH(quint64, expected);
        QCOMPARE(layout(16000, 16).topRowToShow(offset, topRow, 10 * kLineHeight), expected);
    }

    void offsetDigits_data()
    {
        QTest::addColumn<quint64>("fileSize");
        QTest::addColumn<int>("digits");
        QTest::newRow("small") << quint64(100) << 8;
        QTest::newRow("4 GiB") << (quint64(1) << 32) << 8;
        QTest::newRow("4 GiB + 1") << (quint64(1) << 32) + 1 << 9;
        QTest::newRow("30 GB") << quint64(30) * (1 << 30) << 9;
        QTest::newRow("2^40") << kTiB << 10;
        QTest::newRow("2^40 + 1") << kTiB + 1 << 11;
    }

    void offsetDigits()
    {
        QFETCH(quint64, fileSize);
        QFETCH(int, digits);
        QCOMPARE(layout(fileSize, 16).offsetDigits(), digits);
    }

    void hitTest_data()
    {
        QTest::addColumn<int>("bytesPerRow");
        QTest::addColumn<HexLayout::Area>("area");
        QTest::addColumn<int>("column");
        QTest::addColumn<int>("dx");        // pixels right of the column's first character
        QTest::addColumn<int>("rowInView"); // may be negative (dragging above the view)
        QTest::addColumn<quint64>("offset");
        QTest::addColumn<bool>("pastEnd");
        // the view's top row is 2^40 / 16: byte 2^40 at 16 per row, 2^39 at 8, 2^41 at 32
        const quint64 base = kTiB;
        QTest::newRow("hex digit") << 16 << HexLayout::Area::Hex << 3 << 1 << 2 << base + 32 + 3 << false;
        QTest::newRow("space after a byte belongs to it")
            << 16 << HexLayout::Area::Hex << 3 << 2 * kCharWidth + 2 << 0 << base + 3 << false;
        QTest::newRow("group gap belongs to byte 7")
            << 16 << HexLayout::Area::Hex << 7 << 3 * kCharWidth << 0 << base + 7 << false;
        QTest::newRow("text column") << 16 << HexLayout::Area::Text << 9 << 3 << 1 << base + 16 + 9 << false;
        QTest::newRow("last hex byte, 32 per row")
            << 32 << HexLayout::Area::Hex << 31 << 4 << 0 << kTiB * 2 + 31 << false;
        QTest::newRow("text, 8 per row") << 8 << HexLayout::Area::Text << 7 << 0 << 3 << kTiB / 2 + 24 + 7 << false;
        QTest::newRow("row above the view") << 16 << HexLayout::Area::Hex << 0 << 0 << -1 << base - 16 << false;
    }

    void hitTest()
    {
        QFETCH(int, bytesPerRow);
        QFETCH(HexLayout::Area, area);
        QFETCH(int, column);
        QFETCH(int, dx);
        QFETCH(int, rowInView);
        QFETCH(quint64, offset);
        QFETCH(bool, pastEnd);
        const HexLayout l = layout(kTiB * 4, bytesPerRow);
        const quint64 topRow = kTiB / 16;
        const int x = (area == HexLayout::Area::Hex ? l.hexX(column) : l.textX(column)) + dx;
        const HexLayout::Hit hit = l.hitTest(QPoint(x, rowInView * kLineHeight + 3), topRow);
        QCOMPARE(hit.area, area);
        QCOMPARE(hit.offset, offset);
        QCOMPARE(hit.pastEnd, pastEnd);
        // the byte's own cell contains the point
        QVERIFY(l.byteRect(hit.offset, area, topRow)
                    .adjusted(-kCharWidth, 0, kCharWidth * 2, 0)
                    .contains(QPoint(x, rowInView * kLineHeight + 3)));
    }

    void hitPastTheEnd()
    {
        const HexLayout l = layout(20, 16); // row 1 holds bytes 16..19
        HexLayout::Hit hit = l.hitTest(QPoint(l.hexX(10), kLineHeight + 2), 0);
        QVERIFY(hit.pastEnd);
        QCOMPARE(hit.offset, quint64(19));
        hit = l.hitTest(QPoint(l.hexX(2), 5 * kLineHeight), 0);
        QVERIFY(hit.pastEnd);
        QCOMPARE(hit.offset, quint64(19));
        QCOMPARE(l.hitTest(QPoint(0, 0), 0).area, HexLayout::Area::Offset);
        QCOMPARE(l.hitTest(QPoint(l.notesX() + 5, 0), 0).area, HexLayout::Area::Notes);
    }

    void selectionRects_data()
    {
        QTest::addColumn<int>("bytesPerRow");
        QTest::addColumn<quint64>("begin");
        QTest::addColumn<quint64>("end");
        QTest::addColumn<quint64>("topRow");
        QTest::addColumn<QList<Span>>("spans");
        QTest::newRow("inside one row") << 16 << quint64(3) << quint64(7) << quint64(0) << QList<Span>{{0, 0, 3, 6}};
        QTest::newRow("partial, full rows, partial") << 16 << quint64(5) << quint64(16 * 4 + 2) << quint64(0)
                                                     << QList<Span>{{0, 0, 5, 15}, {1, 3, 0, 15}, {4, 4, 0, 1}};
        QTest::newRow("whole rows are one rectangle")
            << 8 << quint64(8) << quint64(40) << quint64(0) << QList<Span>{{1, 4, 0, 7}};
        QTest::newRow("clipped to the view")
            << 32 << quint64(0) << quint64(32 * 1000) << quint64(100) << QList<Span>{{100, 109, 0, 31}};
        QTest::newRow("starts above the view, ends inside") << 16 << quint64(0) << quint64(16 * 102 + 4) << quint64(100)
                                                            << QList<Span>{{100, 101, 0, 15}, {102, 102, 0, 3}};
        QTest::newRow("not visible") << 16 << quint64(0) << quint64(16) << quint64(5) << QList<Span>{};
        QTest::newRow("empty") << 16 << quint64(9) << quint64(9) << quint64(0) << QList<Span>{};
        QTest::newRow("near 2^40") << 16 << kTiB + 14 << kTiB + 18 << kTiB / 16
                                   << QList<Span>{{kTiB / 16, kTiB / 16, 14, 15}, {kTiB / 16 + 1, kTiB / 16 + 1, 0, 1}};
    }

    void selectionRects()
    {
        QFETCH(int, bytesPerRow);
        QFETCH(quint64, begin);
        QFETCH(quint64, end);
        QFETCH(quint64, topRow);
        QFETCH(QList<Span>, spans);
        const HexLayout l = layout(kTiB * 2, bytesPerRow);
        const int height = 10 * kLineHeight;
        for (const HexLayout::Area area : {HexLayout::Area::Hex, HexLayout::Area::Text}) {
            QList<QRect> expected;
            for (const Span &s : spans) {
                const int left = area == HexLayout::Area::Hex ? l.hexX(s.firstColumn) : l.textX(s.firstColumn);
                const int right =
                    area == HexLayout::Area::Hex ? l.hexX(s.lastColumn) + 2 * kCharWidth : l.textX(s.lastColumn + 1);
                expected << QRect(QPoint(left, int(s.firstRow - topRow) * kLineHeight),
                                  QPoint(right - 1, int(s.lastRow - topRow + 1) * kLineHeight - 1));
            }
            QCOMPARE(l.selectionRects(begin, end, area, topRow, height), expected);
        }
    }

    void scrollBarMapping_data()
    {
        QTest::addColumn<quint64>("fileSize");
        QTest::addColumn<int>("bytesPerRow");
        QTest::addColumn<int>("limit");
        QTest::addColumn<bool>("scaled");
        QTest::newRow("small file: value is the row") << quint64(100000) << 16 << INT_MAX << false;
        QTest::newRow("100 GB at 8 per row: more rows than INT_MAX")
            << quint64(100) * (1 << 30) << 8 << INT_MAX << true;
        QTest::newRow("2^40 at 16 per row") << kTiB << 16 << INT_MAX << true;
        QTest::newRow("2^62 at 32 per row") << (quint64(1) << 62) << 32 << INT_MAX << true;
        QTest::newRow("small limit, barely scaled") << quint64(16 * 1011) << 16 << 1000 << true;
    }

    void scrollBarMapping()
    {
        QFETCH(quint64, fileSize);
        QFETCH(int, bytesPerRow);
        QFETCH(int, limit);
        QFETCH(bool, scaled);
        HexLayout l = layout(fileSize, bytesPerRow);
        l.setScrollLimit(limit);
        const int height = 10 * kLineHeight;
        const quint64 maxTop = l.maxTopRow(height);
        QCOMPARE(maxTop, l.rowCount() - 10);
        QCOMPARE(l.scrollScaled(height), scaled);
        const int maximum = l.scrollMaximum(height);
        QVERIFY(maximum <= limit);
        QCOMPARE(l.rowForScrollValue(0, height), quint64(0));
        QCOMPARE(l.rowForScrollValue(maximum, height), maxTop);
        QCOMPARE(l.scrollValueForRow(maxTop, height), maximum);
        QCOMPARE(l.scrollValueForRow(maxTop + 1000, height), maximum); // past the end: clamped
        quint64 previous = 0;
        for (const int value : {1, 2, maximum / 3, maximum / 2, maximum - 1}) {
            const quint64 row = l.rowForScrollValue(value, height);
            QVERIFY(row >= previous); // monotonic
            previous = row;
            QCOMPARE(l.scrollValueForRow(row, height), value); // no drift when the bar is set from a row
            if (!scaled)
                QCOMPARE(row, quint64(value));
        }
        // any row maps to a value whose row is at or before it, within one value's worth of rows
        for (const quint64 row : {quint64(1), maxTop / 7, maxTop / 2 + 3, maxTop - 1}) {
            const int value = l.scrollValueForRow(row, height);
            QVERIFY(l.rowForScrollValue(value, height) <= row);
            QVERIFY(value == maximum || l.rowForScrollValue(value + 1, height) > row);
        }
    }

    void geometryGrowsWithBytesPerRow()
    {
        for (const int bpr : {8, 16, 32}) {
            const HexLayout l = layout(1000, bpr);
            QVERIFY(l.hexX(0) > l.offsetX());
            QCOMPARE(l.hexX(8) - l.hexX(7), 4 * kCharWidth); // an extra space after each group of 8
            QCOMPARE(l.hexX(1) - l.hexX(0), 3 * kCharWidth);
            QVERIFY(l.textX(0) > l.hexX(bpr - 1) + 2 * kCharWidth);
            QCOMPARE(l.textX(bpr - 1) - l.textX(0), (bpr - 1) * kCharWidth);
            QVERIFY(l.notesX() > l.textX(bpr - 1));
            QVERIFY(l.contentWidth(10) > l.contentWidth(0));
        }
    }
};

QTEST_GUILESS_MAIN(TestHexLayout)
#include "tst_hex_layout.moc"
