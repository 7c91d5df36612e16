// SPDX-License-Identifier: GPL-3.0-or-later
// The window on a URL served by a real HTTP server on 127.0.0.1: opening fills the pages, the
// Bytes page and the value grid show dots until their bytes arrive and then the file's own bytes,
// the statistics equal the local file's, the status bar counts what was fetched, editing is off,
// a dropped link opens, a large tensor's statistics and layer chart come from a sample until the
// whole tensor is asked for, and a file changed on the server or a missing one is said in the window.
#include "app/explorer/main_window.h"
#include "core/format/split_model.h"
#include "core/net/remote_files.h"
#include "core/quant/dequantize.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/range_server/range_server.h"
#include "tests/support/screenshots.h"
#include "tests/support/test_paths.h"
#include "ui/checkpoint/checkpoint_overview.h"
#include "ui/checkpoint/checkpoint_view.h"
#include "ui/checkpoint/checkpoint_weights.h"
#include "ui/common/job_tracker.h"
#include "ui/common/message_bar.h"
#include "ui/hex/hex_page.h"
#include "ui/hex/hex_text.h"
#include "ui/metadata/metadata_page.h"
#include "ui/plots/layer_chart.h"
#include "ui/shell/document.h"
#include "ui/shell/open_url_dialog.h"
#include "ui/shell/remote_status.h"
#include "ui/shell/start_view.h"
#include "ui/weights/histogram_panel.h"
#include "ui/weights/layer_panel.h"
#include "ui/weights/stats_table.h"
#include "ui/weights/value_grid_model.h"
#include "ui/weights/value_grid_view.h"
#include "ui/weights/weights_page.h"

#include <QComboBox>
#include <QFile>
#include <QMimeData>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

using gguf::test::RangeServer;

namespace {

const QString kSample = gguf::test::sampleModel();

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::modelShown);
    window.openFile(path);
    return shown.wait(15000);
}

// The Weights page in `mode`, showing `tensor` of the open model.
WeightsPage *showWeights(MainWindow &window, WeightsPage::Mode mode, const QString &tensor)
{
    WeightsPage *weights = window.page<WeightsPage>();
    window.pages()->setCurrentWidget(weights);
    weights->setMode(mode);
    weights->showTensor(TensorHandle::named(window.document()->model(), tensor));
    return weights;
}

std::shared_ptr<const gguf::GgufFile> local()
{
    return gguf::GgufFile::open(kSample.toStdString()).file;
}

} // namespace

class TestRemoteWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void openingAUrlFillsThePages();
    void bytesPageShowsTheFetchedBytes();
    void statisticsEqualTheLocalFile();
    void valueGridFetchesItsCells();
    void largeTensorIsSampledFirst();
    void droppedLinkOpens();
    void changeOnTheServerIsSaid();
    void missingFileIsSaid();
    void dialogRefusesWhatIsNotAUrl();
    void checkpointAtAUrl();

private:
    RangeServer m_server;
    QTemporaryDir m_dir;
    QString m_url;
};

void TestRemoteWindow::initTestCase()
{
    QCoreApplication::setApplicationName(QStringLiteral("tst_remote_window"));
    QSettings().clear();
    qputenv("no_proxy", "127.0.0.1,localhost");
    QVERIFY(m_server.start());
    m_server.serve("/m/sample.gguf", kSample.toStdString());
    m_url = QString::fromStdString(m_server.url("/m/sample.gguf"));
    gguf::net::RemoteOptions options;
    options.cache.blockBytes = 64 << 10;
    // no block is kept once no lease holds it: a read outside a lease finds nothing (unleasedRead)
    options.cache.cacheBytes = 0;
    gguf::net::enableRemoteFiles(options);
}

void TestRemoteWindow::openingAUrlFillsThePages()
{
    MainWindow window;
    window.show();
    m_server.resetCounters();
    QVERIFY(openAndWait(window, m_url));
    const auto model = window.document()->model();
    QVERIFY(model);
    QVERIFY(model->primary().isRemote());
    QCOMPARE(model->primary().tensors().size(), local()->tensors().size());
    QVERIFY(window.windowTitle().contains(QStringLiteral("sample.gguf")));
    // the status bar counts the bytes
    auto *status = window.statusBar()->findChild<RemoteStatus *>();
    QVERIFY(status);
    QTRY_VERIFY(status->isVisible());
    QVERIFY2(status->text().startsWith(QStringLiteral("Fetched ")), qPrintable(status->text()));
    // a remote file is not edited
    auto *edit = window.page<MetadataPage>()->findChild<QToolButton *>(QStringLiteral("editMetadata"));
    QVERIFY(edit);
    QVERIFY(!edit->isEnabled());
    QVERIFY(edit->toolTip().contains(QStringLiteral("remote")));
    QVERIFY(!model->primary().source().unleasedRead());
}

void TestRemoteWindow::bytesPageShowsTheFetchedBytes()
{
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, m_url));
    const auto file = window.document()->model()->primaryShared();
    window.pages()->setCurrentWidget(window.page<HexPage>());
    // far into the tensor data: not fetched while opening
    const quint64 at = file->fileSize() - 100000;
    QVERIFY(!file->peek(at, 16));
    // a slow answer: a copy asked for before it comes says so, and the message goes when it comes
    m_server.addFault("/m/sample.gguf", gguf::test::Fault::slow(400), 3);
    window.page<HexPage>()->showByteRange(at, 16);
    QCOMPARE(window.page<HexPage>()->copyText(HexPage::CopyFormat::Hex), QString());
    QCOMPARE(window.page<HexPage>()->messageText(), HexPage::notArrivedText());
    const QString expected = HexText::toHex(local()->bytes(at, 16));
    QTRY_COMPARE_WITH_TIMEOUT(window.page<HexPage>()->copyText(HexPage::CopyFormat::Hex), expected, 10000);
    QTRY_COMPARE(window.page<HexPage>()->messageText(), QString());
    m_server.clearFaults("/m/sample.gguf");
    QVERIFY(!file->source().unleasedRead());
    QVERIFY(gguf::test::saveScreenshot(window, QStringLiteral("remote-bytes")));
}

void TestRemoteWindow::statisticsEqualTheLocalFile()
{
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, m_url));
    const auto model = window.document()->model();
    WeightsPage *weights = showWeights(window, WeightsPage::Mode::Histogram, QStringLiteral("token_embd.weight"));
    QTRY_VERIFY_WITH_TIMEOUT(weights->histogramPanel()->statistics().has_value() && !weights->isBusy(), 20000);
    const auto l = local();
    const gguf::TensorData data = gguf::tensorData(*l, *l->findTensor("token_embd.weight"));
    gguf::TensorStatistics expected;
    QCOMPARE(gguf::computeStatistics(data, {}, expected), gguf::StatsStatus::Ok);
    const gguf::TensorStatistics &got = *weights->histogramPanel()->statistics();
    QCOMPARE(got.count, expected.count);
    QCOMPARE(got.min, expected.min);
    QCOMPARE(got.max, expected.max);
    QCOMPARE(got.mean, expected.mean);
    QVERIFY(!model->primary().source().unleasedRead());
}

void TestRemoteWindow::largeTensorIsSampledFirst()
{
    // two layers of a 68 MiB F32 tensor, zeros but for 1 at the first value and -2 at the last of
    // layer 0
    constexpr uint64_t kCols = 4096, kRows = 4352, kValues = kCols * kRows;
    const gguf::test::BuiltFile built = gguf::test::GgufBuilder()
                                            .tensor("blk.0.ffn_up.weight", {kCols, kRows}, 0 /* F32 */)
                                            .tensor("blk.1.ffn_up.weight", {kCols, kRows}, 0)
                                            .build();
    const uint64_t data = built.layout().tensors.front().dataOffset;
    std::vector<uint8_t> bytes = built.bytes();
    // the zeros, when the builder left them out
    bytes.resize(std::max<size_t>(bytes.size(), built.layout().tensors.back().dataOffset + kValues * 4));
    const float one = 1.0f, minusTwo = -2.0f;
    std::memcpy(bytes.data() + data, &one, 4);
    std::memcpy(bytes.data() + data + (kValues - 1) * 4, &minusTwo, 4);
    const QString path = m_dir.filePath(QStringLiteral("big.gguf"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(reinterpret_cast<const char *>(bytes.data()), qint64(bytes.size())), qint64(bytes.size()));
    out.close();
    bytes = {};
    m_server.serve("/m/big.gguf", path.toStdString());

    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, QString::fromStdString(m_server.url("/m/big.gguf"))));
    const auto model = window.document()->model();
    const gguf::ByteSource &source = model->primary().source();
    WeightsPage *weights = showWeights(window, WeightsPage::Mode::Histogram, QStringLiteral("blk.0.ffn_up.weight"));
    HistogramPanel *panel = weights->histogramPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->statistics().has_value() && !weights->isBusy(), 30000);
    // a sample first: estimates, said in a bar, and far less than the tensor fetched
    QVERIFY(panel->statistics()->sampledElements > 0);
    QVERIFY(panel->statistics()->sampledElements < kValues / 2);
    QCOMPARE(panel->statistics()->count, kValues);
    QVERIFY(panel->sampleBar()->isVisible());
    QVERIFY2(source.bytesFetched() < kValues * 4 / 2, qPrintable(QString::number(source.bytesFetched())));
    QVERIFY(panel->statsTable()->valueText(StatsTable::Row::Mean).startsWith(QStringLiteral("≈")));
    QVERIFY(gguf::test::saveScreenshot(window, QStringLiteral("remote-sampled-statistics")));

    // the chart across layers samples each layer's tensor too
    const uint64_t beforeLayers = source.bytesFetched();
    weights->setMode(WeightsPage::Mode::Layers);
    LayerPanel *layers = weights->layerPanel();
    QTRY_COMPARE_WITH_TIMEOUT(layers->chart()->pointCount(), 2, 30000);
    QVERIFY(layers->chart()->plot()->yAxis->label().contains(QStringLiteral("sampled")));
    QVERIFY(source.bytesFetched() - beforeLayers < kValues * 4);

    // then the whole tensor when asked for: its last value is in no sample
    weights->setMode(WeightsPage::Mode::Histogram);
    auto *readWhole = panel->findChild<QPushButton *>(QStringLiteral("readWholeTensor"));
    QVERIFY(readWhole);
    QTest::mouseClick(readWhole, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(panel->statistics().has_value() && panel->statistics()->sampledElements == 0 &&
                                 panel->statistics()->percentilesExact && !weights->isBusy(),
                             60000);
    QCOMPARE(panel->statistics()->min, -2.0);
    QCOMPARE(panel->statistics()->max, 1.0);
    QCOMPARE(panel->statistics()->zeros, kValues - 2);
    QVERIFY(!panel->sampleBar()->isVisible());
    QVERIFY(!source.unleasedRead());
}

void TestRemoteWindow::valueGridFetchesItsCells()
{
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, m_url));
    const auto model = window.document()->model();
    // the token embeddings: their last rows lie where nothing was fetched yet
    WeightsPage *weights = showWeights(window, WeightsPage::Mode::Values, QStringLiteral("token_embd.weight"));
    ValueGridModel *grid = weights->valueGrid()->model();
    const gguf::TensorInfo *found = model->primary().findTensor("token_embd.weight");
    QVERIFY(found);
    const gguf::TensorInfo &t = *found;
    const quint64 row = t.ne[1] - 1;
    const QModelIndex cell = grid->locate(row, 5);
    QVERIFY(cell.isValid());
    QCOMPARE(cell.data().toString(), QStringLiteral("…"));
    // the value once it arrived equals the local file's, decoded here
    const auto l = local();
    std::vector<float> value(1);
    QVERIFY(gguf::dequantizeRange(t.typeId, l->tensorBytes(*l->findTensor("token_embd.weight")), t.elements,
                                  row * t.ne[0] + 5, value, false));
    QTRY_VERIFY_WITH_TIMEOUT(cell.data().toString() != QStringLiteral("…"), 10000);
    QCOMPARE(cell.data(ValueGridModel::ValueRole).toDouble(), double(value[0]));
    QVERIFY(gguf::test::saveScreenshot(window, QStringLiteral("remote-values")));
    QVERIFY(!model->primary().source().unleasedRead());
}

void TestRemoteWindow::droppedLinkOpens()
{
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::modelShown);
    QMimeData mime;
    mime.setUrls({QUrl(m_url)});
    const QPoint pos = window.rect().center();
    QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent dropEvent(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &dropEvent);
    QVERIFY(shown.wait(15000));
    QCOMPARE(window.document()->path(), m_url);
}

void TestRemoteWindow::changeOnTheServerIsSaid()
{
    const QString copy = m_dir.filePath(QStringLiteral("changing.gguf"));
    QVERIFY(QFile::copy(kSample, copy));
    m_server.serve("/m/changing.gguf", copy.toStdString());
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, QString::fromStdString(m_server.url("/m/changing.gguf"))));
    {
        QFile f(copy);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(120), QFileDevice::FileModificationTime));
    }
    // the next fetch sees another ETag; the window says so in its bar, as for a local file
    const auto file = window.document()->model()->primaryShared();
    window.pages()->setCurrentWidget(window.page<HexPage>());
    window.page<HexPage>()->showByteRange(file->fileSize() - 5000, 4);
    QTRY_VERIFY_WITH_TIMEOUT(window.messageBar()->text().contains(QStringLiteral("changed on the server")), 10000);
}

void TestRemoteWindow::missingFileIsSaid()
{
    m_server.setStatus("/m/missing.gguf", 404);
    MainWindow window;
    window.show();
    QSignalSpy failed(window.document(), &Document::loadFailed);
    window.openFile(QString::fromStdString(m_server.url("/m/missing.gguf")));
    QVERIFY(failed.wait(15000));
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("no such file on the server (HTTP 404)")),
             qPrintable(failed.at(0).at(1).toString()));
    // nothing was open: the start view says it, beside the ways to open another (#40)
    const auto *start = window.findChild<StartView *>();
    QVERIFY(start);
    QTRY_VERIFY(start->failureText().contains(QStringLiteral("HTTP 404")));
    QVERIFY(start->failureText().contains(QString::fromStdString(m_server.url("/m/missing.gguf"))));
}

void TestRemoteWindow::dialogRefusesWhatIsNotAUrl()
{
    OpenUrlDialog dialog;
    auto *url = dialog.findChild<QComboBox *>();
    QVERIFY(url);
    for (const QString &bad :
         {QStringLiteral("ftp://host/m.gguf"), QStringLiteral("hf:only-owner/m.gguf"), QString()}) {
        url->setCurrentText(bad);
        dialog.accept();
        QVERIFY2(dialog.result() != QDialog::Accepted, qPrintable(bad));
    }
    url->setCurrentText(QStringLiteral("hf:owner/repo/model.gguf@v2"));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.url(), QStringLiteral("hf:owner/repo/model.gguf@v2"));
}

// A sharded checkpoint at a URL (#43): its index, shards and config.json found beside each other on
// the server; the pages show it, and a tensor's statistics are read through ranged requests (the
// cache keeps nothing outside a lease) equal to those of the local files.
void TestRemoteWindow::checkpointAtAUrl()
{
    const QString dir = gguf::test::dataPath(u"hf-oracle/mixtral-bf16");
    for (const QString &name :
         {QStringLiteral("config.json"), QStringLiteral("tokenizer.json"),
          QStringLiteral("model.safetensors.index.json"), QStringLiteral("model-00001-of-00002.safetensors"),
          QStringLiteral("model-00002-of-00002.safetensors")})
        m_server.serve(("/ck/" + name).toStdString(), (dir + "/" + name).toStdString());
    const auto statsOf = [](MainWindow &window, const QString &path) {
        QSignalSpy shown(&window, &MainWindow::checkpointShown);
        window.openFile(path);
        if (!shown.wait(20000))
            return gguf::TensorStatistics{};
        CheckpointWeights *weights = window.checkpointView()->weights();
        if (weights->tracker()->isRunning()) {
            QSignalSpy done(weights, &CheckpointWeights::statisticsShown);
            if (!done.wait(20000))
                return gguf::TensorStatistics{};
        }
        return weights->statistics();
    };
    MainWindow window;
    window.show();
    const gguf::TensorStatistics remote =
        statsOf(window, QString::fromStdString(m_server.url("/ck/model.safetensors.index.json")));
    QCOMPARE(window.checkpointView()->overview()->fieldText(QStringLiteral("Architecture")),
             QStringLiteral("MixtralForCausalLM")); // config.json from the server
    QCOMPARE(window.checkpointView()->overview()->fieldText(QStringLiteral("Tensors")), QStringLiteral("41"));
    QVERIFY(remote.count > 0);
    MainWindow local;
    local.show();
    const gguf::TensorStatistics there = statsOf(local, dir);
    QCOMPARE(remote.count, there.count);
    QCOMPARE(remote.min, there.min);
    QCOMPARE(remote.max, there.max);
    QCOMPARE(remote.percentiles, there.percentiles);
}

QTEST_MAIN(TestRemoteWindow)
#include "tst_remote_window.moc"
