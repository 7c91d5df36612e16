// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/appearance.h"

#include <QApplication>
#include <QSettings>
#include <QStyle>
#include <QStyleFactory>

#include <memory>

namespace {

const QString kKey = QStringLiteral("appearance/colorScheme");
Appearance::Scheme g_current = Appearance::Scheme::System; // GUI thread only

} // namespace

QString Appearance::name(Scheme scheme)
{
    switch (scheme) {
    case Scheme::Light: return QStringLiteral("light");
    case Scheme::Dark: return QStringLiteral("dark");
    case Scheme::System: break;
    }
    return QStringLiteral("system");
}

std::optional<Appearance::Scheme> Appearance::fromName(const QString &name)
{
    for (const Scheme s : {Scheme::System, Scheme::Light, Scheme::Dark})
        if (name.compare(Appearance::name(s), Qt::CaseInsensitive) == 0)
            return s;
    return std::nullopt;
}

QPalette Appearance::lightPalette()
{
    const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
    return fusion ? fusion->standardPalette() : QPalette();
}

QPalette Appearance::darkPalette()
{
    // KDE Breeze Dark's colours
    const QColor window(0x2a, 0x2e, 0x32), base(0x1b, 0x1e, 0x20), text(0xfc, 0xfc, 0xfc);
    const QColor button(0x31, 0x36, 0x3b), highlight(0x3d, 0xae, 0xe9), disabledText(0x6e, 0x71, 0x73);
    QPalette p(window);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x23, 0x26, 0x29));
    p.setColor(QPalette::ToolTipBase, window);
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0xa1, 0xa9, 0xb1));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, button);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Light, QColor(0x40, 0x46, 0x4c));
    p.setColor(QPalette::Midlight, QColor(0x36, 0x3b, 0x40));
    p.setColor(QPalette::Mid, QColor(0x25, 0x29, 0x2c));
    p.setColor(QPalette::Dark, QColor(0x14, 0x16, 0x18));
    p.setColor(QPalette::Shadow, QColor(0x0d, 0x0e, 0x0f));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, text);
    p.setColor(QPalette::Link, QColor(0x1d, 0x99, 0xf3));
    p.setColor(QPalette::LinkVisited, QColor(0x9b, 0x59, 0xb6));
    for (const QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x2b, 0x4d, 0x61));
    return p;
}

void Appearance::apply(Scheme scheme, bool remember)
{
    switch (scheme) {
    case Scheme::System: QApplication::setPalette(QPalette()); break; // the platform theme's again
    case Scheme::Light: QApplication::setPalette(lightPalette()); break;
    case Scheme::Dark: QApplication::setPalette(darkPalette()); break;
    }
    g_current = scheme;
    if (remember)
        QSettings().setValue(kKey, name(scheme));
}

Appearance::Scheme Appearance::current()
{
    return g_current;
}

Appearance::Scheme Appearance::saved()
{
    return fromName(QSettings().value(kKey).toString()).value_or(Scheme::System);
}
