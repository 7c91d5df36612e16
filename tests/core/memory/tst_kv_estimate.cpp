// SPDX-License-Identifier: GPL-3.0-or-later
// The KV cache and recurrent state estimate (#17) against what llama.cpp allocated for the same
// inputs (../shared/tools/README.md: llama-memory.mjs on tiny-llama-tied-q8_0, node-llama-cpp
// 3.22.1), and against figures worked out here by hand from llama.cpp's rules (docs/MEMORY.md)
// for built files of each kind: dense GQA, per-layer KV heads, sliding windows, MLA, embedding,
// recurrent and hybrid models.
#include "core/format/gguf_file.h"
#include "core/memory/kv_estimate.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_paths.h"

#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

constexpr uint64_t MiB = uint64_t(1) << 20;
constexpr uint32_t kF32 = 0, kQ4_0 = 2, kQ8_0 = 8;

std::shared_ptr<const GgufFile> tinyLlama()
{
    return GgufFile::open(gguf::test::dataPath(u"real/tiny-llama-tied-q8_0.gguf").toStdString()).file;
}

using V = BuildValue;

// A model header with the keys every architecture has; the test adds the rest.
GgufBuilder model(const std::string &arch, uint32_t layers, uint32_t embd, uint32_t heads, uint32_t context)
{
    GgufBuilder b;
    b.kv("general.architecture", V::str(arch))
        .kv(arch + ".block_count", V::u32(layers))
        .kv(arch + ".context_length", V::u32(context))
        .kv(arch + ".embedding_length", V::u32(embd))
        .kv(arch + ".attention.head_count", V::u32(heads));
    return b;
}

OpenedBuilt open(const GgufBuilder &b)
{
    return buildAndOpen(b);
}

V u32Array(std::initializer_list<uint32_t> values)
{
    std::vector<V> out;
    for (const uint32_t v : values)
        out.push_back(V::u32(v));
    return V::array(ValueType::Uint32, out);
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
        in.typeK = in.typeV = kQ8_0; // q8_0 (the oracle turns flash attention on with a cache type)
        in.flashAttention = true;
        e = estimateKv(*f, in);
        QCOMPARE(e.kBytes + e.vBytes, 4 * MiB + MiB / 4); // size = 4.25 MiB
        in = {};
        in.context = 1000;
        QCOMPARE(estimateKv(*f, in).nCtxSeq, uint64_t(1024)); // 1024 cells
        in.context = 3000;
        QCOMPARE(estimateKv(*f, in).nCtxSeq, uint64_t(3072));
        // no context given: the model's own (llama.context_length = 2048)
        in.context = 0;
        QCOMPARE(estimateKv(*f, in).nCtxSeq, uint64_t(2048));
    }

    void denseGqa()
    {
        // llama 3 8B's shape: 32 layers, 32 heads of 128, 8 KV heads
        auto o = open(model("llama", 32, 4096, 32, 8192).kv("llama.attention.head_count_kv", V::u32(8)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.context = 8192;
        KvEstimate e = estimateKv(*o.file, in);
        const uint64_t rowF16 = 128 * 8 * 2; // n_embd_k_gqa = 1024 values of 2 bytes
        QCOMPARE(e.kBytes, rowF16 * 8192 * 32);
        QCOMPARE(e.vBytes, rowF16 * 8192 * 32); // 512 MiB each
        QCOMPARE(e.kBytes, 512 * MiB);
        // q4_0: blocks of 32 values in 18 bytes
        in.typeK = kQ4_0;
        in.typeV = kQ8_0; // blocks of 32 in 34 bytes
        in.flashAttention = true;
        e = estimateKv(*o.file, in);
        QCOMPARE(e.kBytes, uint64_t(1024 / 32 * 18) * 8192 * 32);
        QCOMPARE(e.vBytes, uint64_t(1024 / 32 * 34) * 8192 * 32);
        // f32
        in.typeK = in.typeV = kF32;
        QCOMPARE(estimateKv(*o.file, in).kBytes, uint64_t(1024 * 4) * 8192 * 32);
        // four sequences share the context: 2048 cells in each of 4 streams
        in = {};
        in.context = 8192;
        in.parallel = 4;
        e = estimateKv(*o.file, in);
        QCOMPARE(e.nCtxSeq, uint64_t(2048));
        QCOMPARE(e.streams, uint64_t(4));
        QCOMPARE(e.kBytes, rowF16 * 2048 * 4 * 32);
        // 5000 over 3: padded to 5120, 1706 each, padded to 1792, times 3 streams
        in.context = 5000;
        in.parallel = 3;
        e = estimateKv(*o.file, in);
        QCOMPARE(e.nCtxSeq, uint64_t(1792));
        QCOMPARE(e.nCtx, uint64_t(1792 * 3));
        QCOMPARE(e.kBytes, rowF16 * 1792 * 3 * 32);
        // one unified stream keeps the padded context whole
        in.kvUnified = true;
        e = estimateKv(*o.file, in);
        QCOMPARE(e.streams, uint64_t(1));
        QCOMPARE(e.kBytes, rowF16 * 5120 * 32);
    }

    void perLayerHeads()
    {
        // KV heads 8, 4, 8, 2 of 128: without flash attention V rows are as wide as the widest layer
        auto o = open(model("llama", 4, 2048, 16, 4096)
                          .kv("llama.attention.head_count_kv", u32Array({8, 4, 8, 2}))
                          .kv("llama.attention.key_length", V::u32(128))
                          .kv("llama.attention.value_length", V::u32(128)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.context = 4096;
        KvEstimate e = estimateKv(*o.file, in);
        QCOMPARE(e.layers.size(), size_t(4));
        const uint64_t heads[] = {8, 4, 8, 2};
        for (size_t il = 0; il < 4; ++il) {
            QCOMPARE(e.layers[il].kBytes, 128 * heads[il] * 2 * 4096);
            QCOMPARE(e.layers[il].vBytes, uint64_t(128 * 8 * 2) * 4096); // the widest: 8 heads
        }
        in.flashAttention = true;
        e = estimateKv(*o.file, in);
        for (size_t il = 0; il < 4; ++il)
            QCOMPARE(e.layers[il].vBytes, 128 * heads[il] * 2 * 4096);
        QCOMPARE(e.kBytes, uint64_t(128 * (8 + 4 + 8 + 2) * 2) * 4096);
    }

    void slidingWindowGemma2()
    {
        // gemma2: window on layers 0 and 2 (period 2), the other layers see everything
        auto o = open(model("gemma2", 4, 2048, 16, 8192)
                          .kv("gemma2.attention.head_count_kv", u32Array({8, 4, 8, 2}))
                          .kv("gemma2.attention.key_length", V::u32(128))
                          .kv("gemma2.attention.value_length", V::u32(128))
                          .kv("gemma2.attention.sliding_window", V::u32(1024)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.flashAttention = true;
        const KvEstimate e = estimateKv(*o.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[1].kind, KvLayerKind::Full);
        QCOMPARE(e.layers[2].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[3].kind, KvLayerKind::Full);
        const uint64_t swaCells = 1536; // window 1024 + ubatch 512, padded to 256
        QCOMPARE(e.layers[0].cells, swaCells);
        QCOMPARE(e.layers[1].cells, uint64_t(8192)); // the model's context
        QCOMPARE(e.layers[0].kBytes, 128 * 8 * 2 * swaCells);
        QCOMPARE(e.layers[1].kBytes, uint64_t(128 * 4 * 2) * 8192);
        QCOMPARE(e.layers[3].vBytes, uint64_t(128 * 2 * 2) * 8192);
        // gemma2 without the key: llama.cpp's default window of 4096
        auto d = open(model("gemma2", 2, 512, 4, 16384).kv("gemma2.attention.head_count_kv", V::u32(1)));
        QCOMPARE(estimateKv(*d.file, MemoryInputs{}).layers[0].cells, uint64_t(4096 + 512));
    }

    void slidingWindowGemma3()
    {
        // gemma3: five sliding layers then one full (period 6); window 1024; 7 layers
        auto o = open(model("gemma3", 7, 1152, 4, 32768)
                          .kv("gemma3.attention.head_count_kv", V::u32(1))
                          .kv("gemma3.attention.key_length", V::u32(256))
                          .kv("gemma3.attention.value_length", V::u32(256))
                          .kv("gemma3.attention.sliding_window", V::u32(1024)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.context = 32768;
        in.flashAttention = true;
        KvEstimate e = estimateKv(*o.file, in);
        const bool slides[] = {true, true, true, true, true, false, true};
        uint64_t expectedK = 0;
        for (size_t il = 0; il < 7; ++il) {
            QCOMPARE(e.layers[il].kind == KvLayerKind::SlidingWindow, slides[il]);
            const uint64_t cells = slides[il] ? 1536 : 32768;
            QCOMPARE(e.layers[il].cells, cells);
            expectedK += 256 * 2 * cells;
        }
        QCOMPARE(e.kBytes, expectedK);
        // the window keeps the whole context when it is smaller than window + ubatch
        in.context = 1000;
        e = estimateKv(*o.file, in);
        QCOMPARE(e.layers[0].cells, uint64_t(1024));
        // --swa-full: every layer keeps the whole context
        in.context = 32768;
        in.swaFull = true;
        QCOMPARE(estimateKv(*o.file, in).layers[0].cells, uint64_t(32768));
        // two sequences, separate streams: each stream keeps window + ubatch
        in.swaFull = false;
        in.parallel = 2;
        e = estimateKv(*o.file, in);
        QCOMPARE(e.layers[0].cells, uint64_t(1536));
        QCOMPARE(e.layers[0].kBytes, uint64_t(256 * 2) * 1536 * 2);
        QCOMPARE(e.layers[5].cells, uint64_t(16384));
        // a unified cache keeps a window per sequence in one stream
        in.kvUnified = true;
        QCOMPARE(estimateKv(*o.file, in).layers[0].cells, uint64_t(2048 + 512));

        // gemma3 without a window: no sliding layers
        auto n = open(model("gemma3", 2, 512, 4, 4096).kv("gemma3.attention.head_count_kv", V::u32(1)));
        QCOMPARE(estimateKv(*n.file, MemoryInputs{}).layers[0].kind, KvLayerKind::Full);
    }

    void slidingWindowPatternArray()
    {
        // an explicit per-layer pattern wins over the architecture's period
        std::vector<V> pattern = {V::boolean(false), V::boolean(true), V::boolean(true)};
        auto o = open(model("gemma3", 3, 512, 4, 8192)
                          .kv("gemma3.attention.head_count_kv", V::u32(2))
                          .kv("gemma3.attention.sliding_window", V::u32(512))
                          .kv("gemma3.attention.sliding_window_pattern", V::array(ValueType::Bool, pattern)));
        QVERIFY(o.file);
        const KvEstimate e = estimateKv(*o.file, MemoryInputs{});
        QCOMPARE(e.layers[0].kind, KvLayerKind::Full);
        QCOMPARE(e.layers[1].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[1].cells, uint64_t(1024));
        // a window on an architecture llama.cpp runs without one (qwen2): every layer is full
        auto q = open(model("qwen2", 2, 512, 4, 8192).kv("qwen2.attention.sliding_window", V::u32(512)));
        QCOMPARE(estimateKv(*q.file, MemoryInputs{}).layers[0].cells, uint64_t(8192));
    }

    void multiHeadLatentAttention()
    {
        // deepseek2 converted for MLA: one KV "head" of kv_lora_rank 512 + rope 64 = 576; no V
        auto o = open(model("deepseek2", 4, 2048, 16, 163840)
                          .kv("deepseek2.attention.head_count_kv", V::u32(1))
                          .kv("deepseek2.attention.key_length", V::u32(576))
                          .kv("deepseek2.attention.value_length", V::u32(512))
                          .kv("deepseek2.attention.key_length_mla", V::u32(192))
                          .kv("deepseek2.attention.value_length_mla", V::u32(128))
                          .kv("deepseek2.attention.kv_lora_rank", V::u32(512))
                          .kv("deepseek2.rope.dimension_count", V::u32(64)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.context = 4096;
        const KvEstimate e = estimateKv(*o.file, in);
        QCOMPARE(e.kBytes, uint64_t(576 * 2) * 4096 * 4);
        QCOMPARE(e.vBytes, uint64_t(0));
        // an older conversion without the _mla keys: ordinary K and V per head
        auto old = open(model("deepseek2", 2, 2048, 16, 4096)
                            .kv("deepseek2.attention.head_count_kv", V::u32(16))
                            .kv("deepseek2.attention.key_length", V::u32(192))
                            .kv("deepseek2.attention.value_length", V::u32(128)));
        in.flashAttention = true;
        const KvEstimate o2 = estimateKv(*old.file, in);
        QCOMPARE(o2.kBytes, uint64_t(192 * 16 * 2) * 4096 * 2);
        QCOMPARE(o2.vBytes, uint64_t(128 * 16 * 2) * 4096 * 2);
    }

    void embeddingModelHasNoCache()
    {
        auto o = open(model("bert", 12, 768, 12, 512));
        QVERIFY(o.file);
        const KvEstimate e = estimateKv(*o.file, MemoryInputs{});
        QCOMPARE(e.total(), uint64_t(0));
        QVERIFY(e.layers.empty());
    }

    void recurrentState()
    {
        // mamba: conv state (d_conv − 1)·(d_inner + 2·groups·d_state), ssm state d_state·d_inner, f32
        auto o = open(model("mamba", 2, 768, 0, 1048576)
                          .kv("mamba.ssm.conv_kernel", V::u32(4))
                          .kv("mamba.ssm.inner_size", V::u32(1536))
                          .kv("mamba.ssm.state_size", V::u32(16))
                          .kv("mamba.ssm.time_step_rank", V::u32(48))
                          .kv("mamba.attention.head_count_kv", V::u32(0)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.context = 4096;
        KvEstimate e = estimateKv(*o.file, in);
        const uint64_t r = 3 * 1536 * 4, s = 16 * 1536 * 4;
        QCOMPARE(e.layers.size(), size_t(2));
        QCOMPARE(e.layers[0].kind, KvLayerKind::Recurrent);
        QCOMPARE(e.stateBytes, (r + s) * 2);
        QCOMPARE(e.kBytes + e.vBytes, uint64_t(0));
        // the state does not grow with the context, only with the sequences
        in.context = 65536;
        in.parallel = 3;
        QCOMPARE(estimateKv(*o.file, in).stateBytes, (r + s) * 2 * 3);

        // mamba2 with groups
        auto m2 = open(model("mamba2", 1, 2560, 0, 4096)
                           .kv("mamba2.ssm.conv_kernel", V::u32(4))
                           .kv("mamba2.ssm.inner_size", V::u32(5120))
                           .kv("mamba2.ssm.state_size", V::u32(128))
                           .kv("mamba2.ssm.group_count", V::u32(8)));
        QCOMPARE(estimateKv(*m2.file, MemoryInputs{}).stateBytes,
                 uint64_t(3 * (5120 + 2 * 8 * 128) * 4 + 128 * 5120 * 4));

        // rwkv6: token shift 2·n_embd, wkv n_embd·head_size
        auto rw = open(model("rwkv6", 3, 2048, 0, 1048576).kv("rwkv6.wkv.head_size", V::u32(64)));
        QCOMPARE(estimateKv(*rw.file, MemoryInputs{}).stateBytes, uint64_t((2 * 2048 + 2048 * 64) * 4 * 3));
    }

    void hybrid()
    {
        // jamba: layers without KV heads hold a mamba state, the others a KV cache
        auto o = open(model("jamba", 4, 1024, 8, 4096)
                          .kv("jamba.attention.head_count_kv", u32Array({0, 0, 0, 2}))
                          .kv("jamba.ssm.conv_kernel", V::u32(4))
                          .kv("jamba.ssm.inner_size", V::u32(2048))
                          .kv("jamba.ssm.state_size", V::u32(16)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.context = 4096;
        in.flashAttention = true;
        const KvEstimate e = estimateKv(*o.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::Recurrent);
        QCOMPARE(e.layers[3].kind, KvLayerKind::Full);
        QCOMPARE(e.stateBytes, uint64_t(3 * 2048 * 4 + 16 * 2048 * 4) * 3);
        QCOMPARE(e.kBytes, uint64_t(128 * 2 * 2) * 4096); // head size 1024 / 8
        // qwen3next: every 4th layer is full attention, the others recurrent
        auto q = open(model("qwen3next", 8, 2048, 16, 4096)
                          .kv("qwen3next.attention.head_count_kv", V::u32(2))
                          .kv("qwen3next.attention.key_length", V::u32(256))
                          .kv("qwen3next.attention.value_length", V::u32(256))
                          .kv("qwen3next.ssm.conv_kernel", V::u32(4))
                          .kv("qwen3next.ssm.inner_size", V::u32(4096))
                          .kv("qwen3next.ssm.state_size", V::u32(128))
                          .kv("qwen3next.ssm.group_count", V::u32(16)));
        const KvEstimate qe = estimateKv(*q.file, in);
        for (size_t il = 0; il < 8; ++il)
            QCOMPARE(qe.layers[il].kind, (il + 1) % 4 == 0 ? KvLayerKind::Full : KvLayerKind::Recurrent);
        QCOMPARE(qe.kBytes, uint64_t(256 * 2 * 2) * 4096 * 2);
    }

    void moreSlidingWindowRules()
    {
        MemoryInputs in;
        in.context = 32768;
        in.flashAttention = true;
        // exaone4: only the 64-layer model slides (period 4, window 4096 unless the key says otherwise)
        auto big = open(model("exaone4", 64, 5120, 40, 131072).kv("exaone4.attention.head_count_kv", V::u32(8)));
        KvEstimate e = estimateKv(*big.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[3].kind, KvLayerKind::Full);
        QCOMPARE(e.layers[0].cells, uint64_t(4096 + 512));
        auto small = open(model("exaone4", 30, 2048, 32, 65536)
                              .kv("exaone4.attention.head_count_kv", V::u32(8))
                              .kv("exaone4.attention.sliding_window", V::u32(4096)));
        QCOMPARE(estimateKv(*small.file, in).layers[0].kind, KvLayerKind::Full);
        // smallthinker: slides (dense first, period 4) only when the key is above 0, then with a window of 4096
        auto st = open(model("smallthinker", 4, 1024, 8, 32768)
                           .kv("smallthinker.attention.head_count_kv", V::u32(2))
                           .kv("smallthinker.attention.sliding_window", V::u32(1)));
        e = estimateKv(*st.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::Full);
        QCOMPARE(e.layers[1].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[1].cells, uint64_t(4096 + 512));
        auto stNone =
            open(model("smallthinker", 4, 1024, 8, 32768).kv("smallthinker.attention.head_count_kv", V::u32(2)));
        QCOMPARE(estimateKv(*stNone.file, in).layers[1].kind, KvLayerKind::Full);
        // llama4: chunks of 8192 on 3 of every 4 layers, none when the key says 0
        auto l4 = open(model("llama4", 4, 1024, 8, 131072).kv("llama4.attention.head_count_kv", V::u32(2)));
        e = estimateKv(*l4.file, in);
        QCOMPARE(e.layers[0].cells, uint64_t(8192 + 512));
        QCOMPARE(e.layers[3].cells, uint64_t(32768));
        auto l4none = open(model("llama4", 4, 1024, 8, 131072)
                               .kv("llama4.attention.head_count_kv", V::u32(2))
                               .kv("llama4.attention.sliding_window", V::u32(0)));
        QCOMPARE(estimateKv(*l4none.file, in).layers[0].cells, uint64_t(32768));
        // lfm2 with a window: every attention layer slides, the convolution layers keep a state
        auto lfm = open(model("lfm2", 4, 1024, 16, 32768)
                            .kv("lfm2.attention.head_count_kv", u32Array({0, 8, 0, 8}))
                            .kv("lfm2.shortconv.l_cache", V::u32(3))
                            .kv("lfm2.attention.sliding_window", V::u32(512)));
        e = estimateKv(*lfm.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::Recurrent);
        QCOMPARE(e.layers[1].kind, KvLayerKind::SlidingWindow);
        QCOMPARE(e.layers[1].cells, uint64_t(1024));
        QCOMPARE(e.stateBytes, uint64_t(1024 * 2 * 4) * 2); // n_embd · (l_cache − 1), f32, two layers
        // the batch llama.cpp really uses: n_ubatch ≤ n_batch = min(n_ctx, 2048)
        in.ubatch = 4096;
        QCOMPARE(estimateKv(*lfm.file, in).layers[1].cells, uint64_t(512 + 2048));
        in.context = 1024;
        QCOMPARE(estimateKv(*lfm.file, in).ubatch, uint64_t(1024));
    }

    void moreRecurrentKinds()
    {
        MemoryInputs in;
        in.flashAttention = true;
        // rwkv7: token shift 2·n_embd and n_embd·head_size, f32, every layer
        auto rw = open(model("rwkv7", 2, 768, 0, 1048576).kv("rwkv7.wkv.head_size", V::u32(64)));
        QCOMPARE(estimateKv(*rw.file, in).stateBytes, uint64_t((2 * 768 + 768 * 64) * 4 * 2));
        // falcon-h1: a KV cache and a mamba state on every layer
        auto fh = open(model("falcon-h1", 2, 1024, 8, 4096)
                           .kv("falcon-h1.attention.head_count_kv", V::u32(2))
                           .kv("falcon-h1.ssm.conv_kernel", V::u32(4))
                           .kv("falcon-h1.ssm.inner_size", V::u32(2048))
                           .kv("falcon-h1.ssm.state_size", V::u32(16))
                           .kv("falcon-h1.ssm.group_count", V::u32(1)));
        KvEstimate e = estimateKv(*fh.file, in);
        QCOMPARE(e.layers.size(), size_t(4));
        QCOMPARE(e.kBytes, uint64_t(128 * 2 * 2) * 4096 * 2);
        QCOMPARE(e.stateBytes, uint64_t(3 * (2048 + 2 * 16) * 4 + 16 * 2048 * 4) * 2);
        // nemotron-h: attention layers, mamba layers (no KV heads, no FFN), MLP layers (no cache)
        auto nh = open(model("nemotron_h", 3, 1024, 8, 4096)
                           .kv("nemotron_h.attention.head_count_kv", u32Array({2, 0, 0}))
                           .kv("nemotron_h.feed_forward_length", u32Array({0, 0, 4096}))
                           .kv("nemotron_h.ssm.conv_kernel", V::u32(4))
                           .kv("nemotron_h.ssm.inner_size", V::u32(2048))
                           .kv("nemotron_h.ssm.state_size", V::u32(16)));
        e = estimateKv(*nh.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::Full);
        QCOMPARE(e.layers[1].kind, KvLayerKind::Recurrent);
        QCOMPARE(e.layers[2].kind, KvLayerKind::None);
        // minimax-01: every 8th layer attends; lightning attention keeps head_dim² per head
        auto mm = open(model("minimax-01", 8, 6144, 64, 4096)
                           .kv("minimax-01.attention.head_count_kv", V::u32(8))
                           .kv("minimax-01.attention.key_length", V::u32(96)));
        e = estimateKv(*mm.file, in);
        QCOMPARE(e.layers[6].kind, KvLayerKind::Recurrent);
        QCOMPARE(e.layers[7].kind, KvLayerKind::Full);
        QCOMPARE(e.stateBytes, uint64_t(96 * 96 * 64 * 4) * 7);
        // kimi-linear: KDA layers (no KV heads) keep 3 convolution states and head_dim² per head
        auto kimi = open(model("kimi-linear", 2, 2304, 32, 4096)
                             .kv("kimi-linear.attention.head_count_kv", u32Array({0, 1}))
                             .kv("kimi-linear.ssm.conv_kernel", V::u32(4))
                             .kv("kimi-linear.kda.head_dim", V::u32(128)));
        e = estimateKv(*kimi.file, in);
        QCOMPARE(e.layers[0].kind, KvLayerKind::Recurrent);
        QCOMPARE(e.stateBytes, uint64_t(3 * 3 * 32 * 128 * 4 + 128 * 128 * 32 * 4));
    }

    void sharedCacheLayers()
    {
        // gemma3n: layers from 20 on reuse earlier caches
        auto g3n = open(model("gemma3n", 24, 2048, 8, 32768).kv("gemma3n.attention.head_count_kv", V::u32(2)));
        KvEstimate e = estimateKv(*g3n.file, MemoryInputs{});
        QCOMPARE(e.layers[19].kind == KvLayerKind::None, false);
        QCOMPARE(e.layers[20].kind, KvLayerKind::None);
        // gemma4: the last attention.shared_kv_layers
        std::vector<V> pattern(6, V::boolean(false));
        auto g4 = open(model("gemma4", 6, 2048, 8, 32768)
                           .kv("gemma4.attention.head_count_kv", V::u32(2))
                           .kv("gemma4.attention.shared_kv_layers", V::u32(2))
                           .kv("gemma4.attention.sliding_window", V::u32(512))
                           .kv("gemma4.attention.sliding_window_pattern", V::array(ValueType::Bool, pattern)));
        e = estimateKv(*g4.file, MemoryInputs{});
        QCOMPARE(e.layers[3].kind, KvLayerKind::Full);
        QCOMPARE(e.layers[4].kind, KvLayerKind::None);
        QCOMPARE(e.layers[5].kind, KvLayerKind::None);
    }

    void multiTokenPredictionLayersKeepNoCache()
    {
        // glm4moe-style: the last layer predicts the next tokens and has no cache in the main context
        auto o = open(model("glm4moe", 3, 1024, 8, 4096)
                          .kv("glm4moe.attention.head_count_kv", V::u32(2))
                          .kv("glm4moe.nextn_predict_layers", V::u32(1)));
        QVERIFY(o.file);
        MemoryInputs in;
        in.flashAttention = true;
        const KvEstimate e = estimateKv(*o.file, in);
        QCOMPARE(e.layers[2].kind, KvLayerKind::None);
        QCOMPARE(e.kBytes, uint64_t(128 * 2 * 2) * 4096 * 2);
    }

    void hostileMetadata()
    {
        // more layers than llama.cpp can load: refused, and nothing sized by the claim
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.block_count", V::u64(uint64_t(1) << 40))
            .kv("llama.embedding_length", V::u32(4096))
            .kv("llama.attention.head_count", V::u32(32));
        auto many = open(b);
        QVERIFY(many.file);
        const ModelShape shape = readModelShape(*many.file);
        QVERIFY(shape.refusal.find("512") != std::string::npos);
        QCOMPARE(shape.layers, uint64_t(0));
        QVERIFY(estimateKv(*many.file, MemoryInputs{}).layers.empty());

        // absurd sizes saturate instead of wrapping to something small
        GgufBuilder h;
        h.kv("general.architecture", V::str("llama"))
            .kv("llama.block_count", V::u32(2))
            .kv("llama.embedding_length", V::u32(4096))
            .kv("llama.attention.head_count", V::u32(32));
        auto huge = open(h.kv("llama.context_length", V::u64(~uint64_t(0)))
                             .kv("llama.attention.key_length", V::u64(uint64_t(1) << 40))
                             .kv("llama.attention.head_count_kv", u32Array({0xffffffffu, 8})));
        QVERIFY(huge.file);
        MemoryInputs in;
        in.context = uint64_t(1) << 32;
        const KvEstimate e = estimateKv(*huge.file, in);
        QCOMPARE(e.layers.size(), size_t(2));
        QVERIFY(e.kBytes >= e.layers[0].kBytes); // a sum that did not wrap
        QCOMPARE(e.layers[0].kBytes, ~uint64_t(0));
        QCOMPARE(e.layers[1].headsKv, uint64_t(8));
        // no context: the model's own, clamped to llama.cpp's 32 bits before padding
        QCOMPARE(estimateKv(*huge.file, MemoryInputs{}).nCtxSeq, uint64_t(0xffffffffu) + 1);

        // a per-layer array of another length than block_count: llama.cpp refuses the model
        auto shortArray = open(model("llama", 3, 4096, 32, 4096).kv("llama.attention.head_count_kv", u32Array({8, 8})));
        QVERIFY(readModelShape(*shortArray.file).refusal.find("2 values for 3 layers") != std::string::npos);

        // no heads at all: no division by zero, head sizes 0
        auto headless = open(model("llama", 2, 4096, 0, 4096));
        QCOMPARE(estimateKv(*headless.file, MemoryInputs{}).kBytes, uint64_t(0));
    }

    void gpuLayersPlaceTheCache()
    {
        const auto f = tinyLlama(); // 4 layers; N offloaded: the output and the last N − 1 layers
        MemoryInputs in;
        in.context = 4096;
        in.gpuLayers = 3;
        KvEstimate e = estimateKv(*f, in);
        QVERIFY(!e.layers[1].onGpu);
        QVERIFY(e.layers[2].onGpu);
        QCOMPARE(e.gpuBytes, 4 * MiB); // layers 2 and 3: 1 MiB of K and 1 MiB of V each
        in.gpuLayers = 1;
        QCOMPARE(estimateKv(*f, in).gpuBytes, uint64_t(0));
        in.gpuLayers = -1;
        QCOMPARE(estimateKv(*f, in).gpuBytes, 8 * MiB);
        QCOMPARE(firstGpuLayer(4, 0), uint64_t(5)); // none: llama.cpp's i_gpu_start = n_layer + 1 − 0
        QCOMPARE(firstGpuLayer(4, 5), uint64_t(0));
        QCOMPARE(firstGpuLayer(4, 99), uint64_t(0));
    }
};

QTEST_GUILESS_MAIN(TestKvEstimate)
#include "tst_kv_estimate.moc"
