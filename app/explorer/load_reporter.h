// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>

class Document;
class LoadStatus;
class MessageBar;
class QStatusBar;

/// Says what happens to the window's document: the progress of a load in the status bar, and in the
/// message bar what the user must know once it ends — a failure, the warnings of a split set, a
/// damaged file's break (with "Show in Bytes"), a change on disk (with "Reload"), an interrupted
/// save's header backup, and after a save what it did and what llama.cpp thinks of the result.
class LoadReporter : public QObject {
    Q_OBJECT
public:
    LoadReporter(Document *document, MessageBar *bar, QStatusBar *status, LoadStatus *progress, QObject *parent);

    /// What a save did ("Saved m.gguf: in place."); said with the verdict once the saved file is
    /// loaded again (a failed or cancelled load drops it).
    void setSavedNotice(const QString &notice) { m_savedNotice = notice; }
    bool hasSavedNotice() const { return !m_savedNotice.isEmpty(); }

signals:
    /// The message bar's action: read the changed file again.
    void reloadRequested();
    /// The message bar's action: show the damaged file's break in the Bytes page.
    void breakRequested();
    /// Opening `path` failed while no model was open (`why`: the reason and where): the start view
    /// says so, rather than the bar above empty pages.
    void failedWithNothingOpen(const QString &path, const QString &why);

private:
    void reportLoaded(const QString &path, const QString &warning);
    void reportFailure(const QString &path, const QString &message, quint64 offset);
    /// The bar's text for an interrupted save or a finished one, beside `warning`; empty when none.
    QString notice(const QString &warning);

    Document *m_document;
    MessageBar *m_bar;
    QStatusBar *m_status;
    LoadStatus *m_progress;
    QElapsedTimer m_timer;
    QString m_savedNotice;
    bool m_barShowsBreak = false; ///< the bar's action is breakRequested, not reloadRequested
};
