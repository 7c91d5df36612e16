// SPDX-License-Identifier: GPL-3.0-or-later
// The whole memory estimate (#17): weights by device, the output and compute buffers, totals and
// the largest context for a budget. Expected figures: llama.cpp's own on tiny-llama-tied-q8_0
// (../shared/tools/README.md, node-llama-cpp 3.22.1: output buffer 0.12 MiB, compute buffer
// 63.50 MiB at context 4096), sums of the file's tensor sizes made here, and the rules of
// docs/MEMORY.md worked out by hand.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/memory/memory_estimate.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_paths.h"

#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;
using V = BuildValue;

std::shared_ptr<const GgufFile> tinyLlama()
{
    return GgufFile::open(gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf").toStdString()).file;
}

struct Sums {
    uint64_t tokenEmbd = 0, layers = 0, output = 0, perLayer[4] = {};
};

// The file's tensors summed by where llama.cpp puts them, by name.
Sums sums(const GgufFile &f)
{
    Sums s;
    for (const TensorInfo &t : f.tensors()) {
        const std::string name(t.name);
        if (name == "token_embd.weight") {
            s.tokenEmbd += t.byteSize;
        } else if (name.rfind("blk.", 0) == 0) {
            s.layers += t.byteSize;
            s.perLayer[std::stoi(name.substr(4))] += t.byteSize;
        } else {
            s.output += t.byteSize; // output_norm.weight (the output itself is tied)
        }
    }
    return s;
}

} // namespace

class TestMemoryEstimate : public QObject {
    Q_OBJECT
private slots:
    void buffersAsLlamaCppPrintsThem()
    {
        const auto f = tinyLlama();
        QVERIFY(f);
        const MemoryModel m(*f);
        MemoryInputs in;
        in.context = 4096;
        const MemoryEstimate e = m.estimate(in);
        QCOMPARE(e.cpu().output, uint64_t(128000)); // CPU output buffer size = 0.12 MiB: 32000 logits × 4 B
        QCOMPARE(e.gpu().kv, 8 * MiB);              // K 4.00 MiB + V 4.00 MiB
        // compute buffer 63.50 MiB (node-llama-cpp's default turns flash attention on), on the one
        // device of the oracle's CPU build: the estimate's bound (tst_memory_oracle has all runs)
        in.gpuLayers = 0;
        in.flashAttention = true;
        const double ratio = double(m.estimate(in).cpu().compute) / (63.50 * MiB);
        QVERIFY2(ratio > 0.95 && ratio < 1.05, qPrintable(QString::number(ratio)));
    }

    void weightsByDevice()
    {
        const auto f = tinyLlama();
        const Sums s = sums(*f);
        QVERIFY(s.tokenEmbd > 0 && s.layers > 0 && s.output > 0);
        QVERIFY(!f->findTensor("output.weight")); // tied: the output layer uses token_embd again
        const MemoryModel m(*f);
        QCOMPARE(m.weightBytes(), f->tensorDataBytes());
        MemoryInputs in;
        // everything offloaded (5 of 5: 4 layers and the output): the token embedding stays on the
        // CPU, the GPU gets the layers, output_norm and a copy of token_embd for the tied output
        MemoryEstimate e = m.estimate(in);
        QCOMPARE(e.gpuLayers, uint64_t(5));
        QVERIFY(e.tiedOutput);
        QCOMPARE(e.cpu().weights, s.tokenEmbd);
        QCOMPARE(e.gpu().weights, s.layers + s.output + s.tokenEmbd);
        // nothing offloaded: everything once, on the CPU
        in.gpuLayers = 0;
        e = m.estimate(in);
        QCOMPARE(e.cpu().weights, f->tensorDataBytes());
        QCOMPARE(e.gpu().total(), uint64_t(0));
        // one: only the output layer (llama.cpp offloads the output first)
        in.gpuLayers = 1;
        e = m.estimate(in);
        QVERIFY(e.outputOnGpu);
        QCOMPARE(e.gpu().weights, s.output + s.tokenEmbd);
        QCOMPARE(e.cpu().weights, s.tokenEmbd + s.layers);
        QCOMPARE(e.gpu().kv, uint64_t(0));
        QCOMPARE(e.cpu().kv, e.kv.total());
        // three: the output and layers 2 and 3
        in.gpuLayers = 3;
        e = m.estimate(in);
        QCOMPARE(e.gpu().weights, s.perLayer[2] + s.perLayer[3] + s.output + s.tokenEmbd);
        QCOMPARE(e.cpu().weights, s.tokenEmbd + s.perLayer[0] + s.perLayer[1]);
        // more than there are: all
        in.gpuLayers = 100;
        QCOMPARE(m.estimate(in).gpuLayers, uint64_t(5));
    }

    void separateOutputIsNotCopied()
    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.block_count", V::u32(2))
            .kv("llama.context_length", V::u32(1024))
            .kv("llama.embedding_length", V::u32(64))
            .kv("llama.feed_forward_length", V::u32(128))
            .kv("llama.attention.head_count", V::u32(4))
            .kv("llama.vocab_size", V::u32(100))
            .tensor("token_embd.weight", {64, 100}, 0)
            .tensor("blk.0.attn_q.weight", {64, 64}, 0)
            .tensor("blk.1.attn_q.weight", {64, 64}, 1)
            .tensor("output_norm.weight", {64}, 0)
            .tensor("output.weight", {64, 100}, 1)
            .tensor("rope_freqs.weight", {8}, 0);
        const auto built = b.build();
        const auto f = GgufFile::openBuffer(built.bytes(), "<llama>").file;
        QVERIFY(f);
        const MemoryModel m(*f);
        MemoryInputs in;
        in.gpuLayers = 2; // output and layer 1
        const MemoryEstimate e = m.estimate(in);
        QVERIFY(!e.tiedOutput);
        // CPU: token_embd 64·100·4, layer 0 64·64·4, rope_freqs (with the first layer) 8·4
        QCOMPARE(e.cpu().weights, uint64_t(64 * 100 * 4 + 64 * 64 * 4 + 8 * 4));
        // GPU: layer 1 in f16, output_norm f32, output f16
        QCOMPARE(e.gpu().weights, uint64_t(64 * 64 * 2 + 64 * 4 + 64 * 100 * 2));
        // output buffer: vocab_size 100 × 1 sequence × 4; two sequences double it
        QCOMPARE(e.cpu().output, uint64_t(400));
        in.parallel = 2;
        QCOMPARE(m.estimate(in).cpu().output, uint64_t(800));
    }

    void computeEstimate()
    {
        // the estimate's rule (docs/MEMORY.md §8) on round numbers: T = min(n_ctx, ubatch),
        // max(logits n_vocab·T·4, FFN 3·n_ff·T·4, attention) + hidden 4·n_embd·T·4, where attention
        // is (n_head + 1 mask)·n_kv·T·4 without flash attention and the f16 mask n_kv·T·2 with it
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.block_count", V::u32(2))
            .kv("llama.context_length", V::u32(65536))
            .kv("llama.embedding_length", V::u32(1024))
            .kv("llama.feed_forward_length", V::u32(4096))
            .kv("llama.attention.head_count", V::u32(16))
            .kv("llama.attention.head_count_kv", V::u32(4))
            .kv("llama.vocab_size", V::u32(1000));
        const auto built = b.build();
        const auto f = GgufFile::openBuffer(built.bytes(), "<llama>").file;
        const MemoryModel m(*f);
        MemoryInputs in;
        in.gpuLayers = 0;
        in.context = 256; // T = 256: FFN 3·4096·256·4 = 12 MiB is the largest (attention 4.25 MiB)
        QCOMPARE(m.estimate(in).cpu().compute, uint64_t(3 * 4096 * 256 * 4 + 4 * 1024 * 256 * 4));
        in.context = 8192; // T = 512: KQ and mask 17·8192·512·4 = 272 MiB
        QCOMPARE(m.estimate(in).cpu().compute, uint64_t(17ull * 8192 * 512 * 4 + 4 * 1024 * 512 * 4));
        in.flashAttention = true; // no KQ matrix, the mask 8 MiB: FFN 24 MiB
        QCOMPARE(m.estimate(in).cpu().compute, uint64_t(3 * 4096 * 512 * 4 + 4 * 1024 * 512 * 4));
        in.ubatch = 128;
        QCOMPARE(m.estimate(in).cpu().compute, uint64_t(3 * 4096 * 128 * 4 + 4 * 1024 * 128 * 4));
        // every figure is explained
        for (const MemoryTerm &t : m.estimate(in).terms)
            QVERIFY2(!t.formula.empty(), t.what.c_str());
    }

    void largestContextForBudget()
    {
        // nothing but KV and compute: per cell 2 layers × (K + V) 4·64·2 B = 2 KiB
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.block_count", V::u32(2))
            .kv("llama.context_length", V::u32(131072))
            .kv("llama.embedding_length", V::u32(256))
            .kv("llama.feed_forward_length", V::u32(512))
            .kv("llama.attention.head_count", V::u32(4))
            .kv("llama.attention.head_count_kv", V::u32(4))
            .kv("llama.vocab_size", V::u32(1000));
        const auto built = b.build();
        const auto f = GgufFile::openBuffer(built.bytes(), "<llama>").file;
        const MemoryModel m(*f);
        MemoryInputs in;
        in.gpuLayers = 0;
        in.flashAttention = true;
        // RAM needed at context c (a multiple of 256), with T = min(c, 512) tokens in the batch: KV
        // 2048·c, compute max(logits 1000·T·4, FFN 3·512·T·4, f16 mask c·T·2) + hidden 4·256·T·4,
        // output 1000·4
        auto need = [](uint64_t c) {
            const uint64_t t = std::min<uint64_t>(c, 512);
            return 2048 * c + std::max<uint64_t>({1000 * t * 4, 3 * 512 * t * 4, c * t * 2}) + 4 * 256 * t * 4 + 4000;
        };
        for (const uint64_t budget : {uint64_t(64) * MiB, uint64_t(100) * MiB, uint64_t(5) * MiB}) {
            uint64_t best = 0;
            for (uint64_t c = 256; c <= 131072; c += 256)
                if (need(c) <= budget)
                    best = c;
            QCOMPARE(m.maxContextForBudget(in, budget), best);
        }
        QCOMPARE(m.maxContextForBudget(in, 1 * MiB), uint64_t(0));         // not even 256 cells
        QCOMPARE(m.maxContextForBudget(in, 1024 * MiB), uint64_t(131072)); // the whole trained context
        // with layers on the GPU the budget is the GPU's: the output buffer stays in RAM
        in.gpuLayers = -1;
        const uint64_t gpu = m.maxContextForBudget(in, 64 * MiB);
        QCOMPARE(gpu % 256, uint64_t(0));
        in.context = gpu;
        QVERIFY(m.estimate(in).gpu().total() <= 64 * MiB);
        in.context = gpu + 256;
        QVERIFY(m.estimate(in).gpu().total() > 64 * MiB);
    }

    void splitModelCountsEveryShard()
    {
        // two shards of one F32 tensor of 32 values each
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        for (uint16_t number : {1, 2})
            QVERIFY(writeBytes(dir.filePath(QStringLiteral("m-%1-of-00002.gguf").arg(number, 5, 10, QLatin1Char('0'))),
                               twoFileSplitShard(number)));
        Error error;
        const auto split = SplitModel::open(dir.filePath(QStringLiteral("m-00001-of-00002.gguf")).toStdString(), error);
        QVERIFY(split && !error && split->isSplit());
        QCOMPARE(MemoryModel(*split).weightBytes(), uint64_t(2 * 32 * 4));
        QCOMPARE(MemoryModel(split->primary()).weightBytes(), uint64_t(32 * 4)); // the first shard alone
    }
};

QTEST_GUILESS_MAIN(TestMemoryEstimate)
#include "tst_memory_estimate.moc"
