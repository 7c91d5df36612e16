// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>
#include <QTimer>

class Document;

/// The status bar's account of a remote model: bytes fetched so far against the size of its
/// files, and the requests made ("Fetched 4.2 MB of 30.1 GB · 3 requests"). Hidden for local files.
class RemoteStatus : public QLabel {
    Q_OBJECT
public:
    explicit RemoteStatus(Document *document, QWidget *parent = nullptr);

    /// Reads the figures again (every second while a remote model is open).
    void refresh();

private:
    Document *m_document;
    QTimer m_timer;
};
