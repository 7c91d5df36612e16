// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `gguf-explorer --screenshot PREFIX`: pictures of every page for documentation and for looking
// at the program as a user would. Tooling, kept apart from the window itself.

#include <QString>
#include <QStringList>

class MainWindow;

/// Grabs every page of `window` into `<prefix>-<page>.png`; returns the files written.
QStringList grabPages(MainWindow &window, const QString &prefix);

/// Once the window's document has loaded (or failed to, or at once when `nothingToOpen`): grabs
/// each Weights view as `<prefix>-weights-<view>.png` when its computation has finished, then
/// every page, prints the files written on stdout and quits the application.
void startScreenshotTour(MainWindow &window, const QString &prefix, bool nothingToOpen);
