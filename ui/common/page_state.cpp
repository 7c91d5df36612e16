// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/page_state.h"

#include <QAbstractButton>
#include <QComboBox>
#include <QDataStream>
#include <QHeaderView>
#include <QIODevice>
#include <QSplitter>
#include <QTabWidget>

namespace {

// A part saved as the byte array of a widget's own saveState().
template <typename Widget> auto bytesPart(Widget *widget)
{
    return std::pair{[widget](QDataStream &out) { out << widget->saveState(); },
                     [widget](QDataStream &in) -> std::function<void()> {
                         QByteArray bytes;
                         in >> bytes;
                         return [widget, bytes] { widget->restoreState(bytes); };
                     }};
}

// A part saved as a current index, restored when below `count()`.
template <typename Widget> auto indexPart(Widget *widget)
{
    return std::pair{[widget](QDataStream &out) { out << qint32(widget->currentIndex()); },
                     [widget](QDataStream &in) -> std::function<void()> {
                         qint32 index = 0;
                         in >> index;
                         return [widget, index] {
                             if (index >= 0 && index < widget->count())
                                 widget->setCurrentIndex(index);
                         };
                     }};
}

} // namespace

PageState &PageState::add(QSplitter *splitter)
{
    auto [save, read] = bytesPart(splitter);
    m_parts.push_back({save, read});
    return *this;
}

PageState &PageState::add(QHeaderView *header)
{
    auto [save, read] = bytesPart(header);
    m_parts.push_back({save, read});
    return *this;
}

PageState &PageState::add(QComboBox *choice)
{
    auto [save, read] = indexPart(choice);
    m_parts.push_back({save, read});
    return *this;
}

PageState &PageState::add(QTabWidget *tabs)
{
    auto [save, read] = indexPart(tabs);
    m_parts.push_back({save, read});
    return *this;
}

PageState &PageState::add(QAbstractButton *check)
{
    m_parts.push_back({[check](QDataStream &out) { out << check->isChecked(); },
                       [check](QDataStream &in) -> std::function<void()> {
                           bool checked = false;
                           in >> checked;
                           return [check, checked] { check->setChecked(checked); };
                       }});
    return *this;
}

QByteArray PageState::save() const
{
    QByteArray state;
    QDataStream out(&state, QIODevice::WriteOnly);
    out << m_version;
    for (const Part &part : m_parts)
        part.save(out);
    return state;
}

bool PageState::restore(const QByteArray &state) const
{
    QDataStream in(state);
    quint32 version = 0;
    in >> version;
    if (in.status() != QDataStream::Ok || version != m_version)
        return false;
    std::vector<std::function<void()>> apply;
    for (const Part &part : m_parts)
        apply.push_back(part.read(in));
    if (in.status() != QDataStream::Ok)
        return false;
    for (const auto &step : apply)
        step();
    return true;
}
