// SPDX-License-Identifier: GPL-3.0-or-later
// The rules are llama.cpp's (src/llama-context.cpp, llama-model.cpp, llama-hparams.cpp,
// llama-kv-cache.cpp, llama-kv-cache-iswa.cpp, llama-memory-recurrent.cpp, src/models/*.cpp),
// described with their sources in docs/MEMORY.md.
#include "core/memory/kv_estimate.h"

#include "saturate.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

namespace gguf {
namespace {

constexpr uint64_t kCtxPad = 256; // GGML_PAD of n_ctx in llama_context, and of the SWA cache

constexpr uint64_t kMaxLayers = 512;   // LLAMA_MAX_LAYERS (src/llama-hparams.h): more are refused
constexpr uint64_t kU32 = 0xffffffffu; // llama.cpp keeps every hyper-parameter in a uint32_t

uint64_t padTo(uint64_t v, uint64_t a)
{
    return v > sat::kMax - a ? v : (v + a - 1) / a * a;
}

uint64_t u32(uint64_t v)
{
    return std::min(v, kU32);
}

// `<arch>.<suffix>` as llama.cpp holds it (at most 2^32 − 1).
std::optional<uint64_t> archU32(const GgufFile &f, std::string_view suffix)
{
    const auto v = f.archUInt(suffix);
    return v ? std::optional<uint64_t>(u32(*v)) : std::nullopt;
}

bool oneOf(std::string_view arch, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), arch) != names.end();
}

// A per-layer key: a scalar for every layer, or an array with one value per layer.
std::vector<uint64_t> perLayer(const GgufFile &f, const std::string &key, uint64_t layers, uint64_t fallback)
{
    std::vector<uint64_t> out(layers, fallback);
    const Value v = f.value(key);
    if (v.type() == ValueType::Array) {
        const ArrayRef a = v.array();
        for (uint64_t i = 0; i < layers && i < a.size(); ++i)
            out[i] = u32(a.at(i).toUInt().value_or(fallback));
    } else if (const auto n = v.toUInt()) {
        std::fill(out.begin(), out.end(), u32(*n));
    }
    return out;
}

// A per-layer bool array; nullopt when the key is not an array.
std::optional<std::vector<bool>> boolArray(const GgufFile &f, const std::string &key, uint64_t layers)
{
    const Value v = f.value(key);
    if (v.type() != ValueType::Array)
        return std::nullopt;
    std::vector<bool> out(layers, false);
    const ArrayRef a = v.array();
    for (uint64_t i = 0; i < layers && i < a.size(); ++i)
        out[i] = a.at(i).toBool().value_or(a.at(i).toUInt().value_or(0) != 0);
    return out;
}

// How an architecture lays out its sliding-window layers (src/models/<arch>.cpp).
struct SwaRule {
    std::string_view arch;
    uint64_t period = 0;        ///< 0: only a per-layer array from the metadata
    bool denseFirst = false;    ///< layer il slides when il % period != 0 (else il % period < period - 1)
    uint64_t defaultWindow = 0; ///< when `attention.sliding_window` is absent
    uint64_t fixedWindow = 0;   ///< the window used whatever the key says (once the key turns it on)
    uint64_t onlyLayers = 0;    ///< only models of this many layers slide (exaone4: the 32B)
};

constexpr std::array kSwaRules = {
    SwaRule{"gemma2", 2, false, 4096},
    SwaRule{"gemma3", 6},
    SwaRule{"gemma3n", 5},
    SwaRule{"cohere2", 4},
    SwaRule{"cohere2moe", 4, true},
    SwaRule{"afmoe", 4},
    SwaRule{"exaone-moe", 4, false, 128},
    SwaRule{"exaone4", 4, false, 4096, 0, 64},
    SwaRule{"laguna", 4, true},
    SwaRule{"llama4", 4, false, 8192, 8192},
    SwaRule{"mellum", 4},
    SwaRule{"muse-glimmer", 4},
    SwaRule{"olmo2", 4},
    SwaRule{"gpt-oss", 2},
    SwaRule{"plamo3", 8},
    SwaRule{"smallthinker", 4, true, 0, 4096},
    SwaRule{"gemma4", 0},
    SwaRule{"granite_swa", 0},
    SwaRule{"maple", 0},
    SwaRule{"mimo2", 0},
    SwaRule{"spark2_5", 0},
    SwaRule{"step35", 0},
    SwaRule{"dots3note", 0},
};

// llama.cpp's models without a KV cache (create_memory returns none).
bool withoutCache(std::string_view arch)
{
    return oneOf(arch, {"bert", "jina-bert-v2", "jina-bert-v3", "nomic-bert", "nomic-bert-moe", "neo-bert", "eurobert",
                        "modern-bert", "gemma-embedding", "dream", "llada", "llada-moe", "rnd1", "wavtokenizer-dec"});
}

bool fullyRecurrent(std::string_view arch)
{
    return oneOf(arch, {"mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"});
}

void readSwa(const GgufFile &f, ModelShape &s)
{
    const auto key = archU32(f, "attention.sliding_window");
    if (s.arch == "lfm2" || s.arch == "lfm2moe") {
        // lfm2: with a window, every attention layer slides (set after the recurrent layers)
        s.window = key.value_or(0);
        return;
    }
    const auto rule =
        std::find_if(kSwaRules.begin(), kSwaRules.end(), [&](const SwaRule &r) { return r.arch == s.arch; });
    if (rule == kSwaRules.end() || (rule->onlyLayers && s.layers != rule->onlyLayers)) {
        if (key.value_or(0) > 0)
            s.notes.push_back("attention.sliding_window is set, but llama.cpp runs " + s.arch +
                              (rule == kSwaRules.end() ? std::string() : " of this size") +
                              " without a window: every layer keeps the whole context");
        return;
    }
    s.window = key.value_or(rule->defaultWindow);
    if (rule->fixedWindow) // llama4 (unless the key says 0), smallthinker (once the key is above 0)
        s.window = s.window > 0 || !key ? rule->fixedWindow : 0;
    if (s.arch == "smallthinker" && !key)
        s.window = 0;
    if (s.window == 0)
        return;
    const uint64_t nonNextn = s.layers - s.nextnLayers;
    if (auto array = boolArray(f, s.arch + ".attention.sliding_window_pattern", s.layers)) {
        s.swa = std::move(*array);
        s.notes.push_back("sliding-window layers: from attention.sliding_window_pattern");
        return;
    }
    const uint64_t period = archU32(f, "attention.sliding_window_pattern").value_or(rule->period);
    if (rule->period == 0 && !archU32(f, "attention.sliding_window_pattern"))
        return; // this architecture takes only an array
    for (uint64_t il = 0; il < nonNextn; ++il)
        s.swa[il] = period == 0 || (rule->denseFirst ? il % period != 0 : il % period < period - 1);
    s.notes.push_back("sliding-window layers: " +
                      (period == 0
                           ? std::string("all")
                           : (rule->denseFirst ? "all but each " + std::to_string(period) + "th from the first"
                                               : std::to_string(period - 1) + " of every " + std::to_string(period))) +
                      " (" + s.arch + "'s pattern), window " + std::to_string(s.window));
}

void readRecurrent(const GgufFile &f, ModelShape &s)
{
    const bool hybrid = oneOf(s.arch, {"jamba", "falcon-h1", "plamo2", "granitehybrid", "lfm2", "lfm2moe", "nemotron_h",
                                       "nemotron_h_moe", "qwen3next", "kimi-linear", "bailingmoe3", "kimi-k3", "qwen35",
                                       "qwen35moe", "qwen4exp", "minimax-01"});
    if (fullyRecurrent(s.arch)) {
        std::fill(s.recurrent.begin(), s.recurrent.end(), true);
    } else if (s.arch == "falcon-h1") {
        std::fill(s.recurrent.begin(), s.recurrent.end(), true); // attention and state on every layer
    } else if (oneOf(s.arch, {"qwen3next", "qwen35", "qwen35moe", "qwen4exp", "minimax-01"})) {
        if (auto array = boolArray(f, s.arch + ".attention.recurrent_layers", s.layers)) {
            s.recurrent = std::move(*array);
        } else {
            const uint64_t interval = archU32(f, "full_attention_interval").value_or(s.arch == "minimax-01" ? 8 : 4);
            for (uint64_t il = 0; il + s.nextnLayers < s.layers; ++il)
                s.recurrent[il] = interval == 0 || (il + 1) % interval != 0;
        }
    } else if (hybrid) {
        const auto ff = perLayer(f, s.arch + ".feed_forward_length", s.layers, 0);
        for (uint64_t il = 0; il < s.layers; ++il)
            s.recurrent[il] = s.headsKv[il] == 0 && (!s.arch.starts_with("nemotron_h") || ff[il] == 0);
    } else {
        return;
    }
    // the state sizes: llama_hparams::n_embd_r / n_embd_s, in its order
    const uint64_t conv = archU32(f, "ssm.conv_kernel").value_or(0);
    const uint64_t wkv = archU32(f, "wkv.head_size").value_or(0);
    const uint64_t lcache = archU32(f, "shortconv.l_cache").value_or(0);
    const uint64_t kda = archU32(f, "kda.head_dim").value_or(0);
    const uint64_t la =
        s.arch == "minimax-01" ? archU32(f, "attention.key_length").value_or(s.heads ? s.embd / s.heads : 0) : 0;
    if (wkv != 0) { // RWKV
        s.stateR = sat::mul(archU32(f, "token_shift_count").value_or(2), s.embd);
        s.stateS = sat::mul(s.embd, wkv);
    } else if (lcache != 0) { // LFM2's short convolution
        s.stateR = sat::mul(s.embd, lcache - 1);
    } else if (kda != 0) { // Kimi's delta attention: Q, K, V convolutions and a head_dim² state per head
        s.stateR = sat::mul(3, conv > 0 ? conv - 1 : 3, s.heads, kda);
        s.stateS = sat::mul(kda, kda, s.heads);
    } else {
        const uint64_t inner = archU32(f, "ssm.inner_size").value_or(0);
        const uint64_t state = archU32(f, "ssm.state_size").value_or(0);
        const uint64_t groups = archU32(f, "ssm.group_count").value_or(0);
        s.stateR = sat::mul(conv > 0 ? conv - 1 : 0, sat::add(inner, sat::mul(2, groups, state)));
        s.stateS = la != 0 ? sat::mul(la, la, s.heads) : sat::mul(state, inner); // MiniMax's lightning attention
    }
}

// ggml's row size of n values (whole blocks), saturating.
uint64_t rowBytes(uint32_t type, uint64_t n)
{
    return tensorByteSize(type, n, n).value_or(sat::kMax);
}

} // namespace

uint64_t LayerKv::bytes() const
{
    return sat::add(kBytes, vBytes);
}

uint64_t KvEstimate::total() const
{
    return sat::add(kBytes, vBytes, stateBytes);
}

const std::vector<uint32_t> &kvCacheTypes()
{
    // f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1 (common/arg.cpp's kv_cache_types)
    static const std::vector<uint32_t> kTypes = {0, 1, 30, 8, 2, 3, 20, 6, 7};
    return kTypes;
}

std::string kvCacheTypeName(uint32_t type)
{
    std::string name = typeName(type);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return name;
}

const char *kvLayerKindName(KvLayerKind kind)
{
    switch (kind) {
    case KvLayerKind::Full: return "full";
    case KvLayerKind::SlidingWindow: return "sliding-window";
    case KvLayerKind::Recurrent: return "recurrent";
    case KvLayerKind::None: return "none";
    }
    return "?";
}

namespace {

// The layer counts and per-layer arrays llama.cpp checks first; false (with s.refusal, and no
// layers) when it would refuse the model.
bool readLayerCounts(const GgufFile &f, ModelShape &s)
{
    s.arch = f.architecture();
    s.layers = f.blockCount().value_or(0);
    if (s.layers > kMaxLayers) {
        s.refusal = "block_count " + std::to_string(s.layers) + " is more than llama.cpp's limit of " +
                    std::to_string(kMaxLayers) + " layers: llama.cpp refuses to load the model";
        s.layers = 0;
        return false;
    }
    s.embd = u32(f.embeddingLength().value_or(0));
    s.vocab = u32(f.vocabSize().value_or(0));
    s.trainedContext = u32(f.contextLength().value_or(0));
    s.nextnLayers = archU32(f, "nextn_predict_layers").value_or(0);
    if (s.nextnLayers > s.layers) {
        s.refusal = "nextn_predict_layers " + std::to_string(s.nextnLayers) + " is more than block_count " +
                    std::to_string(s.layers) + ": llama.cpp refuses to load the model";
        s.layers = 0;
        s.nextnLayers = 0;
        return false;
    }
    // llama.cpp's get_key_or_arr refuses a per-layer array of another length than block_count
    for (const char *key : {".attention.head_count", ".attention.head_count_kv", ".feed_forward_length"}) {
        const Value v = f.value(s.arch + key);
        if (v.type() == ValueType::Array && v.array().size() != s.layers) {
            s.refusal = s.arch + key + " has " + std::to_string(v.array().size()) + " values for " +
                        std::to_string(s.layers) + " layers: llama.cpp refuses to load the model";
            s.layers = 0;
            return false;
        }
    }
    return true;
}

// Head sizes: n_embd / n_head unless key_length / value_length say otherwise (their _swa forms for
// sliding-window layers); MLA when both *_mla lengths are set.
void readHeadDims(const GgufFile &f, ModelShape &s)
{
    const uint64_t headDim = s.heads ? s.embd / s.heads : 0;
    const uint64_t dimK = archU32(f, "attention.key_length").value_or(headDim);
    const uint64_t dimV = archU32(f, "attention.value_length").value_or(headDim);
    const uint64_t dimKSwa = archU32(f, "attention.key_length_swa").value_or(dimK);
    const uint64_t dimVSwa = archU32(f, "attention.value_length_swa").value_or(dimV);
    s.headDimK.resize(s.layers);
    s.headDimV.resize(s.layers);
    for (uint64_t il = 0; il < s.layers; ++il) {
        s.headDimK[il] = s.swa[il] ? dimKSwa : dimK;
        s.headDimV[il] = s.swa[il] ? dimVSwa : dimV;
    }
    s.mla = archU32(f, "attention.key_length_mla").value_or(0) > 0 &&
            archU32(f, "attention.value_length_mla").value_or(0) > 0;
    if (s.mla)
        s.notes.push_back("MLA: K holds the compressed latent (key_length = kv_lora_rank + rope dimensions), "
                          "V is read from it");
}

// The layers that keep a cache: not the multi-token-prediction layers, not gemma3n/gemma4's shared ones.
void readCacheLayers(const GgufFile &f, ModelShape &s)
{
    s.kvLayers = s.layers - s.nextnLayers;
    uint64_t shared = 0;
    if (s.arch == "gemma3n")
        shared = s.layers - std::min<uint64_t>(s.layers, 20);
    else if (s.arch == "gemma4")
        shared = std::min(s.layers, archU32(f, "attention.shared_kv_layers").value_or(0));
    if (shared > 0) {
        s.kvLayers = std::min(s.kvLayers, s.layers - shared);
        s.notes.push_back("the last " + std::to_string(shared) + " layers reuse the caches of earlier ones");
    }
    if (s.nextnLayers > 0)
        s.notes.push_back(std::to_string(s.nextnLayers) +
                          " multi-token-prediction layer(s) at the end keep no cache in the main context");
}

} // namespace

std::string layerCountRefusal(const GgufFile &file)
{
    ModelShape s;
    readLayerCounts(file, s);
    return s.refusal;
}

ModelShape readModelShape(const GgufFile &f)
{
    ModelShape s;
    if (!readLayerCounts(f, s))
        return s;
    const auto heads = perLayer(f, s.arch + ".attention.head_count", s.layers, 0);
    s.heads = heads.empty() ? 0 : heads[0];
    s.headsKv = heads;
    const Value kv = f.value(s.arch + ".attention.head_count_kv");
    if (kv.type() == ValueType::Array || kv.toUInt())
        s.headsKv = perLayer(f, s.arch + ".attention.head_count_kv", s.layers, 0);
    for (const uint64_t ff : perLayer(f, s.arch + ".feed_forward_length", s.layers, 0))
        s.feedForward = std::max(s.feedForward, ff);
    s.expertFeedForward =
        sat::mul(archU32(f, "expert_feed_forward_length").value_or(0), archU32(f, "expert_used_count").value_or(0));
    s.swa.assign(s.layers, false);
    s.recurrent.assign(s.layers, false);
    s.noCache = withoutCache(s.arch);
    if (s.noCache) {
        s.notes.push_back(s.arch + " is not causal: llama.cpp keeps no KV cache for it");
        return s;
    }
    readSwa(f, s);
    readRecurrent(f, s);
    if ((s.arch == "lfm2" || s.arch == "lfm2moe") && s.window > 0) {
        for (uint64_t il = 0; il + s.nextnLayers < s.layers; ++il)
            s.swa[il] = !s.recurrent[il];
        s.notes.push_back("sliding-window layers: every attention layer (lfm2 with a window), window " +
                          std::to_string(s.window));
    }
    if (oneOf(s.arch, {"deepseek32", "glm-dsa", "dots3note", "deepseek4", "minimax-m3", "hy_v4", "qwen4exp",
                       "gemma4-assistant"}))
        s.notes.push_back(s.arch + " keeps caches of its own kind (an indexer, compressed or shared caches) that "
                                   "this estimate does not model: the KV figure may be low");
    readHeadDims(f, s);
    readCacheLayers(f, s);
    return s;
}

void padContext(const ModelShape &shape, const MemoryInputs &in, KvEstimate &e)
{
    const uint64_t parallel = std::max<uint32_t>(1, in.parallel);
    e.context = in.context ? in.context : (shape.trainedContext ? shape.trainedContext : 4096);
    e.nCtx = padTo(e.context, kCtxPad);
    if (in.kvUnified) {
        e.nCtxSeq = e.nCtx;
        e.streams = 1;
    } else {
        e.nCtxSeq = padTo(e.nCtx / parallel, kCtxPad);
        e.nCtx = sat::mul(e.nCtxSeq, parallel);
        e.streams = parallel;
    }
    // llama_context: n_batch = min(n_ctx, n_batch) for causal models (n_batch 2048 by default),
    // n_ubatch = min(n_batch, n_ubatch)
    const uint64_t batch = shape.noCache ? 2048 : std::min<uint64_t>(e.nCtx, 2048);
    e.ubatch = std::min<uint64_t>(std::max<uint32_t>(1, in.ubatch), batch);
}

uint64_t firstGpuLayer(uint64_t layers, int64_t gpuLayers)
{
    const uint64_t n = gpuLayers < 0 ? layers + 1 : uint64_t(gpuLayers);
    return n >= layers + 1 ? 0 : layers + 1 - n;
}

KvEstimate estimateKv(const ModelShape &s, const MemoryInputs &in)
{
    KvEstimate e;
    padContext(s, in, e);
    if (s.noCache)
        return e;
    const uint64_t parallel = std::max<uint32_t>(1, in.parallel);
    const uint64_t gpuStart = firstGpuLayer(s.layers, in.gpuLayers);
    if (std::find(s.swa.begin(), s.swa.end(), true) != s.swa.end())
        e.swaCells =
            in.swaFull ? e.nCtxSeq
                       : std::min(e.nCtxSeq,
                                  padTo(sat::add(sat::mul(s.window, in.kvUnified ? parallel : 1), e.ubatch), kCtxPad));
    // without flash attention V is stored transposed, every layer as wide as the widest one
    uint64_t widestV = 0;
    for (uint64_t il = 0; il < s.layers; ++il)
        widestV = std::max(widestV, sat::mul(s.headDimV[il], s.headsKv[il]));
    const bool hybridBoth = s.arch == "falcon-h1";

    for (uint64_t il = 0; il < s.layers; ++il) {
        const bool gpu = il >= gpuStart;
        if (s.recurrent[il]) {
            LayerKv r;
            r.layer = uint32_t(il);
            r.kind = KvLayerKind::Recurrent;
            r.onGpu = gpu;
            r.cells = parallel;
            r.rowK = s.stateR;
            r.rowV = s.stateS;
            r.kBytes = sat::mul(s.stateR, 4, parallel);
            r.vBytes = sat::mul(s.stateS, 4, parallel);
            e.stateBytes = sat::add(e.stateBytes, r.bytes());
            if (gpu)
                e.gpuBytes = sat::add(e.gpuBytes, r.bytes());
            e.layers.push_back(r);
            if (!hybridBoth)
                continue;
        }
        LayerKv l;
        l.layer = uint32_t(il);
        l.onGpu = gpu;
        l.headsKv = s.headsKv[il];
        // no cache: layers sharing an earlier one's, prediction layers, nemotron-h's MLP-only layers;
        // a layer with no KV heads otherwise keeps one (empty K, but V as wide as the widest
        // without flash attention, as llama.cpp allocates it)
        if (il >= s.kvLayers || (s.arch.starts_with("nemotron_h") && l.headsKv == 0)) {
            l.kind = KvLayerKind::None;
            e.layers.push_back(l);
            continue;
        }
        l.kind = s.swa[il] ? KvLayerKind::SlidingWindow : KvLayerKind::Full;
        l.cells = s.swa[il] ? e.swaCells : e.nCtxSeq;
        l.rowK = sat::mul(s.headDimK[il], l.headsKv);
        l.rowV = s.mla ? 0 : (in.flashAttention ? sat::mul(s.headDimV[il], l.headsKv) : widestV);
        l.kBytes = l.rowK ? sat::mul(rowBytes(in.typeK, l.rowK), l.cells, e.streams) : 0;
        l.vBytes = l.rowV ? sat::mul(rowBytes(in.typeV, l.rowV), l.cells, e.streams) : 0;
        e.kBytes = sat::add(e.kBytes, l.kBytes);
        e.vBytes = sat::add(e.vBytes, l.vBytes);
        if (gpu)
            e.gpuBytes = sat::add(e.gpuBytes, l.bytes());
        e.layers.push_back(l);
    }
    return e;
}

KvEstimate estimateKv(const GgufFile &file, const MemoryInputs &inputs)
{
    return estimateKv(readModelShape(file), inputs);
}

} // namespace gguf
