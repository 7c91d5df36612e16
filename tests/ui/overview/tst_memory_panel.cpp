// SPDX-License-Identifier: GPL-3.0-or-later
// The Overview's Memory section: the inputs a user moves (context field and slider, cache types,
// flash attention, GPU layers, budget) change the estimate and the bars at once; figures are
// llama.cpp's own for tiny-llama-tied-q8_0 (../shared/tools/README.md: KV 8.00 MiB at 4096, 4.25
// MiB in q8_0) or worked out here by hand; a file that is not a runnable model says so.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_paths.h"
#include "ui/overview/memory_panel.h"
#include "ui/overview/overview_page.h"
#include "ui/plots/memory_bar_plot.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
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
