// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>

#include <memory>

namespace gguf {
class SplitModel;
}

/// What the main window asks of each of its pages (they are QWidgets that also implement this):
/// the open model in, Find, and the view state kept between runs. The window holds its pages as a
/// list of Page and wires them alike; what is particular to a page stays in the page.
class Page {
public:
    virtual ~Page() = default;

    /// Shows `model`, which stays alive as long as the page holds it (null: nothing is open).
    virtual void setModel(std::shared_ptr<const gguf::SplitModel> model) = 0;
    /// Puts the keyboard focus into the page's search or filter box; false when it has none.
    virtual bool focusFind() { return false; }
    /// The page's view state worth keeping between runs (columns, splitters); empty when none.
    virtual QByteArray saveState() const { return {}; }
    /// Restores what saveState() returned (ignores anything it does not understand).
    virtual void restoreState(const QByteArray &state) { Q_UNUSED(state); }
};
