// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFont>
#include <QFontDatabase>
#include <QFontInfo>
#include <QStringList>

/// The system's fixed-pitch font. Some platforms (offscreen, or a desktop whose fontconfig maps
/// "monospace" to a proportional face when only a few fonts are installed) hand back a font that
/// does not really have fixed pitch; then the first installed family that does is used, trying the
/// common monospace faces first.
inline QFont fixedFont()
{
    QFont font = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (QFontInfo(font).fixedPitch())
        return font;
    const QStringList preferred = {QStringLiteral("DejaVu Sans Mono"), QStringLiteral("Noto Mono"),
                                   QStringLiteral("Liberation Mono"),  QStringLiteral("Noto Sans Mono"),
                                   QStringLiteral("Nimbus Mono PS"),   QStringLiteral("Courier New")};
    const QStringList installed = QFontDatabase::families();
    QStringList candidates;
    for (const QString &family : preferred)
        if (installed.contains(family))
            candidates << family;
    for (const QString &family : installed)
        if (!candidates.contains(family) && QFontDatabase::isFixedPitch(family))
            candidates << family;
    for (const QString &family : std::as_const(candidates)) {
        QFont candidate = font;
        candidate.setFamily(family);
        candidate.setStyleHint(QFont::TypeWriter);
        if (QFontInfo(candidate).fixedPitch())
            return candidate;
    }
    return font;
}
