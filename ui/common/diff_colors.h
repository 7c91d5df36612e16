// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QGuiApplication>
#include <QPalette>

#include <cstdint>

/// The backgrounds of a comparison's rows and lines, one set for the whole Compare page: green for
/// what is the same or only in B, red for what is lost or cannot be compared, yellow for a change.
namespace DiffColors {

enum class Shade : uint8_t { Green, Red, Yellow };

/// True when the application's palette is dark (its base colour is).
inline bool darkPalette()
{
    return QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
}

inline QColor background(Shade shade, bool dark = darkPalette())
{
    switch (shade) {
    case Shade::Green: return dark ? QColor(0x1e, 0x4d, 0x2b) : QColor(0xdc, 0xf5, 0xe0);
    case Shade::Red: return dark ? QColor(0x5c, 0x22, 0x22) : QColor(0xfb, 0xe0, 0xe0);
    case Shade::Yellow: return dark ? QColor(0x5a, 0x4a, 0x16) : QColor(0xfc, 0xf1, 0xcf);
    }
    return {};
}

} // namespace DiffColors
