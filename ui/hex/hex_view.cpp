// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/hex/hex_view.h"
#include "ui/common/fixed_font.h"

#include "core/format/gguf_file.h"
#include "ui/hex/hex_annotator.h"
#include "ui/hex/hex_notes.h"

#include <QFontDatabase>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>

#include <algorithm>
#include <vector>

namespace {

// Characters of the annotation column that the horizontal scroll range reserves.
constexpr int kNotesChars = 72;
constexpr char kDigits[] = "0123456789abcdef";

bool sameShade(const HexAnnotator::Shade &a, const HexAnnotator::Shade &b)
{
    return a.category == b.category && a.field == b.field && a.odd == b.odd;
}

QChar printable(uint8_t byte)
{
    return byte >= 0x20 && byte < 0x7f ? QChar(byte) : QChar(u'.');
}

QString hexOffset(uint64_t offset, int digits)
{
    return QString::number(offset, 16).rightJustified(digits, u'0');
}

} // namespace

HexView::HexView(QWidget *parent) : QAbstractScrollArea(parent), m_colors(palette()), m_header(new QWidget(this))
{
    setFont(fixedFont());
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setCursor(Qt::IBeamCursor);
    m_header->installEventFilter(this);
    m_header->setAutoFillBackground(true);
    m_header->setBackgroundRole(QPalette::Window);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (m_settingScrollBar)
            return;
        m_topRow = m_layout.rowForScrollValue(value, viewport()->height());
        viewport()->update();
    });
    connect(horizontalScrollBar(), &QScrollBar::valueChanged, this, [this] {
        viewport()->update();
        m_header->update();
    });
    updateMetrics();
}

HexView::~HexView() = default;

void HexView::holdBytes(gguf::ByteLease bytes)
{
    // a failed fetch is not asked for again until the screen shows other rows
    m_held = std::move(bytes);
    viewport()->update();
}

void HexView::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    m_file = std::move(file);
    m_held = gguf::ByteLease();
    m_wanted = {0, 0};
    m_annotator.reset();
    m_layout.setFileSize(m_file ? m_file->fileSize() : 0);
    m_topRow = m_cursor = m_anchor = m_selBegin = m_selEnd = m_fieldBegin = m_fieldEnd = 0;
    updateMetrics();
    emit cursorMoved(0);
    emit selectionChanged(0, 0);
}

void HexView::setAnnotator(std::shared_ptr<const HexAnnotator> annotator)
{
    m_annotator = std::move(annotator);
    updateCursorField();
    viewport()->update();
}

void HexView::setBytesPerRow(int bytes)
{
    if (bytes == m_layout.bytesPerRow())
        return;
    m_layout.setBytesPerRow(bytes);
    updateScrollBars();
    setTopRow(m_layout.topRowToShow(m_cursor, m_layout.rowOf(m_cursor), viewport()->height()));
    m_header->update();
}

void HexView::setNotesVisible(bool visible)
{
    m_notesVisible = visible;
    updateScrollBars();
    viewport()->update();
    m_header->update();
}

void HexView::setCursorOffset(uint64_t offset)
{
    if (!m_file || m_file->fileSize() == 0)
        return;
    offset = std::min(offset, m_file->fileSize() - 1);
    // a jump puts the target a third down the viewport, so what precedes it shows too
    const uint64_t row = m_layout.rowOf(offset);
    const uint64_t full = uint64_t(m_layout.fullRowCount(viewport()->height()));
    if (row < m_topRow || row >= m_topRow + full)
        setTopRow(row > full / 3 ? row - full / 3 : 0);
    moveCursor(offset, false);
}

void HexView::select(uint64_t begin, uint64_t end)
{
    if (!m_file || m_file->fileSize() == 0)
        return;
    end = std::min(end, m_file->fileSize());
    begin = std::min(begin, end > 0 ? end - 1 : 0);
    setCursorOffset(begin);
    m_anchor = begin;
    m_selBegin = begin;
    m_selEnd = end;
    emit selectionChanged(m_selBegin, m_selEnd);
    viewport()->update();
}

void HexView::moveCursor(uint64_t offset, bool extend)
{
    if (!m_file || m_file->fileSize() == 0)
        return;
    offset = std::min(offset, m_file->fileSize() - 1);
    const auto before = selection();
    m_cursor = offset;
    if (extend) {
        m_selBegin = std::min(m_anchor, m_cursor);
        m_selEnd = std::max(m_anchor, m_cursor) + 1;
    } else {
        m_anchor = offset;
        m_selBegin = m_selEnd = offset;
    }
    setTopRow(m_layout.topRowToShow(offset, m_topRow, viewport()->height()));
    updateCursorField();
    viewport()->update();
    emit cursorMoved(m_cursor);
    if (selection() != before)
        emit selectionChanged(m_selBegin, m_selEnd);
}

void HexView::updateCursorField()
{
    m_fieldBegin = m_fieldEnd = 0;
    if (!m_annotator || !m_file || m_cursor >= m_file->fileSize())
        return;
    const HexAnnotator::Description d = m_annotator->describe(m_cursor);
    m_fieldBegin = d.unitOffset;
    m_fieldEnd = d.unitOffset + d.unitSize;
}

void HexView::setTopRow(uint64_t row)
{
    m_topRow = std::min(row, m_layout.maxTopRow(viewport()->height()));
    m_settingScrollBar = true;
    verticalScrollBar()->setValue(m_layout.scrollValueForRow(m_topRow, viewport()->height()));
    m_settingScrollBar = false;
    viewport()->update();
}

void HexView::updateMetrics()
{
    const QFontMetrics metrics(font());
    m_layout.setCharSize(metrics.horizontalAdvance(QLatin1Char('0')), metrics.height());
    const int headerHeight = metrics.height() + 2;
    setViewportMargins(0, headerHeight, 0, 0);
    const QRect frame = contentsRect();
    m_header->setGeometry(frame.left(), frame.top(), frame.width(), headerHeight);
    m_header->setFont(font());
    m_colors = HexColors(palette());
    updateScrollBars();
}

void HexView::updateScrollBars()
{
    const int height = viewport()->height();
    m_settingScrollBar = true;
    QScrollBar *v = verticalScrollBar();
    v->setRange(0, m_layout.scrollMaximum(height));
    const uint64_t maxTop = m_layout.maxTopRow(height);
    const int rows = m_layout.fullRowCount(height);
    // scaled: a page is the share of the range that one screen of rows is
    v->setPageStep(m_layout.scrollScaled(height) ? std::max(1, int(double(rows) / double(maxTop) * v->maximum()))
                                                 : rows);
    v->setSingleStep(1);
    m_topRow = std::min(m_topRow, maxTop);
    v->setValue(m_layout.scrollValueForRow(m_topRow, height));
    m_settingScrollBar = false;
    const int width = m_layout.contentWidth(m_notesVisible ? kNotesChars : 0);
    horizontalScrollBar()->setRange(0, std::max(0, width - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    horizontalScrollBar()->setSingleStep(m_layout.charWidth());
    viewport()->update();
}

void HexView::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    const QRect frame = contentsRect();
    m_header->setGeometry(frame.left(), frame.top(), frame.width(), m_header->height());
    updateScrollBars();
}

void HexView::changeEvent(QEvent *event)
{
    QAbstractScrollArea::changeEvent(event);
    if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange ||
        event->type() == QEvent::StyleChange)
        updateMetrics();
}

QPoint HexView::contentPoint(QPoint viewportPoint) const
{
    return viewportPoint + QPoint(horizontalScrollBar()->value(), 0);
}

void HexView::paintEvent(QPaintEvent *)
{
    QPainter painter(viewport());
    painter.fillRect(viewport()->rect(), m_colors.base());
    if (!m_file || m_file->fileSize() == 0)
        return;
    painter.setFont(font());
    paintRows(painter, -horizontalScrollBar()->value());
}

void HexView::paintRows(QPainter &painter, int xShift)
{
    using Area = HexLayout::Area;
    const int height = viewport()->height();
    const int cw = m_layout.charWidth(), lh = m_layout.lineHeight(), bpr = m_layout.bytesPerRow();
    const int ascent = fontMetrics().ascent();
    const auto [begin, end] = m_layout.visibleBytes(m_topRow, height);
    // the only bytes the GUI thread reads: the visible ones, straight from the mapping; a remote
    // file's only when they have arrived (dots until then, and a fetch is asked for)
    const gguf::ByteLease visible = m_file->peek(begin, end - begin);
    const bool arrived = static_cast<bool>(visible);
    if (!arrived && m_wanted != std::pair(begin, end)) {
        m_wanted = {begin, end};
        emit bytesWanted(begin, end);
    }
    const std::span<const uint8_t> bytes = m_file->bytes(begin, end - begin);
    std::vector<HexAnnotator::Shade> shades(bytes.size());
    if (m_annotator)
        m_annotator->shades(begin, bytes.size(), shades.data());
    painter.translate(xShift, 0);

    const auto fillRuns = [&](size_t first, int n, int y) {
        for (int c = 0; c < n;) {
            int e = c + 1;
            while (e < n && sameShade(shades[first + size_t(e)], shades[first + size_t(c)]))
                ++e;
            const QColor bg = m_colors.background(shades[first + size_t(c)]);
            painter.fillRect(QRect(m_layout.hexX(c), y, m_layout.hexX(e - 1) + 2 * cw - m_layout.hexX(c), lh), bg);
            painter.fillRect(QRect(m_layout.textX(c), y, m_layout.textX(e) - m_layout.textX(c), lh), bg);
            c = e;
        }
    };
    // backgrounds, then selection, then text on top
    int y = 0;
    for (uint64_t row = begin; row < end; row += uint64_t(bpr), y += lh)
        if (m_annotator)
            fillRuns(size_t(row - begin), int(std::min<uint64_t>(uint64_t(bpr), end - row)), y);
    for (const Area area : {Area::Hex, Area::Text}) {
        for (const QRect &rect : m_layout.selectionRects(m_selBegin, m_selEnd, area, m_topRow, height))
            painter.fillRect(rect, m_colors.selection());
    }

    const int digits = m_layout.offsetDigits();
    y = 0;
    for (uint64_t row = begin; row < end; row += uint64_t(bpr), y += lh) {
        const int n = int(std::min<uint64_t>(uint64_t(bpr), end - row));
        const size_t first = size_t(row - begin);
        painter.setPen(m_colors.dimText());
        painter.drawText(m_layout.offsetX(), y + ascent, hexOffset(row, digits));
        paintRowText(painter, y + ascent, std::span(shades).subspan(first, size_t(n)),
                     arrived ? bytes.subspan(first, size_t(n)) : std::span<const uint8_t>());
        if (m_notesVisible && m_annotator) {
            painter.setPen(m_colors.notesText());
            painter.drawText(m_layout.notesX(), y + ascent,
                             HexNotes::forRow(*m_annotator, row, row + uint64_t(n), kNotesChars));
        }
    }

    paintCursor(painter, height);
}

// One row's bytes in hex and as text, in runs of one text colour (dimmed padding, normal text
// elsewhere); `bytes` empty: not arrived yet, dots.
void HexView::paintRowText(QPainter &painter, int baseline, std::span<const HexAnnotator::Shade> shades,
                           std::span<const uint8_t> bytes)
{
    const bool arrived = !bytes.empty();
    const int n = int(shades.size());
    for (int c = 0; c < n;) {
        const QColor color = m_annotator ? m_colors.text(shades[size_t(c)].category) : m_colors.textColor();
        int e = c;
        QString hex, text;
        for (; e < n && (!m_annotator || m_colors.text(shades[size_t(e)].category) == color); ++e) {
            if (e > c)
                hex += e % 8 == 0 ? QStringLiteral("  ") : QStringLiteral(" ");
            if (!arrived) {
                hex += QStringLiteral("··");
                text += QChar(u'·');
                continue;
            }
            const uint8_t byte = bytes[size_t(e)];
            hex += QLatin1Char(kDigits[byte >> 4]);
            hex += QLatin1Char(kDigits[byte & 15]);
            text += printable(byte);
        }
        painter.setPen(arrived ? color : m_colors.dimText());
        painter.drawText(m_layout.hexX(c), baseline, hex);
        painter.drawText(m_layout.textX(c), baseline, text);
        c = e;
    }
}

// The field under the cursor, outlined; the cursor byte framed.
void HexView::paintCursor(QPainter &painter, int height)
{
    using Area = HexLayout::Area;
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(m_colors.cursor(), 1));
    for (const Area area : {Area::Hex, Area::Text}) {
        for (const QRect &rect : m_layout.selectionRects(m_fieldBegin, m_fieldEnd, area, m_topRow, height))
            painter.drawRect(rect.adjusted(0, 0, -1, -1));
    }
    painter.setPen(QPen(m_colors.cursor(), hasFocus() ? 2 : 1));
    for (const Area area : {Area::Hex, Area::Text})
        painter.drawRect(m_layout.byteRect(m_cursor, area, m_topRow).adjusted(0, 0, -1, -1));
}

void HexView::paintHeader(QPainter &painter)
{
    painter.setFont(font());
    painter.setPen(m_colors.dimText());
    painter.translate(-horizontalScrollBar()->value(), 0);
    const int baseline = fontMetrics().ascent() + 1;
    painter.drawText(m_layout.offsetX(), baseline, tr("offset"));
    for (int c = 0; c < m_layout.bytesPerRow(); ++c)
        painter.drawText(m_layout.hexX(c), baseline, QString::number(c, 16).rightJustified(2, u'0'));
    painter.drawText(m_layout.textX(0), baseline, tr("text"));
    if (m_notesVisible)
        painter.drawText(m_layout.notesX(), baseline, tr("fields starting in the row"));
}

bool HexView::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_header && event->type() == QEvent::Paint) {
        QPainter painter(m_header);
        paintHeader(painter);
        return true;
    }
    return QAbstractScrollArea::eventFilter(watched, event);
}

QString HexView::toolTipAt(QPoint viewportPoint) const
{
    if (!m_annotator || !m_file)
        return {};
    const HexLayout::Hit hit = m_layout.hitTest(contentPoint(viewportPoint), m_topRow);
    if (hit.pastEnd || (hit.area != HexLayout::Area::Hex && hit.area != HexLayout::Area::Text))
        return {};
    const HexAnnotator::Description d = m_annotator->describe(hit.offset);
    return QStringLiteral("<p style='white-space:pre-wrap'><b>%1</b><br>%2<br><i>%3</i></p>")
        .arg(d.label.toHtmlEscaped(), d.explanation.toHtmlEscaped(),
             tr("byte 0x%1 · field 0x%2–0x%3 (%4 bytes)")
                 .arg(QString::number(hit.offset, 16), QString::number(d.unitOffset, 16),
                      QString::number(d.unitOffset + d.unitSize, 16))
                 .arg(d.unitSize));
}

bool HexView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void HexView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_file || m_file->fileSize() == 0)
        return QAbstractScrollArea::mousePressEvent(event);
    const HexLayout::Hit hit = m_layout.hitTest(contentPoint(event->position().toPoint()), m_topRow);
    const bool extend = event->modifiers() & Qt::ShiftModifier;
    if (hit.pastEnd && !extend)
        return;
    m_dragging = true;
    moveCursor(hit.offset, extend);
    if (!extend)
        emit byteClicked(hit.offset);
}

void HexView::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_dragging || !(event->buttons() & Qt::LeftButton))
        return QAbstractScrollArea::mouseMoveEvent(event);
    // dragging past the top or bottom edge scrolls: the hit lies in a row outside the viewport
    const HexLayout::Hit hit = m_layout.hitTest(contentPoint(event->position().toPoint()), m_topRow);
    if (hit.offset != m_cursor)
        moveCursor(hit.offset, true);
}

void HexView::mouseReleaseEvent(QMouseEvent *event)
{
    m_dragging = false;
    QAbstractScrollArea::mouseReleaseEvent(event);
}

void HexView::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || !m_file || m_file->fileSize() == 0)
        return QAbstractScrollArea::mouseDoubleClickEvent(event);
    const HexLayout::Hit hit = m_layout.hitTest(contentPoint(event->position().toPoint()), m_topRow);
    if (!hit.pastEnd)
        emit byteDoubleClicked(hit.offset);
}

void HexView::keyPressEvent(QKeyEvent *event)
{
    if (!m_file || m_file->fileSize() == 0)
        return QAbstractScrollArea::keyPressEvent(event);
    const uint64_t bpr = uint64_t(m_layout.bytesPerRow());
    const uint64_t page = bpr * uint64_t(m_layout.fullRowCount(viewport()->height()));
    const uint64_t last = m_file->fileSize() - 1;
    const bool extend = event->modifiers() & Qt::ShiftModifier;
    const bool control = event->modifiers() & Qt::ControlModifier;
    const uint64_t c = m_cursor;
    uint64_t target = c;
    switch (event->key()) {
    case Qt::Key_Left: target = c > 0 ? c - 1 : 0; break;
    case Qt::Key_Right: target = std::min(last, c + 1); break;
    case Qt::Key_Up: target = c >= bpr ? c - bpr : c; break;
    case Qt::Key_Down: target = last - c >= bpr ? c + bpr : c; break;
    case Qt::Key_PageUp:
        target = c >= page ? c - page : c % bpr;
        setTopRow(m_topRow > page / bpr ? m_topRow - page / bpr : 0);
        break;
    case Qt::Key_PageDown:
        target = last - c >= page ? c + page : last;
        setTopRow(m_topRow + page / bpr);
        break;
    case Qt::Key_Home: target = control ? 0 : c - c % bpr; break;
    case Qt::Key_End: target = control ? last : std::min(last, c - c % bpr + bpr - 1); break;
    default: return QAbstractScrollArea::keyPressEvent(event);
    }
    moveCursor(target, extend);
}

void HexView::wheelEvent(QWheelEvent *event)
{
    const int delta = event->angleDelta().y();
    if (delta == 0 || event->modifiers() & Qt::ShiftModifier)
        return QAbstractScrollArea::wheelEvent(event);
    // three rows per notch of 120, moved in rows (the scroll bar may be scaled)
    m_wheelRemainder += delta;
    const int rows = m_wheelRemainder / 40;
    m_wheelRemainder -= rows * 40;
    if (rows > 0)
        setTopRow(m_topRow > uint64_t(rows) ? m_topRow - uint64_t(rows) : 0);
    else if (rows < 0)
        setTopRow(m_topRow + uint64_t(-rows));
    event->accept();
}
