// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/recent_files.h"

#include "core/format/byte_source.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace {
const QString kSettingsKey = QStringLiteral("recentFiles");
}

RecentFiles::RecentFiles(QMenu *menu, QObject *parent) : QObject(parent), m_menu(menu)
{
    rebuildMenu();
}

QStringList RecentFiles::files() const
{
    return QSettings().value(kSettingsKey).toStringList();
}

void RecentFiles::add(const QString &path)
{
    const QString absolute = gguf::looksRemote(path.toStdString()) ? path : QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles)
        list.removeLast();
    store(list);
}

void RecentFiles::clear()
{
    store({});
}

void RecentFiles::store(const QStringList &files)
{
    QSettings().setValue(kSettingsKey, files);
    rebuildMenu();
}

void RecentFiles::rebuildMenu()
{
    m_menu->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QString &path = list[i];
        // &1 … &9, then 1&0: keyboard accelerators for the first ten entries.
        const QString number = i < 9 ? QStringLiteral("&%1").arg(i + 1) : QStringLiteral("1&0");
        QAction *action = m_menu->addAction(QStringLiteral("%1  %2").arg(number, QDir::toNativeSeparators(path)));
        action->setToolTip(path);
        connect(action, &QAction::triggered, this, [this, path] { emit fileChosen(path); });
    }
    if (!list.isEmpty())
        m_menu->addSeparator();
    QAction *clearAction = m_menu->addAction(tr("&Clear List"), this, &RecentFiles::clear);
    clearAction->setEnabled(!list.isEmpty());
    m_menu->setEnabled(true);
}
