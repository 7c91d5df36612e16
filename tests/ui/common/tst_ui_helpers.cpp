// SPDX-License-Identifier: GPL-3.0-or-later
// The window's shared helpers: PageState (a page's saved view state, all or nothing) and
// LazyRefresh (compute only when on screen, once a burst of changes settles).
#include "ui/common/lazy_refresh.h"
#include "ui/common/page_state.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QHeaderView>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

namespace {

// A page's widgets with state worth keeping.
struct Widgets {
    QWidget page;
    QSplitter *splitter = new QSplitter(&page);
    QTableView *table = new QTableView(&page);
    QStandardItemModel model{2, 4};
    QComboBox *choice = new QComboBox(&page);
    QTabWidget *tabs = new QTabWidget(&page);
    QCheckBox *check = new QCheckBox(&page);
    PageState state{7};

    Widgets()
    {
        splitter->addWidget(new QWidget);
        splitter->addWidget(new QWidget);
        splitter->resize(400, 100);
        table->setModel(&model);
        choice->addItems({QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
        tabs->addTab(new QWidget, QStringLiteral("one"));
        tabs->addTab(new QWidget, QStringLiteral("two"));
        state.add(splitter).add(table->horizontalHeader()).add(choice).add(tabs).add(check);
    }
};

} // namespace

class TestUiHelpers : public QObject {
    Q_OBJECT

private slots:
    void pageStateRoundTrip()
    {
        Widgets a;
        a.splitter->setSizes({300, 100});
        a.table->horizontalHeader()->resizeSection(2, 77);
        a.table->horizontalHeader()->moveSection(0, 3);
        a.choice->setCurrentIndex(2);
        a.tabs->setCurrentIndex(1);
        a.check->setChecked(true);
        const QByteArray saved = a.state.save();

        Widgets b;
        QSignalSpy toggled(b.check, &QCheckBox::toggled);
        QVERIFY(b.state.restore(saved));
        QCOMPARE(b.splitter->saveState(), a.splitter->saveState());
        QCOMPARE(b.table->horizontalHeader()->sectionSize(2), 77);
        QCOMPARE(b.table->horizontalHeader()->visualIndex(0), 3);
        QCOMPARE(b.choice->currentIndex(), 2);
        QCOMPARE(b.tabs->currentIndex(), 1);
        QVERIFY(b.check->isChecked());
        QCOMPARE(toggled.count(), 1); // as a click would say it
    }

    void pageStateIgnoresAnotherVersionOrACutState()
    {
        Widgets a;
        a.choice->setCurrentIndex(2);
        a.check->setChecked(true);
        QByteArray saved = a.state.save();
        Widgets b;
        PageState other(8);
        other.add(b.splitter).add(b.table->horizontalHeader()).add(b.choice).add(b.tabs).add(b.check);
        QVERIFY(!other.restore(saved));
        QCOMPARE(b.choice->currentIndex(), 0);
        // every part read or none applied: a state cut inside its last part changes nothing
        saved.chop(1);
        QVERIFY(!b.state.restore(saved));
        QCOMPARE(b.choice->currentIndex(), 0);
        QVERIFY(!b.check->isChecked());
        QVERIFY(!b.state.restore(QByteArray()));
    }

    void pageStateKeepsAnIndexInRange()
    {
        QByteArray saved;
        {
            QDataStream out(&saved, QIODevice::WriteOnly);
            out << quint32(1) << qint32(9); // an index the combo box does not have
        }
        QComboBox choice;
        choice.addItems({QStringLiteral("a"), QStringLiteral("b")});
        choice.setCurrentIndex(1);
        PageState state(1);
        state.add(&choice);
        QVERIFY(state.restore(saved));
        QCOMPARE(choice.currentIndex(), 1);
    }

    void lazyRefreshWaitsUntilShown()
    {
        QWidget widget;
        int refreshes = 0;
        auto *lazy = new LazyRefresh(&widget, [&refreshes] { ++refreshes; });
        lazy->invalidate();
        lazy->invalidate();
        QCOMPARE(refreshes, 0); // hidden: nothing computed
        QVERIFY(lazy->isStale());
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        QCOMPARE(refreshes, 1); // once, on the show
        QVERIFY(!lazy->isStale());
        lazy->invalidate();
        QCOMPARE(refreshes, 2); // on screen: at once
        widget.hide();
        widget.show();
        QCOMPARE(refreshes, 2); // nothing stale: showing again computes nothing
        widget.hide();
        lazy->invalidate();
        lazy->clear();
        widget.show();
        QCOMPARE(refreshes, 2); // cleared: nothing to compute
        lazy->refreshNow();
        QCOMPARE(refreshes, 3);
    }

    void lazyRefreshLetsABurstSettle()
    {
        QWidget widget;
        widget.show();
        QVERIFY(QTest::qWaitForWindowExposed(&widget));
        int refreshes = 0;
        auto *lazy = new LazyRefresh(&widget, [&refreshes] { ++refreshes; });
        for (int i = 0; i < 5; ++i)
            lazy->invalidateAfter(50);
        QCOMPARE(refreshes, 0);
        QTRY_COMPARE(refreshes, 1); // once, after the burst
        // nothing stale is left, so no later timeout can refresh again
        QVERIFY(!lazy->isStale());
        // a change made at once ends the wait
        lazy->invalidateAfter(10000);
        lazy->invalidate();
        QCOMPARE(refreshes, 2);
    }
};

QTEST_MAIN(TestUiHelpers)
#include "tst_ui_helpers.moc"
