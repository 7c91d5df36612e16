// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QtGlobal>

#include <functional>
#include <vector>

class QAbstractButton;
class QComboBox;
class QDataStream;
class QHeaderView;
class QSplitter;
class QTabWidget;

/// A page's view state kept between runs (Page::saveState), declared once as the widgets that hold
/// it: splitters, header views (column order and widths), combo boxes and tab widgets (the current
/// index), check boxes. save() writes a version number and each part in order; restore() applies
/// them only when the version matches and every part could be read, so a state from another
/// version of the program is ignored whole, never half applied.
class PageState {
public:
    explicit PageState(quint32 version) : m_version(version) {}

    PageState &add(QSplitter *splitter);
    PageState &add(QHeaderView *header);
    /// The current index (restored when it is in range).
    PageState &add(QComboBox *choice);
    PageState &add(QTabWidget *tabs);
    /// Checked or not (restored with setChecked, so toggled() is said as for a click).
    PageState &add(QAbstractButton *check);

    QByteArray save() const;
    /// False (and nothing changed) when `state` is not one this declaration saved.
    bool restore(const QByteArray &state) const;

private:
    struct Part {
        std::function<void(QDataStream &)> save;
        /// Reads the part; returns what applies it.
        std::function<std::function<void()>(QDataStream &)> read;
    };
    quint32 m_version;
    std::vector<Part> m_parts;
};
