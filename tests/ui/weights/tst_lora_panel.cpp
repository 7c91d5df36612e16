// SPDX-License-Identifier: GPL-3.0-or-later
// The Weights page's LoRA ΔW view (#18): enabled only for a lora_a or lora_b tensor; the heatmap of
// ΔW = scale · B·A, the norm of each row and column, the histogram, the user's adapter scale, and
// zooming into a region computed again in detail. The pair is the one tst_lora_delta works out by
// hand: ΔW = ((2 4 0), (6 −2 14)).
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/kind_samples.h"
#include "ui/common/job_tracker.h"
#include "ui/common/tensor_handle.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/index_plot.h"
#include "ui/weights/lora_panel.h"
#include "ui/weights/weights_page.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const SplitModel> adapter(std::vector<uint8_t> &storage)
{
    storage = loraSample().build().bytes(); // tests/support/kind_samples.h
    return SplitModel::single(GgufFile::openBuffer(storage, "<built>").file);
}

} // namespace

class TestLoraPanel : public QObject {
    Q_OBJECT
private slots:
    void deltaOfAPair()
    {
        std::vector<uint8_t> bytes;
        const auto model = adapter(bytes);
        WeightsPage page;
        page.resize(1200, 800);
        page.setModel(model);
        page.show();
        LoraPanel *lora = page.loraPanel();
        page.showTensor(TensorHandle::named(model, QStringLiteral("blk.0.attn_norm.weight")));
        QVERIFY(!page.isModeAvailable(WeightsPage::Mode::LoraDelta));
        QVERIFY(!lora->hasPair());

        QSignalSpy shown(lora, &LoraPanel::deltaShown);
        page.showTensor(TensorHandle::named(model, QStringLiteral("blk.0.attn_q.weight.lora_b")));
        QVERIFY(page.isModeAvailable(WeightsPage::Mode::LoraDelta));
        QVERIFY(lora->hasPair());
        page.setMode(WeightsPage::Mode::LoraDelta);
        QVERIFY(shown.wait(10000));
        const QString summary = lora->summaryText();
        QVERIFY2(summary.contains(QStringLiteral("rank 2")) && summary.contains(QStringLiteral("alpha 4 / rank 2")),
                 qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("Frobenius norm 16")), qPrintable(summary));
        // one tile per value; the mean of each is the value itself
        QVERIFY(lora->heatmap()->hasPlot());
        QCOMPARE(lora->heatmap()->heatmap().mean, (std::vector<float>{2, 4, 0, 6, -2, 14}));
        // the norms of the rows, then of the columns
        QCOMPARE(lora->normPlot()->pointCount(), 2);
        QVERIFY(std::abs(lora->normPlot()->values()[1] - std::sqrt(236.0)) < 1e-9);
        lora->setNorms(LoraPanel::Norms::Columns);
        QCOMPARE(lora->normPlot()->values().size(), 3);
        QCOMPARE(lora->normPlot()->values()[2], 14.0);
        // the histogram holds the six values
        double binned = 0;
        for (const double c : lora->histogram()->series().value(0).values)
            binned += c;
        QCOMPARE(binned, 6.0);
        QTemporaryDir dir;
        QVERIFY(page.exportPlot(dir.filePath(QStringLiteral("delta.png")))); // the heatmap is the view's plot

        // zooming into row 1, columns 1–2 computes that region alone
        QSignalSpy region(lora, &LoraPanel::regionShown);
        lora->showRegion(1, 1, 1, 2);
        QVERIFY(region.wait(10000));
        QCOMPARE(lora->heatmap()->heatmap().firstRow, uint64_t(1));
        QCOMPARE(lora->heatmap()->heatmap().mean, (std::vector<float>{-2, 14}));
        lora->showWhole();
        QCOMPARE(lora->heatmap()->heatmap().mean.size(), size_t(6));

        // the user's adapter scale multiplies ΔW
        shown.clear();
        lora->setAdapterScale(0.5);
        QVERIFY(shown.wait(10000));
        QCOMPARE(lora->heatmap()->heatmap().mean, (std::vector<float>{1, 2, 0, 3, -1, 7}));
        QCOMPARE(lora->statistics()->max, 7.0);

        // back to a plain tensor: the view is left for the histogram
        page.showTensor(TensorHandle::named(model, QStringLiteral("blk.0.attn_norm.weight")));
        QVERIFY(!page.isModeAvailable(WeightsPage::Mode::LoraDelta));
        QCOMPARE(page.mode(), WeightsPage::Mode::Histogram);
    }

    void zoomComputesTheVisibleRegion()
    {
        // 64 outputs × 2048 inputs at rank 4: the whole ΔW is 64 × 512 tiles of 4 columns each;
        // zoomed to columns 100–199 it is computed again, one tile per value
        const size_t nIn = 2048, nOut = 64, r = 4;
        std::vector<float> a(nIn * r), b(r * nOut);
        for (size_t i = 0; i < a.size(); ++i)
            a[i] = float((i * 37) % 101) / 101.0f - 0.5f;
        for (size_t i = 0; i < b.size(); ++i)
            b[i] = float((i * 53) % 97) / 97.0f - 0.5f;
        GgufBuilder builder;
        builder.kv("general.type", V::str("adapter"))
            .tensor("blk.0.ffn_down.weight.lora_a", {nIn, r}, 0, f32Data(a))
            .tensor("blk.0.ffn_down.weight.lora_b", {r, nOut}, 0, f32Data(b));
        std::vector<uint8_t> bytes = builder.build().bytes();
        const auto model = SplitModel::single(GgufFile::openBuffer(bytes, "<built>").file);
        WeightsPage page;
        page.resize(1200, 800);
        page.setModel(model);
        page.show();
        LoraPanel *lora = page.loraPanel();
        QSignalSpy shown(lora, &LoraPanel::deltaShown);
        page.showTensor(TensorHandle::named(model, QStringLiteral("blk.0.ffn_down.weight.lora_a")));
        page.setMode(WeightsPage::Mode::LoraDelta);
        QVERIFY(shown.count() == 1 || shown.wait(10000));
        QCOMPARE(lora->heatmap()->heatmap().gridCols, 512u);

        QSignalSpy region(lora, &LoraPanel::regionShown);
        QCustomPlot *plot = lora->heatmap()->plot();
        plot->xAxis->setRange(100, 200);
        plot->yAxis->setRange(0, 64);
        QVERIFY(region.wait(10000)); // once the view has settled
        const Heatmap &zoomed = lora->heatmap()->heatmap();
        QCOMPARE(zoomed.firstColumn, uint64_t(100));
        QCOMPARE(zoomed.tensorCols, uint64_t(100));
        QCOMPARE(zoomed.gridCols, 100u);
        // tile (row 5, column 0) holds ΔW[5][100] alone; no alpha: scale 1
        double expected = 0;
        for (size_t k = 0; k < r; ++k)
            expected += double(b[5 * r + k]) * a[k * nIn + 100];
        QVERIFY(std::abs(zoomed.mean[5 * zoomed.gridCols] - expected) < 1e-5);
        QVERIFY(page.isBusy() == false);

        // zooming out past everything shows the whole ΔW again, without computing it
        plot->xAxis->setRange(-50, 2100);
        plot->yAxis->setRange(-5, 70);
        QTRY_COMPARE(lora->heatmap()->heatmap().gridCols, 512u);
        QCOMPARE(lora->heatmap()->heatmap().firstColumn, uint64_t(0));
        QCOMPARE(region.count(), 1);
    }
};

QTEST_MAIN(TestLoraPanel)
#include "tst_lora_panel.moc"
