// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/compare_session.h"

#include "core/format/split_model.h"
#include "ui/checkpoint/checkpoint_view.h"
#include "ui/common/damage_text.h"
#include "ui/common/message_bar.h"
#include "ui/compare/compare_page.h"
#include "ui/shell/document.h"

#include <QDir>
#include <QFileInfo>
#include <QStatusBar>

CompareSession::CompareSession(ComparePage *page, MessageBar *bar, QStatusBar *status, QObject *parent)
    : QObject(parent), m_page(page), m_bar(bar), m_status(status), m_document(new Document(this))
{
    connect(m_document, &Document::loadStarted, this, [this](const QString &path) {
        m_status->showMessage(tr("Opening %1 to compare…").arg(QFileInfo(path).fileName()));
    });
    connect(m_document, &Document::loaded, this, &CompareSession::showOther);
    // B a Hugging Face checkpoint (#43): A's tensors paired with it by llama.cpp's conversion
    connect(m_document, &Document::checkpointLoaded, this, [this](const QString &path, const QString &warning) {
        m_status->clearMessage();
        if (m_checkpointView && m_checkpointView->checkpoint()) {
            m_bar->showMessage(MessageBar::Kind::Warning,
                               tr("%1 is a checkpoint too: the window compares a checkpoint with a GGUF; "
                                  "gguf-inspect diff compares two checkpoints.")
                                   .arg(QDir::toNativeSeparators(path)));
            return;
        }
        m_page->setOtherCheckpoint(m_document->checkpoint(), path);
        emit comparisonShown();
        if (!warning.isEmpty())
            m_bar->showMessage(MessageBar::Kind::Warning, tr("Compared with %1: %2").arg(path, warning));
    });
    connect(
        m_document, &Document::loadFailed, this, [this](const QString &path, const QString &message, quint64 offset) {
            m_status->clearMessage();
            const QString where = QDir::toNativeSeparators(path);
            m_bar->showMessage(
                MessageBar::Kind::Error,
                offset == Document::kNoOffset
                    ? tr("Could not open %1 to compare with: %2.").arg(where, message)
                    : tr("Could not open %1 to compare with: %2 (byte offset %3).").arg(where, message).arg(offset));
        });
    connect(m_document, &Document::loadCancelled, this, [this](const QString &path) {
        m_status->showMessage(tr("Opening %1 to compare was cancelled").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(m_document, &Document::changedOnDisk, this, [this](const QString &description) {
        m_bar->showMessage(MessageBar::Kind::Warning,
                           tr("The file compared with (B) changed on disk:\n%1\nThe comparison may no longer match "
                              "it; compare with it again to read it anew.")
                               .arg(description));
    });
}

void CompareSession::compareWith(const QString &path)
{
    m_document->open(path);
}

void CompareSession::showOther(const QString &path, const QString &warning)
{
    m_status->clearMessage();
    if (m_checkpointView && m_checkpointView->checkpoint()) { // A a checkpoint (#43)
        m_checkpointView->compareWith(m_document->model(), path);
        emit checkpointComparisonShown();
        if (!warning.isEmpty())
            m_bar->showMessage(MessageBar::Kind::Warning, tr("Compared with %1: %2").arg(path, warning));
        return;
    }
    m_page->setOther(m_document->model(), path);
    emit comparisonShown();
    // a damaged B is compared as far as it was read: what follows its break is not "only in A"
    QString problems = warning;
    if (const auto broken = m_document->model()->firstBreak())
        problems = tr("it is damaged, so only what was read before the break is compared. %1")
                       .arg(DamageText::where(*broken->file)) +
                   (warning.isEmpty() ? QString() : QLatin1Char('\n') + warning);
    if (!problems.isEmpty())
        m_bar->showMessage(MessageBar::Kind::Warning, tr("Compared with %1: %2").arg(path, problems));
}
