// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

/// The File ▸ Open Recent list, kept in QSettings (most recent first, at most kMaxFiles).
class RecentFiles : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxFiles = 10;

    /// Fills `menu` (owned by the caller) with the list and keeps it up to date.
    explicit RecentFiles(QMenu *menu, QObject *parent = nullptr);

    /// Moves `path` to the top of the list.
    void add(const QString &path);
    void clear();
    QStringList files() const;

signals:
    /// The user picked `path` from the menu.
    void fileChosen(const QString &path);

private:
    void rebuildMenu();
    void store(const QStringList &files);

    QMenu *m_menu;
};
