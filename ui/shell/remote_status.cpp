// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/shell/remote_status.h"

#include "core/format/split_model.h"
#include "ui/common/text_format.h"
#include "ui/shell/document.h"

#include <QLocale>

RemoteStatus::RemoteStatus(Document *document, QWidget *parent) : QLabel(parent), m_document(document)
{
    hide();
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &RemoteStatus::refresh);
    connect(document, &Document::loaded, this, &RemoteStatus::refresh);
}

void RemoteStatus::refresh()
{
    const auto model = m_document->model();
    quint64 fetched = 0, requests = 0, size = 0;
    bool remote = false;
    if (model)
        for (const auto &shard : model->shards())
            if (shard.file && shard.file->isRemote()) {
                remote = true;
                fetched += shard.file->source().bytesFetched();
                requests += shard.file->source().requestCount();
                size += shard.file->fileSize();
            }
    if (!remote) {
        m_timer.stop();
        hide();
        return;
    }
    const QString made = requests == 1 ? tr("1 request") : tr("%1 requests").arg(QLocale().toString(requests));
    setText(tr("Fetched %1 of %2 · %3").arg(TextFormat::byteSize(fetched), TextFormat::byteSize(size), made));
    setToolTip(tr("A remote file: only the bytes the pages read are fetched, with HTTP range requests, and kept in "
                  "a cache (docs/REMOTE.md)."));
    show();
    if (!m_timer.isActive())
        m_timer.start();
}
