// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFrame>

class QLabel;
class QPushButton;
class QToolButton;

/// An inline message above the pages (in the manner of KMessageWidget): a coloured frame with an
/// icon, selectable text and a close button. Used instead of modal dialogs for problems with files.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget *parent = nullptr);

    /// Shows `text` (plain text, may span lines) and makes the bar visible; with `actionText`, a
    /// button that emits actionTriggered() (and closes the bar, unless `closeOnAction` is false).
    void showMessage(Kind kind, const QString &text, const QString &actionText = {}, bool closeOnAction = true);
    /// Hides the bar.
    void clearMessage();

    Kind kind() const { return m_kind; }
    QString text() const;
    /// The action button (hidden when the message has no action).
    QPushButton *actionButton() const { return m_action; }

signals:
    void closed();
    void actionTriggered();

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    Kind m_kind = Kind::Information;
    bool m_closeOnAction = true;
    QLabel *m_icon;
    QLabel *m_text;
    QPushButton *m_action;
    QToolButton *m_close;
};
