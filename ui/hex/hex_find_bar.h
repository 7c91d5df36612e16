// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_search.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QToolButton;

/// The bar above the hex view: go to an offset, find bytes or text (with progress and cancel
/// while a search runs), jump to a tensor's data, bytes per row and the annotation column.
/// It only collects requests; the hex page carries them out.
class HexFindBar : public QWidget {
    Q_OBJECT
public:
    explicit HexFindBar(QWidget *parent = nullptr);

    void focusGoTo();
    void focusFind();
    /// Requests the next (previous) match of the pattern typed, or focuses the empty find box.
    void findNext();
    void findPrevious();
    /// Shows a search in progress (progress bar and Cancel) or not.
    void setSearching(bool searching);
    void setSearchProgress(int permille);
    void setGoToDataEnabled(bool enabled, const QString &toolTip = {});
    /// Switches between hex and text patterns.
    void setFindMode(bool hex);
    void setFindText(const QString &text);
    void setBytesPerRow(int bytes);
    int bytesPerRow() const;

    QLineEdit *goToEdit() const { return m_goTo; }
    QLineEdit *findEdit() const { return m_find; }

signals:
    void goToRequested(const QString &expression);
    /// `hex`: the text is a hex byte pattern; else the UTF-8 bytes of the text are searched.
    void findRequested(const QString &text, bool hex, gguf::SearchDirection direction);
    void cancelRequested();
    void goToDataRequested();
    void bytesPerRowChanged(int bytes);
    void notesToggled(bool visible);

private:
    void requestFind(gguf::SearchDirection direction);

    QLineEdit *m_goTo;
    QLineEdit *m_find;
    QComboBox *m_mode;
    QToolButton *m_previous;
    QToolButton *m_next;
    QProgressBar *m_progress;
    QPushButton *m_cancel;
    QPushButton *m_goToData;
    QComboBox *m_bytesPerRow;
    QCheckBox *m_notes;
};
