// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QStyle>
#include <QToolButton>

namespace {

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - t) + b.redF() * t),
                            static_cast<float>(a.greenF() * (1 - t) + b.greenF() * t),
                            static_cast<float>(a.blueF() * (1 - t) + b.blueF() * t));
}

QColor accent(MessageBar::Kind kind)
{
    switch (kind) {
    case MessageBar::Kind::Information: return QColor(0x3d, 0xae, 0xe9);
    case MessageBar::Kind::Warning: return QColor(0xf6, 0x74, 0x00);
    case MessageBar::Kind::Error: return QColor(0xda, 0x44, 0x53);
    }
    return {};
}

QStyle::StandardPixmap iconOf(MessageBar::Kind kind)
{
    switch (kind) {
    case MessageBar::Kind::Information: return QStyle::SP_MessageBoxInformation;
    case MessageBar::Kind::Warning: return QStyle::SP_MessageBoxWarning;
    case MessageBar::Kind::Error: return QStyle::SP_MessageBoxCritical;
    }
    return QStyle::SP_MessageBoxInformation;
}

} // namespace

MessageBar::MessageBar(QWidget *parent)
    : QFrame(parent), m_icon(new QLabel(this)), m_text(new QLabel(this)), m_action(new QPushButton(this)),
      m_close(new QToolButton(this))
{
    setObjectName(QStringLiteral("messageBar"));
    setFrameShape(QFrame::NoFrame);
    m_text->setWordWrap(true);
    m_text->setTextFormat(Qt::PlainText);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    m_text->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_close->setAutoRaise(true);
    m_close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
    m_close->setToolTip(tr("Close this message"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 6, 4, 6);
    layout->addWidget(m_icon, 0, Qt::AlignTop);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_action, 0, Qt::AlignTop);
    layout->addWidget(m_close, 0, Qt::AlignTop);
    m_action->hide();
    connect(m_action, &QPushButton::clicked, this, [this] {
        if (m_closeOnAction)
            clearMessage();
        emit actionTriggered();
    });
    connect(m_close, &QToolButton::clicked, this, [this] {
        clearMessage();
        emit closed();
    });
    hide();
}

void MessageBar::showMessage(Kind kind, const QString &text, const QString &actionText, bool closeOnAction)
{
    m_kind = kind;
    m_closeOnAction = closeOnAction;
    m_text->setText(text);
    m_action->setText(actionText);
    m_action->setVisible(!actionText.isEmpty());
    const int size = style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, this);
    m_icon->setPixmap(style()->standardIcon(iconOf(kind)).pixmap(size, size));
    show();
    update();
}

void MessageBar::clearMessage()
{
    m_text->clear();
    hide();
}

QString MessageBar::text() const
{
    return m_text->text();
}

void MessageBar::paintEvent(QPaintEvent *event)
{
    // Colours are derived from the current palette on every paint, so the bar follows a switch
    // between light and dark palettes: the window colour tinted with the accent, an accent border.
    QFrame::paintEvent(event);
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QColor border = accent(m_kind);
    painter.setPen(QPen(border, 1));
    painter.setBrush(mix(palette().color(QPalette::Window), border, 0.2));
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
}
