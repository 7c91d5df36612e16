// SPDX-License-Identifier: GPL-3.0-or-later
// Kinds of GGUF (#18): one built file of each kind in the layout llama.cpp writes and reads
// (docs/KINDS.md names the source of each), and malformed variants that must each give a clear
// finding. Expected figures are the test's own: ranks from the shapes it wrote, scale = alpha / r,
// the experts whose counts it set to zero.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/kind/file_kind.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

using V = BuildValue;

OpenedBuilt open(const GgufBuilder &b)
{
    return buildAndOpen(b);
}

// A LoRA adapter as convert_lora_to_gguf.py writes one: two layers, q and v projections, rank 8
// (v of layer 1: rank 16), n_embd 64.
GgufBuilder lora(float alpha = 16)
{
    GgufBuilder b;
    b.kv("general.architecture", V::str("llama"))
        .kv("general.type", V::str("adapter"))
        .kv("adapter.type", V::str("lora"))
        .kv("adapter.lora.alpha", V::f32(alpha))
        .tensor("blk.0.attn_q.weight.lora_a", {64, 8}, 0)
        .tensor("blk.0.attn_q.weight.lora_b", {8, 64}, 0)
        .tensor("blk.0.attn_v.weight.lora_a", {64, 8}, 0)
        .tensor("blk.0.attn_v.weight.lora_b", {8, 32}, 0)
        .tensor("blk.1.attn_q.weight.lora_a", {64, 8}, 0)
        .tensor("blk.1.attn_q.weight.lora_b", {8, 64}, 0)
        .tensor("blk.1.attn_v.weight.lora_a", {64, 16}, 0)
        .tensor("blk.1.attn_v.weight.lora_b", {16, 32}, 0);
    return b;
}

bool hasFinding(const KindReport &r, const std::string &code)
{
    return std::any_of(r.findings.begin(), r.findings.end(), [&](const KindFinding &f) { return f.code == code; });
}

} // namespace

class TestFileKind : public QObject {
    Q_OBJECT
private slots:
    void modelAndVocabulary()
    {
        const auto tiny = GgufFile::open(gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf").toStdString()).file;
        QVERIFY(tiny);
        QCOMPARE(describeKind(*tiny).kind, FileKind::Model);
        const auto vocab = GgufFile::open(gguf::test::dataPath(u"real/ggml-vocab-gpt-2.gguf").toStdString()).file;
        QVERIFY(vocab);
        const KindReport r = describeKind(*vocab);
        QCOMPARE(r.kind, FileKind::Vocabulary);
        QCOMPARE(std::string(fileKindName(r.kind)), std::string("vocabulary"));
        QVERIFY(r.findings.empty());
    }

    void loraAdapter()
    {
        auto o = open(lora().kv("adapter.lora.task_name", V::str("summarize")));
        QVERIFY(o.file);
        const KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::Adapter);
        QVERIFY(r.lora);
        QVERIFY2(r.findings.empty(), r.findings.empty() ? "" : r.findings.front().message.c_str());
        QCOMPARE(r.lora->pairs.size(), size_t(4));
        QCOMPARE(r.lora->ranks, (std::vector<uint64_t>{8, 16}));
        QCOMPARE(*r.lora->alpha, 16.0);
        QCOMPARE(r.lora->scale(8), 2.0); // alpha / r
        QCOMPARE(r.lora->scale(16), 1.0);
        QCOMPARE(r.lora->taskName, std::string("summarize"));
        const LoraPair &v1 = r.lora->pairs[3];
        QCOMPARE(v1.base, std::string("blk.1.attn_v.weight"));
        QCOMPARE(v1.layer, 1);
        QCOMPARE(v1.role, std::string("attn_v.weight"));
        QCOMPARE(v1.rank, uint64_t(16));
        QCOMPARE(v1.nIn, uint64_t(64));
        QCOMPARE(v1.nOut, uint64_t(32));
        // without alpha llama.cpp applies the adapter unscaled
        GgufBuilder noAlpha;
        noAlpha.kv("general.architecture", V::str("llama"))
            .kv("general.type", V::str("adapter"))
            .kv("adapter.type", V::str("lora"))
            .tensor("output.weight.lora_a", {64, 4}, 0)
            .tensor("output.weight.lora_b", {4, 100}, 0);
        auto n = open(noAlpha);
        QCOMPARE(describeKind(*n.file).lora->scale(4), 1.0);
    }

    void malformedAdapters()
    {
        // a lora_a without its lora_b
        GgufBuilder half = lora();
        half.tensor("blk.2.attn_q.weight.lora_a", {64, 8}, 0);
        auto h = open(half);
        KindReport r = describeKind(*h.file);
        QVERIFY(hasFinding(r, "lora-pair-incomplete"));
        QCOMPARE(r.lora->pairs.size(), size_t(4)); // the complete ones still shown
        // rank mismatch: lora_a [64, 8], lora_b [4, 64]
        GgufBuilder mismatch;
        mismatch.kv("general.architecture", V::str("llama"))
            .kv("general.type", V::str("adapter"))
            .kv("adapter.type", V::str("lora"))
            .tensor("blk.0.attn_q.weight.lora_a", {64, 8}, 0)
            .tensor("blk.0.attn_q.weight.lora_b", {4, 64}, 0);
        auto m = open(mismatch);
        QVERIFY(hasFinding(describeKind(*m.file), "lora-rank-mismatch"));
        // a tensor llama.cpp does not know in an adapter, and the wrong adapter.type
        GgufBuilder odd;
        odd.kv("general.architecture", V::str("llama"))
            .kv("general.type", V::str("adapter"))
            .kv("adapter.type", V::str("ia3"))
            .tensor("blk.0.attn_q.weight.lora_a", {64, 8}, 0)
            .tensor("blk.0.attn_q.weight.lora_b", {8, 64}, 0)
            .tensor("blk.0.ffn_up.weight", {64, 64}, 0);
        auto d = open(odd);
        r = describeKind(*d.file);
        QVERIFY(hasFinding(r, "lora-unexpected-tensor"));
        QVERIFY(hasFinding(r, "adapter-type"));
    }

    void adapterAgainstBase()
    {
        // base: llama with q [64 → 64] and v [64 → 32] in two layers
        GgufBuilder base;
        base.kv("general.architecture", V::str("llama"))
            .tensor("blk.0.attn_q.weight", {64, 64}, 0)
            .tensor("blk.0.attn_v.weight", {64, 32}, 0)
            .tensor("blk.1.attn_q.weight", {64, 64}, 0)
            .tensor("blk.1.attn_v.weight", {64, 48}, 0); // wrong shape for the adapter
        auto b = open(base);
        auto a = open(lora());
        const KindReport r = describeKind(*a.file);
        AdapterCheck c = checkAdapterAgainstBase(*a.file, r, *b.file);
        QVERIFY(c.architectureOk);
        QVERIFY(!c.applies());
        QCOMPARE(c.pairs.size(), size_t(4));
        QVERIFY(c.pairs[0].found && c.pairs[0].shapeOk);
        QVERIFY(c.pairs[3].found && !c.pairs[3].shapeOk);
        QCOMPARE(c.refused, uint64_t(1));
        // another architecture, a missing tensor
        GgufBuilder other;
        other.kv("general.architecture", V::str("qwen2")).tensor("blk.0.attn_q.weight", {64, 64}, 0);
        auto q = open(other);
        c = checkAdapterAgainstBase(*a.file, r, *q.file);
        QVERIFY(!c.architectureOk);
        QCOMPARE(c.refused, uint64_t(3));
        QVERIFY(!c.pairs[1].found);

        // a base that fits every pair: llama.cpp applies it; an adapter that lacks a lora_b does not
        GgufBuilder fits;
        fits.kv("general.architecture", V::str("llama"))
            .tensor("blk.0.attn_q.weight", {64, 64}, 0)
            .tensor("blk.0.attn_v.weight", {64, 32}, 0)
            .tensor("blk.1.attn_q.weight", {64, 64}, 0)
            .tensor("blk.1.attn_v.weight", {64, 32}, 0);
        auto good = open(fits);
        QVERIFY(checkAdapterAgainstBase(*a.file, r, *good.file).applies());
        GgufBuilder half = lora();
        half.tensor("blk.1.attn_k.weight.lora_a", {64, 8}, 0);
        auto h = open(half);
        const KindReport hr = describeKind(*h.file);
        c = checkAdapterAgainstBase(*h.file, hr, *good.file);
        QCOMPARE(c.refused, uint64_t(0));
        QCOMPARE(c.adapterRefusals, uint64_t(1));
        QVERIFY(!c.applies());

        // the token embedding's pair is stored the other way round: lora_a [r, n_vocab], lora_b [r, n_embd]
        GgufBuilder embd;
        embd.kv("general.architecture", V::str("llama"))
            .kv("general.type", V::str("adapter"))
            .kv("adapter.type", V::str("lora"))
            .tensor("token_embd.weight.lora_a", {8, 1000}, 0)
            .tensor("token_embd.weight.lora_b", {8, 64}, 0);
        auto e = open(embd);
        const KindReport er = describeKind(*e.file);
        QVERIFY(er.findings.empty());
        QCOMPARE(er.lora->pairs[0].rank, uint64_t(8));
        QCOMPARE(er.lora->pairs[0].nIn, uint64_t(1000));
        QCOMPARE(er.lora->pairs[0].nOut, uint64_t(64));
        GgufBuilder embdBase;
        embdBase.kv("general.architecture", V::str("llama")).tensor("token_embd.weight", {64, 1000}, 0);
        auto eb = open(embdBase);
        QVERIFY(checkAdapterAgainstBase(*e.file, er, *eb.file).applies());
    }

    void adapterAgainstSplitBase()
    {
        // a base split in two shards (gguf-split's names and split.* keys): layer 0 in the first,
        // layer 1 in the second; every pair is found once both shards are read
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto shard = [](uint16_t number, int layer) {
            GgufBuilder b;
            if (number == 1)
                b.kv("general.architecture", V::str("llama"));
            b.kv("split.no", V::u16(uint16_t(number - 1)))
                .kv("split.count", V::u16(2))
                .kv("split.tensors.count", V::i32(4))
                .tensor("blk." + std::to_string(layer) + ".attn_q.weight", {64, 64}, 0)
                .tensor("blk." + std::to_string(layer) + ".attn_v.weight", {64, 32}, 0);
            return b.build().bytes();
        };
        const QString first = dir.filePath(QStringLiteral("base-00001-of-00002.gguf"));
        const QString second = dir.filePath(QStringLiteral("base-00002-of-00002.gguf"));
        QVERIFY(writeBytes(first, shard(1, 0)));
        QVERIFY(writeBytes(second, shard(2, 1)));
        auto a = open(lora());
        const KindReport r = describeKind(*a.file);
        Error error;
        auto base = SplitModel::open(QFile::encodeName(first).toStdString(), error);
        QVERIFY(base);
        QCOMPARE(base->shards().size(), size_t(2));
        AdapterCheck c = checkAdapterAgainstBase(*a.file, r, *base);
        QVERIFY(c.applies());
        QCOMPARE(c.pairs.size(), size_t(4));
        QVERIFY(c.baseProblems.empty());
        // without the second shard its tensors are missing, as they are for llama.cpp
        QVERIFY(QFile::remove(second));
        base = SplitModel::open(QFile::encodeName(first).toStdString(), error);
        QVERIFY(base);
        c = checkAdapterAgainstBase(*a.file, r, *base);
        QVERIFY(!c.applies());
        QCOMPARE(c.baseProblems.size(), size_t(1));
        QCOMPARE(c.refused, uint64_t(2)); // blk.1's q and v
    }

    void importanceMatrix()
    {
        // llama-imatrix's layout: W.in_sum2 F32 [n_in, n_mat], W.counts F32 [1, n_mat]; an MoE
        // weight of 4 experts, experts 1 and 3 never routed to
        GgufBuilder b;
        b.kv("general.type", V::str("imatrix"))
            .kv("imatrix.datasets", V::stringArray({"wiki.train.raw"}))
            .kv("imatrix.chunk_count", V::u32(100))
            .kv("imatrix.chunk_size", V::u32(512))
            .tensor("blk.0.attn_q.weight.in_sum2", {4, 1}, 0, f32Data({1, 2, 3, 4}))
            .tensor("blk.0.attn_q.weight.counts", {1, 1}, 0, f32Data({51200}))
            .tensor("blk.0.ffn_up_exps.weight.in_sum2", {2, 4}, 0, f32Data({1, 1, 0, 0, 2, 2, 0, 0}))
            .tensor("blk.0.ffn_up_exps.weight.counts", {1, 4}, 0, f32Data({10, 0, 7, 0}));
        auto o = open(b);
        QVERIFY(o.file);
        const KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::Imatrix);
        QVERIFY2(r.findings.empty(), r.findings.empty() ? "" : r.findings.front().message.c_str());
        QCOMPARE(r.imatrix->datasets, (std::vector<std::string>{"wiki.train.raw"}));
        QCOMPARE(*r.imatrix->chunkCount, uint64_t(100));
        QCOMPARE(*r.imatrix->chunkSize, uint64_t(512));
        QCOMPARE(r.imatrix->entries.size(), size_t(2));
        QCOMPARE(r.imatrix->entries[1].nMat, uint64_t(4));
        QCOMPARE(r.imatrix->entries[1].countValues, (std::vector<double>{10, 0, 7, 0}));
        QCOMPARE(r.imatrix->unusedExperts.size(), size_t(2));
        QCOMPARE(r.imatrix->unusedExperts[0].tensor, std::string("blk.0.ffn_up_exps.weight"));
        QCOMPARE(r.imatrix->unusedExperts[1].expert, uint64_t(3));
    }

    void malformedImatrix()
    {
        GgufBuilder b;
        b.kv("general.type", V::str("imatrix"))
            .tensor("a.weight.in_sum2", {4, 2}, 0)
            .tensor("a.weight.counts", {1, 3}, 0)  // three counts for two matrices
            .tensor("b.weight.in_sum2", {4, 1}, 0) // no counts
            .tensor("c.weight.in_sum2", {2, 2}, 0, f32Data({1, 2, 3, 4}))
            .tensor("c.weight.counts", {1, 2}, 0, f32Data({0, 0})); // never used at all
        auto o = open(b);
        QVERIFY(o.file);
        const KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::Imatrix);
        QVERIFY(hasFinding(r, "imatrix-counts-shape"));
        QVERIFY(hasFinding(r, "imatrix-entry-incomplete"));
        QVERIFY(hasFinding(r, "imatrix-zero-counts"));
        QVERIFY(hasFinding(r, "imatrix-metadata")); // no datasets, chunk_count, chunk_size

        // the loader reads counts by their number of elements ([2, 1] is as good as [1, 2]) and
        // rounds them: 0.4 counts as never used
        GgufBuilder loose;
        loose.kv("general.type", V::str("imatrix"))
            .kv("imatrix.datasets", V::stringArray({"d"}))
            .kv("imatrix.chunk_count", V::u32(1))
            .kv("imatrix.chunk_size", V::u32(512))
            .tensor("a.weight.in_sum2", {2, 2}, 0, f32Data({1, 2, 3, 4}))
            .tensor("a.weight.counts", {2, 1}, 0, f32Data({0.4f, 3}));
        auto l = open(loose);
        const KindReport lr = describeKind(*l.file);
        QVERIFY2(lr.findings.empty(), lr.findings.empty() ? "" : lr.findings.front().message.c_str());
        QCOMPARE(lr.imatrix->unusedExperts.size(), size_t(1));
        QCOMPARE(lr.imatrix->unusedExperts[0].expert, uint64_t(0));
    }

    void generalTypeDecides()
    {
        // an adapter that happens to hold a tensor named like an imatrix entry stays an adapter
        GgufBuilder b = lora();
        b.tensor("stray.in_sum2", {4, 1}, 0);
        auto o = open(b);
        KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::Adapter);
        QVERIFY(hasFinding(r, "lora-unexpected-tensor"));
        // the first shard of a split model may hold no tensors: a model, not a vocabulary
        GgufBuilder shard;
        shard.kv("general.architecture", V::str("llama"))
            .kv("split.no", V::u16(0))
            .kv("split.count", V::u16(3))
            .kv("split.tensors.count", V::i32(300));
        auto sh = open(shard);
        QCOMPARE(describeKind(*sh.file).kind, FileKind::Model);
    }

    void projector()
    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("clip"))
            .kv("clip.projector_type", V::str("gemma3"))
            .kv("clip.has_vision_encoder", V::boolean(true))
            .kv("clip.vision.image_size", V::u32(896))
            .kv("clip.vision.patch_size", V::u32(14))
            .kv("clip.vision.embedding_length", V::u32(1152))
            .kv("clip.vision.block_count", V::u32(27))
            .tensor("v.patch_embd.weight", {14, 14, 3, 1152}, 1);
        auto o = open(b);
        const KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::Projector);
        QCOMPARE(r.projector->type, std::string("gemma3"));
        QVERIFY(r.projector->hasVision && !r.projector->hasAudio);
        QCOMPARE(*r.projector->vision->imageSize, uint64_t(896));
        QCOMPARE(*r.projector->vision->patchSize, uint64_t(14));
        QCOMPARE(*r.projector->vision->embeddingLength, uint64_t(1152));
        QCOMPARE(*r.projector->vision->blockCount, uint64_t(27));
        QVERIFY(!r.projector->audio);
    }

    void controlVector()
    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("controlvector"))
            .kv("controlvector.model_hint", V::str("llama"))
            .kv("controlvector.layer_count", V::i32(2))              // as cvector-generator writes it
            .tensor("direction.2", {4, 1}, 0, f32Data({1, 0, 0, 0})) // ggml_n_dims: one dimension
            .tensor("direction.1", {4}, 0, f32Data({0, 3, 4, 0}));
        auto o = open(b);
        KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::ControlVector);
        QVERIFY(r.findings.empty());
        QCOMPARE(r.controlVector->modelHint, std::string("llama"));
        QCOMPARE(r.controlVector->directions.size(), size_t(2));
        QCOMPARE(r.controlVector->directions[0].layer, uint64_t(1)); // sorted by layer
        QCOMPARE(r.controlVector->embeddingLength, uint64_t(4));
        // direction.0 and a 2-D direction: refused by llama.cpp
        GgufBuilder bad;
        bad.kv("general.architecture", V::str("controlvector"))
            .tensor("direction.0", {4}, 0)
            .tensor("direction.1", {4, 2}, 0)
            .tensor("direction.2", {5}, 0)
            .tensor("direction.3", {4}, 0);
        auto d = open(bad);
        r = describeKind(*d.file);
        QVERIFY(hasFinding(r, "control-vector-name"));
        QVERIFY(hasFinding(r, "control-vector-tensor"));
        QVERIFY(hasFinding(r, "control-vector-size"));
    }

    void modelQuantizedWithAnImatrix()
    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("quantize.imatrix.file", V::str("imatrix.gguf"))
            .kv("quantize.imatrix.dataset", V::str("calibration.txt"))
            .kv("quantize.imatrix.entries_count", V::u32(224))
            .kv("quantize.imatrix.chunks_count", V::u32(125))
            .tensor("token_embd.weight", {4, 4}, 0);
        auto o = open(b);
        const KindReport r = describeKind(*o.file);
        QCOMPARE(r.kind, FileKind::Model);
        QVERIFY(r.quantizedWith);
        QCOMPARE(r.quantizedWith->file, std::string("imatrix.gguf"));
        QCOMPARE(*r.quantizedWith->entries, uint64_t(224));
        QCOMPARE(*r.quantizedWith->chunks, uint64_t(125));
    }
};

QTEST_GUILESS_MAIN(TestFileKind)
#include "tst_file_kind.moc"
