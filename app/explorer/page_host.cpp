// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/explorer/page_host.h"

#include "ui/common/page.h"
#include "ui/common/text_format.h"

#include <QScopedValueRollback>
#include <QSettings>
#include <QTimer>

PageHost::PageHost(QWidget *parent) : QTabWidget(parent)
{
    setDocumentMode(true);
}

void PageHost::addPage(Page *page, const QString &title, const QString &name)
{
    page->setObjectName(name);
    addTab(page, title);
    m_pages << page;
    connect(page, &Page::linkActivated, this, [this, page](const Link &link) {
        if (link.side == Link::Side::B)
            emit otherSideLink(link);
        else
            follow(link, page);
    });
}

Page *PageHost::currentPage() const
{
    return qobject_cast<Page *>(currentWidget());
}

void PageHost::showModel(std::shared_ptr<const gguf::SplitModel> model)
{
    m_model = std::move(model);
    m_waiting = m_pages;
    if (Page *current = currentPage(); current && m_waiting.removeOne(current))
        m_waiting.prepend(current);
    // the page in view too takes the model in a turn of its own, not in the event that ended the load
    const quint64 generation = ++m_generation;
    QTimer::singleShot(0, this, [this, generation] { showOnNextPage(generation); });
}

void PageHost::showOnNextPage(quint64 generation)
{
    if (generation != m_generation)
        return;
    if (m_waiting.isEmpty()) {
        emit modelShown();
        return;
    }
    m_waiting.takeFirst()->setModel(m_model);
    QTimer::singleShot(0, this, [this, generation] { showOnNextPage(generation); });
}

void PageHost::follow(const Link &link, Page *from)
{
    if (m_following)
        return;
    const QScopedValueRollback<bool> following(m_following, true);
    Page *shows = nullptr;
    for (Page *page : std::as_const(m_pages))
        if (page != from && page->follow(link) && !shows)
            shows = page;
    if (shows && link.reveal == Link::Reveal::Go)
        setCurrentWidget(shows);
    if (link.target == Link::Target::Bytes && link.size > 0)
        emit statusMessage(tr("Bytes %1–%2 (%3 bytes)")
                               .arg(TextFormat::offset(link.offset), TextFormat::offset(link.offset + link.size))
                               .arg(link.size));
}

QString PageHost::settingsKey(const Page &page) const
{
    return QStringLiteral("mainWindow/") + page.objectName();
}

void PageHost::restorePages(const QSettings &settings)
{
    for (Page *page : std::as_const(m_pages))
        page->restoreState(settings.value(settingsKey(*page)).toByteArray());
}

void PageHost::savePages(QSettings &settings) const
{
    for (const Page *page : m_pages)
        if (const QByteArray state = page->saveState(); !state.isEmpty())
            settings.setValue(settingsKey(*page), state);
}
