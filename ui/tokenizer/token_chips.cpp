// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/token_chips.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <array>

namespace {

constexpr int kGap = 3, kPadX = 4, kPadY = 2, kMargin = 4;

// Light fills that tell neighbouring tokens apart (the text is drawn dark on them).
const std::array<QColor, 6> kFills = {QColor(0xFF, 0xE0, 0xA8), QColor(0xC8, 0xEC, 0xC0), QColor(0xC6, 0xDD, 0xF6),
                                      QColor(0xF4, 0xC9, 0xDC), QColor(0xE2, 0xD6, 0xF5), QColor(0xD8, 0xEE, 0xEA)};

QFont smaller(QFont font)
{
    font.setPointSizeF(font.pointSizeF() * 0.8);
    return font;
}

} // namespace

TokenChips::TokenChips(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void TokenChips::setChips(QVector<Chip> chips)
{
    m_chips = std::move(chips);
    m_hovered = -1;
    layoutFor(width(), &m_rects);
    updateGeometry();
    update();
}

QSize TokenChips::chipSize(const Chip &chip) const
{
    const QFontMetrics text(font()), id(smaller(font()));
    const int w = std::max(text.horizontalAdvance(chip.text), id.horizontalAdvance(QString::number(chip.id)));
    return {std::max(w, 6) + 2 * kPadX, text.height() + id.height() + 2 * kPadY};
}

int TokenChips::layoutFor(int width, QVector<QRect> *rects) const
{
    if (rects)
        rects->clear();
    int x = kMargin, y = kMargin, rowHeight = 0;
    const int right = std::max(width - kMargin, kMargin + 1);
    for (const Chip &chip : m_chips) {
        const QSize size = chipSize(chip);
        if (x > kMargin && x + size.width() > right) {
            x = kMargin;
            y += rowHeight + kGap;
            rowHeight = 0;
        }
        if (rects)
            rects->append(QRect(QPoint(x, y), size));
        x += size.width() + kGap;
        rowHeight = std::max(rowHeight, size.height());
    }
    return y + rowHeight + kMargin;
}

int TokenChips::heightForWidth(int width) const
{
    return layoutFor(width, nullptr);
}

QSize TokenChips::sizeHint() const
{
    return {400, heightForWidth(width() > 0 ? width() : 400)};
}

int TokenChips::chipAt(QPoint pos) const
{
    for (int i = 0; i < m_rects.size(); ++i)
        if (m_rects[i].contains(pos))
            return i;
    return -1;
}

bool TokenChips::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto *help = static_cast<QHelpEvent *>(event);
        const int index = chipAt(help->pos());
        if (index >= 0 && m_toolTip)
            QToolTip::showText(help->globalPos(), m_toolTip(index), this, m_rects[index]);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

void TokenChips::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    const QFont idFont = smaller(font());
    const QFontMetrics text(font());
    for (int i = 0; i < m_chips.size() && i < m_rects.size(); ++i) {
        const QRect r = m_rects[i];
        if (!r.intersects(event->rect()))
            continue;
        const Chip &chip = m_chips[i];
        const QColor fill = chip.special ? QColor(0xD0, 0xD0, 0xD0) : kFills[static_cast<size_t>(i) % kFills.size()];
        p.setPen(i == m_hovered ? QPen(QColor(0x20, 0x20, 0x20), 2) : QPen(fill.darker(chip.special ? 160 : 125)));
        p.setBrush(fill);
        p.drawRoundedRect(r.adjusted(0, 0, -1, -1), 3, 3);
        p.setPen(QColor(0x10, 0x10, 0x10));
        p.setFont(font());
        p.drawText(r.adjusted(kPadX, kPadY, -kPadX, 0), Qt::AlignLeft | Qt::AlignTop, chip.text);
        p.setFont(idFont);
        p.setPen(QColor(0x50, 0x50, 0x50));
        p.drawText(r.adjusted(kPadX, kPadY + text.height(), -kPadX, -kPadY), Qt::AlignLeft | Qt::AlignTop,
                   QString::number(chip.id));
    }
}

void TokenChips::resizeEvent(QResizeEvent *event)
{
    QWidget::resizeEvent(event);
    layoutFor(width(), &m_rects);
}

void TokenChips::mousePressEvent(QMouseEvent *event)
{
    const int index = chipAt(event->position().toPoint());
    if (index >= 0 && event->button() == Qt::LeftButton)
        emit tokenClicked(m_chips[index].id);
    QWidget::mousePressEvent(event);
}

void TokenChips::mouseMoveEvent(QMouseEvent *event)
{
    const int index = chipAt(event->position().toPoint());
    if (index != m_hovered) {
        const int old = m_hovered;
        m_hovered = index;
        update(chipRect(old).adjusted(-2, -2, 2, 2));
        update(chipRect(index).adjusted(-2, -2, 2, 2));
    }
    setCursor(index >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void TokenChips::leaveEvent(QEvent *event)
{
    if (m_hovered >= 0)
        update(chipRect(m_hovered).adjusted(-2, -2, 2, 2));
    m_hovered = -1;
    QWidget::leaveEvent(event);
}
