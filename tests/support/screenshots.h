// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Pictures of widgets as a test leaves them, for looking at the program as a user would: saved
// only when GGUF_SCREENSHOT_DIR names a folder (the tests pass either way).

#include <QCoreApplication>
#include <QString>
#include <QWidget>

namespace gguf::test {

/// The folder screenshots go to; empty when none are wanted.
inline QString screenshotDir()
{
    return qEnvironmentVariable("GGUF_SCREENSHOT_DIR");
}

/// Saves `widget` as `<GGUF_SCREENSHOT_DIR>/<name>.png` once the layout requests and updates that
/// its last change posted have been handled, as they would be on screen. Returns false only when
/// a wanted screenshot could not be written.
inline bool saveScreenshot(QWidget &widget, const QString &name)
{
    const QString dir = screenshotDir();
    if (dir.isEmpty())
        return true;
    for (int round = 0; round < 4; ++round)
        QCoreApplication::sendPostedEvents();
    return widget.grab().save(dir + u'/' + name + QStringLiteral(".png"));
}

} // namespace gguf::test
