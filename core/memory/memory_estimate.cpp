// SPDX-License-Identifier: GPL-3.0-or-later
// Weights by device (llama_model::load_tensors), the output buffer (llama_context::output_reserve)
// and an estimate of the compute buffer; docs/MEMORY.md §5–8.
#include "core/memory/memory_estimate.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "saturate.h"

#include <algorithm>
#include <cstdio>

namespace gguf {
namespace {

constexpr uint64_t kF32 = 4;

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

// Tensors llama.cpp places with the input layer (always on the CPU) or with the output layer.
bool inputTensor(std::string_view name)
{
    return startsWith(name, "token_embd.") || startsWith(name, "position_embd.") || startsWith(name, "token_types.") ||
           startsWith(name, "per_layer_token_embd.");
}

// llama-arch.cpp's LLM_TENSOR_LAYER_OUTPUT tensors (lfm2 names its output norm token_embd_norm).
bool outputTensor(std::string_view name, std::string_view arch)
{
    for (const std::string_view prefix : {"output.", "output_norm.", "cls.", "dense_2.", "dense_3.", "altup_proj.",
                                          "altup_unembd_proj.", "enc.output_norm.", "dec.output_norm."})
        if (startsWith(name, prefix))
            return true;
    return (arch == "lfm2" || arch == "lfm2moe") && startsWith(name, "token_embd_norm.");
}

std::string num(uint64_t v)
{
    return std::to_string(v);
}

std::string layerRange(uint64_t first, uint64_t end)
{
    if (end == first + 1)
        return "layer " + num(first);
    return "layers " + num(first) + "–" + num(end - 1);
}

// Settings llama_init_from_model refuses (src/llama-context.cpp), in its words.
std::vector<std::string> refusals(const ModelShape &s, const MemoryInputs &in)
{
    std::vector<std::string> out;
    const std::string k = kvCacheTypeName(in.typeK), v = kvCacheTypeName(in.typeV);
    if (s.mla && in.typeK != in.typeV)
        out.push_back("this model (MLA) does not support different K (" + k + ") and V (" + v + ") cache types");
    const bool flash = in.flashAttention && s.arch != "grok";
    if (typeTraits(in.typeV).quantized && !flash)
        out.push_back("a quantized V cache (" + v + ") needs flash attention (llama.cpp's -fa auto turns it on)");
    if (!flash)
        return out;
    for (const auto &[type, dims, name, which] :
         {std::tuple{in.typeK, &s.headDimK, k, "K"}, std::tuple{in.typeV, &s.headDimV, v, "V"}}) {
        const TypeTraits &t = typeTraits(type);
        if (!t.quantized || t.blockSize == 0)
            continue;
        for (uint64_t il = 0; il < dims->size(); ++il)
            if ((*dims)[il] % t.blockSize != 0) {
                out.push_back(std::string(which) + " cache type " + name + " with block size " +
                              std::to_string(t.blockSize) + " does not divide the head size " +
                              std::to_string((*dims)[il]) + " of layer " + std::to_string(il));
                break;
            }
    }
    return out;
}

} // namespace

uint64_t DeviceMemory::total() const
{
    return sat::add(weights, kv, compute, output);
}

uint64_t &DeviceMemory::operator[](MemoryPart part)
{
    switch (part) {
    case MemoryPart::Weights: return weights;
    case MemoryPart::Kv: return kv;
    case MemoryPart::Compute: return compute;
    case MemoryPart::Output: return output;
    }
    return output;
}

const char *memoryPartName(MemoryPart part)
{
    switch (part) {
    case MemoryPart::Weights: return "weights";
    case MemoryPart::Kv: return "kv";
    case MemoryPart::Compute: return "compute";
    case MemoryPart::Output: return "output";
    }
    return "output";
}

uint64_t MemoryEstimate::total() const
{
    return sat::add(cpu().total(), gpu().total());
}

const char *memoryDeviceName(MemoryDevice device)
{
    return device == MemoryDevice::Gpu ? "gpu" : "cpu";
}

std::string mmapNote(bool mmap, uint64_t cpuWeights)
{
    return mmap ? "mmap: the CPU weights (" + mibText(cpuWeights) +
                      ") are pages of the file; the system can drop and re-read them"
                : "no mmap: the CPU weights are read into allocated memory";
}

std::string mibText(uint64_t bytes)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1024.0 * 1024.0));
    return buf;
}

MemoryModel::MemoryModel(const SplitModel &model)
    : m_shape(readModelShape(model.primary())), m_layerBytes(m_shape.layers, 0)
{
    findWhyNotRunnable(model.primary(), model.tensors().size());
    for (const SplitModel::TensorRef &t : model.tensors())
        addTensor(*t.info);
}

MemoryModel::MemoryModel(const GgufFile &file) : m_shape(readModelShape(file)), m_layerBytes(m_shape.layers, 0)
{
    findWhyNotRunnable(file, file.tensors().size());
    for (const TensorInfo &t : file.tensors())
        addTensor(t);
}

void MemoryModel::findWhyNotRunnable(const GgufFile &primary, size_t tensorCount)
{
    const MetadataEntry *type = primary.findMetadata("general.type");
    const std::string_view typeName =
        type && type->value.type() == ValueType::String ? type->value.toStringView() : std::string_view("model");
    if (!m_shape.refusal.empty())
        m_whyNoEstimate = m_shape.refusal;
    else if (typeName != "model")
        m_whyNoEstimate = "general.type is \"" + std::string(typeName) + "\", not a model: there are no weights to run";
    else if (m_shape.arch.empty())
        m_whyNoEstimate = "no general.architecture: not a model llama.cpp can run";
    else if (tensorCount == 0)
        m_whyNoEstimate =
            "no tensors: this " + m_shape.arch + " file holds metadata only (a vocabulary?), no weights to load";
    else if (m_shape.layers == 0)
        m_whyNoEstimate = "no " + m_shape.arch + ".block_count: not a model llama.cpp runs on its own";
}

void MemoryModel::addTensor(const TensorInfo &tensor)
{
    const std::string_view name = tensor.name;
    const int32_t layer = tensor.layer;
    const uint64_t bytes = tensor.byteSize;
    if (name == "token_embd.weight")
        m_tokenEmbdBytes = bytes;
    if (name == "output.weight")
        m_hasOutput = true;
    ModelTensor t{std::string(name), -1, bytes, 1, tensor.nDims, TensorClass::Other};
    for (uint32_t d = 1; d < std::min<uint32_t>(tensor.nDims, 4); ++d)
        t.rows = sat::mul(t.rows, tensor.ne[d]);
    if (startsWith(name, "blk.") && layer >= 0) {
        t.layer = layer;
        if (uint64_t(layer) < m_layerBytes.size()) {
            m_layerBytes[size_t(layer)] = sat::add(m_layerBytes[size_t(layer)], bytes);
            t.cls = TensorClass::Layer;
        } else {
            m_strayLayerBytes = sat::add(m_strayLayerBytes, bytes);
        }
    } else if (inputTensor(name)) {
        m_inputBytes = sat::add(m_inputBytes, bytes);
        t.cls = TensorClass::Input;
    } else if (outputTensor(name, m_shape.arch)) {
        m_outputBytes = sat::add(m_outputBytes, bytes);
        t.cls = TensorClass::Output;
    } else {
        m_otherBytes = sat::add(m_otherBytes, bytes);
    }
    m_tensors.push_back(std::move(t));
}

uint64_t MemoryModel::weightBytes() const
{
    uint64_t sum = sat::add(m_inputBytes, m_outputBytes, m_otherBytes, m_strayLayerBytes);
    for (const uint64_t b : m_layerBytes)
        sum = sat::add(sum, b);
    return sum;
}

MemoryEstimate MemoryModel::estimate(const MemoryInputs &given) const
{
    const ModelShape &s = m_shape;
    MemoryEstimate e;
    e.inputs = given;
    e.refusals = refusals(s, given);
    MemoryInputs in = given;
    if (s.arch == "grok" && in.flashAttention) {
        in.flashAttention = false; // llama_init_from_model: "flash_attn is not compatible with Grok - forcing off"
        e.notes.push_back("llama.cpp turns flash attention off for grok: estimated without it");
    }
    e.maxGpuLayers = s.layers + 1;
    e.gpuLayers = in.gpuLayers < 0 ? e.maxGpuLayers : std::min<uint64_t>(uint64_t(in.gpuLayers), e.maxGpuLayers);
    e.outputOnGpu = e.gpuLayers >= 1;
    e.tiedOutput = !m_hasOutput && m_tokenEmbdBytes > 0 && !s.noCache;
    e.kv = estimateKv(s, in);
    e.inputs.context = e.kv.context;
    e.notes.insert(e.notes.begin(), s.notes.begin(), s.notes.end());
    const auto &cpu = e.devices[0];
    auto add = [&](MemoryPart part, MemoryDevice d, std::string what, std::string formula, uint64_t bytes) {
        uint64_t &sum = e.devices[size_t(d)][part];
        sum = sat::add(sum, bytes);
        e.terms.push_back({part, d, std::move(what), std::move(formula), bytes});
    };

    // --- weights: llama.cpp's i_gpu_start = max(n_layer + 1 − N, 0); slot n_layer is the output layer
    const uint64_t gpuStart = firstGpuLayer(s.layers, int64_t(e.gpuLayers));
    const MemoryDevice outDev = e.outputOnGpu ? MemoryDevice::Gpu : MemoryDevice::Cpu;
    add(MemoryPart::Weights, MemoryDevice::Cpu, "input layer (token embedding)", "always on the CPU", m_inputBytes);
    for (const auto &[first, end, dev] : {std::tuple{uint64_t(0), std::min(gpuStart, s.layers), MemoryDevice::Cpu},
                                          std::tuple{std::min(gpuStart, s.layers), s.layers, MemoryDevice::Gpu}}) {
        if (first >= end)
            continue;
        uint64_t sum = 0;
        for (uint64_t il = first; il < end; ++il)
            sum = sat::add(sum, m_layerBytes[il]);
        add(MemoryPart::Weights, dev, layerRange(first, end), "the tensors of " + num(end - first) + " blk.N layers",
            sum);
    }
    const MemoryDevice firstLayerDev = gpuStart == 0 && s.layers > 0 ? MemoryDevice::Gpu : MemoryDevice::Cpu;
    if (m_otherBytes > 0 || m_strayLayerBytes > 0)
        add(MemoryPart::Weights, firstLayerDev, "other tensors", "with the first layer",
            sat::add(m_otherBytes, m_strayLayerBytes));
    add(MemoryPart::Weights, outDev, "output layer",
        e.outputOnGpu ? "on the GPU once one layer is offloaded" : "on the CPU with no layer offloaded", m_outputBytes);
    if (e.tiedOutput && e.outputOnGpu)
        add(MemoryPart::Weights, MemoryDevice::Gpu, "tied output", "a copy of token_embd.weight for the output layer",
            m_tokenEmbdBytes);
    e.notes.push_back(mmapNote(in.mmap, cpu.weights));

    // --- KV cache, grouped by device and kind for the formulas; every layer is in kv.layers
    const std::string typeK = kvCacheTypeName(in.typeK);
    const std::string typeV = kvCacheTypeName(in.typeV);
    for (const MemoryDevice dev : {MemoryDevice::Cpu, MemoryDevice::Gpu}) {
        for (const KvLayerKind kind : {KvLayerKind::Full, KvLayerKind::SlidingWindow, KvLayerKind::Recurrent}) {
            uint64_t n = 0, bytes = 0, rowK = 0, rowV = 0, cells = 0;
            bool uniform = true;
            for (const LayerKv &l : e.kv.layers) {
                if (l.kind != kind || l.onGpu != (dev == MemoryDevice::Gpu))
                    continue;
                if (n > 0 && (l.rowK != rowK || l.rowV != rowV || l.cells != cells))
                    uniform = false;
                rowK = l.rowK;
                rowV = l.rowV;
                cells = l.cells;
                bytes = sat::add(bytes, l.bytes());
                ++n;
            }
            if (n == 0)
                continue;
            std::string formula;
            const std::string layers = num(n) + (n == 1 ? " layer" : " layers");
            if (kind == KvLayerKind::Recurrent) {
                formula = layers + " × (R " + num(rowK) + " + S " + num(rowV) + " values) × f32 4 B × " + num(cells) +
                          (cells == 1 ? " sequence" : " sequences");
            } else {
                const uint64_t kRow = tensorByteSize(in.typeK, rowK, rowK).value_or(0);
                const uint64_t vRow = rowV ? tensorByteSize(in.typeV, rowV, rowV).value_or(0) : 0;
                formula = layers + " × " + num(cells) + " cells × " + num(e.kv.streams) +
                          (e.kv.streams == 1 ? " stream" : " streams") + " × (K row_size(" + typeK + ", " + num(rowK) +
                          ") " + num(kRow) + " B" +
                          (rowV ? " + V row_size(" + typeV + ", " + num(rowV) + ") " + num(vRow) + " B"
                                : std::string(" + no V")) +
                          ")";
                if (!uniform)
                    formula = layers + ", sizes differ by layer (see the per-layer list)";
            }
            const char *kindText = kind == KvLayerKind::Full            ? "full-context layers"
                                   : kind == KvLayerKind::SlidingWindow ? "sliding-window layers"
                                                                        : "recurrent state";
            add(MemoryPart::Kv, dev, kindText, formula, bytes);
        }
    }

    // --- output buffer: (n_vocab [+ n_embd with embeddings]) × sequences × f32 (host memory)
    const uint64_t seqs = std::max<uint32_t>(1, in.parallel);
    add(MemoryPart::Output, MemoryDevice::Cpu, "logits",
        "n_vocab " + num(s.vocab) + " × " + num(seqs) + (seqs == 1 ? " sequence" : " sequences") + " × 4 B",
        sat::mul(s.vocab, seqs, kF32));

    // --- compute buffer: an estimate of the graph allocator's peak for one ubatch (docs/MEMORY.md §8):
    // the largest of the attention step (scores and masks), the logits and the feed-forward step,
    // plus four hidden-state rows (input, residual, normed, attention output)
    const uint64_t tokens = std::min<uint64_t>(e.kv.nCtx, e.kv.ubatch);
    const uint64_t hidden = sat::mul(4, s.embd, tokens, kF32);
    const uint64_t logits = sat::mul(s.noCache ? s.embd : s.vocab, tokens, kF32);
    const uint64_t ffnWidth = std::max(s.feedForward, s.expertFeedForward);
    const uint64_t ffn = sat::mul(3, ffnWidth, tokens, kF32);
    uint64_t fullCells = 0, swaCells = 0;
    for (const LayerKv &l : e.kv.layers) {
        if (l.kind == KvLayerKind::Full)
            fullCells = l.cells;
        else if (l.kind == KvLayerKind::SlidingWindow)
            swaCells = l.cells;
    }
    if (s.noCache)
        fullCells = tokens;                                  // attention over the batch itself
    const uint64_t maskBytes = in.flashAttention ? 2 : kF32; // f16 masks with flash attention, else f32
    const uint64_t masks = sat::mul(sat::add(fullCells, swaCells), tokens, maskBytes);
    const uint64_t scores = in.flashAttention ? 0 : sat::mul(s.heads, std::max(fullCells, swaCells), tokens, kF32);
    const uint64_t attention = fullCells > 0 || swaCells > 0 ? sat::add(scores, masks) : 0;
    const uint64_t layerPeak = std::max(ffn, attention);
    const uint64_t graphPeak = sat::add(std::max(logits, layerPeak), hidden);
    e.compute = {layerPeak, hidden, logits, sat::mul(s.embd, tokens, kF32)};
    std::string attentionText = "attention ";
    if (fullCells == 0 && swaCells == 0)
        attentionText += "none";
    else if (in.flashAttention)
        attentionText +=
            "masks " + num(sat::add(fullCells, swaCells)) + " cells·T·2 = " + mibText(attention) + " (flash)";
    else
        attentionText += "(KQ " + num(s.heads) + " heads + masks)·cells·T·4 = " + mibText(attention);
    const std::string inputsText = "T = min(n_ctx, ubatch) = " + num(tokens) + "; " + attentionText + ", logits " +
                                   num(s.noCache ? s.embd : s.vocab) + "·T·4 = " + mibText(logits) + ", FFN 3·" +
                                   num(ffnWidth) + "·T·4 = " + mibText(ffn) + ", hidden 4·" + num(s.embd) +
                                   "·T·4 = " + mibText(hidden);
    if (e.gpuLayers == 0) {
        add(MemoryPart::Compute, MemoryDevice::Cpu, "graph", "max(attention, logits, FFN) + hidden; " + inputsText,
            graphPeak);
    } else {
        add(MemoryPart::Compute, MemoryDevice::Gpu, "graph", "max(attention, logits, FFN) + hidden; " + inputsText,
            graphPeak);
        const bool layersOnCpu = gpuStart > 0;
        const uint64_t cpuPart = layersOnCpu ? sat::add(layerPeak, hidden) : sat::mul(s.embd, tokens, kF32);
        add(MemoryPart::Compute, MemoryDevice::Cpu, layersOnCpu ? "layers left on the CPU" : "input rows",
            layersOnCpu ? "max(attention, FFN) + hidden" : "n_embd " + num(s.embd) + " × T " + num(tokens) + " × 4 B",
            cpuPart);
    }
    return e;
}

MemoryDevice MemoryModel::budgetDevice(const MemoryEstimate &estimate)
{
    return estimate.gpuLayers > 0 ? MemoryDevice::Gpu : MemoryDevice::Cpu;
}

uint64_t MemoryModel::maxContextForBudget(MemoryInputs inputs, uint64_t budget) const
{
    const uint64_t step = 256 * std::max<uint32_t>(1, inputs.parallel);
    const uint64_t cap = std::max(step, m_shape.trainedContext ? m_shape.trainedContext : uint64_t(1) << 22);
    auto fits = [&](uint64_t context) {
        inputs.context = context;
        const MemoryEstimate e = estimate(inputs);
        return e.devices[size_t(budgetDevice(e))].total() <= budget;
    };
    if (fits(cap))
        return cap;
    // every context pads to a multiple of `step`: search k·step, k in [lo, hi), fits(lo·step) assumed
    uint64_t lo = 0, hi = (cap + step - 1) / step;
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        (fits(mid * step) ? lo : hi) = mid;
    }
    return lo * step;
}

} // namespace gguf
