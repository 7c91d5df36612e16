// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// `gguf-explorer --screenshot PREFIX`: pictures of every page for documentation and for looking
// at the program as a user would. Tooling, kept apart from the window itself.

#include <QString>
#include <QStringList>

class MainWindow;
class StallMonitor;

/// Grabs every page of `window` into `<prefix>-<page>.png`; returns the files written. Encoding
/// and writing the PNGs is left out of `monitor`'s stalls (it is the tour's work, not the window's).
QStringList grabPages(MainWindow &window, const QString &prefix, StallMonitor *monitor = nullptr);

/// Once the window's document has loaded (or failed to, or at once when `nothingToOpen`): grabs
/// each Weights view as `<prefix>-weights-<view>.png` when its computation has finished, moves the
/// Bytes page to the file's last byte, then grabs every page, prints the files written on stdout
/// and quits the application.
void startScreenshotTour(MainWindow &window, const QString &prefix, bool nothingToOpen,
                         StallMonitor *monitor = nullptr);
