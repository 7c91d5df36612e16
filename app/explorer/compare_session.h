// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

class CheckpointView;
class ComparePage;
class Document;
class MessageBar;
class QStatusBar;

/// The model the Compare page compares the window's model with (B): opened on a worker like any
/// file, handed to the page once read, its failures, a damaged B and a B that changes on disk said
/// in the window's message bar the way the window's own file's are.
class CompareSession : public QObject {
    Q_OBJECT
public:
    CompareSession(ComparePage *page, MessageBar *bar, QStatusBar *status, QObject *parent);

    /// Opens the model at `path` as B.
    void compareWith(const QString &path);
    /// Where a comparison goes while the window shows a Hugging Face checkpoint (A): its Compare tab.
    void setCheckpointView(CheckpointView *view) { m_checkpointView = view; }
    /// B's opening and its file watch.
    Document *document() const { return m_document; }

signals:
    /// B is on the Compare page (the window brings the page forward).
    void comparisonShown();
    /// B is on the checkpoint view's Compare tab (A a checkpoint).
    void checkpointComparisonShown();

private:
    void showOther(const QString &path, const QString &warning);

    ComparePage *m_page;
    MessageBar *m_bar;
    QStatusBar *m_status;
    Document *m_document;
    CheckpointView *m_checkpointView = nullptr;
};
