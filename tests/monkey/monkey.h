// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QPointer>
#include <QRandomGenerator>
#include <QStringList>

#include <array>
#include <functional>
#include <memory>

class FilePool;
class MainWindow;
class QWidget;

namespace gguf {
class SplitModel;
}

/// One seeded random walk of user actions on a real MainWindow (issue #21): files opened and
/// dropped from a FilePool, pages and views switched, filters typed, columns sorted, rows selected,
/// the Bytes page's go-to and find, computations started and cancelled, reloads, menus, random
/// keys, resizes — as real input events through QTest wherever an input path exists. After every
/// action the window must answer a posted event within the stall bound and every window whose
/// pages show its document's model must pass WindowInvariants::check. Dialogs that would block are
/// closed by a timer (a "Discard" question is answered Discard, everything else rejected), and the
/// window swallows close events so that no key combination ends the walk.
///
/// Every random choice comes from one QRandomGenerator seeded with the seed, drawn in a fixed
/// amount per action whatever the window's state, so a seed and an action count replay exactly.
class Monkey {
public:
    struct Options {
        quint64 seed = 1;
        int actions = 500;
        /// Stop early when this timer passes `deadlineMs` (-1: no deadline).
        const QElapsedTimer *clock = nullptr;
        qint64 deadlineMs = -1;
        /// Longest time the event loop may go without running (during an action or after it).
        int maxStallMs = 2000;
        /// Longest time a load, or the pages taking a loaded model, may take.
        int hangMs = 30000;
        bool verbose = false;
    };

    explicit Monkey(const Options &options);
    ~Monkey();
    Monkey(const Monkey &) = delete;
    Monkey &operator=(const Monkey &) = delete;

    /// Runs the walk; false when an invariant failed (report() says which, with the last actions).
    bool run();
    int actionsDone() const { return m_done; }
    qint64 longestStallMs() const { return m_longestStall; }
    /// How many times a window's pages were checked against its document.
    int checks() const { return m_checks; }
    QString report() const { return m_report; }

private:
    enum class Action {
        OpenFile,
        DropFiles,
        CompareDrop,
        SwitchPage,
        SwitchInnerTab,
        TypeInField,
        SortColumn,
        SelectRow,
        ClickBytes,
        BytesGoTo,
        BytesFind,
        ClickCancel,
        ClickButton,
        Reload,
        Escape,
        Resize,
        Menu,
        RandomKeys,
        Wait,
        CloseOtherWindows,
        Burst,
        ComparePair,
        EditMetadata,
        KindFacts,
        Count
    };
    using Params = std::array<quint32, 6>;
    struct Watch {
        QPointer<MainWindow> window;
        std::weak_ptr<const gguf::SplitModel> shown; ///< the model of the last modelShown
        QElapsedTimer unsettled;                     ///< runs while the pages lag behind the document
        QElapsedTimer loading;                       ///< runs while the document loads
    };

    // the walk (monkey.cpp)
    bool setUp();
    void tearDown();
    /// The action, drawn with its parameters; a fixed number of draws whatever the state.
    std::pair<Action, Params> draw();
    QString perform(Action action, const Params &p);
    bool afterAction(const QString &description);
    bool fail(const QString &why);
    void watchWindows();
    bool checkWindows();
    void closeModals();
    void note(const QString &text);
    /// Runs the event loop (sleeping between events) until `done` or `timeoutMs` passed.
    static bool pollUntil(const std::function<bool()> &done, int timeoutMs);
    static bool workersIdle();

    // the actions (monkey_actions.cpp); each returns what it did
    QString openFile(const Params &p);
    QString dropFiles(const Params &p, bool compare);
    QString switchPage(const Params &p);
    QString switchInnerTab(const Params &p);
    QString typeInField(const Params &p);
    QString sortColumn(const Params &p);
    QString selectRow(const Params &p);
    QString clickBytes(const Params &p);
    QString bytesGoTo(const Params &p);
    QString bytesFind(const Params &p);
    QString clickCancel(const Params &p);
    QString clickButton(const Params &p);
    QString pressOnWindow(int key, Qt::KeyboardModifiers modifiers, const QString &what);
    QString resize(const Params &p);
    QString menu(const Params &p);
    QString randomKeys(const Params &p);
    QString wait(const Params &p);
    QString closeOtherWindows();
    /// Two to four actions with no event delivered between them (a load overtaken, a page switched
    /// while the pages take a model).
    QString burst(const Params &p);
    // the views reached through their own APIs (monkey_views.cpp)
    /// The Compare page's pair panel: a comparison started when there is none, else a pair of
    /// tensors shown in detail and one of its views chosen.
    QString comparePair(const Params &p);
    /// The metadata edited: a value set, a key removed, undo, redo, Save (in place) or Save As.
    QString editMetadata(const Params &p);
    /// The Overview's kind facts: an item expanded or collapsed, an adapter checked against a base.
    QString kindFacts(const Params &p);
    // helpers for the actions
    QWidget *currentPage() const;
    /// The visible, enabled widgets of type T in `root`, in creation order.
    template <typename T> QList<T *> shown(QWidget *root) const;
    bool activate();
    bool showPage(QWidget *page);
    QString pathName(const QString &path) const;

    Options m_options;
    QRandomGenerator m_random;
    std::unique_ptr<FilePool> m_pool;
    MainWindow *m_window = nullptr;
    QList<Watch> m_watches;
    QStringList m_log;   ///< the last actions, as printed on a failure
    QStringList m_notes; ///< what happened during the current action (dialogs closed)
    QString m_report;
    int m_done = 0;
    qint64 m_longestStall = 0;
    int m_checks = 0;
    QElapsedTimer m_sinceBeat; ///< since the heartbeat last ran
    qint64 m_longestGap = 0;   ///< between heartbeats, since the action began
};
