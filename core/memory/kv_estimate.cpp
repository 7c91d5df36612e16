// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/memory/kv_estimate.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"

#include <algorithm>
#include <array>

namespace gguf {
namespace {

constexpr uint64_t kPad = 256; // GGML_PAD of n_ctx in llama_context

uint64_t padTo(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

// A per-layer key: a scalar for every layer, or an array with one value per layer.
std::vector<uint64_t> perLayer(const GgufFile &f, const std::string &key, uint64_t layers, uint64_t fallback)
{
    std::vector<uint64_t> out(layers, fallback);
    const Value v = f.value(key);
    if (v.type() == ValueType::Array) {
        const ArrayRef a = v.array();
        for (uint64_t i = 0; i < layers && i < a.size(); ++i)
            out[i] = a.at(i).toUInt().value_or(fallback);
    } else if (const auto n = v.toUInt()) {
        std::fill(out.begin(), out.end(), *n);
    }
    return out;
}

// llama.cpp's models without a KV cache (create_memory returns none).
bool withoutCache(const std::string &arch)
{
    static constexpr std::array<std::string_view, 14> kNone = {
        "bert",     "jina-bert-v2", "jina-bert-v3", "nomic-bert",      "nomic-bert-moe",
        "neo-bert", "eurobert",     "modern-bert",  "gemma-embedding", "dream",
        "llada",    "llada-moe",    "rnd1",         "wavtokenizer-dec"};
    return std::find(kNone.begin(), kNone.end(), arch) != kNone.end();
}

// The period of the sliding-window pattern an architecture sets when its GGUF names none.
uint64_t defaultSwaPeriod(const std::string &arch)
{
    if (arch == "gemma2" || arch == "gpt-oss")
        return 2;
    if (arch == "gemma3")
        return 6;
    if (arch == "cohere2" || arch == "llama4" || arch == "exaone4")
        return 4;
    if (arch == "gemma3n")
        return 5;
    return 0;
}

uint64_t rowBytes(uint32_t type, uint64_t n)
{
    return tensorByteSize(type, n, n).value_or(0);
}

} // namespace

KvEstimate estimateKv(const GgufFile &f, const MemoryInputs &in)
{
    KvEstimate e;
    const std::string arch = f.architecture();
    const uint64_t layers = f.blockCount().value_or(0);
    const uint64_t parallel = std::max<uint32_t>(1, in.parallel);
    uint64_t ctx = in.context ? in.context : f.contextLength().value_or(4096);
    e.nCtx = padTo(ctx, kPad);
    if (in.kvUnified) {
        e.nCtxSeq = e.nCtx;
        e.streams = 1;
    } else {
        e.nCtxSeq = padTo(e.nCtx / parallel, kPad);
        e.nCtx = e.nCtxSeq * parallel;
        e.streams = parallel;
    }
    if (withoutCache(arch)) {
        e.notes.push_back(arch + " is not causal: llama.cpp keeps no KV cache for it");
        return e;
    }
    const uint64_t heads = f.headCount().value_or(1);
    const uint64_t embd = f.embeddingLength().value_or(0);
    const auto headsKv = perLayer(f, arch + ".attention.head_count_kv", layers, heads);
    const uint64_t headDim = heads ? embd / heads : 0;
    const uint64_t dimK = f.archUInt("attention.key_length").value_or(headDim);
    const uint64_t dimV = f.archUInt("attention.value_length").value_or(headDim);
    const bool mla = f.archUInt("attention.key_length_mla") && f.archUInt("attention.value_length_mla");

    // sliding window: a bool per layer, a period, or the architecture's own period
    const uint64_t window = f.archUInt("attention.sliding_window").value_or(0);
    std::vector<bool> swa(layers, false);
    const Value pattern = f.value(arch + ".attention.sliding_window_pattern");
    if (pattern.type() == ValueType::Array) {
        const ArrayRef a = pattern.array();
        for (uint64_t i = 0; i < layers && i < a.size(); ++i)
            swa[i] = a.at(i).toBool().value_or(false);
    } else if (window > 0) {
        const uint64_t period = pattern.toUInt().value_or(defaultSwaPeriod(arch));
        for (uint64_t i = 0; i < layers && period > 0; ++i)
            swa[i] = i % period < period - 1;
    }
    const uint64_t swaCells =
        in.swaFull ? e.nCtxSeq : std::min(e.nCtxSeq, padTo(window * (in.kvUnified ? parallel : 1) + in.ubatch, kPad));

    // without flash attention V is stored transposed, every layer sized for the widest one
    uint64_t widestV = 0;
    for (uint64_t il = 0; il < layers; ++il)
        widestV = std::max(widestV, dimV * headsKv[il]);

    for (uint64_t il = 0; il < layers; ++il) {
        LayerKv l;
        l.layer = static_cast<uint32_t>(il);
        l.kind = swa[il] ? KvLayerKind::SlidingWindow : KvLayerKind::Full;
        l.cells = swa[il] ? swaCells : e.nCtxSeq;
        l.headsKv = headsKv[il];
        l.headDimK = dimK;
        l.headDimV = mla ? 0 : dimV;
        const uint64_t rowsK = dimK * l.headsKv;
        const uint64_t rowsV = mla ? 0 : (in.flashAttention ? dimV * l.headsKv : widestV);
        l.kBytes = rowBytes(in.typeK, rowsK) * l.cells * e.streams;
        l.vBytes = rowsV ? rowBytes(in.typeV, rowsV) * l.cells * e.streams : 0;
        e.kBytes += l.kBytes;
        e.vBytes += l.vBytes;
        e.layers.push_back(l);
    }
    if (mla)
        e.notes.push_back("MLA: the cache holds the compressed latent (key_length_mla) and no V");
    return e;
}

} // namespace gguf
