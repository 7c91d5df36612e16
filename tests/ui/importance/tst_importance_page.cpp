// SPDX-License-Identifier: GPL-3.0-or-later
// The Importance page (#18): shown only for an importance matrix; the table of every weight, the
// channel importances of the chosen weight (one expert or the mean of the used ones), the experts ×
// channels heatmap of a MoE weight, a role across the layers, never-activated experts flagged. The
// file is built in llama-imatrix's layout with sums chosen so that the importances (in_sum2 /
// counts) are small integers the test states.
#include "app/explorer/main_window.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "ui/importance/importance_model.h"
#include "ui/importance/importance_page.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/index_plot.h"
#include "ui/plots/layer_chart.h"

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const SplitModel> built(const GgufBuilder &b, std::vector<uint8_t> &storage)
{
    storage = b.build().bytes();
    return SplitModel::single(GgufFile::openBuffer(storage, "<built>").file);
}

QString cell(const ImportancePage &page, int row, int column)
{
    const QAbstractItemModel *m = page.table()->model();
    return m->data(m->index(row, column)).toString();
}

} // namespace

class TestImportancePage : public QObject {
    Q_OBJECT
private slots:
    void showsAnImportanceMatrix()
    {
        std::vector<uint8_t> bytes;
        ImportancePage page;
        QSignalSpy applicable(&page, &ImportancePage::applicableChanged);
        QSignalSpy shown(&page, &ImportancePage::reportShown);
        QSignalSpy detail(&page, &ImportancePage::detailShown);
        page.setModel(built(imatrixSample(), bytes));
        QVERIFY(page.isApplicable());
        QCOMPARE(applicable.count(), 1);
        QCOMPARE(shown.count(), 0); // nothing is computed before the page is seen
        page.resize(1200, 700);
        page.show();
        QVERIFY(shown.wait(10000));
        QCOMPARE(page.tableModel()->rowCount(), 5);
        const QString summary = page.summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("1 expert(s) never activated")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("20 chunks of 512 tokens")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("calibration.txt")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("2 weight(s) without figures")),
                 qPrintable(summary)); // attn_k, attn_v

        // the first weight is chosen: its channels are 1 2 3 4, and it has no experts
        QTRY_VERIFY(detail.count() >= 1);
        QCOMPARE(page.selectedWeight(), QStringLiteral("blk.0.attn_q.weight"));
        QCOMPARE(page.channelPlot()->values(), (QVector<double>{1, 2, 3, 4}));
        QVERIFY(!page.expertPlot()->hasPlot());
        QCOMPARE(cell(page, 0, ImportanceModel::Sum), QStringLiteral("10"));
        QCOMPARE(cell(page, 0, ImportanceModel::Share), QStringLiteral("27.03%")); // 10 / 37

        // the MoE weight: the mean of the two used experts, then each expert, then the heatmap
        detail.clear();
        QVERIFY(page.selectWeight(QStringLiteral("blk.0.ffn_up_exps.weight")));
        QTRY_VERIFY(detail.count() >= 1 && !page.isBusy());
        QCOMPARE(page.channelPlot()->values(), (QVector<double>{1, 2.5}));
        QVERIFY(page.expertPlot()->hasPlot());
        QCOMPARE(page.expertPlot()->heatmap().gridRows, 3u);
        QCOMPARE(page.expertPlot()->heatmap().mean[5], 3.0f); // expert 2, channel 1
        const QModelIndex row = page.table()->currentIndex();
        QCOMPARE(cell(page, row.row(), ImportanceModel::Experts), QStringLiteral("2 / 3"));
        const QString tip = page.table()->model()->data(row, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("never activated")) && tip.endsWith(QStringLiteral(": 1")),
                 qPrintable(tip));
        QVERIFY(page.table()->model()->data(row, Qt::BackgroundRole).isValid()); // tinted
        page.setExpert(2);
        QTRY_COMPARE(page.channelPlot()->values(), (QVector<double>{1, 3}));
        page.setExpert(1);
        QTRY_VERIFY(!page.channelPlot()->hasPlot() && !page.isBusy());

        // a role across the layers: Σ importance of attn_q is 10 then 20
        page.setLayerRole(QStringLiteral("attn_q.weight"));
        page.setLayerStatistic(ImportancePage::Statistic::Sum);
        QCOMPARE(page.layerChart()->points().size(), 2);
        QCOMPARE(page.layerChart()->points()[0].value, 10.0);
        QCOMPARE(page.layerChart()->points()[1].value, 20.0);
        // every role of a layer, each weighing by its number of importances (llama-imatrix's
        // per-layer average): layer 0 = (4 · 10 + 4 · 7) / 8; attn_k and attn_v have no figures
        page.setLayerRole(QString());
        QCOMPARE(page.layerChart()->points().size(), 2);
        QCOMPARE(page.layerChart()->points()[0].value, 8.5);
        QCOMPARE(page.layerChart()->points()[1].value, 20.0);

        // sorting by Σ (descending) puts blk.1.attn_q first; the filter keeps what matches
        page.table()->sortByColumn(ImportanceModel::Sum, Qt::DescendingOrder);
        QCOMPARE(cell(page, 0, ImportanceModel::Tensor), QStringLiteral("blk.1.attn_q.weight"));
        QVERIFY(page.focusFind());
        QTest::keyClicks(page.findChild<QLineEdit *>(), QStringLiteral("exps"));
        QCOMPARE(page.table()->model()->rowCount(), 1);
    }

    void onlyForImportanceMatrices()
    {
        // the window hides the page for any other file, and shows it for an importance matrix
        QTemporaryDir dir;
        const QString imatrixPath = dir.filePath(QStringLiteral("imatrix.gguf"));
        QVERIFY(writeBytes(imatrixPath, imatrixSample().build().bytes()));
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        QTabWidget *tabs = window.pages();
        const int index = tabs->indexOf(window.page<ImportancePage>());
        QVERIFY(index >= 0);
        QVERIFY(!tabs->isTabVisible(index));
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(gguf::test::sampleModel());
        QVERIFY(shown.wait(10000));
        QVERIFY(!tabs->isTabVisible(index));
        QVERIFY(!window.page<ImportancePage>()->isApplicable());
        window.openFile(imatrixPath);
        QVERIFY(shown.wait(10000));
        QVERIFY(tabs->isTabVisible(index));
        QSignalSpy report(window.page<ImportancePage>(), &ImportancePage::reportShown);
        tabs->setCurrentIndex(index);
        QVERIFY(report.wait(10000));
        QCOMPARE(window.page<ImportancePage>()->tableModel()->rowCount(), 5);
        window.openFile(gguf::test::sampleModel());
        QVERIFY(shown.wait(10000));
        QVERIFY(!tabs->isTabVisible(index));
    }
};

QTEST_MAIN(TestImportancePage)
#include "tst_importance_page.moc"
