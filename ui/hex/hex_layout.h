// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QPoint>
#include <QRect>

#include <cstdint>

/// The geometry of the hex view, without a widget (Okteta's split of layout and painting): rows of
/// `bytesPerRow` bytes, each painted as an offset column, a hex column (two digits and a space per
/// byte, one more space after every group of 8), a text column (one character per byte) and an
/// annotation column. Offsets are 64-bit; the top of the viewport is a row number; pixel
/// coordinates are viewport coordinates. The scroll bar is an int, so when there are more rows
/// than it can count it is scaled: its value maps onto rows proportionally.
class HexLayout {
public:
    enum class Area { None, Offset, Hex, Text, Notes };

    /// Where a point falls: the area and the byte under it (clamped to the last byte).
    struct Hit {
        Area area = Area::None;
        uint64_t offset = 0;
        bool pastEnd = false; ///< the point lies after the last byte of the file
    };

    void setFileSize(uint64_t size) { m_fileSize = size; }
    uint64_t fileSize() const { return m_fileSize; }
    /// 8, 16 or 32 (any value ≥ 1 works).
    void setBytesPerRow(int bytes) { m_bytesPerRow = bytes < 1 ? 1 : bytes; }
    int bytesPerRow() const { return m_bytesPerRow; }
    /// The cell of one character of the fixed font.
    void setCharSize(int width, int lineHeight);
    int charWidth() const { return m_charWidth; }
    int lineHeight() const { return m_lineHeight; }
    /// Scroll-bar range limit (INT_MAX in the widget; smaller in tests).
    void setScrollLimit(int limit) { m_scrollLimit = limit < 1 ? 1 : limit; }

    // --- rows and columns
    uint64_t rowCount() const;
    uint64_t rowOf(uint64_t offset) const { return offset / uint64_t(m_bytesPerRow); }
    int columnOf(uint64_t offset) const { return int(offset % uint64_t(m_bytesPerRow)); }
    uint64_t rowStart(uint64_t row) const { return row * uint64_t(m_bytesPerRow); }
    /// Rows that fit in `height` pixels, counting a partly visible last row.
    int visibleRowCount(int height) const;
    /// Rows that fit completely (at least 1).
    int fullRowCount(int height) const;
    /// Bytes [begin, end) painted when `topRow` is the first row of a viewport `height` high.
    std::pair<uint64_t, uint64_t> visibleBytes(uint64_t topRow, int height) const;
    /// The largest sensible top row: the last row at the bottom of the viewport.
    uint64_t maxTopRow(int height) const;
    /// The top row that shows `offset`, moving as little as possible from `topRow`.
    uint64_t topRowToShow(uint64_t offset, uint64_t topRow, int height) const;

    // --- horizontal geometry (pixels from the left edge of the content)
    /// Hex digits of the offset column: enough for the last offset, at least 8.
    int offsetDigits() const;
    int offsetX() const { return m_charWidth / 2; }
    int hexX(int column) const;
    int textX(int column) const;
    int notesX() const;
    /// Width of everything before the annotation column, and of everything with `notesChars` of it.
    int contentWidth(int notesChars) const;

    // --- hit testing and selection
    /// The byte under `point` when `topRow` is at the top (x already includes horizontal scrolling).
    Hit hitTest(QPoint point, uint64_t topRow) const;
    /// Rectangles covering bytes [begin, end) in `area` (Hex or Text) for the rows visible from
    /// `topRow` in a viewport `height` high: at most three (first partial row, full rows, last
    /// partial row). Empty when nothing of the range is visible.
    QList<QRect> selectionRects(uint64_t begin, uint64_t end, Area area, uint64_t topRow, int height) const;
    /// The cell of one byte in `area` (Hex: its two digits; Text: its character).
    QRect byteRect(uint64_t offset, Area area, uint64_t topRow) const;

    // --- the vertical scroll bar
    /// Maximum of the scroll bar: maxTopRow() when it fits the limit, else the limit.
    int scrollMaximum(int height) const;
    bool scrollScaled(int height) const;
    /// The top row for a scroll-bar value (exact when not scaled; value 0 and the maximum reach the
    /// first and last top row when scaled).
    uint64_t rowForScrollValue(int value, int height) const;
    /// The scroll-bar value showing `topRow`.
    int scrollValueForRow(uint64_t topRow, int height) const;

private:
    uint64_t m_fileSize = 0;
    int m_bytesPerRow = 16;
    int m_charWidth = 8;
    int m_lineHeight = 16;
    int m_scrollLimit = 2147483647;
};
