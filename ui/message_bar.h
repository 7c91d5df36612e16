// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFrame>

class QLabel;
class QToolButton;

/// An inline message above the pages (in the manner of KMessageWidget): a coloured frame with an
/// icon, selectable text and a close button. Used instead of modal dialogs for problems with files.
class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Information, Warning, Error };

    explicit MessageBar(QWidget *parent = nullptr);

    /// Shows `text` (plain text, may span lines) and makes the bar visible.
    void showMessage(Kind kind, const QString &text);
    /// Hides the bar.
    void clearMessage();

    Kind kind() const { return m_kind; }
    QString text() const;

signals:
    void closed();

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    Kind m_kind = Kind::Information;
    QLabel *m_icon;
    QLabel *m_text;
    QToolButton *m_close;
};
