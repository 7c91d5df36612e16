// SPDX-License-Identifier: GPL-3.0-or-later
// The Overview names the kind of file (#18): a LoRA adapter in its title and Kind field, the
// adapter's structural problems among the findings, a model quantized with an importance matrix.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"
#include "ui/overview/kind_panel.h"
#include "ui/overview/memory_panel.h"
#include "ui/overview/overview_page.h"
#include "ui/plots/layer_chart.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <cstring>

using namespace gguf;
using namespace gguf::test;

namespace {

using V = BuildValue;

std::shared_ptr<const SplitModel> built(const GgufBuilder &b, std::vector<uint8_t> &storage)
{
    storage = b.build().bytes();
    return SplitModel::single(GgufFile::openBuffer(storage, "<built>").file);
}

} // namespace

class TestOverviewPage : public QObject {
    Q_OBJECT
private slots:
    void adapter()
    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("general.name", V::str("tone"))
            .kv("general.type", V::str("adapter"))
            .kv("adapter.type", V::str("lora"))
            .kv("adapter.lora.alpha", V::f32(8))
            .tensor("blk.0.attn_q.weight.lora_a", {64, 4}, 0)
            .tensor("blk.0.attn_q.weight.lora_b", {4, 64}, 0)
            .tensor("blk.0.attn_k.weight.lora_a", {64, 4}, 0); // its lora_b is missing
        std::vector<uint8_t> bytes;
        const auto model = built(b, bytes);
        OverviewPage page;
        QSignalSpy kindShown(&page, &OverviewPage::kindShown);
        page.setModel(model);
        // the kind is known at once, from the names; its facts come from a worker
        QCOMPARE(page.kind().kind, FileKind::Adapter);
        QVERIFY(!page.isKindShown());
        QVERIFY(kindShown.wait(10000));
        const QString title = page.titleText();
        QVERIFY2(title.contains(QStringLiteral("LoRA adapter")), qPrintable(title));
        QVERIFY(page.fieldText(OverviewPage::Field::Kind).startsWith(QStringLiteral("LoRA adapter")));
        QCOMPARE(page.kind().kind, FileKind::Adapter);
        QVERIFY(page.findingCount() >= 1); // lora-pair-incomplete among them
        // the adapter's own section: rank 4, alpha 8, scale 2, one target in layer 0
        const KindPanel *facts = page.kindPanel();
        QVERIFY(!facts->isHidden());
        QCOMPARE(facts->valueOf(QStringLiteral("Rank")), QStringLiteral("4"));
        QCOMPARE(facts->valueOf(QStringLiteral("Alpha")), QStringLiteral("8"));
        QVERIFY(facts->valueOf(QStringLiteral("Scale")).startsWith(QStringLiteral("2 ")));
        QVERIFY(
            facts->valueOf(QStringLiteral("layer 0")).startsWith(QStringLiteral("attn_q.weight (64 → 64, rank 4)")));
        QVERIFY(page.memoryPanel()->isHidden()); // no memory estimate for an adapter

        // checked against a base model on a worker: q fits; against a file that is no GGUF, a message
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        GgufBuilder base;
        base.kv("general.architecture", V::str("llama")).tensor("blk.0.attn_q.weight", {64, 64}, 0);
        const QString basePath = dir.filePath(QStringLiteral("base.gguf"));
        QVERIFY(writeBytes(basePath, base.build().bytes()));
        QSignalSpy checked(page.kindPanel(), &KindPanel::baseChecked);
        page.kindPanel()->checkAgainstBase(basePath);
        QVERIFY(checked.wait(10000));
        // q fits, but the adapter itself lacks attn_k's lora_b, which llama.cpp refuses
        QVERIFY(facts->valueOf(QStringLiteral("Against base.gguf"))
                    .startsWith(QStringLiteral("✘ llama.cpp would refuse: 1 problem(s) of the adapter itself")));
        QCOMPARE(facts->valueOf(QStringLiteral("Pairs that fit")), QStringLiteral("1"));
        GgufBuilder wrong;
        wrong.kv("general.architecture", V::str("qwen2")).tensor("blk.0.attn_q.weight", {64, 32}, 0);
        QVERIFY(writeBytes(basePath, wrong.build().bytes()));
        page.kindPanel()->checkAgainstBase(basePath);
        QVERIFY(checked.wait(10000));
        QVERIFY(facts->valueOf(QStringLiteral("Against base.gguf")).startsWith(QStringLiteral("✘")));
        QVERIFY(facts->valueOf(QStringLiteral("blk.0.attn_q.weight")).contains(QStringLiteral("incorrect shape")));
        const QString text = dir.filePath(QStringLiteral("notes.txt"));
        QVERIFY(writeBytes(text, {'h', 'i', '\n'}));
        page.kindPanel()->checkAgainstBase(text);
        QVERIFY(checked.wait(10000));
        QVERIFY(facts->valueOf(QStringLiteral("Against notes.txt")).startsWith(QStringLiteral("could not be opened")));
        page.setModel(nullptr);
        QCOMPARE(page.kind().kind, FileKind::Model);
    }

    void modelQuantizedWithImatrix()
    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("quantize.imatrix.file", V::str("calibrated.imatrix.gguf"))
            .tensor("token_embd.weight", {4, 4}, 0);
        std::vector<uint8_t> bytes;
        OverviewPage page;
        page.setModel(built(b, bytes));
        const QString kind = page.fieldText(OverviewPage::Field::Kind);
        QVERIFY2(kind.contains(QStringLiteral("calibrated.imatrix.gguf")), qPrintable(kind));
        QVERIFY(page.kindPanel()->isHidden()); // a model has no kind section
        QVERIFY(!page.memoryPanel()->isHidden());
    }

    void importanceMatrix()
    {
        // two experts, the second never used (counts 5 and 0)
        std::vector<uint8_t> counts(8, 0);
        const float five = 5;
        std::memcpy(counts.data(), &five, 4);
        GgufBuilder b;
        b.kv("general.type", V::str("imatrix"))
            .kv("imatrix.datasets", V::stringArray({"calibration.txt"}))
            .kv("imatrix.chunk_count", V::u32(10))
            .kv("imatrix.chunk_size", V::u32(512))
            .tensor("blk.0.ffn_gate_exps.weight.in_sum2", {8, 2}, 0)
            .tensor("blk.0.ffn_gate_exps.weight.counts", {1, 2}, 0, counts);
        std::vector<uint8_t> bytes;
        OverviewPage page;
        QSignalSpy kindShown(&page, &OverviewPage::kindShown);
        page.setModel(built(b, bytes));
        QVERIFY(kindShown.wait(10000));
        const KindPanel *facts = page.kindPanel();
        QCOMPARE(facts->valueOf(QStringLiteral("Datasets")), QStringLiteral("calibration.txt"));
        QCOMPARE(facts->valueOf(QStringLiteral("Experts never used")), QStringLiteral("1"));
        QCOMPARE(facts->valueOf(QStringLiteral("blk.0.ffn_gate_exps.weight")), QStringLiteral("experts 1"));
    }

    void controlVectorNorms()
    {
        // as cvector-generator writes one: F32 directions of n_embd values, layers from 1; the norms
        // are the test's own: ‖(0, 3, 4, 0)‖ = 5, ‖(1, 0, 0, 0)‖ = 1, ‖(2, 2, 2, 2)‖ = 4
        GgufBuilder b;
        b.kv("general.architecture", V::str("controlvector"))
            .kv("controlvector.model_hint", V::str("llama"))
            .kv("controlvector.layer_count", V::i32(3))
            .tensor("direction.2", {4}, 0, f32Data({1, 0, 0, 0}))
            .tensor("direction.1", {4}, 0, f32Data({0, 3, 4, 0}))
            .tensor("direction.3", {4}, 0, f32Data({2, 2, 2, -2}));
        std::vector<uint8_t> bytes;
        OverviewPage page;
        const KindPanel *facts = page.kindPanel();
        QSignalSpy shown(facts, &KindPanel::normsShown);
        QSignalSpy kindShown(&page, &OverviewPage::kindShown);
        page.setModel(built(b, bytes));
        QVERIFY(kindShown.wait(10000));
        QVERIFY(!facts->isHidden());
        QVERIFY(shown.count() == 1 || shown.wait(10000));
        const LayerChart *norms = facts->directionNorms();
        QVERIFY(!norms->isHidden());
        QCOMPARE(norms->points().size(), 3);
        QCOMPARE(norms->points()[0].layer, 1); // in layer order
        QCOMPARE(norms->points()[0].value, 5.0);
        QCOMPARE(norms->points()[1].value, 1.0);
        QCOMPARE(norms->points()[2].value, 4.0);
        QCOMPARE(norms->points()[2].tensor, QStringLiteral("direction.3"));
    }

    // A file llama.cpp's reader accepts but whose layer count its model loader refuses (more than
    // LLAMA_MAX_LAYERS = 512 blocks, src/llama-hparams.h): the verdict does not show a green
    // "would accept" above the memory section's "refuses to load the model"; 512 blocks pass.
    void loaderRefusalInTheVerdict()
    {
        for (const uint32_t blocks : {600u, 512u}) {
            GgufBuilder b;
            b.kv("general.architecture", V::str("llama"))
                .kv("llama.block_count", V::u32(blocks))
                .kv("llama.embedding_length", V::u32(64))
                .tensor("token_embd.weight", {64, 16}, 0);
            std::vector<uint8_t> bytes;
            const auto model = built(b, bytes);
            QVERIFY(model && model->llamaCppAccepts());
            OverviewPage page;
            page.setModel(model);
            const QString verdict = page.verdictText();
            if (blocks == 600) {
                QVERIFY2(verdict.startsWith(QStringLiteral("✘ llama.cpp's reader would accept this file, but: "
                                                           "block_count 600 is more than llama.cpp's limit of 512")),
                         qPrintable(verdict));
            } else {
                QCOMPARE(verdict, QStringLiteral("✔ llama.cpp would accept this file."));
            }
        }
    }

    // A split set without its second shard: the verdict refuses it and the findings say why
    // (they said "No findings" under "would refuse", #40).
    void missingShardIsAFinding()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString lonely = dir.filePath(QStringLiteral("lonely-00001-of-00002.gguf"));
        QVERIFY(gguf::test::writeBytes(lonely, gguf::test::twoFileSplitShard(1)));
        gguf::Error error;
        const auto model = gguf::SplitModel::open(lonely.toStdString(), error);
        QVERIFY(model);
        OverviewPage page;
        page.setModel(model);
        QVERIFY2(page.verdictText().contains(QStringLiteral("refuse")), qPrintable(page.verdictText()));
        QCOMPARE(page.findingCount(), 1);
        const auto *findings = page.findChild<QTreeWidget *>(QStringLiteral("findings"));
        QVERIFY(findings);
        QCOMPARE(findings->topLevelItem(0)->text(2), QStringLiteral("shard_missing"));
        QVERIFY(findings->topLevelItem(0)->text(3).contains(QStringLiteral("lonely-00002-of-00002.gguf")));
    }
};

QTEST_MAIN(TestOverviewPage)
#include "tst_overview_page.moc"
