// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare page in the explorer window (offscreen): File ▸ Compare With, a Ctrl-drop and a bad
// second file; the metadata, tokenizer and tensor sections on the sample against the same model
// quantized to Q8_0; the values streaming in on workers, sorting by a measure, cancelling; one
// pair's plots; a changed chat template as a line diff; and the links into A's and B's pages.
#include "app/explorer/main_window.h"
#include "core/format/split_model.h"
#include "core/quant/dequantize.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/plain_diff.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"
#include "ui/common/job_tracker.h"
#include "ui/common/message_bar.h"
#include "ui/compare/compare_page.h"
#include "ui/compare/metadata_diff_model.h"
#include "ui/compare/tensor_diff_model.h"
#include "ui/compare/tensor_pair_panel.h"
#include "ui/compare/text_diff_view.h"
#include "ui/compare/token_diff_model.h"
#include "ui/hex/hex_page.h"
#include "ui/metadata/metadata_page.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/layer_chart.h"
#include "ui/shell/document.h"
#include "ui/tensors/tensors_page.h"
#include "ui/tokenizer/tokenizer_page.h"

#include <QAbstractItemModelTester>
#include <QMimeData>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

namespace {

const QString kSample = gguf::test::sampleModel(); // tiny-llama-tied-q4_k_m.gguf
const QString kQ8 = gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf");
const QString kOther = gguf::test::dataPath(u"real/tiny-llama-q4_k_m.gguf");

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openFile(path);
    return shown.wait(10000);
}

// Compares the window's model with `path` and waits until every value is compared.
bool compareAndWait(MainWindow &window, const QString &path)
{
    ComparePage *page = window.page<ComparePage>();
    QSignalSpy done(page, &ComparePage::valuesCompared);
    window.compareWith(path);
    return done.wait(20000);
}

const gguf::TensorPair *pairNamed(const TensorDiffModel *model, const char *name)
{
    const int row = model->rowOfName(QLatin1String(name));
    return model->pairAt(row);
}

} // namespace

class TestComparePage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void sampleAgainstQ8()
    {
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(compareAndWait(window, kQ8));
        ComparePage *page = window.page<ComparePage>();
        QCOMPARE(window.pages()->currentWidget(), page);
        QVERIFY(page->summaryText().contains(QStringLiteral("Metadata: 1 changed, 0 added, 0 removed, 24 the same")));
        QCOMPARE(page->tokenizerVerdict(), QStringLiteral("same vocabulary"));
        QCOMPARE(page->tokenModel()->rowCount(), 0);

        // metadata: the differences by default, every key on request, a filter
        QCOMPARE(page->metadataView()->model()->rowCount(), 1);
        QCOMPARE(page->metadataView()->model()->index(0, 0).data().toString(), QStringLiteral("general.file_type"));
        QCOMPARE(page->metadataView()->model()->index(0, MetadataDiffModel::ValueA).data().toString(),
                 QStringLiteral("15 (Q4_K_M)"));
        page->setMetadataFilter(1);
        QCOMPARE(page->metadataView()->model()->rowCount(), 25);
        page->setMetadataFilter(1, QStringLiteral("head_count"));
        QCOMPARE(page->metadataView()->model()->rowCount(), 2);

        // tensors: every comparable pair measured, as the core and the plain sums say
        const TensorDiffModel *model = page->tensorModel();
        QCOMPARE(model->rowCount(), 38);
        int sameBytes = 0, measured = 0;
        for (const gguf::TensorPair &p : model->pairs()) {
            sameBytes += p.status == gguf::TensorDiffStatus::SameBytes;
            measured += p.valuesCompared;
        }
        QCOMPARE(sameBytes, 9);
        QCOMPARE(measured, 29);
        const gguf::TensorPair *k = pairNamed(model, "blk.2.ffn_down.weight");
        QVERIFY(k && k->valuesCompared);
        const auto decode = [](const std::shared_ptr<const gguf::SplitModel> &m, int position) {
            const auto &ref = m->tensors()[static_cast<size_t>(position)];
            std::vector<float> v(static_cast<size_t>(ref.info->elements));
            gguf::dequantizeRange(ref.info->typeId, m->shards()[ref.shard].file->tensorBytes(*ref.info),
                                  ref.info->elements, 0, v);
            return v;
        };
        const gguf::test::Plain plain =
            gguf::test::plainMeasures(decode(model->modelA(), k->positionA), decode(model->modelB(), k->positionB));
        QVERIFY(std::fabs(*TensorDiffModel::measure(*k, TensorDiffModel::Rmse) - plain.rmse) < 1e-12 * plain.rmse);

        // sorted by RMSE, largest first; the norms (RMSE 0) last
        QSortFilterProxyModel *proxy = page->tensorProxy();
        page->tensorView()->sortByColumn(TensorDiffModel::Rmse, Qt::DescendingOrder);
        double largest = 0;
        for (const gguf::TensorPair &p : model->pairs())
            largest = std::max(largest, TensorDiffModel::measure(p, TensorDiffModel::Rmse).value_or(0));
        QCOMPARE(proxy->index(0, TensorDiffModel::Rmse).data(TensorDiffModel::SortRole).toDouble(), largest);
        QCOMPARE(proxy->index(37, TensorDiffModel::Rmse).data(TensorDiffModel::SortRole).toDouble(), 0.0);
        page->tensorProxy()->setDifferencesOnly(true);
        QCOMPARE(proxy->rowCount(), 29);
        page->tensorProxy()->setDifferencesOnly(false);

        // one pair in detail: histograms, the difference, the heatmap and the layer chart
        TensorPairPanel *pair = page->pairPanel();
        QVERIFY(page->selectTensor(QStringLiteral("blk.1.ffn_up.weight")));
        QTRY_VERIFY_WITH_TIMEOUT(!pair->tracker()->isRunning(), 20000);
        QVERIFY(pair->histograms()->hasPlot());
        QCOMPARE(pair->histograms()->series().size(), 2);
        QVERIFY(pair->differenceHistogram()->hasPlot());
        // the difference histogram spans ±max |a − b| and holds every pair
        const HistogramPlot::Series &d = pair->differenceHistogram()->series().front();
        const gguf::TensorPair *up = pairNamed(model, "blk.1.ffn_up.weight");
        QCOMPARE(d.hi, up->values.maxAbsDiff);
        double total = 0;
        for (double n : d.values)
            total += n;
        QCOMPARE(total, 256.0 * 768.0);
        pair->views()->setCurrentIndex(2);
        QCOMPARE(pair->layers()->pointCount(), 4); // ffn_up in layers 0–3
        pair->views()->setCurrentIndex(1);
        QVERIFY(pair->heatmap()->hasPlot());
        QCOMPARE(pair->heatmap()->heatmap().tensorCols, quint64(256));
        QSignalSpy bytes(pair, &TensorPairPanel::linkActivated);
        emit pair->heatmap()->tileActivated(0, 0);
        QCOMPARE(bytes.count(), 1);
        QCOMPARE(bytes.first().at(0).value<Link>().side, Link::Side::A);
        QCOMPARE(bytes.first().at(0).value<Link>().target, Link::Target::Bytes);
        const auto [offsetB, sizeB] = pair->tileBytes(1, 0, 0);
        QVERIFY(sizeB > 0);
        const gguf::TensorInfo *infoB = model->modelB()->tensors()[static_cast<size_t>(up->positionB)].info;
        QCOMPARE(offsetB, infoB->fileOffset); // the first tile starts at the tensor's first block
        QCOMPARE(window.pages()->currentWidget(), window.page<HexPage>()); // the tile's bytes went to A's Bytes page
    }

    void linksOpenEachFilesPages()
    {
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(compareAndWait(window, kOther));
        ComparePage *page = window.page<ComparePage>();
        // output.weight only B has: a link opens B in a window of its own, with the tensor selected
        const int row = page->tensorModel()->rowOfName(QStringLiteral("output.weight"));
        const gguf::TensorPair *p = page->tensorModel()->pairAt(row);
        QVERIFY(p && p->status == gguf::TensorDiffStatus::OnlyB);
        const auto &ref = page->tensorModel()->modelB()->tensors()[static_cast<size_t>(p->positionB)];
        // two links while B's window is still opening: the newer one wins, once
        const Link tensorOfB =
            Link::tensor(TensorRef{static_cast<int>(ref.shard), static_cast<int>(ref.info->index)}).on(Link::Side::B);
        emit page->linkActivated(tensorOfB);
        QVERIFY(window.otherWindow());
        emit page->linkActivated(Link::metadataEntry(0).on(Link::Side::B));
        MainWindow *other = window.otherWindow();
        QSignalSpy shown(other, &MainWindow::modelShown);
        QVERIFY(shown.wait(10000));
        QCOMPARE(shown.count(), 1); // the second link did not open B again
        QCOMPARE(other->document()->path(), kOther);
        QCOMPARE(other->pages()->currentWidget(), other->page<MetadataPage>());
        // once it shows B, a link acts at once
        emit page->linkActivated(tensorOfB);
        QCOMPARE(other->pages()->currentWidget(), other->page<TensorsPage>());
        // a token of A opens on this window's Tokenizer page
        emit page->linkActivated(Link::tokenId(5));
        QCOMPARE(window.pages()->currentWidget(), window.page<TokenizerPage>());
        // the same window serves the next link to B
        emit page->linkActivated(Link::metadataEntry(0).on(Link::Side::B));
        QCOMPARE(window.otherWindow(), other);
        QCOMPARE(other->pages()->currentWidget(), other->page<MetadataPage>());
        QCOMPARE(shown.count(), 1);
        other->close();
    }

    void modelsPassTheModelTester()
    {
        // two vocabularies: arrays with differing elements (child rows), added and removed ids
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, gguf::test::dataPath(u"real/ggml-vocab-llama-spm.gguf")));
        ComparePage *page = window.page<ComparePage>();
        QAbstractItemModelTester metadata(page->metadataModel(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester tokens(page->tokenModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester tensors(page->tensorModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxy(page->tensorProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(compareAndWait(window, gguf::test::dataPath(u"real/ggml-vocab-phi-3.gguf")));
        const QModelIndex scores = page->metadataModel()->indexOfKey(QStringLiteral("tokenizer.ggml.scores"));
        QVERIFY(scores.isValid());
        QCOMPARE(page->metadataModel()->rowCount(scores), 8); // the first eight differing elements
        QCOMPARE(page->metadataModel()->index(0, MetadataDiffModel::Key, scores).data().toString(),
                 QStringLiteral("[0]"));
        QCOMPARE(page->metadataModel()->parent(page->metadataModel()->index(0, 0, scores)), scores);
        // the 64 ids phi-3 adds come after the changed ones
        const gguf::TokenizerDiff &t = page->tokenModel()->diff();
        QCOMPARE(page->tokenModel()->rowCount(), static_cast<int>(t.changes.size() + 64));
        const QModelIndex added = page->tokenModel()->index(static_cast<int>(t.changes.size()), TokenDiffModel::Change);
        QCOMPARE(added.data().toString(), QStringLiteral("added"));
        QCOMPARE(added.data(TokenDiffModel::IdRole).toULongLong(), 32000ull);
        QCOMPARE(page->tokenModel()->index(added.row(), TokenDiffModel::TokenB).data().toString(),
                 QStringLiteral("<|endoftext|>"));
    }

    void ctrlDropCompares()
    {
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kSample));
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(kQ8)});
        QSignalSpy loaded(window.otherDocument(), &Document::loaded);
        const QPoint pos = window.rect().center();
        QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::ControlModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::ControlModifier);
        QApplication::sendEvent(&window, &drop);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(window.document()->path(), kSample); // A stays
        QCOMPARE(window.page<ComparePage>()->otherPath(), kQ8);
    }

    void badSecondFileKeepsEverything()
    {
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kSample));
        QVERIFY(compareAndWait(window, kQ8));
        QTemporaryDir dir;
        QFile text(dir.filePath(QStringLiteral("notes.txt")));
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("just text\n");
        text.close();
        for (const QString &bad : {dir.filePath(QStringLiteral("missing.gguf")), text.fileName(), dir.path()}) {
            QSignalSpy failed(window.otherDocument(), &Document::loadFailed);
            window.compareWith(bad);
            QVERIFY(failed.wait(10000));
            QVERIFY2(window.messageBar()->text().contains(QFileInfo(bad).fileName()),
                     qPrintable(window.messageBar()->text()));
            QCOMPARE(window.page<ComparePage>()->otherPath(), kQ8); // the comparison on show stays
            QCOMPARE(window.document()->path(), kSample);
        }
    }

    void cancelThenContinue()
    {
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, kSample));
        ComparePage *page = window.page<ComparePage>();
        QSignalSpy shown(page, &ComparePage::comparisonShown);
        window.compareWith(kQ8);
        QVERIFY(shown.wait(10000));
        page->valueTracker()->cancel();
        QTRY_VERIFY(!page->isBusy());
        int measured = 0;
        for (const gguf::TensorPair &p : page->tensorModel()->pairs())
            measured += p.valuesCompared;
        QVERIFY(measured < 29);
        QSignalSpy done(page, &ComparePage::valuesCompared);
        page->compareValues();
        QVERIFY(done.wait(20000));
        measured = 0;
        for (const gguf::TensorPair &p : page->tensorModel()->pairs())
            measured += p.valuesCompared;
        QCOMPARE(measured, 29);
    }

    void chatTemplateAsLineDiff()
    {
        using gguf::test::GgufBuilder;
        using gguf::test::V;
        QTemporaryDir dir;
        const std::string before = "{% for m in messages %}\n{{ m.role }}: {{ m.content }}\n{% endfor %}\n";
        const std::string after =
            "{{ bos_token }}\n{% for m in messages %}\n{{ m.role }}: {{ m.content }}\n{% endfor %}\n";
        QVERIFY(gguf::test::writeBytes(dir.filePath("a.gguf"),
                                       GgufBuilder().kv("tokenizer.chat_template", V::str(before)).build().bytes()));
        QVERIFY(gguf::test::writeBytes(dir.filePath("b.gguf"),
                                       GgufBuilder().kv("tokenizer.chat_template", V::str(after)).build().bytes()));
        MainWindow window;
        window.show();
        QVERIFY(openAndWait(window, dir.filePath("a.gguf")));
        QVERIFY(compareAndWait(window, dir.filePath("b.gguf")));
        ComparePage *page = window.page<ComparePage>();
        QTreeView *view = page->metadataView();
        QCOMPARE(view->model()->rowCount(), 1);
        view->setCurrentIndex(view->model()->index(0, 0));
        QVERIFY(page->textDiff()->isVisible());
        QCOMPARE(page->textDiff()->addedLines(), 1);
        QCOMPARE(page->textDiff()->removedLines(), 0);
        QVERIFY(page->textDiff()->toPlainText().contains(QStringLiteral("+ {{ bos_token }}")));
    }
};

QTEST_MAIN(TestComparePage)
#include "tst_compare_page.moc"
