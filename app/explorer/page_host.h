// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QTabWidget>

#include <memory>

#include "ui/common/link.h"

class Page;
class QSettings;

namespace gguf {
class SplitModel;
}

/// The window's pages as tabs, handled alike: the model handed to each, the links between them,
/// and their saved state. A page is one addPage; what is particular to it stays in the page.
class PageHost : public QTabWidget {
    Q_OBJECT
public:
    explicit PageHost(QWidget *parent = nullptr);

    /// Adds `page` as the next tab; `name` keys its saved state (and is its object name).
    void addPage(Page *page, const QString &title, const QString &name);
    const QList<Page *> &pageList() const { return m_pages; }
    Page *currentPage() const;

    /// Hands `model` to every page: the page in view first, then the others, one per turn of the
    /// event loop, so that a model of 20,000 tensors and a 256k vocabulary never keeps the window
    /// from answering; modelShown() once all have it. A newer call takes over from an older one.
    void showModel(std::shared_ptr<const gguf::SplitModel> model);

    /// Shows what `link` (of side A) points at: every page but `from` follows it, and the first
    /// that shows it comes forward unless the link is to be followed in the background. What the
    /// pages do in answer (a table that selects the tensor it was shown) is not a new link.
    void follow(const Link &link, Page *from = nullptr);

    void restorePages(const QSettings &settings);
    void savePages(QSettings &settings) const;

signals:
    /// Every page shows the model of the last showModel().
    void modelShown();
    /// A page's link to the model compared with (side B), for the window showing it.
    void otherSideLink(const Link &link);
    /// Something worth a line in the status bar (the bytes a link selected).
    void statusMessage(const QString &text);

private:
    void showOnNextPage(quint64 generation);
    QString settingsKey(const Page &page) const;

    QList<Page *> m_pages;   ///< in tab order
    QList<Page *> m_waiting; ///< pages that do not show the model yet
    std::shared_ptr<const gguf::SplitModel> m_model;
    quint64 m_generation = 0; ///< counts showModel calls, so that an older one stops filling pages
    bool m_following = false;
};
