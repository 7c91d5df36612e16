// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/load_reporter.h"

#include "core/edit/file_writer.h"
#include "core/format/split_model.h"
#include "ui/common/message_bar.h"
#include "ui/common/text_format.h"
#include "ui/shell/document.h"
#include "ui/shell/load_status.h"

#include <QDir>
#include <QFileInfo>
#include <QStatusBar>

LoadReporter::LoadReporter(Document *document, MessageBar *bar, QStatusBar *status, LoadStatus *progress,
                           QObject *parent)
    : QObject(parent), m_document(document), m_bar(bar), m_status(status), m_progress(progress)
{
    connect(document, &Document::loadStarted, this, [this](const QString &path) {
        m_timer.start();
        m_progress->start(path);
    });
    connect(document, &Document::progressChanged, m_progress, &LoadStatus::setProgress);
    connect(m_progress, &LoadStatus::cancelClicked, document, &Document::cancel);
    connect(document, &Document::loaded, this, &LoadReporter::reportLoaded);
    connect(document, &Document::loadFailed, this, &LoadReporter::reportFailure);
    // a Hugging Face checkpoint (#43): its unreadable shards in the bar, the rest on its pages
    connect(document, &Document::checkpointLoaded, this, [this](const QString &path, const QString &warning) {
        m_progress->finish();
        m_barShowsBreak = false;
        if (warning.isEmpty())
            m_bar->clearMessage();
        else
            m_bar->showMessage(MessageBar::Kind::Warning, warning);
        m_status->showMessage(
            tr("Opened %1 in %2 ms (a Hugging Face checkpoint)").arg(QFileInfo(path).fileName()).arg(m_timer.elapsed()),
            5000);
    });
    connect(document, &Document::loadCancelled, this, [this](const QString &path) {
        m_progress->finish();
        m_status->showMessage(tr("Opening %1 was cancelled").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(document, &Document::changedOnDisk, this, [this](const QString &description) {
        m_barShowsBreak = false;
        m_bar->showMessage(MessageBar::Kind::Warning,
                           tr("The open file changed on disk:\n%1\nWhat the pages show may no longer match it. "
                              "Reload to read it again.")
                               .arg(description),
                           tr("&Reload"));
    });
    // the bar offers two actions: the reload of a changed file, and the break of a damaged one
    connect(m_bar, &MessageBar::actionTriggered, this, [this] {
        if (m_barShowsBreak)
            emit breakRequested();
        else
            emit reloadRequested();
    });
}

QString LoadReporter::notice(const QString &warning)
{
    const gguf::GgufFile &file = m_document->model()->primary();
    // a header backup beside the file: an in-place save of it was interrupted (docs/EDITING.md §3)
    if (const auto backup = gguf::leftoverHeaderBackup(file.path())) {
        m_savedNotice.clear();
        const QString text =
            tr("An earlier save of this file did not finish: %1 holds the file's old header. If the file is not as "
               "it should be, restore it (docs/EDITING.md §3); otherwise remove the backup. Saving in place waits "
               "until then.")
                .arg(QDir::toNativeSeparators(QString::fromStdString(*backup)));
        m_bar->showMessage(MessageBar::Kind::Warning, text);
        return text;
    }
    if (m_savedNotice.isEmpty())
        return {};
    // after a save: what llama.cpp's checks think of the file written
    const gguf::Finding *refusal = file.firstRefusal();
    const QString verdict = refusal ? tr("llama.cpp would refuse it: %1").arg(QString::fromStdString(refusal->message))
                                    : tr("llama.cpp would load it.");
    const QString text = m_savedNotice + QLatin1Char(' ') + verdict;
    m_savedNotice.clear();
    m_bar->showMessage(refusal ? MessageBar::Kind::Warning : MessageBar::Kind::Information,
                       text + (warning.isEmpty() ? QString() : QLatin1Char('\n') + warning));
    return text;
}

void LoadReporter::reportLoaded(const QString &path, const QString &warning)
{
    m_progress->finish();
    const QString said = notice(warning); // what the bar says beside the warning, kept when damaged too
    if (said.isEmpty()) {
        if (warning.isEmpty())
            m_bar->clearMessage();
        else
            m_bar->showMessage(MessageBar::Kind::Warning, warning);
    }
    m_barShowsBreak = false;
    if (const auto broken = m_document->model()->firstBreak()) {
        // a damaged file: what was read is shown; the bar names the break and leads to its bytes
        const auto &shard = m_document->model()->shards()[broken->shard];
        const gguf::Error &error = broken->file->error();
        QString text = tr("%1 is damaged: reading stopped at byte %2. %3\nThe pages show what was read before the "
                          "break.")
                           .arg(QFileInfo(QString::fromStdString(shard.path)).fileName(),
                                TextFormat::offset(error.offset), QString::fromStdString(error.message));
        for (const QString &more : {said, warning})
            if (!more.isEmpty())
                text += QLatin1Char('\n') + more;
        m_barShowsBreak = true;
        m_bar->showMessage(MessageBar::Kind::Error, text, tr("Show in &Bytes"), false);
    }
    m_status->showMessage(tr("Opened %1 in %2 ms").arg(QFileInfo(path).fileName()).arg(m_timer.elapsed()), 5000);
}

void LoadReporter::reportFailure(const QString &path, const QString &message, quint64 offset)
{
    m_savedNotice.clear();
    m_progress->finish();
    // the reason, and where when at a byte of the file
    const QString why = offset == Document::kNoOffset ? message + QLatin1Char('.')
                                                      : tr("%1 (byte offset %2).").arg(message).arg(offset);
    if (!m_document->model() && !m_document->checkpoint()) {
        // nothing open: the start view says it, beside the ways to open another file
        emit failedWithNothingOpen(path, why);
        return;
    }
    const QString text = tr("Could not open %1: %2").arg(QDir::toNativeSeparators(path), why) + QLatin1Char('\n') +
                         tr("Still showing %1.").arg(QFileInfo(m_document->path()).fileName());
    m_bar->showMessage(MessageBar::Kind::Error, text);
}
