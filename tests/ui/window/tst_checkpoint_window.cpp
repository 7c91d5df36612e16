// SPDX-License-Identifier: GPL-3.0-or-later
// A Hugging Face checkpoint in the explorer window (#43): a folder, an index or a .safetensors
// file (opened, dropped) shows the checkpoint's pages — Overview, Metadata, Tensors, Weights, Bytes
// — with figures the test reads from the files itself (Qt's JSON reader on the headers and
// config.json, the BF16 values decoded and sorted here); a damaged file opens with its finding; a
// GGUF opened next brings the GGUF pages back.
#include "app/explorer/main_window.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/memory/memory_estimate.h"
#include "tests/support/test_paths.h"
#include "ui/checkpoint/checkpoint_bytes.h"
#include "ui/checkpoint/checkpoint_metadata.h"
#include "ui/checkpoint/checkpoint_overview.h"
#include "ui/checkpoint/checkpoint_tensors.h"
#include "ui/checkpoint/checkpoint_tokenizer.h"
#include "ui/checkpoint/checkpoint_view.h"
#include "ui/checkpoint/checkpoint_weights.h"
#include "ui/common/job_tracker.h"
#include "ui/common/message_bar.h"
#include "ui/compare/compare_page.h"
#include "ui/pairing/checkpoint_compare_panel.h"
#include "ui/plots/heatmap_plot.h"
#include "ui/plots/histogram_plot.h"
#include "ui/plots/layer_chart.h"
#include "ui/plots/type_mix_plot.h"
#include "ui/shell/document.h"
#include "ui/tokenizer/token_chips.h"
#include "ui/tokenizer/tokenize_view.h"

#include <QCheckBox>
#include <QFile>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QPushButton>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QTreeWidget>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace {

QString oracle(const QString &name)
{
    return gguf::test::dataPath(QString(QStringLiteral("hf-oracle/") + name));
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A safetensors file's header length and its JSON header, read here.
quint64 headerLength(const QByteArray &file)
{
    quint64 n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | static_cast<uchar>(file[i]);
    return n;
}

QJsonObject headerOf(const QByteArray &file)
{
    return QJsonDocument::fromJson(file.mid(8, static_cast<qsizetype>(headerLength(file)))).object();
}

QString ggufNameOf(const gguf::SplitModel &model, const gguf::CheckpointPair &p)
{
    const std::string_view name = model.tensors()[size_t(p.ggufTensor)].info->name;
    return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

bool openCheckpoint(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::checkpointShown);
    window.openFile(path);
    return shown.wait(10000);
}

QWidget *shownWidget(MainWindow &window)
{
    return window.findChild<QStackedWidget *>()->currentWidget();
}

} // namespace

class TestCheckpointWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_window.resize(1200, 800);
        m_window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&m_window));
    }

    // The sharded mixtral checkpoint through its folder: every page against the files.
    void folder()
    {
        const QString dir = oracle(QStringLiteral("mixtral-bf16"));
        QVERIFY(openCheckpoint(m_window, dir));
        CheckpointView *view = m_window.checkpointView();
        QCOMPARE(shownWidget(m_window), static_cast<QWidget *>(view));
        QVERIFY(m_window.windowTitle().startsWith(QLatin1String("mixtral-bf16")));

        const QJsonObject config = QJsonDocument::fromJson(readAll(dir + "/config.json")).object();
        const QJsonObject index = QJsonDocument::fromJson(readAll(dir + "/model.safetensors.index.json")).object();
        qint64 parameters = 0;
        int tensors = 0;
        for (const QString &shard :
             {QStringLiteral("model-00001-of-00002.safetensors"), QStringLiteral("model-00002-of-00002.safetensors")}) {
            const QJsonObject header = headerOf(readAll(dir + "/" + shard));
            for (auto it = header.begin(); it != header.end(); ++it) {
                if (it.key() == QLatin1String("__metadata__"))
                    continue;
                qint64 n = 1;
                for (const QJsonValue &d : it.value().toObject()["shape"].toArray())
                    n *= d.toInteger();
                parameters += n;
                ++tensors;
            }
        }
        QCOMPARE(tensors, index["weight_map"].toObject().size());
        CheckpointOverview *overview = view->overview();
        QCOMPARE(overview->fieldText(QStringLiteral("Architecture")),
                 config["architectures"].toArray().first().toString());
        QCOMPARE(overview->fieldText(QStringLiteral("Tensors")), QLocale().toString(tensors));
        QCOMPARE(overview->fieldText(QStringLiteral("Parameters")), QLocale().toString(parameters));
        QCOMPARE(overview->fieldText(QStringLiteral("Experts")), QString::number(config["num_local_experts"].toInt()));
        // what llama.cpp would need: the estimate of the GGUF the converter itself made of it (hf-oracle)
        {
            const gguf::OpenResult converted =
                gguf::GgufFile::open(oracle(QStringLiteral("mixtral-bf16.gguf")).toStdString());
            QVERIFY(converted.file);
            const gguf::MemoryModel memory(*converted.file);
            gguf::MemoryInputs cpuOnly;
            cpuOnly.gpuLayers = 0;
            const gguf::MemoryEstimate gpu = memory.estimate({}), cpu = memory.estimate(cpuOnly);
            const auto mib = [](uint64_t b) { return QString::fromStdString(gguf::mibText(b)); };
            QCOMPARE(overview->fieldText(QStringLiteral("llama.cpp, one GPU")),
                     QStringLiteral("%1 VRAM + %2 RAM at %3 tokens")
                         .arg(mib(gpu.gpu().total()), mib(gpu.cpu().total()), QLocale().toString(2048)));
            QCOMPARE(overview->fieldText(QStringLiteral("llama.cpp, CPU only")), mib(cpu.cpu().total()) + " RAM");
        }
        QVERIFY(overview->verdictText().contains(QLatin1String("would load")));
        QCOMPARE(overview->findingCount(), 0);
        QCOMPARE(overview->dtypePlot()->barCount(), 1); // BF16 only

        QTreeWidget *tree = view->metadata()->tree();
        QCOMPARE(tree->topLevelItem(0)->text(0), QStringLiteral("config.json"));
        QCOMPARE(tree->topLevelItem(0)->childCount(), config.size());
        QCOMPARE(tree->topLevelItemCount(), 3); // config.json and each shard's __metadata__
        view->metadata()->setFilter(QStringLiteral("num_local_experts"));
        int visible = 0;
        for (int i = 0; i < tree->topLevelItem(0)->childCount(); ++i)
            visible += !tree->topLevelItem(0)->child(i)->isHidden();
        QCOMPARE(visible, 1);
        view->metadata()->setFilter({});

        QCOMPARE(view->tensors()->view()->model()->rowCount(), tensors);
        view->tensors()->setFilter(QStringLiteral("experts.3.w2"));
        QCOMPARE(view->tensors()->view()->model()->rowCount(), 2); // two layers
        view->tensors()->setFilter({});
        // one line of its font per row, as the GGUF pages' tables (they were twice that)
        for (const QTableView *table : {view->tensors()->view(), view->tokenizer()->view()})
            QCOMPARE(table->verticalHeader()->defaultSectionSize(), table->fontMetrics().height() + 6);

        const QByteArray first = readAll(dir + "/model-00001-of-00002.safetensors");
        view->bytes()->regions()->setCurrentIndex(view->bytes()->regions()->model()->index(0, 0));
        QVERIFY2(view->bytes()->explanation().contains(QLocale().toString(headerLength(first))),
                 qPrintable(view->bytes()->explanation()));
        QVERIFY(view->bytes()->dumpText().startsWith(
            QStringLiteral("00000000  %1 ").arg(static_cast<uchar>(first[0]), 2, 16, QLatin1Char('0'))));
    }

    // The Tokenizer page: the vocabulary of the tokenizer.json beside the checkpoint, read here too.
    void tokenizer()
    {
        const QString dir = oracle(QStringLiteral("gemma2-bf16"));
        QVERIFY(openCheckpoint(m_window, dir));
        CheckpointTokenizer *page = m_window.checkpointView()->tokenizer();
        if (page->tracker()->isRunning()) {
            QSignalSpy shown(page, &CheckpointTokenizer::tokenizerShown);
            QVERIFY(shown.wait(10000));
        }
        const QJsonObject json = QJsonDocument::fromJson(readAll(dir + "/tokenizer.json")).object();
        const QJsonObject vocab = json["model"].toObject()["vocab"].toObject();
        QCOMPARE(page->view()->model()->rowCount(), vocab.size());
        QVERIFY2(page->summary().startsWith(json["model"].toObject()["type"].toString()), qPrintable(page->summary()));
        page->setFilter(QStringLiteral("t6"));
        QCOMPARE(page->view()->model()->rowCount(), 5); // t6 and t60–t63
        page->setFilter({});
        const QModelIndex last = page->view()->model()->index(vocab.size() - 1, 1);
        QCOMPARE(vocab["t63"].toInt(), vocab.size() - 1); // the largest id, shown last
        QCOMPARE(last.data().toString(), QStringLiteral("t63"));

        // a checkpoint without one says so
        QTemporaryDir bare;
        QVERIFY(QFile::copy(oracle(QStringLiteral("phi3-bf16/model.safetensors")), bare.filePath("model.safetensors")));
        QVERIFY(openCheckpoint(m_window, bare.path()));
        if (page->tracker()->isRunning()) {
            QSignalSpy shown(page, &CheckpointTokenizer::tokenizerShown);
            QVERIFY(shown.wait(10000));
        }
        QVERIFY2(page->summary().contains(QLatin1String("No tokenizer.json")), qPrintable(page->summary()));
    }

    // The Tokenizer page's Tokenize tab: a text split by the checkpoint's tokenizer.json as Hugging
    // Face's library splits it — the ids the library gave (npm tokenizers 0.23.2, 2026-12-07, with
    // the file's special added tokens and without them), a special token's chip, and a click that
    // shows the token in the vocabulary.
    void tokenizeText()
    {
        QTemporaryDir dir;
        QVERIFY(QFile::copy(oracle(QStringLiteral("qwen3-bf16/model.safetensors")), dir.filePath("model.safetensors")));
        QVERIFY(
            QFile::copy(gguf::test::dataPath(u"hf-tokenizers/qwen3.tokenizer.json"), dir.filePath("tokenizer.json")));
        QVERIFY(openCheckpoint(m_window, dir.path()));
        CheckpointView *view = m_window.checkpointView();
        view->setCurrentWidget(view->tokenizer());
        CheckpointTokenizer *page = view->tokenizer();
        page->tabs()->setCurrentWidget(page->tokenizeView());
        TokenizeView *tokenize = page->tokenizeView();
        const auto settled = [tokenize] { return QTest::qWaitFor([tokenize] { return !tokenize->isBusy(); }, 20000); };
        tokenize->setText(QStringLiteral("<|im_start|>user hi<s></s>"));
        QVERIFY(settled());
        QVERIFY2(tokenize->notesText().contains(QLatin1String("tokenizers library")),
                 qPrintable(tokenize->notesText()));
        QCOMPARE(tokenize->ids(), (std::vector<qint32>{27, 91, 318, 4906, 91, 29, 872, 305, 72, 27, 82, 1472, 82, 29}));
        QCOMPARE(tokenize->addSpecialBox()->text(), QStringLiteral("Add special tokens"));
        tokenize->parseSpecialBox()->setChecked(true);
        QVERIFY(settled());
        QCOMPARE(tokenize->ids(), (std::vector<qint32>{6257, 872, 305, 72, 27, 82, 1472, 82, 29}));
        QVERIFY(tokenize->chips()->chips()[0].special);
        QCOMPARE(tokenize->chips()->chips()[1].text, QStringLiteral("user"));
        QVERIFY(tokenize->chipToolTip(1).contains(QLatin1String("user")));
        // a click on a chip: the vocabulary with that token selected
        QTest::mouseClick(tokenize->chips(), Qt::LeftButton, {}, tokenize->chips()->chipRect(1).center());
        QCOMPARE(page->tabs()->currentIndex(), 0);
        QCOMPARE(page->view()->currentIndex().siblingAtColumn(HfTokenModel::Id).data().toInt(), 872);
        tokenize->parseSpecialBox()->setChecked(false);
    }

    // The Weights page: min, max and median of a BF16 tensor against its values sorted here.
    void weightsAgainstSort()
    {
        const QString file = oracle(QStringLiteral("phi3-bf16/model.safetensors"));
        QVERIFY(openCheckpoint(m_window, file));
        CheckpointView *view = m_window.checkpointView();
        const QByteArray bytes = readAll(file);
        const QJsonObject header = headerOf(bytes);
        const QString name = QStringLiteral("model.layers.1.self_attn.qkv_proj.weight");
        const auto bf16Values = [&](const QString &tensor) {
            const QJsonArray offsets = header[tensor].toObject()["data_offsets"].toArray();
            const qint64 begin = 8 + static_cast<qint64>(headerLength(bytes)) + offsets[0].toInteger();
            const qint64 end = 8 + static_cast<qint64>(headerLength(bytes)) + offsets[1].toInteger();
            std::vector<float> out;
            for (qint64 at = begin; at < end; at += 2) {
                const uint32_t bits = (uint32_t(static_cast<uchar>(bytes[at + 1])) << 24) |
                                      (uint32_t(static_cast<uchar>(bytes[at])) << 16);
                float f = 0;
                std::memcpy(&f, &bits, 4);
                out.push_back(f);
            }
            return out;
        };
        std::vector<float> values = bf16Values(name);
        const std::vector<float> asStored = values;
        std::sort(values.begin(), values.end());
        int index = -1;
        for (int i = 0; i < view->tensors()->view()->model()->rowCount(); ++i)
            if (view->tensors()->view()->model()->index(i, 0).data().toString() == name)
                index = view->tensors()->view()->model()->index(i, 0).data(Qt::UserRole).toInt();
        QVERIFY(index >= 0);
        QSignalSpy shown(view->weights(), &CheckpointWeights::statisticsShown);
        view->tensors()->view()->selectRow(view->tensors()->view()->model()->index(0, 0).row());
        view->weights()->showTensor(index);
        QVERIFY(shown.wait(10000));
        const gguf::TensorStatistics &s = view->weights()->statistics();
        QCOMPARE(s.count, uint64_t(values.size()));
        QCOMPARE(s.min, double(values.front()));
        QCOMPARE(s.max, double(values.back()));
        const size_t n = values.size(); // NumPy's linear percentile 50 of an even count: the two middle values
        const double median = n % 2 ? values[n / 2] : (double(values[n / 2 - 1]) + double(values[n / 2])) / 2;
        QCOMPARE(s.percentiles[3], median);
        QVERIFY(s.percentilesExact);
        // the first values as stored, row by row (a row is the innermost dim, here 32 values)
        QTableWidget *table = view->weights()->valuesTable();
        QCOMPARE(table->columnCount(), 16);
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 16; ++c)
                QCOMPARE(QLocale().toFloat(table->item(r, c)->text()),
                         QLocale().toFloat(QLocale().toString(asStored[size_t(r * 32 + c)], 'g', 6)));
        // the heatmap covers the matrix: [128, 32] in tiles
        const gguf::Heatmap &heat = view->weights()->heatmapPlot()->heatmap();
        QCOMPARE(heat.tensorRows, uint64_t(values.size() / 32));
        QCOMPARE(heat.tensorCols, uint64_t(32));
        // the Layers view: the std of qkv_proj in each layer, computed here (population std)
        QSignalSpy layers(view->weights(), &CheckpointWeights::layersShown);
        view->weights()->views()->setCurrentWidget(view->weights()->layerChart());
        QVERIFY(layers.wait(10000));
        const QVector<LayerChart::Point> &points = view->weights()->layerChart()->points();
        QCOMPARE(points.size(), 2);
        for (const LayerChart::Point &p : points) {
            const std::vector<float> v =
                bf16Values(QStringLiteral("model.layers.%1.self_attn.qkv_proj.weight").arg(p.layer));
            double mean = 0, sq = 0;
            for (float x : v)
                mean += x;
            mean /= double(v.size());
            for (float x : v)
                sq += (x - mean) * (x - mean);
            QVERIFY(std::abs(p.value - std::sqrt(sq / double(v.size()))) < 1e-12);
        }
        view->weights()->views()->setCurrentIndex(0);
    }

    // An index file names its shards; a GGUF opened next brings the GGUF pages back, and a
    // checkpoint after it the checkpoint's.
    void indexThenGgufThenCheckpoint()
    {
        QVERIFY(openCheckpoint(m_window, oracle(QStringLiteral("qwen3moe-bf16/model.safetensors.index.json"))));
        QVERIFY(m_window.checkpointView()->overview()->fieldText(QStringLiteral("Opened as")).contains("index"));
        QSignalSpy model(&m_window, &MainWindow::modelShown);
        m_window.openFile(oracle(QStringLiteral("qwen3moe-bf16.gguf")));
        QVERIFY(model.wait(10000));
        QTRY_COMPARE(shownWidget(m_window), static_cast<QWidget *>(m_window.pages()));
        QVERIFY(!m_window.document()->checkpoint());
        QVERIFY(openCheckpoint(m_window, oracle(QStringLiteral("gemma3-f32"))));
        QCOMPARE(shownWidget(m_window), static_cast<QWidget *>(m_window.checkpointView()));
        QVERIFY(!m_window.document()->model());
    }

    // The Compare page with B a checkpoint: the Q8_0 copy's measures are NumPy's (hf-oracle's
    // golden.json, from gguf-py's dequantization), the lossless conversion's every value equal.
    void compareWithCheckpoint()
    {
        const QJsonObject golden = QJsonDocument::fromJson(readAll(oracle(QStringLiteral("golden.json")))).object();
        const QJsonObject expected = golden["qwen3moe-bf16.q8_0.gguf"].toObject()["tensors"].toObject();
        QSignalSpy model(&m_window, &MainWindow::modelShown);
        m_window.openFile(oracle(QStringLiteral("qwen3moe-bf16.q8_0.gguf")));
        QVERIFY(model.wait(10000));
        ComparePage *page = m_window.page<ComparePage>();
        CheckpointComparePanel *panel = page->checkpointPanel();
        QSignalSpy compared(panel, &CheckpointComparePanel::compared);
        m_window.compareWith(oracle(QStringLiteral("qwen3moe-bf16")));
        QVERIFY(compared.wait(20000));
        QVERIFY(page->otherCheckpoint());
        QCOMPARE(m_window.pages()->currentWidget(), static_cast<QWidget *>(page));
        QCOMPARE(static_cast<int>(panel->pairing().pairs.size()), expected.size()); // nothing unpaired
        for (size_t i = 0; i < panel->outcomes().size(); ++i) {
            const gguf::CheckpointPair &p = panel->pairing().pairs[i];
            const gguf::CheckpointPairOutcome &o = panel->outcomes()[i];
            const QString name = ggufNameOf(*page->model(), p);
            QVERIFY2(o.compared, qPrintable(name));
            const double rmse = expected[name].toObject()["rmse"].toDouble();
            QVERIFY2(std::abs(o.values.rmse() - rmse) <= 1e-9 * std::max(1.0, rmse), qPrintable(name));
        }
        QCOMPARE(panel->table()->rowCount(), expected.size());
        QCOMPARE(panel->table()->horizontalHeaderItem(CheckpointComparePanel::NameA)->text(),
                 QStringLiteral("A (GGUF)"));
        QCOMPARE(panel->table()->horizontalHeaderItem(CheckpointComparePanel::TypeB)->text(),
                 QStringLiteral("B dtype"));

        // one pair in detail (selecting its row): the heatmap's largest |a − b| is NumPy's max_abs,
        // every pair is counted once in the difference histogram, each side's shares add up to 100 %
        int row = -1;
        for (int r = 0; r < panel->table()->rowCount(); ++r)
            if (panel->table()->item(r, CheckpointComparePanel::NameA)->text() == u"blk.1.ffn_down_exps.weight")
                row = r;
        QVERIFY(row >= 0);
        panel->table()->setCurrentCell(row, CheckpointComparePanel::Status);
        const int index = panel->detailIndex();
        QCOMPARE(ggufNameOf(*page->model(), panel->pairing().pairs[size_t(index)]),
                 QStringLiteral("blk.1.ffn_down_exps.weight"));
        QTRY_VERIFY_WITH_TIMEOUT(!panel->detailTracker()->isRunning(), 20000);
        const gguf::Heatmap &heat = panel->heatmapPlot()->heatmap();
        QVERIFY(!heat.maxAbs.empty());
        const float largest = *std::max_element(heat.maxAbs.begin(), heat.maxAbs.end());
        QCOMPARE(largest, static_cast<float>(expected["blk.1.ffn_down_exps.weight"].toObject()["max_abs"].toDouble()));
        const auto &difference = panel->differencePlot()->series();
        QCOMPARE(difference.size(), 1);
        double pairs = 0;
        for (double n : difference[0].values)
            pairs += n;
        const gguf::TensorInfo *info = page->model()->primary().findTensor("blk.1.ffn_down_exps.weight");
        QCOMPARE(pairs, double(info->elements));
        const auto &values = panel->valuesPlot()->series();
        QCOMPARE(values.size(), 2);
        for (const auto &side : values) {
            double total = 0;
            for (double share : side.values)
                total += share;
            QVERIFY2(std::abs(total - 100.0) < 1e-9, qPrintable(QString::number(total)));
            QCOMPARE(side.lo, values[0].lo); // one range for both
        }

        QSignalSpy again(panel, &CheckpointComparePanel::compared);
        m_window.openFile(oracle(QStringLiteral("qwen3moe-bf16.gguf"))); // A changes: paired again
        QVERIFY(again.wait(20000));
        for (const gguf::CheckpointPairOutcome &o : panel->outcomes())
            QCOMPARE(o.status, gguf::TensorDiffStatus::SameValues);
    }

    // The checkpoint as A: its Compare tab takes the GGUF (B) and shows the same measures, names
    // on their sides (A the checkpoint's).
    void checkpointAsA()
    {
        const QJsonObject golden = QJsonDocument::fromJson(readAll(oracle(QStringLiteral("golden.json")))).object();
        const QJsonObject expected = golden["qwen2-f32.q8_0.gguf"].toObject()["tensors"].toObject();
        QVERIFY(openCheckpoint(m_window, oracle(QStringLiteral("qwen2-f32"))));
        CheckpointView *view = m_window.checkpointView();
        QSignalSpy compared(view->comparePanel(), &CheckpointComparePanel::compared);
        m_window.compareWith(oracle(QStringLiteral("qwen2-f32.q8_0.gguf")));
        QVERIFY(compared.wait(20000));
        QCOMPARE(view->currentWidget()->isAncestorOf(view->comparePanel()), true);
        const CheckpointComparePanel *panel = view->comparePanel();
        QCOMPARE(static_cast<int>(panel->outcomes().size()), expected.size());
        QTableWidget *table = panel->table();
        // the columns' headings name the sides as they are here (they said "A (GGUF)" over the
        // checkpoint's names)
        const auto heading = [table](int column) { return table->horizontalHeaderItem(column)->text(); };
        QCOMPARE(heading(CheckpointComparePanel::NameA), QStringLiteral("A (checkpoint)"));
        QCOMPARE(heading(CheckpointComparePanel::NameB), QStringLiteral("B (GGUF)"));
        QCOMPARE(heading(CheckpointComparePanel::TypeA), QStringLiteral("A dtype"));
        QCOMPARE(heading(CheckpointComparePanel::TypeB), QStringLiteral("B type"));
        int checked = 0;
        for (int row = 0; row < table->rowCount(); ++row) {
            const QString a = table->item(row, CheckpointComparePanel::NameA)->text();
            const QString b = table->item(row, CheckpointComparePanel::NameB)->text();
            QVERIFY2(a.startsWith(QLatin1String("model.")) || a == QLatin1String("lm_head.weight"), qPrintable(a));
            QVERIFY2(expected.contains(b), qPrintable(b));
            QCOMPARE(table->item(row, CheckpointComparePanel::TypeA)->text(), QStringLiteral("F32"));
            ++checked;
        }
        QCOMPARE(checked, expected.size());
        for (size_t i = 0; i < panel->outcomes().size(); ++i) {
            const gguf::CheckpointPairOutcome &o = panel->outcomes()[i];
            const QString name = ggufNameOf(*panel->model(), panel->pairing().pairs[i]);
            const double rmse = expected[name].toObject()["rmse"].toDouble();
            QVERIFY2(o.compared, qPrintable(name));
            QVERIFY2(std::abs(o.values.rmse() - rmse) <= 1e-9 * std::max(1.0, rmse), qPrintable(name));
        }
    }

    // File ▸ Export Report… with a checkpoint shown: its own report (renderCheckpointReport, checked
    // by tst_inspect_report), written on a worker; the message bar says where.
    void exportReport()
    {
        QVERIFY(openCheckpoint(m_window, oracle(QStringLiteral("mixtral-bf16"))));
        QTemporaryDir dir;
        const QString md = dir.filePath(QStringLiteral("checkpoint.md"));
        m_window.messageBar()->clearMessage();
        m_window.exportReport(md);
        QTRY_VERIFY_WITH_TIMEOUT(m_window.messageBar()->isVisible(), 10000);
        QCOMPARE(m_window.messageBar()->text(), QStringLiteral("Report written to ") + md);
        const QByteArray text = readAll(md);
        QVERIFY(text.startsWith("# Checkpoint report: mixtral-bf16\n"));
        for (const char *section :
             {"## Overview", "## Verdict", "## Metadata", "## Chat template", "## Tensors", "## Type mix", "## Memory"})
            QVERIFY2(text.contains(section), section);
        QCOMPARE(text.count("model.layers.0.block\\_sparse\\_moe.experts.0.w1.weight"), 1);
        m_window.messageBar()->clearMessage();
    }

    // A shard that changes while the checkpoint is open is said, as a GGUF's would be; Reload reads
    // the checkpoint again.
    void shardChangedOnDisk()
    {
        QTemporaryDir dir;
        for (const QString &name :
             {QStringLiteral("config.json"), QStringLiteral("model.safetensors"), QStringLiteral("tokenizer.json")})
            QVERIFY(QFile::copy(oracle(QStringLiteral("llama-bf16/") + name), dir.filePath(name)));
        QVERIFY(openCheckpoint(m_window, dir.path()));
        const auto before = m_window.document()->checkpoint();
        QFile shard(dir.filePath(QStringLiteral("model.safetensors")));
        QVERIFY(shard.open(QIODevice::Append));
        shard.write(QByteArray(4096, '\0'));
        shard.close();
        QTRY_VERIFY_WITH_TIMEOUT(m_window.messageBar()->isVisible(), 5000);
        QVERIFY2(m_window.messageBar()->text().contains(QLatin1String("grew from")),
                 qPrintable(m_window.messageBar()->text()));
        QCOMPARE(m_window.document()->checkpoint(), before); // still shown as it was
        QSignalSpy shown(&m_window, &MainWindow::checkpointShown);
        m_window.messageBar()->actionButton()->click();
        QVERIFY(shown.wait(10000));
        QVERIFY(m_window.document()->checkpoint() != before);
        // the grown file's extra bytes are data no tensor claims: the reference library refuses it
        QVERIFY(m_window.checkpointView()->overview()->verdictText().contains(QLatin1String("would refuse")));
    }

    // A folder dropped on the window opens as a checkpoint.
    void dropFolder()
    {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(oracle(QStringLiteral("llama-f32")))});
        const QPoint pos = m_window.rect().center();
        QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&m_window, &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy shown(&m_window, &MainWindow::checkpointShown);
        QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&m_window, &drop);
        QVERIFY(shown.wait(10000));
        QCOMPARE(m_window.checkpointView()->overview()->fieldText(QStringLiteral("Architecture")),
                 QStringLiteral("LlamaForCausalLM"));
    }

    // Overlapping offsets: the file opens as far as it parses, refused, the finding listed.
    void damagedFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QByteArray header = "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                            "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
        header.append(QByteArray((8 - header.size() % 8) % 8, ' '));
        QByteArray file(8, '\0');
        file[0] = static_cast<char>(header.size());
        file += header + QByteArray(16, '\0');
        const QString path = dir.filePath(QStringLiteral("bad.safetensors"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(file);
        f.close();
        QVERIFY(openCheckpoint(m_window, path));
        CheckpointOverview *overview = m_window.checkpointView()->overview();
        QVERIFY(overview->verdictText().contains(QLatin1String("would refuse")));
        QVERIFY(overview->findingCount() >= 1);
    }

private:
    MainWindow m_window;
};

QTEST_MAIN(TestCheckpointWindow)
#include "tst_checkpoint_window.moc"
