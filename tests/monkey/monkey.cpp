// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/monkey/monkey.h"

#include "app/explorer/main_window.h"
#include "tests/monkey/file_pool.h"
#include "tests/monkey/window_invariants.h"
#include "ui/common/job_tracker.h"
#include "ui/shell/appearance.h"
#include "ui/shell/document.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDialog>
#include <QMessageBox>
#include <QSettings>
#include <QThreadPool>
#include <QTimer>
#include <QtTest>

namespace {

constexpr int kLogLength = 20;

/// How often each action is drawn (in Action order).
constexpr std::array<quint32, 24> kWeights = {
    8,  // OpenFile
    5,  // DropFiles
    2,  // CompareDrop
    12, // SwitchPage
    8,  // SwitchInnerTab
    12, // TypeInField
    6,  // SortColumn
    10, // SelectRow
    4,  // ClickBytes
    5,  // BytesGoTo
    4,  // BytesFind
    4,  // ClickCancel
    6,  // ClickButton
    3,  // Reload
    3,  // Escape
    2,  // Resize
    3,  // Menu
    8,  // RandomKeys
    4,  // Wait
    1,  // CloseOtherWindows
    2,  // Burst
    4,  // ComparePair
    5,  // EditMetadata
    3,  // KindFacts
};

/// Keeps the window open whatever is pressed (Close Window, Quit): the walk ends it itself.
class CloseGuard : public QObject {
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Close && !open) {
            event->ignore();
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
    bool open = false;
};

} // namespace

Monkey::Monkey(const Options &options) : m_options(options), m_random(options.seed) {}

Monkey::~Monkey()
{
    tearDown();
}

bool Monkey::pollUntil(const std::function<bool()> &done, int timeoutMs)
{
    QElapsedTimer clock;
    clock.start();
    // wakes the loop when nothing else does, so that the deadline is seen
    QTimer tick;
    tick.start(10);
    while (!done()) {
        if (clock.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents);
    }
    return true;
}

bool Monkey::workersIdle()
{
    return JobTracker::pool()->activeThreadCount() == 0 && QThreadPool::globalInstance()->activeThreadCount() == 0;
}

bool Monkey::setUp()
{
    // every seed starts from the same settings and colours, so a seed replays alone as in a series
    QSettings().clear();
    Appearance::apply(Appearance::Scheme::System, false);
    m_pool = std::make_unique<FilePool>(m_random);
    if (!m_pool->isValid())
        return fail(QStringLiteral("the file pool: %1").arg(m_pool->error()));
    m_window = new MainWindow;
    m_window->installEventFilter(new CloseGuard(m_window));
    m_window->resize(1100, 760);
    m_window->show();
    if (!QTest::qWaitForWindowExposed(m_window))
        return fail(QStringLiteral("the window was never exposed"));
    activate();
    // a dialog's exec() runs its own loop: this timer runs in it too and closes the dialog
    // and it is the heartbeat: the longest gap between two of its runs is the longest stall
    auto *closer = new QTimer(m_window);
    QObject::connect(closer, &QTimer::timeout, m_window, [this] {
        m_longestGap = std::max(m_longestGap, m_sinceBeat.restart());
        closeModals();
    });
    closer->start(10);
    m_sinceBeat.start();
    watchWindows();
    return true;
}

void Monkey::tearDown()
{
    if (!m_window && !m_pool)
        return;
    // ask every computation to stop, then close every window while their jobs may still run
    QList<MainWindow *> windows;
    for (QWidget *widget : QApplication::topLevelWidgets())
        if (auto *window = qobject_cast<MainWindow *>(widget))
            windows << window;
    for (MainWindow *window : windows) {
        window->document()->cancel();
        window->otherDocument()->cancel();
        if (window != m_window)
            delete window;
    }
    delete m_window;
    m_window = nullptr;
    m_watches.clear();
    // what the workers post for the windows gone must find nothing to land on
    JobTracker::pool()->waitForDone();
    QThreadPool::globalInstance()->waitForDone();
    for (int round = 0; round < 4; ++round)
        QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    m_pool.reset();
}

std::pair<Monkey::Action, Monkey::Params> Monkey::draw()
{
    quint32 total = 0;
    for (const quint32 weight : kWeights)
        total += weight;
    quint32 pick = m_random.bounded(total);
    int action = 0;
    while (pick >= kWeights[static_cast<size_t>(action)])
        pick -= kWeights[static_cast<size_t>(action++)];
    Params p{};
    for (quint32 &value : p)
        value = m_random.generate();
    return {static_cast<Action>(action), p};
}

QString Monkey::perform(Action action, const Params &p)
{
    switch (action) {
    case Action::OpenFile: return openFile(p);
    case Action::DropFiles: return dropFiles(p, false);
    case Action::CompareDrop: return dropFiles(p, true);
    case Action::SwitchPage: return switchPage(p);
    case Action::SwitchInnerTab: return switchInnerTab(p);
    case Action::TypeInField: return typeInField(p);
    case Action::SortColumn: return sortColumn(p);
    case Action::SelectRow: return selectRow(p);
    case Action::ClickBytes: return clickBytes(p);
    case Action::BytesGoTo: return bytesGoTo(p);
    case Action::BytesFind: return bytesFind(p);
    case Action::ClickCancel: return clickCancel(p);
    case Action::ClickButton: return clickButton(p);
    case Action::Reload: return pressOnWindow(Qt::Key_F5, Qt::NoModifier, QStringLiteral("reload (F5)"));
    case Action::Escape: return pressOnWindow(Qt::Key_Escape, Qt::NoModifier, QStringLiteral("Escape"));
    case Action::Resize: return resize(p);
    case Action::Menu: return menu(p);
    case Action::RandomKeys: return randomKeys(p);
    case Action::Wait: return wait(p);
    case Action::CloseOtherWindows: return closeOtherWindows();
    case Action::Burst: return burst(p);
    case Action::ComparePair: return comparePair(p);
    case Action::EditMetadata: return editMetadata(p);
    case Action::KindFacts: return kindFacts(p);
    case Action::Count: break;
    }
    return {};
}

bool Monkey::run()
{
    if (!setUp())
        return false;
    for (int index = 0; index < m_options.actions; ++index) {
        if (m_options.clock && m_options.deadlineMs >= 0 && m_options.clock->elapsed() >= m_options.deadlineMs)
            break;
        const auto [action, params] = draw();
        m_notes.clear();
        m_longestGap = m_sinceBeat.restart();
        const QString description = perform(action, params);
        if (!afterAction(QStringLiteral("#%1 %2").arg(index + 1).arg(description)))
            return false;
        m_done = index + 1;
    }
    // the end: stop what runs (Escape, every Cancel on screen), let the results land, check again
    for (const Watch &watch : m_watches) {
        if (!watch.window)
            continue;
        QTest::sendKeyEvent(QTest::Click, watch.window, Qt::Key_Escape, QStringLiteral("\x1b"), Qt::NoModifier);
        const auto buttons = watch.window->findChildren<QAbstractButton *>();
        for (const QPointer<QAbstractButton> button : buttons)
            if (button && button->isVisible() && button->text().remove(u'&') == QLatin1String("Cancel"))
                QTest::mouseClick(button, Qt::LeftButton, {}, button->rect().center());
    }
    const bool idle = pollUntil([] { return workersIdle(); }, m_options.maxStallMs * 2);
    if (!afterAction(QStringLiteral("#%1 end: Escape and Cancel, the workers %2")
                         .arg(m_done + 1)
                         .arg(idle ? QStringLiteral("finished") : QStringLiteral("still busy"))))
        return false;
    tearDown();
    return true;
}

void Monkey::note(const QString &text)
{
    m_notes << text;
}

void Monkey::closeModals()
{
    if (QWidget *modal = QApplication::activeModalWidget()) {
        const QString what = QStringLiteral("%1 \"%2\"")
                                 .arg(QString::fromLatin1(modal->metaObject()->className()), modal->windowTitle());
        auto *box = qobject_cast<QMessageBox *>(modal);
        if (QAbstractButton *discard = box ? box->button(QMessageBox::Discard) : nullptr) {
            note(QStringLiteral("answered %1 with Discard").arg(what));
            discard->click();
        } else if (auto *dialog = qobject_cast<QDialog *>(modal)) {
            note(QStringLiteral("rejected %1").arg(what));
            dialog->reject();
        } else {
            note(QStringLiteral("closed %1").arg(what));
            modal->close();
        }
    }
    if (QWidget *popup = QApplication::activePopupWidget()) {
        note(QStringLiteral("closed the popup %1").arg(QString::fromLatin1(popup->metaObject()->className())));
        popup->close();
    }
}

void Monkey::watchWindows()
{
    for (QWidget *widget : QApplication::topLevelWidgets()) {
        auto *window = qobject_cast<MainWindow *>(widget);
        if (!window || std::any_of(m_watches.begin(), m_watches.end(),
                                   [window](const Watch &watch) { return watch.window == window; }))
            continue;
        m_watches.append(Watch{window, {}, {}, {}});
        QObject::connect(window, &MainWindow::modelShown, window, [this, window] {
            for (Watch &watch : m_watches)
                if (watch.window == window)
                    watch.shown = window->document()->model();
        });
    }
    m_watches.removeIf([](const Watch &watch) { return watch.window.isNull(); });
}

bool Monkey::checkWindows()
{
    for (Watch &watch : m_watches) {
        MainWindow *window = watch.window;
        if (!window)
            continue;
        const QString name = window == m_window ? QStringLiteral("the window") : QStringLiteral("another window");
        Document *document = window->document();
        if (document->isLoading()) {
            if (!watch.loading.isValid())
                watch.loading.start();
            if (watch.loading.elapsed() > m_options.hangMs)
                return fail(QStringLiteral("%1 has been opening %2 for %3 ms")
                                .arg(name, pathName(document->loadingPath()))
                                .arg(watch.loading.elapsed()));
        } else {
            watch.loading.invalidate();
        }
        const auto model = document->model();
        if (!model)
            continue;
        if (watch.shown.lock() != model) {
            if (!watch.unsettled.isValid())
                watch.unsettled.start();
            if (watch.unsettled.elapsed() > m_options.hangMs)
                return fail(QStringLiteral("%1's pages have not shown the model of %2 for %3 ms")
                                .arg(name, pathName(document->path()))
                                .arg(watch.unsettled.elapsed()));
            continue;
        }
        watch.unsettled.invalidate();
        ++m_checks;
        if (const QString problems = WindowInvariants::check(*window); !problems.isEmpty())
            return fail(QStringLiteral("%1 shows %2, but:\n%3").arg(name, pathName(document->path()), problems));
    }
    return true;
}

bool Monkey::afterAction(const QString &description)
{
    // a menu or popup the action left open, then the events the action posted
    closeModals();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    // responsive: a posted event is delivered in time, and the heartbeat ran once more after the
    // action, so that its longest gap covers the action (a dialog's loop, a Wait, run it too)
    QElapsedTimer answer;
    answer.start();
    bool delivered = false;
    QTimer::singleShot(0, m_window, [&delivered] { delivered = true; });
    pollUntil([&delivered] { return delivered; }, m_options.maxStallMs * 4);
    const qint64 answeredMs = answer.elapsed();
    const qint64 beatsBefore = m_longestGap;
    m_longestGap = 0;
    pollUntil([this] { return m_longestGap > 0; }, m_options.maxStallMs * 4);
    const qint64 gapMs = std::max(beatsBefore, m_longestGap);
    QString line = description;
    if (!m_notes.isEmpty())
        line += QStringLiteral(" [") + m_notes.join(QStringLiteral("; ")) + u']';
    if (std::max(gapMs, answeredMs) > 250)
        line += QStringLiteral(" (the event loop stood still for %1 ms; a posted event took %2 ms)")
                    .arg(gapMs)
                    .arg(answeredMs);
    m_log << line;
    if (m_log.size() > kLogLength)
        m_log.removeFirst();
    if (m_options.verbose)
        qInfo().noquote() << "monkey:" << line;
    m_longestStall = std::max({m_longestStall, gapMs, answeredMs});
    if (gapMs > m_options.maxStallMs)
        return fail(QStringLiteral("the event loop stood still for %1 ms").arg(gapMs));
    if (!delivered || answeredMs > m_options.maxStallMs)
        return fail(QStringLiteral("the window took %1 ms to deliver a posted event%2")
                        .arg(answeredMs)
                        .arg(delivered ? QString() : QStringLiteral(" (and has not yet)")));
    watchWindows();
    return checkWindows();
}

bool Monkey::fail(const QString &why)
{
    QString text =
        QStringLiteral("monkey: FAILED seed %1 at action %2: %3\n").arg(m_options.seed).arg(m_done + 1).arg(why);
    text += QStringLiteral("monkey: the last %1 actions:\n").arg(m_log.size());
    for (const QString &line : m_log)
        text += QStringLiteral("  ") + line + u'\n';
    text +=
        QStringLiteral("monkey: replay with: gguf-monkey --seed %1 --actions %2\n").arg(m_options.seed).arg(m_done + 1);
    m_report = text;
    return false;
}

QString Monkey::pathName(const QString &path) const
{
    return m_pool ? m_pool->name(path) : path;
}
