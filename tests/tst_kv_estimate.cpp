// SPDX-License-Identifier: GPL-3.0-or-later
// The KV cache estimate (#17, work in progress) against what llama.cpp allocated for the same
// inputs (../shared/tools/README.md: llama-memory.mjs on tiny-llama-tied-q8_0, node-llama-cpp
// 3.22.1), and against the test's own sums for per-layer heads and sliding windows.
#include "core/format/gguf_file.h"
#include "core/memory/kv_estimate.h"
#include "tests/support/gguf_builder.h"

#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;

std::shared_ptr<const GgufFile> tinyLlama()
{
    return GgufFile::open(GGUF_TEST_DATA_DIR "/real/tiny-llama-tied-q8_0.gguf").file;
}

} // namespace

class TestKvEstimate : public QObject {
    Q_OBJECT
private slots:
    void matchesLlamaCpp()
    {
        const auto f = tinyLlama();
        QVERIFY(f);
        MemoryInputs in;
        in.context = 4096;
        KvEstimate e = estimateKv(*f, in);
        QCOMPARE(e.nCtxSeq, uint64_t(4096));
        QCOMPARE(e.kBytes, 4 * MiB); // llama_kv_cache: K (f16): 4.00 MiB
        QCOMPARE(e.vBytes, 4 * MiB); // V (f16): 4.00 MiB
        in.typeK = in.typeV = 8;     // q8_0 (the oracle turns flash attention on with a cache type)
        in.flashAttention = true;
        e = estimateKv(*f, in);
        QCOMPARE(e.kBytes + e.vBytes, 4 * MiB + MiB / 4); // size = 4.25 MiB
        in = {};
        in.context = 1000;
        QCOMPARE(estimateKv(*f, in).nCtxSeq, uint64_t(1024)); // 1024 cells
        in.context = 3000;
        QCOMPARE(estimateKv(*f, in).nCtxSeq, uint64_t(3072));
    }

    void perLayerHeadsAndSlidingWindows()
    {
        // 4 layers: KV heads 8, 4, 8, 2 of 128; window 1024 on every layer but each 2nd of a pair
        GgufBuilder b;
        b.kv("general.architecture", V::str("gemma2"))
            .kv("gemma2.block_count", V::u32(4))
            .kv("gemma2.context_length", V::u32(8192))
            .kv("gemma2.embedding_length", V::u32(2048))
            .kv("gemma2.attention.head_count", V::u32(16))
            .kv("gemma2.attention.head_count_kv",
                V::array(ValueType::Uint32, {V::u32(8), V::u32(4), V::u32(8), V::u32(2)}))
            .kv("gemma2.attention.key_length", V::u32(128))
            .kv("gemma2.attention.value_length", V::u32(128))
            .kv("gemma2.attention.sliding_window", V::u32(1024));
        const auto built = b.build();
        const auto f = GgufFile::openBuffer(built.bytes(), "<gemma2>").file;
        QVERIFY(f);
        MemoryInputs in;
        in.flashAttention = true;
        const KvEstimate e = estimateKv(*f, in);
        QCOMPARE(e.layers.size(), size_t(4));
        // gemma2's period is 2: layers 0 and 2 slide, 1 and 3 see everything
        QCOMPARE(e.layers[0].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[1].kind, KvLayerKind::Full);
        const uint64_t swaCells = (1024 + 512 + 255) / 256 * 256; // window + ubatch, padded
        QCOMPARE(e.layers[0].cells, swaCells);
        QCOMPARE(e.layers[1].cells, uint64_t(8192));
        QCOMPARE(e.layers[0].kBytes, 128 * 8 * 2 * swaCells); // f16
        QCOMPARE(e.layers[1].kBytes, uint64_t(128 * 4 * 2) * 8192);
        QCOMPARE(e.layers[3].vBytes, uint64_t(128 * 2 * 2) * 8192);
    }
};

QTEST_GUILESS_MAIN(TestKvEstimate)
#include "tst_kv_estimate.moc"
