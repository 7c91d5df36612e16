// SPDX-License-Identifier: GPL-3.0-or-later
// The monkey's actions: each picks its target from the window's state with the parameters drawn
// for it and acts through real input events (QTest), a drop event, or — where no input reaches
// (File ▸ Open's dialog, the window manager's resize) — the call that input would end in.
#include "app/explorer/main_window.h"
#include "tests/monkey/file_pool.h"
#include "tests/monkey/monkey.h"
#include "ui/hex/hex_find_bar.h"
#include "ui/hex/hex_page.h"
#include "ui/hex/hex_view.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QTabBar>
#include <QTabWidget>
#include <QUrl>
#include <QtTest>

namespace {

/// What is typed into filters and search fields: names, regular expressions (some invalid),
/// offsets and go-to expressions, hex patterns, token spellings, special tokens, other scripts.
const char *const kTexts[] = {"blk",
                              "blk.0",
                              "attn_q",
                              "weight",
                              "Q4_K",
                              "F32",
                              "token",
                              "general",
                              "llama",
                              "[",
                              "(",
                              "*",
                              "\\",
                              ".*",
                              "^blk\\.[0-9]+\\.",
                              "(a+)+$",
                              "0x10",
                              "data+0",
                              "end-1",
                              "0",
                              "12",
                              "-5",
                              "99999999999999999999",
                              "ff",
                              "47 47 55 46",
                              "GGUF",
                              "\xc4\xa0the",
                              "\xe2\x96\x81the",
                              " ",
                              "Hello, world!",
                              "<|im_start|>user",
                              "<s>",
                              "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
                              "\xf0\x9f\x99\x82",
                              "#3",
                              "1, 2",
                              "zzz_no_match",
                              "%1 %2",
                              "\"quoted\"",
                              "tokenizer.ggml.tokens",
                              "{{ messages }}",
                              "1e308",
                              "nan"};
const char *const kGoTo[] = {"0",
                             "0x10",
                             "0x",
                             "data",
                             "data+0",
                             "data+4096",
                             "data+0x100",
                             "end-1",
                             "end-0",
                             "end+5",
                             "-1",
                             "18446744073709551615",
                             "99999999999999999999999",
                             "0x7fffffffffffffff",
                             "abc",
                             "",
                             "4294967296",
                             "1000000"};
const char *const kPatterns[] = {"GGUF", "47 47 55 46",    "blk",       "00 00 00 00",  "ff",
                                 "zz",   "ab cd ef 01 23", "tokenizer", "\xe2\x96\x81", "0"};
constexpr Qt::Key kKeys[] = {Qt::Key_A,        Qt::Key_B,         Qt::Key_E,      Qt::Key_Q,        Qt::Key_Z,
                             Qt::Key_0,        Qt::Key_7,         Qt::Key_Space,  Qt::Key_Return,   Qt::Key_Tab,
                             Qt::Key_Backtab,  Qt::Key_Backspace, Qt::Key_Delete, Qt::Key_Up,       Qt::Key_Down,
                             Qt::Key_Left,     Qt::Key_Right,     Qt::Key_PageUp, Qt::Key_PageDown, Qt::Key_Home,
                             Qt::Key_End,      Qt::Key_Escape,    Qt::Key_F3,     Qt::Key_Plus,     Qt::Key_Minus,
                             Qt::Key_Asterisk, Qt::Key_Period,    Qt::Key_Slash,  Qt::Key_F2,       Qt::Key_Menu};
/// Modifier choices for a random key; Ctrl with these keys only (never Ctrl+W, Ctrl+Q, Ctrl+O, Ctrl+S).
constexpr Qt::Key kCtrlKeys[] = {Qt::Key_F, Qt::Key_G, Qt::Key_C, Qt::Key_A, Qt::Key_1, Qt::Key_2,   Qt::Key_3,
                                 Qt::Key_4, Qt::Key_5, Qt::Key_6, Qt::Key_7, Qt::Key_8, Qt::Key_End, Qt::Key_Home};

template <typename T, size_t N> const T &pick(const T (&list)[N], quint32 p)
{
    return list[p % N];
}

QString textFor(quint32 p, quint32 q)
{
    // mostly from the list; sometimes long, sometimes random characters
    switch (q % 8) {
    case 0: return QString(static_cast<qsizetype>(50 + p % 400), QChar(u'a' + static_cast<char16_t>(q % 26)));
    case 1: {
        QString text;
        quint32 state = p | 1;
        for (int i = 0; i < static_cast<int>(1 + q % 12); ++i) {
            state = state * 1664525u + 1013904223u;
            text += QChar(static_cast<char16_t>(0x20 + (state >> 16) % 0x5e));
        }
        return text;
    }
    default: return QString::fromUtf8(pick(kTexts, p));
    }
}

/// The text a key types (none with Ctrl, and none for keys that type nothing).
QString keyText(Qt::Key key, Qt::KeyboardModifiers modifiers)
{
    if (modifiers & Qt::ControlModifier)
        return {};
    if (key >= Qt::Key_A && key <= Qt::Key_Z)
        return QChar(static_cast<char16_t>((modifiers & Qt::ShiftModifier ? u'A' : u'a') + (key - Qt::Key_A)));
    if (key >= Qt::Key_Space && key <= Qt::Key_AsciiTilde)
        return QChar(static_cast<char16_t>(key));
    switch (key) {
    case Qt::Key_Return: return QStringLiteral("\r");
    case Qt::Key_Tab: return QStringLiteral("\t");
    case Qt::Key_Backspace: return QStringLiteral("\b");
    case Qt::Key_Escape: return QStringLiteral("\x1b");
    case Qt::Key_Delete: return QStringLiteral("\x7f");
    default: return {};
    }
}

/// A key pressed and released on `widget` (QTest's own key-to-text table asserts on keys it lacks).
void press(QWidget *widget, Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QTest::sendKeyEvent(QTest::Click, widget, key, keyText(key, modifiers), modifiers);
}

/// `text` typed into `widget` one character at a time (any script: the key is unknown, the text is not).
void typeText(QWidget *widget, const QString &text)
{
    for (const uint code : text.toUcs4()) {
        const auto c = static_cast<char32_t>(code);
        const QString character = QString::fromUcs4(&c, 1);
        const bool upper = c >= u'A' && c <= u'Z';
        Qt::Key key = Qt::Key_unknown;
        if (c >= u'a' && c <= u'z')
            key = static_cast<Qt::Key>(Qt::Key_A + (c - u'a'));
        else if (c >= 0x20 && c < 0x7f)
            key = static_cast<Qt::Key>(c); // Qt's codes of the other ASCII keys are their characters
        const Qt::KeyboardModifiers modifiers = upper ? Qt::ShiftModifier : Qt::NoModifier;
        QTest::sendKeyEvent(QTest::Click, widget, key, character, modifiers);
    }
}

QString widgetName(const QWidget *widget)
{
    const QString name = widget->objectName();
    QString text = QString::fromLatin1(widget->metaObject()->className()) +
                   (name.isEmpty() ? QString() : QStringLiteral(" '%1'").arg(name));
    // the nearest of the project's own widgets it is part of (Qt's class names start with Q)
    for (const QWidget *parent = widget->parentWidget(); parent; parent = parent->parentWidget())
        if (const char *owner = parent->metaObject()->className(); owner[0] != 'Q')
            return text + QStringLiteral(" in ") + QString::fromLatin1(owner);
    return text;
}

} // namespace

template <typename T> QList<T *> Monkey::shown(QWidget *root) const
{
    QList<T *> widgets;
    if (!root)
        return widgets;
    for (T *widget : root->findChildren<T *>())
        if (widget->isVisible() && widget->isEnabled() && widget->window() == m_window)
            widgets << widget;
    return widgets;
}

QWidget *Monkey::currentPage() const
{
    return m_window->pages()->currentWidget();
}

bool Monkey::activate()
{
    if (QApplication::activeWindow() == m_window)
        return true;
    m_window->raise();
    m_window->activateWindow();
    return QTest::qWaitForWindowActive(m_window, 2000);
}

bool Monkey::showPage(QWidget *page)
{
    QTabBar *bar = m_window->pages()->tabBar();
    const int index = m_window->pages()->indexOf(page);
    if (index < 0 || !bar->isTabVisible(index))
        return false;
    if (m_window->pages()->currentIndex() != index)
        QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
    return m_window->pages()->currentIndex() == index;
}

QString Monkey::openFile(const Params &p)
{
    const QStringList &paths = m_pool->paths();
    const QString path = paths[p[0] % paths.size()];
    // File ▸ Open ends in openFiles(): one file, or two (the second opens in a window of its own)
    if (p[1] % 8 == 0) {
        const QString second = paths[p[2] % paths.size()];
        m_window->openFiles({path, second});
        return QStringLiteral("open %1 and %2").arg(pathName(path), pathName(second));
    }
    m_window->openFile(path);
    return QStringLiteral("open %1").arg(pathName(path));
}

QString Monkey::dropFiles(const Params &p, bool compare)
{
    const QStringList &paths = m_pool->paths();
    // a URL of the pool's server is dropped as a browser drops a link
    const auto urlOf = [](const QString &path) {
        return path.contains(QLatin1String("://")) ? QUrl(path) : QUrl::fromLocalFile(path);
    };
    QList<QUrl> urls{urlOf(paths[p[0] % paths.size()])};
    if (p[1] % 6 == 0)
        urls << urlOf(paths[p[2] % paths.size()]);
    QMimeData mime;
    mime.setUrls(urls);
    const QPoint pos(static_cast<int>(p[3] % std::max(1, m_window->width())),
                     static_cast<int>(p[4] % std::max(1, m_window->height())));
    const Qt::KeyboardModifiers modifiers = compare ? Qt::ControlModifier : Qt::NoModifier;
    QStringList names;
    for (const QUrl &url : urls)
        names << pathName(url.isLocalFile() ? url.toLocalFile() : url.toString());
    const QString what = QStringLiteral("%1drop %2 at (%3, %4)")
                             .arg(compare ? QStringLiteral("Ctrl+") : QString(), names.join(QStringLiteral(" and ")))
                             .arg(pos.x())
                             .arg(pos.y());
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, modifiers);
    QApplication::sendEvent(m_window, &enter);
    if (!enter.isAccepted())
        return what + QStringLiteral(": refused");
    QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, modifiers);
    QApplication::sendEvent(m_window, &drop);
    return what;
}

QString Monkey::switchPage(const Params &p)
{
    QTabBar *bar = m_window->pages()->tabBar();
    QList<int> visible;
    for (int i = 0; i < bar->count(); ++i)
        if (bar->isTabVisible(i))
            visible << i;
    const int index = visible[static_cast<qsizetype>(p[0] % visible.size())];
    if (p[1] % 4 == 0 && index < 8 && activate()) {
        press(m_window, static_cast<Qt::Key>(Qt::Key_1 + index), Qt::ControlModifier);
        return QStringLiteral("Ctrl+%1 (page %2)").arg(index + 1).arg(bar->tabText(index));
    }
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
    return QStringLiteral("click the tab %1").arg(bar->tabText(index));
}

QString Monkey::switchInnerTab(const Params &p)
{
    QList<QTabBar *> bars = shown<QTabBar>(currentPage());
    if (bars.isEmpty())
        return QStringLiteral("switch a view: none on this page");
    QTabBar *bar = bars[static_cast<qsizetype>(p[0] % bars.size())];
    const int index = static_cast<int>(p[1] % std::max(1, bar->count()));
    QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(index).center());
    return QStringLiteral("click the view tab %1 (%2 of %3)").arg(bar->tabText(index)).arg(index).arg(bar->count());
}

QString Monkey::typeInField(const Params &p)
{
    QList<QWidget *> fields;
    for (QLineEdit *edit : shown<QLineEdit>(currentPage()))
        if (!edit->isReadOnly())
            fields << edit;
    for (QPlainTextEdit *edit : shown<QPlainTextEdit>(currentPage()))
        if (!edit->isReadOnly())
            fields << edit;
    if (fields.isEmpty())
        return QStringLiteral("type: no field on this page");
    QWidget *field = fields[static_cast<qsizetype>(p[0] % fields.size())];
    const QString text = textFor(p[2], p[3]);
    QTest::mouseClick(field, Qt::LeftButton, {}, field->rect().center());
    QString how;
    switch (p[1] % 4) {
    case 0:
        press(field, Qt::Key_A, Qt::ControlModifier);
        typeText(field, text);
        how = QStringLiteral("replace with");
        break;
    case 1:
        typeText(field, text);
        how = QStringLiteral("append");
        break;
    case 2:
        press(field, Qt::Key_A, Qt::ControlModifier);
        press(field, Qt::Key_Backspace);
        return QStringLiteral("clear %1").arg(widgetName(field));
    default:
        press(field, Qt::Key_A, Qt::ControlModifier);
        typeText(field, text);
        press(field, Qt::Key_Return);
        how = QStringLiteral("enter");
        break;
    }
    return QStringLiteral("%1 \"%2\" in %3").arg(how, text.left(40), widgetName(field));
}

QString Monkey::sortColumn(const Params &p)
{
    QList<QHeaderView *> headers;
    for (QHeaderView *header : shown<QHeaderView>(currentPage()))
        if (header->orientation() == Qt::Horizontal && header->count() > 0)
            headers << header;
    if (headers.isEmpty())
        return QStringLiteral("sort: no table on this page");
    QHeaderView *header = headers[static_cast<qsizetype>(p[0] % headers.size())];
    const int logical = header->logicalIndex(static_cast<int>(p[1] % header->count()));
    if (header->isSectionHidden(logical))
        return QStringLiteral("sort: column %1 is hidden").arg(logical);
    const QPoint at(header->sectionViewportPosition(logical) + header->sectionSize(logical) / 2, header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    return QStringLiteral("click the header of column %1 of %2").arg(logical).arg(widgetName(header->parentWidget()));
}

QString Monkey::selectRow(const Params &p)
{
    QList<QAbstractItemView *> views;
    for (QAbstractItemView *view : shown<QAbstractItemView>(currentPage()))
        if (view->model() && view->model()->rowCount() > 0 && !qobject_cast<QHeaderView *>(view))
            views << view;
    if (views.isEmpty())
        return QStringLiteral("select: no list on this page");
    QAbstractItemView *view = views[static_cast<qsizetype>(p[0] % views.size())];
    QAbstractItemModel *model = view->model();
    const QModelIndex index = model->index(static_cast<int>(p[1] % model->rowCount()),
                                           static_cast<int>(p[2] % std::max(1, model->columnCount())));
    view->scrollTo(index);
    const QRect rect = view->visualRect(index);
    if (!rect.isValid())
        return QStringLiteral("select: row %1 of %2 is not on screen").arg(index.row()).arg(widgetName(view));
    const QString where =
        QStringLiteral("row %1, column %2 of %3").arg(index.row()).arg(index.column()).arg(widgetName(view));
    switch (p[3] % 5) {
    case 0:
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        return QStringLiteral("double-click ") + where;
    case 1: {
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        const Qt::Key key = pick(kKeys, p[4]);
        press(view, key);
        return QStringLiteral("click %1, then key %2").arg(where, QKeySequence(key).toString());
    }
    case 2:
        QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ShiftModifier, rect.center());
        return QStringLiteral("shift-click ") + where;
    default:
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        return QStringLiteral("click ") + where;
    }
}

QString Monkey::clickBytes(const Params &p)
{
    HexPage *hex = m_window->page<HexPage>();
    if (!showPage(hex))
        return QStringLiteral("bytes: the page is not shown");
    QWidget *viewport = hex->view()->viewport();
    const QPoint at(static_cast<int>(p[0] % std::max(1, viewport->width())),
                    static_cast<int>(p[1] % std::max(1, viewport->height())));
    const QString where = QStringLiteral("(%1, %2) of the hex view").arg(at.x()).arg(at.y());
    switch (p[2] % 4) {
    case 0: QTest::mouseDClick(viewport, Qt::LeftButton, {}, at); return QStringLiteral("double-click ") + where;
    case 1: {
        QTest::mouseClick(viewport, Qt::LeftButton, {}, at);
        const Qt::Key key = pick(kKeys, p[3]);
        const Qt::KeyboardModifiers modifiers = p[4] % 3 == 0 ? Qt::ShiftModifier : Qt::NoModifier;
        press(hex->view(), key, modifiers);
        return QStringLiteral("click %1, then key %2").arg(where, QKeySequence(modifiers | key).toString());
    }
    default: QTest::mouseClick(viewport, Qt::LeftButton, {}, at); return QStringLiteral("click ") + where;
    }
}

QString Monkey::bytesGoTo(const Params &p)
{
    HexPage *hex = m_window->page<HexPage>();
    if (!showPage(hex) || !activate())
        return QStringLiteral("go to: the Bytes page is not shown");
    press(hex->view(), Qt::Key_G, Qt::ControlModifier);
    const QString expression =
        p[1] % 5 == 0 ? QString::number(quint64(p[2]) * (p[3] % 8)) : QString::fromUtf8(pick(kGoTo, p[0]));
    QLineEdit *edit = hex->findBar()->goToEdit();
    press(edit, Qt::Key_A, Qt::ControlModifier);
    typeText(edit, expression);
    press(edit, Qt::Key_Return);
    return QStringLiteral("Ctrl+G, go to \"%1\" (focus on %2)")
        .arg(expression,
             QApplication::focusWidget() ? widgetName(QApplication::focusWidget()) : QStringLiteral("nothing"));
}

QString Monkey::bytesFind(const Params &p)
{
    HexPage *hex = m_window->page<HexPage>();
    if (!showPage(hex) || !activate())
        return QStringLiteral("find: the Bytes page is not shown");
    press(hex->view(), Qt::Key_F, Qt::ControlModifier);
    const QString pattern = QString::fromUtf8(pick(kPatterns, p[0]));
    QLineEdit *edit = hex->findBar()->findEdit();
    press(edit, Qt::Key_A, Qt::ControlModifier);
    typeText(edit, pattern);
    press(edit, Qt::Key_Return, p[1] % 3 == 0 ? Qt::ShiftModifier : Qt::NoModifier);
    QString then;
    if (p[2] % 3 == 0) {
        press(edit, Qt::Key_Escape);
        then = QStringLiteral(", then Escape");
    }
    return QStringLiteral("Ctrl+F, find \"%1\"%2").arg(pattern, then);
}

QString Monkey::clickCancel(const Params &p)
{
    QList<QAbstractButton *> cancels;
    for (QAbstractButton *button : shown<QAbstractButton>(m_window))
        if (button->text().remove(u'&') == QLatin1String("Cancel"))
            cancels << button;
    if (cancels.isEmpty())
        return pressOnWindow(Qt::Key_Escape, Qt::NoModifier, QStringLiteral("no Cancel button: Escape"));
    QAbstractButton *button = cancels[static_cast<qsizetype>(p[0] % cancels.size())];
    const QString what = QStringLiteral("click Cancel (%1 of %2) in %3")
                             .arg(p[0] % cancels.size() + 1)
                             .arg(cancels.size())
                             .arg(widgetName(button->parentWidget()));
    QTest::mouseClick(button, Qt::LeftButton, {}, button->rect().center());
    return what;
}

QString Monkey::clickButton(const Params &p)
{
    const QList<QAbstractButton *> buttons = shown<QAbstractButton>(currentPage());
    if (buttons.isEmpty())
        return QStringLiteral("click: no button on this page");
    QAbstractButton *button = buttons[static_cast<qsizetype>(p[0] % buttons.size())];
    const QString what = QStringLiteral("click the button \"%1\" (%2)").arg(button->text(), widgetName(button));
    QTest::mouseClick(button, Qt::LeftButton, {}, button->rect().center());
    return what;
}

QString Monkey::pressOnWindow(int key, Qt::KeyboardModifiers modifiers, const QString &what)
{
    if (!activate())
        return what + QStringLiteral(": the window is not active");
    QWidget *focus = QApplication::focusWidget();
    press(focus && focus->window() == m_window ? focus : m_window, static_cast<Qt::Key>(key), modifiers);
    return what;
}

QString Monkey::resize(const Params &p)
{
    // the window manager's part: no input event reaches it
    const QSize size(static_cast<int>(300 + p[0] % 1300), static_cast<int>(200 + p[1] % 900));
    m_window->resize(size);
    return QStringLiteral("resize to %1 × %2").arg(size.width()).arg(size.height());
}

QString Monkey::menu(const Params &p)
{
    constexpr Qt::Key kMenus[] = {Qt::Key_F, Qt::Key_V, Qt::Key_H};
    const Qt::Key menuKey = pick(kMenus, p[0]);
    if (!activate())
        return QStringLiteral("menu: the window is not active");
    press(m_window, menuKey, Qt::AltModifier);
    auto *popup = qobject_cast<QMenu *>(QApplication::activePopupWidget());
    const QString name = QKeySequence(Qt::AltModifier | menuKey).toString();
    if (!popup)
        return name + QStringLiteral(": no menu opened");
    const int downs = static_cast<int>(p[1] % 6);
    for (int i = 0; i < downs; ++i)
        press(popup, Qt::Key_Down);
    QAction *active = popup->activeAction();
    const QString item = active ? active->text().remove(u'&') : QStringLiteral("nothing");
    // File's items close or quit; View's and Help's only switch pages, find, recolour or show boxes
    if (menuKey != Qt::Key_F && p[2] % 3 == 0 && active && !active->menu()) {
        press(popup, Qt::Key_Return);
        return QStringLiteral("%1, %2 × Down, Return on \"%3\"").arg(name).arg(downs).arg(item);
    }
    press(popup, Qt::Key_Escape);
    return QStringLiteral("%1, %2 × Down (at \"%3\"), Escape").arg(name).arg(downs).arg(item);
}

QString Monkey::randomKeys(const Params &p)
{
    if (!activate())
        return QStringLiteral("keys: the window is not active");
    // a focusable widget of the page first (as Tab would reach it), or whatever has the focus
    if (p[0] % 2 == 0) {
        QList<QWidget *> focusable;
        for (QWidget *widget : shown<QWidget>(currentPage()))
            if (widget->focusPolicy() & Qt::TabFocus)
                focusable << widget;
        if (!focusable.isEmpty())
            focusable[static_cast<qsizetype>(p[1] % focusable.size())]->setFocus(Qt::TabFocusReason);
    }
    QWidget *target = QApplication::focusWidget();
    if (!target || target->window() != m_window)
        target = m_window;
    QStringList keys;
    quint32 state = p[2] | 1;
    const int count = static_cast<int>(1 + p[3] % 6);
    for (int i = 0; i < count; ++i) {
        state = state * 1664525u + 1013904223u;
        const bool ctrl = (state >> 8) % 5 == 0;
        const Qt::Key key = ctrl ? pick(kCtrlKeys, state >> 12) : pick(kKeys, state >> 12);
        const Qt::KeyboardModifiers modifiers =
            ctrl ? Qt::ControlModifier : ((state >> 20) % 4 == 0 ? Qt::ShiftModifier : Qt::NoModifier);
        // the focus may move with each key (Tab, a shortcut)
        QWidget *focus = QApplication::focusWidget();
        press(focus && focus->window() == m_window ? focus : m_window, key, modifiers);
        keys << QKeySequence(modifiers | key).toString();
    }
    return QStringLiteral("keys %1 to %2").arg(keys.join(u' '), widgetName(target));
}

QString Monkey::wait(const Params &p)
{
    const int timeoutMs = static_cast<int>(p[0] % 1500);
    const bool idle = pollUntil([] { return workersIdle(); }, timeoutMs);
    return QStringLiteral("wait up to %1 ms for the workers: %2").arg(timeoutMs).arg(idle ? "idle" : "still busy");
}

QString Monkey::closeOtherWindows()
{
    int closed = 0;
    for (QWidget *widget : QApplication::topLevelWidgets())
        if (auto *window = qobject_cast<MainWindow *>(widget); window && window != m_window && window->isVisible()) {
            window->close();
            ++closed;
        }
    return QStringLiteral("close the other windows (%1)").arg(closed);
}

QString Monkey::burst(const Params &p)
{
    // the sub-actions come from this action's parameters, so the generator is drawn as for any action
    constexpr Action kQuick[] = {Action::OpenFile, Action::DropFiles,  Action::SwitchPage, Action::SwitchInnerTab,
                                 Action::Reload,   Action::Escape,     Action::SortColumn, Action::TypeInField,
                                 Action::OpenFile, Action::ClickCancel};
    QStringList done;
    quint32 state = p[0] | 1;
    const int count = static_cast<int>(2 + p[1] % 3);
    for (int i = 0; i < count; ++i) {
        Params sub{};
        for (quint32 &value : sub) {
            state = state * 1664525u + 1013904223u;
            value = state ^ (state >> 13);
        }
        done << perform(pick(kQuick, sub[5] >> 8), sub);
    }
    return QStringLiteral("burst: ") + done.join(QStringLiteral(" | "));
}
