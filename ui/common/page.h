// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/link.h"

#include <QByteArray>
#include <QWidget>

#include <memory>

namespace gguf {
class SplitModel;
}

/// A page of the main window: the open model in, links between pages out and in, Find, and the
/// view state kept between runs. The window holds its pages as a list of Page and wires them alike
/// (one connection each); what is particular to a page stays in the page. A page never includes
/// another page: it says where it points with linkActivated, and shows what others point at in
/// follow.
class Page : public QWidget {
    Q_OBJECT
public:
    using QWidget::QWidget;

    /// Shows `model`, which stays alive as long as the page holds it (null: nothing is open).
    virtual void setModel(std::shared_ptr<const gguf::SplitModel> model) = 0;
    /// Shows what `link` (of this window's model, side A) points at when this page shows that kind
    /// of place, and says so; false when the page has nothing to show for it.
    virtual bool follow(const Link &link)
    {
        Q_UNUSED(link);
        return false;
    }
    /// Puts the keyboard focus into the page's search or filter box; false when it has none.
    virtual bool focusFind() { return false; }
    /// The page's view state worth keeping between runs (columns, splitters); empty when none.
    virtual QByteArray saveState() const { return {}; }
    /// Restores what saveState() returned (ignores anything it does not understand).
    virtual void restoreState(const QByteArray &state) { Q_UNUSED(state); }

signals:
    /// The user (or a selection) points at a place another page shows.
    void linkActivated(const Link &link);
};
