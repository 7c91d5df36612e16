// SPDX-License-Identifier: GPL-3.0-or-later
// No text is cut off at the default window size (#40): every page and every tab inside it is shown
// at 1280 × 800 — with a model, a comparison, a LoRA adapter checked against its base and an
// importance matrix — and every visible label, button, check box, combo box, header section and
// item cell is measured. One whose text needs more room than it has must carry a tooltip (which
// then holds the whole text). CTest runs it again at 200 % (QT_SCALE_FACTOR=2: tst_clipped_text_200).
#include "app/explorer/main_window.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/kind_samples.h"
#include "tests/support/screenshots.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "ui/common/job_tracker.h"
#include "ui/compare/compare_page.h"
#include "ui/hex/hex_page.h"
#include "ui/importance/importance_model.h"
#include "ui/importance/importance_page.h"
#include "ui/overview/kind_panel.h"
#include "ui/overview/overview_page.h"
#include "ui/shell/document.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStyleOptionHeader>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QThreadPool>
#include <QtTest>

namespace {

const QString kSample = gguf::test::sampleModel();
const QString kOther = gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf");

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openFile(path);
    return shown.wait(20000);
}

bool showAt(MainWindow &window, QSize size)
{
    window.resize(size);
    window.show();
    return QTest::qWaitForWindowExposed(&window);
}

// Lets the jobs of what is on screen finish and their results arrive: rounds of the event loop (the
// pages take a model one per round, a finished job delivers in the next) until no worker runs and a
// whole round started none.
void settle()
{
    for (int quiet = 0, round = 0; quiet < 3 && round < 100; ++round) {
        QCoreApplication::processEvents(QEventLoop::AllEvents);
        QCoreApplication::sendPostedEvents();
        const bool idle = JobTracker::pool()->activeThreadCount() == 0;
        JobTracker::pool()->waitForDone(30000);
        quiet = idle ? quiet + 1 : 0;
    }
}

QString plain(const QString &text)
{
    if (!Qt::mightBeRichText(text))
        return QString(text).remove(QLatin1Char('&'));
    QTextDocument doc;
    doc.setHtml(text);
    return doc.toPlainText();
}

// The widest line of `text` in `font`.
int textWidth(const QFont &font, const QString &text)
{
    const QFontMetrics metrics(font);
    int widest = 0;
    for (const QString &line : plain(text).split(QLatin1Char('\n')))
        widest = std::max(widest, metrics.horizontalAdvance(line));
    return widest;
}

QString describe(const QWidget *w)
{
    QString path;
    for (const QWidget *p = w; p; p = p->parentWidget())
        if (!p->objectName().isEmpty()) {
            path = p->objectName();
            break;
        }
    return QStringLiteral("%1 in %2").arg(QLatin1String(w->metaObject()->className()), path);
}

class Scanner {
public:
    explicit Scanner(QString where) : m_where(std::move(where)) {}

    void scan(QWidget *root)
    {
        for (QWidget *w : root->findChildren<QWidget *>()) {
            // (scrolled out of its scroll area: not on screen)
            if (!w->isVisible() || w->width() <= 1 || !w->window()->isVisible() || w->visibleRegion().isEmpty())
                continue;
            if (auto *label = qobject_cast<QLabel *>(w))
                checkLabel(label);
            else if (auto *button = qobject_cast<QAbstractButton *>(w))
                checkButton(button);
            else if (auto *combo = qobject_cast<QComboBox *>(w))
                checkCombo(combo);
            else if (auto *header = qobject_cast<QHeaderView *>(w))
                checkHeader(header);
            else if (auto *view = qobject_cast<QAbstractItemView *>(w))
                checkCells(view);
        }
    }
    const QStringList &found() const { return m_found; }

private:
    // A tooltip excuses cut text only when it holds the whole text.
    static bool toolTipHolds(const QString &toolTip, const QString &text)
    {
        return !toolTip.isEmpty() && plain(toolTip).contains(plain(text).simplified().left(200));
    }

    // What is on screen of the width from `left` (in w's coordinates): a widget inside a scroll
    // area, or wider than its parent, shows only part of itself.
    static int visibleFrom(const QWidget *w, int left, int width)
    {
        const QRect shown = w->visibleRegion().boundingRect();
        return std::min(width, shown.right() + 1 - left);
    }

    void report(const QWidget *w, const QString &text, int needs, int has)
    {
        m_found << QStringLiteral("%1: %2 \"%3\" needs %4 px, has %5")
                       .arg(m_where, describe(w), plain(text).left(80))
                       .arg(needs)
                       .arg(has);
    }

    void checkLabel(QLabel *label)
    {
        if (label->text().isEmpty() || toolTipHolds(label->toolTip(), label->text()) || !label->pixmap().isNull())
            return;
        if (label->wordWrap()) {
            // it wraps at its own width, so it is cut only where it reaches past what is on screen
            const int needs = std::min(label->width(), textWidth(label->font(), label->text()));
            const int has = visibleFrom(label, 0, label->width());
            if (needs > has + 1)
                report(label, label->text(), needs, has);
            return;
        }
        const int left = label->contentsRect().left() + label->margin() + std::max(0, label->indent());
        const int has = visibleFrom(label, left,
                                    label->contentsRect().width() - 2 * label->margin() - std::max(0, label->indent()));
        const int needs = textWidth(label->font(), label->text());
        if (needs > has + 1)
            report(label, label->text(), needs, has);
    }

    void checkButton(QAbstractButton *button)
    {
        if (button->text().isEmpty() || toolTipHolds(button->toolTip(), button->text()))
            return;
        const int needs = button->sizeHint().width();
        const int has = visibleFrom(button, 0, button->width());
        if (needs > has + 1)
            report(button, button->text(), needs, has);
    }

    void checkCombo(QComboBox *combo)
    {
        if (combo->isEditable() || combo->currentText().isEmpty() ||
            toolTipHolds(combo->toolTip(), combo->currentText()) ||
            toolTipHolds(combo->itemData(combo->currentIndex(), Qt::ToolTipRole).toString(), combo->currentText()))
            return;
        QStyleOptionComboBox option;
        option.initFrom(combo);
        const QRect field =
            combo->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, combo);
        const int needs = textWidth(combo->font(), combo->currentText()) +
                          (combo->itemIcon(combo->currentIndex()).isNull() ? 0 : combo->iconSize().width() + 4);
        const int has = visibleFrom(combo, field.left(), field.width());
        if (needs > has + 1)
            report(combo, combo->currentText(), needs, has);
    }

    void checkHeader(QHeaderView *header)
    {
        const QAbstractItemModel *model = header->model();
        if (!model || header->orientation() != Qt::Horizontal)
            return;
        for (int visual = 0; visual < header->count(); ++visual) {
            const int logical = header->logicalIndex(visual);
            if (header->isSectionHidden(logical) || header->sectionViewportPosition(logical) >= header->width())
                continue;
            const QString text = model->headerData(logical, Qt::Horizontal).toString();
            if (text.isEmpty() ||
                toolTipHolds(model->headerData(logical, Qt::Horizontal, Qt::ToolTipRole).toString(), text))
                continue;
            QStyleOptionHeader option;
            option.initFrom(header);
            option.text = text;
            option.section = logical;
            QFont font = header->font();
            if (const QVariant f = model->headerData(logical, Qt::Horizontal, Qt::FontRole); f.isValid())
                font = f.value<QFont>();
            option.fontMetrics = QFontMetrics(font);
            if (header->isSortIndicatorShown() && header->sortIndicatorSection() == logical)
                option.sortIndicator = QStyleOptionHeader::SortDown;
            const int needs =
                header->style()->sizeFromContents(QStyle::CT_HeaderSection, &option, QSize(), header).width();
            if (needs > header->sectionSize(logical) + 1)
                report(header, text, needs, header->sectionSize(logical));
        }
    }

    // the cells of the rows on screen (the first 40)
    void checkCells(QAbstractItemView *view)
    {
        const QAbstractItemModel *model = view->model();
        if (!model || view->textElideMode() == Qt::ElideNone)
            return;
        QModelIndex index = view->indexAt(QPoint(1, 1));
        for (int row = 0; index.isValid() && row < 40; ++row) {
            for (int column = 0; column < model->columnCount(index.parent()); ++column) {
                const QModelIndex cell = index.siblingAtColumn(column);
                // (a column reaching past the edge of a scrolling view is not cut: it scrolls)
                const QRect rect = view->visualRect(cell);
                if (rect.isEmpty() || rect.right() >= view->viewport()->width())
                    continue;
                const QString text = cell.data().toString();
                // (a cell's tooltip may say more than its text: any tooltip will do)
                if (text.isEmpty() || !cell.data(Qt::ToolTipRole).toString().isEmpty())
                    continue;
                QStyleOptionViewItem option;
                option.initFrom(view);
                option.rect = rect;
                option.font = view->font();
                const int needs = view->itemDelegateForIndex(cell)->sizeHint(option, cell).width();
                const int has = rect.width();
                if (needs > has + 1)
                    report(view, text, needs, has);
            }
            // the row under this one on screen
            const int bottom = view->visualRect(index).bottom();
            if (bottom + 2 >= view->viewport()->height())
                break;
            index = view->indexAt(QPoint(1, bottom + 2));
        }
    }

    QString m_where;
    QStringList m_found;
};

// Shows every tab of every tab widget under `root`, in turn, depth first, scanning each state.
void walkTabs(QWidget *root, const QString &where, QStringList &found, int depth = 0)
{
    settle();
    Scanner scanner(where);
    scanner.scan(root);
    found << scanner.found();
    if (depth > 3)
        return;
    for (QTabWidget *tabs : root->findChildren<QTabWidget *>()) {
        if (!tabs->isVisible() || tabs->parentWidget() == nullptr)
            continue;
        // only the tab widgets directly under this level (nested ones are walked from their tab)
        bool nested = false;
        for (QWidget *p = tabs->parentWidget(); p && p != root; p = p->parentWidget())
            if (qobject_cast<QTabWidget *>(p))
                nested = true;
        if (nested)
            continue;
        const int was = tabs->currentIndex();
        for (int i = 0; i < tabs->count(); ++i) {
            if (!tabs->isTabVisible(i) || !tabs->isTabEnabled(i))
                continue;
            tabs->setCurrentIndex(i);
            walkTabs(tabs->widget(i), where + QStringLiteral(" › ") + plain(tabs->tabText(i)), found, depth + 1);
        }
        tabs->setCurrentIndex(was);
    }
}

} // namespace

class TestClippedText : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        QVERIFY(gguf::test::writeBytes(m_dir.filePath(QStringLiteral("adapter.gguf")),
                                       gguf::test::loraSample().build().bytes()));
        QVERIFY(gguf::test::writeBytes(m_dir.filePath(QStringLiteral("imatrix.gguf")),
                                       gguf::test::imatrixSample().build().bytes()));
    }

    void everyPageOfAModelAndAComparison_data() { sizes(); }
    void everyPageOfAModelAndAComparison()
    {
        QFETCH(QSize, size);
        MainWindow window;
        QVERIFY(showAt(window, size));
        QStringList found;
        walkTabs(&window, QStringLiteral("no model"), found);
        QVERIFY(openAndWait(window, kSample));
        window.compareWith(kOther);
        QTRY_VERIFY_WITH_TIMEOUT(window.page<ComparePage>()->other() != nullptr, 20000);
        window.page<ComparePage>()->selectTensor(QStringLiteral("blk.0.attn_k.weight"));
        walkTabs(&window, QStringLiteral("model"), found);
        // the Bytes inspector on a byte of a 128-byte field (Q4_K's qs: "128 bytes" read "12")
        const gguf::TensorInfo *q4k = window.document()->model()->primary().findTensor("blk.3.ffn_up.weight");
        QVERIFY(q4k);
        // chosen while the page is hidden, as a link from another page does, then shown
        window.pages()->setCurrentWidget(window.page<OverviewPage>());
        window.page<HexPage>()->showByteRange(q4k->fileOffset + 16 + 127, 1);
        settle();
        window.pages()->setCurrentWidget(window.page<HexPage>());
        // the inspector as narrow as its splitter lets it be (a state saved earlier may say so)
        for (QSplitter *splitter : window.page<HexPage>()->findChildren<QSplitter *>())
            splitter->setSizes({4000, 1});
        walkTabs(window.page<HexPage>(), QStringLiteral("Bytes, a qs byte"), found);
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("\n") + found.join(QLatin1Char('\n'))));
    }

    void adapterAndImportanceMatrix_data() { sizes(); }
    void adapterAndImportanceMatrix()
    {
        QFETCH(QSize, size);
        MainWindow window;
        QVERIFY(showAt(window, size));
        QStringList found;
        QVERIFY(openAndWait(window, m_dir.filePath(QStringLiteral("adapter.gguf"))));
        // checked against a base whose name is long enough to be cut ("Against tiny-lla…")
        auto *kind = window.findChild<KindPanel *>();
        QVERIFY(kind);
        kind->checkAgainstBase(kSample);
        walkTabs(&window, QStringLiteral("adapter"), found);
        window.pages()->setCurrentWidget(window.page<OverviewPage>());
        settle();
        QVERIFY(gguf::test::saveScreenshot(window, QStringLiteral("clipped-adapter")));
        QVERIFY(openAndWait(window, m_dir.filePath(QStringLiteral("imatrix.gguf"))));
        walkTabs(&window, QStringLiteral("imatrix"), found);
        window.pages()->setCurrentWidget(window.page<ImportancePage>());
        settle();
        QVERIFY(gguf::test::saveScreenshot(window, QStringLiteral("clipped-importance")));
        // no column as wide as a weight's problem text pushes the figures off screen (#40): Σ importance
        // is whole on screen and Share begins there
        const auto *table = window.findChild<QTableView *>(QStringLiteral("importanceTable"));
        QVERIFY(table);
        const QHeaderView *header = table->horizontalHeader();
        const int viewport = table->viewport()->width();
        QVERIFY(header->sectionViewportPosition(ImportanceModel::Sum) + header->sectionSize(ImportanceModel::Sum) <=
                viewport);
        QVERIFY(header->sectionViewportPosition(ImportanceModel::Share) < viewport);
        QVERIFY2(found.isEmpty(), qPrintable(QStringLiteral("\n") + found.join(QLatin1Char('\n'))));
    }

private:
    // 1280 × 800 (at 100 % and, run again by CTest, at 200 %), and the window's first-start size
    static void sizes()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("1280 x 800") << QSize(1280, 800);
        if (qEnvironmentVariableIsEmpty("QT_SCALE_FACTOR"))
            QTest::newRow("first start, 1100 x 760") << QSize(1100, 760); // MainWindow::restoreSettings
    }

    QTemporaryDir m_dir;
};

QTEST_MAIN(TestClippedText)
#include "tst_clipped_text.moc"
