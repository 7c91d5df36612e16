// SPDX-License-Identifier: GPL-3.0-or-later
// The Overview's Memory section: the inputs a user moves (context field and slider, cache types,
// flash attention, GPU layers, budget) change the estimate and the bars at once; figures are
// llama.cpp's own for tiny-llama-tied-q8_0 (../shared/tools/README.md: KV 8.00 MiB at 4096, 4.25
// MiB in q8_0) or worked out here by hand; a file that is not a runnable model says so.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/kind_samples.h"
#include "tests/support/test_paths.h"
#include "ui/common/job_tracker.h"
#include "ui/overview/gpu_panel.h"
#include "ui/overview/memory_panel.h"
#include "ui/overview/overview_page.h"
#include "ui/plots/memory_bar_plot.h"
#include "ui/plots/placement_map.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

using namespace gguf;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

std::shared_ptr<const SplitModel> tinyLlama()
{
    Error error;
    return SplitModel::open(gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf").toStdString(), error);
}

QByteArray bytesOf(const test::GgufBuilder &builder)
{
    const std::vector<uint8_t> bytes = builder.build().bytes();
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size()));
}

template <typename T> T *child(const QWidget &w, const char *name)
{
    return w.findChild<T *>(QLatin1String(name));
}

} // namespace

class TestMemoryPanel : public QObject {
    Q_OBJECT
private slots:
    void followsTheInputs()
    {
        const auto model = tinyLlama();
        QVERIFY(model);
        MemoryPanel panel;
        panel.setModel(model);
        auto *context = child<QSpinBox>(panel, "memoryContext");
        auto *slider = child<QSlider>(panel, "memoryContextSlider");
        auto *cacheK = child<QComboBox>(panel, "memoryCacheK");
        auto *cacheV = child<QComboBox>(panel, "memoryCacheV");
        auto *flash = child<QCheckBox>(panel, "memoryFlashAttention");
        auto *gpuLayers = child<QSpinBox>(panel, "memoryGpuLayers");
        QVERIFY(context && slider && cacheK && cacheV && flash && gpuLayers);

        // llama.cpp's defaults: the model's context (2048), f16, everything offloaded (4 + output)
        QCOMPARE(context->value(), 2048);
        QCOMPARE(gpuLayers->value(), 5);
        QCOMPARE(gpuLayers->maximum(), 5);
        QCOMPARE(cacheK->currentText(), QStringLiteral("f16"));
        // 4 layers × 2048 cells × (K + V) × 2 KV heads × 64 × 2 bytes
        QCOMPARE(panel.estimate().gpu().kv, uint64_t(4 * 2048 * 2 * 128 * 2));

        // typing a context moves the slider (steps of 256) and the estimate
        context->setValue(4096);
        QCOMPARE(slider->value(), 16);
        QCOMPARE(panel.estimate().gpu().kv, 8 * MiB); // llama_kv_cache: size = 8.00 MiB
        QVERIFY(panel.summaryText().contains(QLocale().toString(4096)));
        // and the slider moves the field
        slider->setValue(4);
        QCOMPARE(context->value(), 1024);
        QCOMPARE(panel.estimate().gpu().kv, 2 * MiB);

        // q8_0 caches with flash attention, as the oracle ran them
        context->setValue(4096);
        cacheK->setCurrentIndex(cacheK->findText(QStringLiteral("q8_0")));
        cacheV->setCurrentIndex(cacheV->findText(QStringLiteral("q8_0")));
        flash->setChecked(true);
        QCOMPARE(panel.estimate().gpu().kv, 4 * MiB + MiB / 4); // size = 4.25 MiB

        // the bars show the estimate (drawn on the next turn of the event loop): GPU row 1, parts
        // weights, KV, compute, output
        const MemoryBarPlot *plot = panel.plot();
        QTRY_COMPARE(plot->drawnBytes(1, 1), double(4 * MiB + MiB / 4));
        QCOMPARE(plot->drawnBytes(0, 3), 32000.0 * 4); // the logits of one sequence

        // nothing offloaded: all in RAM, the tensor data once
        gpuLayers->setValue(0);
        QCOMPARE(panel.estimate().gpu().total(), uint64_t(0));
        QCOMPARE(panel.estimate().cpu().weights, model->primary().tensorDataBytes());
        QTRY_COMPARE(plot->drawnBytes(1, 0), 0.0);
        QCOMPARE(plot->drawnBytes(0, 0), double(model->primary().tensorDataBytes()));

        // a quantized V cache turns flash attention on, as llama.cpp's -fa auto does
        cacheV->setCurrentIndex(cacheV->findText(QStringLiteral("f16")));
        flash->setChecked(false);
        cacheV->setCurrentIndex(cacheV->findText(QStringLiteral("q4_0")));
        QVERIFY(flash->isChecked());
        QVERIFY(panel.estimate().refusals.empty());
        // and turning it off again shows llama.cpp's refusal
        flash->setChecked(false);
        QCOMPARE(panel.estimate().refusals.size(), size_t(1));
        QVERIFY(panel.summaryText().contains(QStringLiteral("needs flash attention")));
    }

    void budget()
    {
        MemoryPanel panel;
        panel.setModel(tinyLlama());
        auto *budget = child<QDoubleSpinBox>(panel, "memoryBudget");
        QVERIFY(budget);
        QVERIFY(!panel.maxContext());
        budget->setValue(0.1);
        QVERIFY(panel.maxContext());
        const uint64_t best = *panel.maxContext();
        QVERIFY(best >= 256 && best % 256 == 0);
        QVERIFY(panel.summaryText().contains(QLocale().toString(qulonglong(best))));
        // what fits does fit on the GPU (everything is offloaded)
        auto *context = child<QSpinBox>(panel, "memoryContext");
        context->setValue(int(best));
        QVERIFY(double(panel.estimate().gpu().total()) <= 0.1 * 1024 * 1024 * 1024);
        budget->setValue(0);
        QVERIFY(!panel.maxContext());
    }

    // Two GPUs (#44): the plan replaces the estimate — a bar per device and the placement map, each
    // cell the bytes the plan puts there (by layer and role, summed here from the plan's placement),
    // overrides move tensors at once; Fit runs on a worker and sets the GPU layers and the experts
    // kept on the CPU to a plan that fits; Copy command line gives llama-server's arguments.
    void twoGpus()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("moe.gguf"));
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytesOf(test::moeSample(256, 512)));
        out.close();
        Error error;
        const auto model = SplitModel::open(path.toStdString(), error);
        QVERIFY(model);
        MemoryPanel panel;
        panel.setModel(model);
        GpuPanel *gpus = panel.gpuPanel();
        QVERIFY(!gpus->active());
        QVERIFY(panel.plan().devices.empty());
        constexpr double kMiBInGiB = 1.0 / 1024.0;
        gpus->setDevices({{QStringLiteral("CUDA0"), 28 * kMiBInGiB}, {QStringLiteral("CUDA1"), 14 * kMiBInGiB}});
        const OffloadPlan &plan = panel.plan();
        QCOMPARE(plan.devices.size(), size_t(3));
        QCOMPARE(plan.devices[1].name, std::string("CUDA0"));
        QCOMPARE(plan.devices[1].freeBytes, 28 * MiB);
        // the bars (drawn on the next turn of the event loop): a row per device with its parts
        QApplication::processEvents();
        for (int d = 0; d < 3; ++d)
            QCOMPARE(panel.plot()->drawnBytes(d, 0), double(plan.devices[size_t(d)].memory.weights));
        // the map: 8 layers between the input and output columns, a row per device, each cell's
        // bytes by role as the placement says
        const PlacementMap *map = gpus->map();
        QCOMPARE(map->columnCount(), 10);
        QCOMPARE(map->deviceCount(), 3);
        double experts = 0;
        for (const TensorPlacement &p : plan.placement)
            if (p.role == "experts" && p.layer == 5) {
                QCOMPARE(plan.devices[p.device].name, std::string("CUDA0"));
                experts += double(p.bytes);
            }
        QVERIFY(experts > 0);
        QCOMPARE(map->drawnBytes(1, 6, 2), experts); // CUDA0, layer 5, experts
        QCOMPARE(map->drawnBytes(0, 6, 2), 0.0);
        QVERIFY(map->cellText(6, 1).contains(QStringLiteral("experts")));
        // an override moves them at once
        child<QLineEdit>(*gpus, "gpuOverrides")->setText(QStringLiteral("blk\\.5\\.ffn_.*exps=CPU"));
        QApplication::processEvents();
        QCOMPARE(map->drawnBytes(0, 6, 2), experts);
        QCOMPARE(map->drawnBytes(1, 6, 2), 0.0);
        child<QLineEdit>(*gpus, "gpuOverrides")->setText(QStringLiteral("exps"));
        QVERIFY(panel.summaryText().contains(QStringLiteral("REGEX=BUFFER")));
        child<QLineEdit>(*gpus, "gpuOverrides")->clear();

        // Fit, on its worker: then every GPU keeps the margin (1024 MiB is too much here: 1 MiB)
        gpus->findChild<QSpinBox *>(QStringLiteral("gpuMargin"))->setValue(1);
        child<QCheckBox>(panel, "memoryFlashAttention")->setChecked(true);
        child<QPushButton>(*gpus, "gpuFit")->click();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.fitting(), 20000);
        const int layers = child<QSpinBox>(panel, "memoryGpuLayers")->value();
        const int cpuMoe = child<QSpinBox>(*gpus, "gpuNCpuMoe")->value();
        qInfo("fit: %d layers, %d expert layers on the CPU", layers, cpuMoe);
        QVERIFY(layers > 0);
        QVERIFY(cpuMoe > 0);
        for (size_t d = 1; d < panel.plan().devices.size(); ++d)
            QVERIFY(panel.plan().devices[d].memory.total() + MiB <= panel.plan().devices[d].freeBytes);
        // one expert layer fewer on the CPU would not fit
        child<QSpinBox>(*gpus, "gpuNCpuMoe")->setValue(cpuMoe - 1);
        bool over = false;
        for (size_t d = 1; d < panel.plan().devices.size(); ++d)
            over = over || panel.plan().devices[d].memory.total() + MiB > panel.plan().devices[d].freeBytes;
        QVERIFY(over);
        const QString command = panel.commandLine();
        QVERIFY2(command.startsWith(QStringLiteral("llama-server -m ")), qPrintable(command));
        QVERIFY(command.contains(QStringLiteral("--n-cpu-moe %1").arg(cpuMoe - 1)));
        QVERIFY(command.contains(QStringLiteral("--gpu-layers %1").arg(layers)));

        // no GPU: the single-device estimate again
        gpus->setDevices({});
        QVERIFY(panel.plan().devices.empty());
    }

    void notARunnableModel_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("why");
        using V = test::BuildValue;
        QTest::newRow("adapter") << bytesOf(test::GgufBuilder()
                                                .kv("general.architecture", V::str("llama"))
                                                .kv("general.type", V::str("adapter"))
                                                .tensor("blk.0.attn_q.weight.lora_a", {8, 2}, 0))
                                 << QStringLiteral("general.type is \"adapter\"");
        // an importance matrix names no architecture (#40: it said "no .block_count")
        QTest::newRow("imatrix") << bytesOf(test::GgufBuilder()
                                                .kv("general.type", V::str("imatrix"))
                                                .tensor("blk.0.ffn_up.weight.in_sum2", {8}, 0))
                                 << QStringLiteral("general.type is \"imatrix\"");
        QTest::newRow("no block_count") << bytesOf(test::GgufBuilder()
                                                       .kv("general.architecture", V::str("llama"))
                                                       .tensor("blk.0.attn_q.weight", {8, 8}, 0))
                                        << QStringLiteral("no llama.block_count");
        // llama.cpp's vocabulary file: hyperparameters and a tokenizer, no tensor (#40: it got an estimate
        // of gigabytes)
        QFile vocab(test::dataPath(u"real/ggml-vocab-llama-spm.gguf"));
        QVERIFY(vocab.open(QIODevice::ReadOnly));
        QTest::newRow("vocabulary") << vocab.readAll() << QStringLiteral("no tensors");
    }

    void notARunnableModel()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, why);
        const std::vector<uint8_t> data(bytes.begin(), bytes.end());
        const auto file = GgufFile::openBuffer(data, "<file>").file;
        QVERIFY(file);
        MemoryPanel panel;
        panel.setModel(SplitModel::single(file));
        const auto labels = panel.findChildren<QLabel *>();
        const bool explained = std::any_of(labels.begin(), labels.end(), [&](const QLabel *l) {
            return !l->isHidden() && l->text().startsWith(QStringLiteral("No estimate: ")) && l->text().contains(why);
        });
        QVERIFY(explained);
        QVERIFY(child<QSpinBox>(panel, "memoryContext")->isHidden() ||
                !child<QSpinBox>(panel, "memoryContext")->isVisibleTo(&panel));
        QCOMPARE(panel.estimate().total(), uint64_t(0));
        // and back to a model
        panel.setModel(tinyLlama());
        QVERIFY(child<QSpinBox>(panel, "memoryContext")->isVisibleTo(&panel));
        panel.setModel(nullptr);
        QCOMPARE(panel.estimate().total(), uint64_t(0));
    }

    void onTheOverview()
    {
        OverviewPage page;
        page.setModel(tinyLlama());
        QVERIFY(page.memoryPanel());
        QCOMPARE(page.memoryPanel()->estimate().inputs.context, uint64_t(2048));
        page.setModel(nullptr);
        QCOMPARE(page.memoryPanel()->estimate().total(), uint64_t(0));
    }
};

QTEST_MAIN(TestMemoryPanel)
#include "tst_memory_panel.moc"
