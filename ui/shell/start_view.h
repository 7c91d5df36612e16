// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class MessageBar;
class QLabel;
class QListWidget;
class QPushButton;

/// What the window shows while no model is open: the ways to open one (Open…, Open URL…, a recent
/// file, a file dropped anywhere on the window) and, after an open that failed, what failed and
/// why — rather than empty pages.
class StartView : public QWidget {
    Q_OBJECT
public:
    explicit StartView(QWidget *parent = nullptr);

    /// The recent files offered (most recent first); none hides the list.
    void setRecentFiles(const QStringList &files);
    /// Says that opening `path` failed and why; an empty path takes the failure away.
    void setFailure(const QString &path, const QString &message);
    QString failureText() const;
    QPushButton *openButton() const { return m_open; }
    QPushButton *openUrlButton() const { return m_openUrl; }
    QPushButton *openFolderButton() const { return m_openFolder; }
    QListWidget *recentList() const { return m_recent; }

signals:
    void openRequested();
    void openUrlRequested();
    void openFolderRequested();
    void recentChosen(const QString &path);

private:
    MessageBar *m_failure;
    QPushButton *m_open;
    QPushButton *m_openUrl;
    QPushButton *m_openFolder;
    QLabel *m_recentTitle;
    QListWidget *m_recent;
};
