// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// WCAG 2 contrast for the colour tests (#20): computed here from the W3C's definition of relative
// luminance (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance), not by the code under test,
// and a dark palette like the one KDE's Breeze Dark gives Qt programs.

#include <QColor>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace gguf::test {

inline double relativeLuminance(const QColor &c)
{
    auto channel = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
}

/// From 1:1 (the same luminance) to 21:1 (black on white); 4.5 is WCAG's AA level for text.
inline double contrastRatio(const QColor &a, const QColor &b)
{
    const double la = relativeLuminance(a), lb = relativeLuminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

/// Breeze Dark's window, base, text and highlight colours.
inline QPalette breezeDarkPalette()
{
    QPalette dark;
    dark.setColor(QPalette::Window, QColor(0x2a, 0x2e, 0x32));
    dark.setColor(QPalette::WindowText, QColor(0xfc, 0xfc, 0xfc));
    dark.setColor(QPalette::Base, QColor(0x1b, 0x1e, 0x20));
    dark.setColor(QPalette::AlternateBase, QColor(0x23, 0x26, 0x29));
    dark.setColor(QPalette::Text, QColor(0xfc, 0xfc, 0xfc));
    dark.setColor(QPalette::Button, QColor(0x31, 0x36, 0x3b));
    dark.setColor(QPalette::ButtonText, QColor(0xfc, 0xfc, 0xfc));
    dark.setColor(QPalette::Highlight, QColor(0x3d, 0xae, 0xe9));
    return dark;
}

} // namespace gguf::test
