// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_layout.h"

#include <algorithm>

namespace {

__extension__ typedef unsigned __int128 Wide;

// a * b / c without overflow, rounded down or up; c > 0 and the result fits 64 bits.
uint64_t mulDiv(uint64_t a, uint64_t b, uint64_t c, bool roundUp)
{
    const Wide product = Wide(a) * b;
    return uint64_t((product + (roundUp ? c - 1 : 0)) / c);
}

// Chars from the start of the hex column to byte `column`'s first digit: 3 per byte, 1 per group of 8.
int hexChars(int column)
{
    return column * 3 + column / 8;
}

} // namespace

void HexLayout::setCharSize(int width, int lineHeight)
{
    m_charWidth = std::max(1, width);
    m_lineHeight = std::max(1, lineHeight);
}

uint64_t HexLayout::rowCount() const
{
    const uint64_t bpr = uint64_t(m_bytesPerRow);
    return m_fileSize / bpr + (m_fileSize % bpr != 0 ? 1 : 0);
}

int HexLayout::visibleRowCount(int height) const
{
    return std::max(0, (height + m_lineHeight - 1) / m_lineHeight);
}

int HexLayout::fullRowCount(int height) const
{
    return std::max(1, height / m_lineHeight);
}

std::pair<uint64_t, uint64_t> HexLayout::visibleBytes(uint64_t topRow, int height) const
{
    const uint64_t rows = rowCount();
    const uint64_t first = std::min(topRow, rows);
    const uint64_t last = std::min(rows, first + uint64_t(visibleRowCount(height)));
    return {std::min(m_fileSize, rowStart(first)), std::min(m_fileSize, rowStart(last))};
}

uint64_t HexLayout::maxTopRow(int height) const
{
    const uint64_t rows = rowCount();
    const uint64_t full = uint64_t(fullRowCount(height));
    return rows > full ? rows - full : 0;
}

uint64_t HexLayout::topRowToShow(uint64_t offset, uint64_t topRow, int height) const
{
    const uint64_t row = rowOf(offset);
    const uint64_t full = uint64_t(fullRowCount(height));
    uint64_t top = topRow;
    if (row < topRow)
        top = row;
    else if (row >= topRow + full)
        top = row - full + 1;
    return std::min(top, maxTopRow(height));
}

int HexLayout::offsetDigits() const
{
    int digits = 1;
    for (uint64_t last = m_fileSize > 0 ? m_fileSize - 1 : 0; last >= 16; last >>= 4)
        ++digits;
    return std::max(8, digits);
}

int HexLayout::hexX(int column) const
{
    return offsetX() + (offsetDigits() + 2 + hexChars(column)) * m_charWidth;
}

int HexLayout::textX(int column) const
{
    // the hex column's width, then two spaces
    const int hexWidth = hexChars(m_bytesPerRow - 1) + 2;
    return hexX(0) + (hexWidth + 2 + column) * m_charWidth;
}

int HexLayout::notesX() const
{
    return textX(m_bytesPerRow) + 2 * m_charWidth;
}

int HexLayout::contentWidth(int notesChars) const
{
    if (notesChars <= 0)
        return textX(m_bytesPerRow) + offsetX();
    return notesX() + notesChars * m_charWidth + offsetX();
}

HexLayout::Hit HexLayout::hitTest(QPoint point, uint64_t topRow) const
{
    Hit hit;
    if (m_fileSize == 0)
        return hit;
    // rows above the viewport (negative y, while dragging) count too
    const int64_t rowDelta =
        point.y() >= 0 ? point.y() / m_lineHeight : -((m_lineHeight - 1 - point.y()) / m_lineHeight);
    const uint64_t lastRow = rowCount() - 1;
    uint64_t row;
    if (rowDelta < 0)
        row = uint64_t(-rowDelta) > topRow ? 0 : topRow - uint64_t(-rowDelta);
    else
        row = std::min(lastRow, topRow + uint64_t(rowDelta));
    const bool belowLast = rowDelta >= 0 && topRow + uint64_t(rowDelta) > lastRow;

    int column = 0;
    const int x = point.x();
    if (x < hexX(0) - m_charWidth) {
        hit.area = Area::Offset;
    } else if (x < textX(0) - m_charWidth) {
        hit.area = Area::Hex;
        column = m_bytesPerRow - 1;
        // a byte's cell runs from its first digit to the next byte's first digit
        for (int c = 0; c + 1 < m_bytesPerRow; ++c) {
            if (x < hexX(c + 1) - m_charWidth / 2) {
                column = c;
                break;
            }
        }
    } else if (x < notesX() - m_charWidth) {
        hit.area = Area::Text;
        column = std::clamp((x - textX(0)) / m_charWidth, 0, m_bytesPerRow - 1);
    } else {
        hit.area = Area::Notes;
    }
    const uint64_t offset = rowStart(row) + uint64_t(column);
    hit.pastEnd = belowLast || offset >= m_fileSize;
    hit.offset = std::min(offset, m_fileSize - 1);
    if (belowLast)
        hit.offset = m_fileSize - 1;
    return hit;
}

QList<QRect> HexLayout::selectionRects(uint64_t begin, uint64_t end, Area area, uint64_t topRow, int height) const
{
    QList<QRect> rects;
    end = std::min(end, m_fileSize);
    if (begin >= end || (area != Area::Hex && area != Area::Text))
        return rects;
    const uint64_t firstRow = rowOf(begin), lastRow = rowOf(end - 1);
    const int visible = visibleRowCount(height);
    if (visible == 0 || lastRow < topRow || firstRow >= topRow + uint64_t(visible))
        return rects;
    const uint64_t r0 = std::max(firstRow, topRow);
    const uint64_t r1 = std::min(lastRow, topRow + uint64_t(visible) - 1);
    bool previousFull = false;
    for (uint64_t r = r0; r <= r1; ++r) {
        const int c0 = r == firstRow ? columnOf(begin) : 0;
        const int c1 = r == lastRow ? columnOf(end - 1) : m_bytesPerRow - 1;
        const int x0 = area == Area::Hex ? hexX(c0) : textX(c0);
        const int x1 = area == Area::Hex ? hexX(c1) + 2 * m_charWidth : textX(c1 + 1);
        const QRect rect(x0, int(r - topRow) * m_lineHeight, x1 - x0, m_lineHeight);
        // a run of full rows becomes one rectangle
        const bool full = c0 == 0 && c1 == m_bytesPerRow - 1;
        if (full && previousFull)
            rects.last().setBottom(rect.bottom());
        else
            rects << rect;
        previousFull = full;
    }
    return rects;
}

QRect HexLayout::byteRect(uint64_t offset, Area area, uint64_t topRow) const
{
    const uint64_t row = rowOf(offset);
    const int64_t delta = row >= topRow ? int64_t(std::min<uint64_t>(row - topRow, 1u << 20))
                                        : -int64_t(std::min<uint64_t>(topRow - row, 1u << 20));
    const int y = int(delta) * m_lineHeight;
    const int column = columnOf(offset);
    if (area == Area::Text)
        return QRect(textX(column), y, m_charWidth, m_lineHeight);
    return QRect(hexX(column), y, 2 * m_charWidth, m_lineHeight);
}

bool HexLayout::scrollScaled(int height) const
{
    return maxTopRow(height) > uint64_t(m_scrollLimit);
}

int HexLayout::scrollMaximum(int height) const
{
    return scrollScaled(height) ? m_scrollLimit : int(maxTopRow(height));
}

uint64_t HexLayout::rowForScrollValue(int value, int height) const
{
    const uint64_t maxTop = maxTopRow(height);
    const uint64_t v = uint64_t(std::clamp(value, 0, scrollMaximum(height)));
    if (!scrollScaled(height))
        return v;
    // rounding up makes scrollValueForRow(rowForScrollValue(v)) == v
    return mulDiv(v, maxTop, uint64_t(m_scrollLimit), true);
}

int HexLayout::scrollValueForRow(uint64_t topRow, int height) const
{
    const uint64_t maxTop = maxTopRow(height);
    const uint64_t row = std::min(topRow, maxTop);
    if (!scrollScaled(height))
        return int(row);
    return int(mulDiv(row, uint64_t(m_scrollLimit), maxTop, false));
}
