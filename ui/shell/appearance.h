// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCoreApplication>
#include <QPalette>
#include <QString>

#include <optional>

/// The colour scheme: the system's palette (the default: whatever the desktop's Qt theme gives),
/// or a light or dark one chosen in View ▸ Colour Scheme or with --color-scheme. Every page, plot
/// and the hex colours follow the application palette, so switching recolours the open window.
namespace Appearance {

enum class Scheme { System, Light, Dark };

/// "system", "light", "dark" (what --color-scheme takes and the settings keep).
QString name(Scheme scheme);
std::optional<Scheme> fromName(const QString &name);

/// Fusion's light palette, and a dark one with Breeze Dark's colours (every role, disabled too).
QPalette lightPalette();
QPalette darkPalette();

/// Sets the application palette for `scheme` (System: back to the platform's), and remembers it
/// in the settings unless `remember` is false.
void apply(Scheme scheme, bool remember = true);
/// The scheme kept in the settings (System when none).
Scheme saved();
/// The scheme applied last (System before any).
Scheme current();

} // namespace Appearance
