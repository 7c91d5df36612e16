// SPDX-License-Identifier: GPL-3.0-or-later
// The Weights page on a model built in memory: compared histograms share one range, the per-layer
// chart has one point per layer, heatmap tiles and the bytes of a tile's first row, the value grid's
// "go to", every export read back (PNG, SVG, PDF, CSV, .npy), and the page inside the main window.
#include "app/explorer/main_window.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/stats/tensor_export.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_paths.h"
#include "ui/common/job_tracker.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/layer_chart.h"
#include "ui/shell/document.h"
#include "ui/tensors/tensor_sort_filter_proxy.h"
#include "ui/tensors/tensor_table_model.h"
#include "ui/tensors/tensors_page.h"
#include "ui/weights/compare_panel.h"
#include "ui/weights/heatmap_panel.h"
#include "ui/weights/histogram_panel.h"
#include "ui/weights/layer_panel.h"
#include "ui/weights/value_grid_model.h"
#include "ui/weights/value_grid_view.h"
#include "ui/weights/weights_page.h"

#include <QImage>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTreeView>
#include <QtTest>
#include <qcustomplot.h>

#include <qcustomplot.h>

#include <cmath>
#include <cstring>
#include <numeric>

using namespace gguf;
using namespace gguf::test;

namespace {

constexpr int kLayers = 4;
constexpr uint64_t kCols = 64, kRows = 32;

std::vector<uint8_t> f32Bytes(const std::vector<float> &values)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// Layer L's attn_q: values L + (i % 8) / 8, so its mean is L + 7/16.
std::vector<float> layerValues(int layer)
{
    std::vector<float> values(kCols * kRows);
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(layer) + static_cast<float>(i % 8) / 8.0f;
    return values;
}

// Every value of row r is r (a heatmap tile's mean is its first row's index when a tile is one row).
std::vector<float> rowValues()
{
    std::vector<float> values(kCols * kRows);
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<float>(i / kCols);
    return values;
}

std::shared_ptr<const SplitModel> makeModel()
{
    GgufBuilder builder;
    builder.kv("general.architecture", V::str("llama"));
    builder.tensor("token_embd.weight", {kCols, kRows}, 0, f32Bytes(rowValues()));
    for (int layer = 0; layer < kLayers; ++layer) {
        const std::string prefix = "blk." + std::to_string(layer) + ".";
        builder.tensor(prefix + "attn_q.weight", {kCols, kRows}, 0, f32Bytes(layerValues(layer)));
        builder.tensor(prefix + "ffn_down.weight", {32, 4}, 8); // Q8_0, zero-filled
    }
    OpenResult opened = GgufFile::openBuffer(builder.build().bytes());
    return opened.file ? SplitModel::single(opened.file) : nullptr;
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace

class TestWeightsPage : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_model = makeModel();
        QVERIFY(m_model);
        QVERIFY(m_dir.isValid());
        // Settings (window state, export folder) stay inside the test's own directory.
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
        QCoreApplication::setOrganizationName(QStringLiteral("gguf-explorer-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_weights_page"));
    }

    void cleanup() { QVERIFY(JobTracker::pool()->waitForDone(20000)); }

    void startsWithARepresentativeTensor()
    {
        WeightsPage page;
        page.setModel(m_model);
        QCOMPARE(page.tensor().name(), QStringLiteral("blk.0.attn_q.weight"));
        QCOMPARE(page.tensor().role(), QStringLiteral("attn_q.weight"));
        QVERIFY(!page.isBusy()); // nothing is computed while the page is hidden
    }

    void comparedHistogramsShareOneRange()
    {
        WeightsPage page;
        page.resize(1000, 700);
        page.setModel(m_model);
        page.show();
        page.setMode(WeightsPage::Mode::Compare);
        ComparePanel *compare = page.comparePanel();
        // Until the user picks, the current tensor's role in the first, middle and last layer.
        QCOMPARE(compare->compared(),
                 (QStringList{QStringLiteral("blk.0.attn_q.weight"), QStringLiteral("blk.2.attn_q.weight"),
                              QStringLiteral("blk.3.attn_q.weight")}));
        QSignalSpy finished(compare->tracker(), &JobTracker::finished);
        QVERIFY(compare->tracker()->isRunning() || finished.count() > 0);
        QVERIFY(finished.count() > 0 || finished.wait(10000));
        const WeightJobs::Comparison &result = compare->comparison();
        QVERIFY(result.complete);
        QCOMPARE(result.series.size(), 3);
        // The union of the ranges: layer 0's minimum to layer 3's maximum.
        QCOMPARE(result.lo, 0.0);
        QCOMPARE(result.hi, 3.875);
        const QVector<HistogramPlot::Series> &drawn = compare->plot()->series();
        QCOMPARE(drawn.size(), 3);
        for (const HistogramPlot::Series &s : drawn) {
            QCOMPARE(s.lo, result.lo);
            QCOMPARE(s.hi, result.hi);
            QCOMPARE(s.values.size(), drawn.first().values.size());
            // Normalised: each tensor's bins add up to 100 % of its values.
            QVERIFY(std::abs(std::accumulate(s.values.begin(), s.values.end(), 0.0) - 100.0) < 1e-9);
        }
        compare->setCompared({QStringLiteral("token_embd.weight"), QStringLiteral("blk.1.attn_q.weight")});
        QVERIFY(finished.wait(10000));
        QCOMPARE(compare->plot()->series().size(), 2);
        QCOMPARE(compare->plot()->series().first().name, QStringLiteral("token_embd.weight"));
    }

    void layerChartHasOnePointPerLayer()
    {
        WeightsPage page;
        page.setModel(m_model);
        page.show();
        LayerPanel *layers = page.layerPanel();
        QSignalSpy finished(layers->tracker(), &JobTracker::finished);
        layers->setStatistic(LayerPanel::Statistic::Mean);
        page.setMode(WeightsPage::Mode::Layers);
        QVERIFY(finished.wait(10000));
        QCOMPARE(layers->role(), QStringLiteral("attn_q.weight"));
        QCOMPARE(layers->chart()->pointCount(), kLayers);
        for (int layer = 0; layer < kLayers; ++layer) {
            QCOMPARE(layers->chart()->points()[layer].layer, layer);
            QVERIFY(std::abs(layers->chart()->points()[layer].value - (layer + 7.0 / 16.0)) < 1e-12);
        }
        // Another statistic redraws without computing again.
        layers->setStatistic(LayerPanel::Statistic::Max);
        QVERIFY(!layers->tracker()->isRunning());
        QCOMPARE(layers->chart()->points()[2].value, 2.875);
        // Another role computes its layers.
        layers->setRole(QStringLiteral("ffn_down.weight"));
        QVERIFY(finished.wait(10000));
        QCOMPARE(layers->chart()->pointCount(), kLayers);
        // Clicking a point shows that layer's tensor.
        emit layers->chart()->tensorClicked(QStringLiteral("blk.3.ffn_down.weight"));
        QCOMPARE(page.tensor().name(), QStringLiteral("blk.3.ffn_down.weight"));
        QCOMPARE(page.mode(), WeightsPage::Mode::Histogram);
    }

    // Layer numbers are whole: a 2-layer chart has ticks 0 and 1 only, each once (#40: -1, 0, 1, 1, 2).
    void layerTicksAreWholeNumbers()
    {
        LayerChart chart;
        chart.resize(700, 300);
        chart.setPoints({{0, 1.0, QStringLiteral("blk.0.w")}, {1, 2.0, QStringLiteral("blk.1.w")}},
                        QStringLiteral("mean"));
        chart.show();
        chart.plot()->replot();
        const QVector<double> ticks = chart.plot()->xAxis->tickVector();
        QVERIFY(!ticks.isEmpty());
        QStringList labels = chart.plot()->xAxis->tickVectorLabels().toList();
        for (double t : ticks)
            QCOMPARE(t, std::round(t));
        labels.removeDuplicates();
        QCOMPARE(labels.size(), ticks.size());
    }

    // A flat line (every layer's std 0, as in an all-zero model) keeps a value axis a person can
    // read: the axis spans a unit around 0, not ±2e-14; a flat line at 5 spans 10 % of 5 each side.
    void flatLineKeepsAReadableAxis()
    {
        LayerChart chart;
        chart.resize(700, 300);
        chart.setPoints({{0, 0.0, QStringLiteral("blk.0.w")}, {1, 0.0, QStringLiteral("blk.1.w")}},
                        QStringLiteral("std"));
        QCPRange range = chart.plot()->yAxis->range();
        QVERIFY2(range.lower <= -1.0 && range.upper >= 1.0,
                 qPrintable(QStringLiteral("%1 .. %2").arg(range.lower).arg(range.upper)));
        chart.setPoints({{0, 5.0, QStringLiteral("blk.0.w")}, {1, 5.0, QStringLiteral("blk.1.w")}},
                        QStringLiteral("mean"));
        range = chart.plot()->yAxis->range();
        QVERIFY2(range.lower <= 4.5 && range.upper >= 5.5 && range.lower > 0,
                 qPrintable(QStringLiteral("%1 .. %2").arg(range.lower).arg(range.upper)));
    }

    // Two histograms drawn together: their legend sits above the axes, never over the bars (#40: it
    // covered the peak); one histogram has no legend and no room kept for one.
    void legendKeepsOffTheBars()
    {
        HistogramPlot plot;
        plot.resize(600, 400);
        plot.show();
        const QVector<double> bell{1, 4, 9, 16, 25, 16, 9, 4, 1};
        plot.setSeries({{QStringLiteral("A"), -1, 1, bell}, {QStringLiteral("B"), -1, 1, bell}},
                       HistogramPlot::Scale::Shares);
        plot.plot()->replot();
        QVERIFY(plot.plot()->legend->visible());
        QVERIFY(!plot.plot()->legend->outerRect().intersects(plot.plot()->axisRect()->rect()));
        const int twoHigh = plot.plot()->axisRect()->rect().height();
        plot.setSeries({{QStringLiteral("A"), -1, 1, bell}}, HistogramPlot::Scale::Counts);
        plot.plot()->replot();
        QVERIFY(!plot.plot()->legend->visible());
        QVERIFY(plot.plot()->axisRect()->rect().height() > twoHigh);
    }

    // A plot is drawn once per paint, not per change or resize, and not at all off screen (#40: a page
    // that appeared replotted its histogram at each of the resizes its layout made, tens of ms each
    // on a busy machine).
    void plotsDrawOncePerPaint()
    {
        HistogramPlot plot;
        QCoreApplication::processEvents(); // (QCustomPlot's own first replot, queued by its constructor)
        int drawn = 0;
        connect(plot.plot(), &QCustomPlot::afterReplot, this, [&drawn] { ++drawn; });
        const QVector<double> bell{1, 4, 9, 16, 25, 16, 9, 4, 1};
        plot.setSeries({{QStringLiteral("A"), -1, 1, bell}}, HistogramPlot::Scale::Counts);
        plot.setLogarithmic(true);
        plot.resize(500, 300);
        QCoreApplication::processEvents();
        QCOMPARE(drawn, 0); // hidden: nothing drawn
        plot.show();
        QVERIFY(QTest::qWaitForWindowExposed(&plot));
        QCoreApplication::processEvents();
        QCOMPARE(drawn, 1); // shown: drawn at its first paint
        drawn = 0;
        for (int width = 510; width < 560; width += 10)
            plot.resize(width, 300);
        plot.plot()->repaint();
        QCoreApplication::processEvents();
        QCOMPARE(drawn, 1); // five resizes, one paint: drawn once
        // what is drawn is the last state
        QCOMPARE(plot.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
    }

    void heatmapTilesAndTheirBytes()
    {
        WeightsPage page;
        page.resize(1000, 700);
        page.setModel(m_model);
        page.showTensor(TensorHandle::named(m_model, QStringLiteral("token_embd.weight")));
        page.show();
        HeatmapPanel *heatmap = page.heatmapPanel();
        QSignalSpy finished(heatmap->tracker(), &JobTracker::finished);
        heatmap->setMeasure(int(TileMeasure::Mean));
        page.setMode(WeightsPage::Mode::Heatmap);
        QVERIFY(finished.wait(10000));
        const Heatmap &h = heatmap->plot()->heatmap();
        QCOMPARE(h.gridRows, uint32_t(kRows)); // grid clipped to the tensor's own size
        QCOMPARE(h.gridCols, uint32_t(kCols));
        QCOMPARE(h.mean[5 * kCols + 3], 5.0f);
        // the grid drawn, not the one asked for (#40: "512 × 512 tiles" over a smaller tensor)
        QVERIFY2(heatmap->tileInfo().startsWith(
                     QStringLiteral("%1 × %2 tiles of up to 1 × 1 values.").arg(kRows).arg(kCols)),
                 qPrintable(heatmap->tileInfo()));
        QSignalSpy clicked(heatmap->plot(), &HeatmapPlot::tileClicked);
        heatmap->plot()->selectTile(5, 3);
        QCOMPARE(clicked.count(), 1);
        // the selected tile's text is said once, below the plot, not again in the read-out (#40)
        QVERIFY(heatmap->plot()->readout().isEmpty());
        QVERIFY2(heatmap->tileInfo().contains(QStringLiteral("Rows 5–5, columns 3–3")),
                 qPrintable(heatmap->tileInfo()));
        // F32: the tile's first row's block range is exactly its one value.
        const TensorInfo &info = page.tensor().info();
        const auto [offset, size] = heatmap->tileBytes(5, 3);
        QCOMPARE(offset, info.fileOffset + (5 * kCols + 3) * 4);
        QCOMPARE(size, quint64(4));
        QSignalSpy requested(&page, &Page::linkActivated);
        QPushButton *showBytes = nullptr;
        for (QPushButton *button : heatmap->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("Show &bytes"))
                showBytes = button;
        QVERIFY(showBytes && showBytes->isEnabled());
        showBytes->click();
        QCOMPARE(requested.count(), 1);
        // the tile's bytes, in the tensor's file, for the Bytes page to show
        QCOMPARE(requested.first().at(0).value<Link>(), Link::bytes(page.tensor().shard(), offset, size));

        // A coarser grid of a quantized tensor: whole 34-byte Q8_0 blocks.
        page.showTensor(TensorHandle::named(m_model, QStringLiteral("blk.1.ffn_down.weight")));
        QVERIFY(finished.wait(10000));
        const TensorInfo &q8 = page.tensor().info();
        const auto [q8Offset, q8Size] = heatmap->tileBytes(2, 5); // row 2, column 5 of a 32 × 4 tensor
        QCOMPARE(q8Offset, q8.fileOffset + 2 * 34);
        QCOMPARE(q8Size, quint64(34));
    }

    void valueGridGoesAnywhere()
    {
        WeightsPage page;
        page.setModel(m_model);
        page.show();
        page.setMode(WeightsPage::Mode::Values);
        page.showTensor(TensorHandle::named(m_model, QStringLiteral("token_embd.weight")));
        ValueGridView *grid = page.valueGrid();
        QCOMPARE(grid->model()->rowCount(), int(kRows));
        QVERIFY(grid->goTo(QStringLiteral("20, 7")));
        QCOMPARE(grid->view()->currentIndex().row(), 20);
        QCOMPARE(grid->view()->currentIndex().column(), 7);
        QCOMPARE(grid->view()->currentIndex().data(ValueGridModel::ValueRole).toDouble(), 20.0);
        QVERIFY(grid->goTo(QStringLiteral("#130")));
        QCOMPARE(grid->view()->currentIndex().row(), 2);
        QCOMPARE(grid->view()->currentIndex().column(), 2);
        QVERIFY(grid->goTo(QStringLiteral("31")));
        QVERIFY(!grid->goTo(QStringLiteral("32")));
        QVERIFY(!grid->goTo(QStringLiteral("row five")));
        QVERIFY(grid->pageText().contains(QStringLiteral("32 rows × 64 columns")));
    }

    void exportsReadBack()
    {
        WeightsPage page;
        page.resize(1000, 700);
        page.setModel(m_model);
        page.showTensor(TensorHandle::named(m_model, QStringLiteral("token_embd.weight")));
        HistogramPanel *histogram = page.histogramPanel();
        histogram->setBins(32);
        WeightJobs::RangeChoice range;
        range.mode = WeightJobs::RangeMode::Custom;
        range.lo = 0;
        range.hi = 32;
        histogram->setRangeChoice(range);
        QSignalSpy finished(histogram->tracker(), &JobTracker::finished);
        page.show();
        QVERIFY(finished.wait(10000));
        QVERIFY(QTest::qWaitForWindowExposed(&page));

        const QString png = m_dir.filePath(QStringLiteral("histogram.png"));
        QString error;
        QVERIFY2(page.exportPlot(png, &error), qPrintable(error));
        const QImage image(png);
        QVERIFY(!image.isNull());
        const QSize plotSize = histogram->plot()->plot()->size();
        QCOMPARE(image.size(), plotSize);

        const QString svg = m_dir.filePath(QStringLiteral("histogram.svg"));
        QVERIFY2(page.exportPlot(svg, &error), qPrintable(error));
        const QByteArray svgText = readAll(svg);
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("</svg>"));

        const QString pdf = m_dir.filePath(QStringLiteral("histogram.pdf"));
        QVERIFY2(page.exportPlot(pdf, &error), qPrintable(error));
        QVERIFY(readAll(pdf).startsWith("%PDF"));
        QVERIFY(!page.exportPlot(m_dir.filePath(QStringLiteral("histogram.bmp")), &error));

        // CSV: a header, then one row per bin; bin r holds the 64 values of row r.
        const QString csv = m_dir.filePath(QStringLiteral("histogram.csv"));
        QVERIFY2(page.exportHistogramCsv(csv, &error), qPrintable(error));
        const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
        QCOMPARE(lines.size(), 33);
        QCOMPARE(lines[0], QByteArray("bin_lo,bin_hi,token_embd.weight"));
        QCOMPARE(lines[6], QByteArray("5,6,64"));
        QCOMPARE(lines[32], QByteArray("31,32,64"));

        // .npy on a worker: header, shape (rows, columns) and every value.
        const QString npy = m_dir.filePath(QStringLiteral("values.npy"));
        QSignalSpy exported(&page, &WeightsPage::valuesExported);
        page.exportValues(npy);
        QVERIFY(exported.wait(10000));
        QVERIFY2(exported.first().at(1).toBool(), qPrintable(exported.first().at(2).toString()));
        const QByteArray data = readAll(npy);
        const std::string header = npyHeader(std::vector<uint64_t>{kRows, kCols});
        QVERIFY(data.startsWith("\x93NUMPY"));
        QVERIFY(data.startsWith(QByteArray::fromStdString(header)));
        QVERIFY(QByteArray::fromStdString(header).contains("'shape': (32, 64)"));
        QCOMPARE(data.size(), qsizetype(header.size() + kRows * kCols * 4));
        std::vector<float> values(kRows * kCols);
        std::memcpy(values.data(), data.constData() + header.size(), values.size() * 4);
        QCOMPARE(values, rowValues());
        QVERIFY(!QFile::exists(npy + QStringLiteral(".part")));
        QVERIFY(page.statusText().contains(QStringLiteral("values.npy")));
    }

    void insideTheMainWindow()
    {
        MainWindow window;
        window.resize(1100, 760);
        window.show();
        QSignalSpy shown(&window, &MainWindow::modelShown);
        window.openFile(gguf::test::sampleModel());
        QVERIFY(shown.wait(10000));
        WeightsPage *page = window.page<WeightsPage>();
        QCOMPARE(window.pages()->tabText(window.pages()->indexOf(page)), QStringLiteral("&Weights"));
        // Selecting a tensor in the table shows it on the Weights page.
        TensorsPage *tensors = window.page<TensorsPage>();
        tensors->setFilter(QStringLiteral("blk.2.ffn_up.weight"), false);
        QCOMPARE(tensors->proxy()->rowCount(), 1);
        tensors->view()->setCurrentIndex(tensors->proxy()->index(0, 0));
        QCOMPARE(page->tensor().name(), QStringLiteral("blk.2.ffn_up.weight"));
        QVERIFY(!page->isBusy());
        QSignalSpy idle(page, &WeightsPage::jobsFinished);
        window.pages()->setCurrentWidget(page);
        QVERIFY(page->isBusy());
        QVERIFY(idle.wait(20000));
        QVERIFY(page->histogramPanel()->plot()->hasPlot());
        QVERIFY(page->histogramPanel()->histogram()->exact);
        // A tensor chosen on the Weights page (here: a point of the per-layer chart) is selected in the table.
        tensors->setFilter(QString(), false);
        emit page->layerPanel()->chart()->tensorClicked(QStringLiteral("blk.1.attn_k.weight"));
        QCOMPARE(page->tensor().name(), QStringLiteral("blk.1.attn_k.weight"));
        const QModelIndex current = tensors->proxy()->mapToSource(tensors->view()->currentIndex());
        QVERIFY(tensors->model()->tensorAt(current));
        QCOMPARE(tensors->model()->tensorAt(current)->name, std::string_view("blk.1.attn_k.weight"));
    }

private:
    std::shared_ptr<const SplitModel> m_model;
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestWeightsPage)
#include "tst_weights_page.moc"
