// SPDX-License-Identifier: GPL-3.0-or-later
// `memory`: what llama.cpp needs to run the model (core/memory, docs/MEMORY.md).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/memory/memory_estimate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace cli {
namespace {

int memoryUsage(const std::string &message)
{
    return usageError("memory", message);
}

template <typename T> bool parseNumber(const std::string &text, T &out)
{
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

std::optional<uint32_t> cacheType(const std::string &name)
{
    const auto id = gguf::typeIdFromName(name);
    if (!id)
        return std::nullopt;
    const auto &allowed = gguf::kvCacheTypes();
    if (std::find(allowed.begin(), allowed.end(), *id) == allowed.end())
        return std::nullopt;
    return id;
}

std::string cacheTypeList()
{
    std::string out;
    for (const uint32_t id : gguf::kvCacheTypes())
        out += (out.empty() ? "" : ", ") + gguf::kvCacheTypeName(id);
    return out;
}

// The options as llama.cpp's context parameters; a message on failure.
std::string readInputs(const MemoryOptions &o, gguf::MemoryInputs &in, std::optional<uint64_t> &budget)
{
    auto count = [](const std::optional<std::string> &text, const char *name, uint64_t min, uint64_t max,
                    auto &out) -> std::string {
        if (!text)
            return {};
        uint64_t v = 0;
        if (!parseNumber(*text, v) || v < min || v > max)
            return std::string(name) + " needs a whole number from " + std::to_string(min) + " to " +
                   std::to_string(max) + ", not '" + *text + "'";
        out = static_cast<std::remove_reference_t<decltype(out)>>(v);
        return {};
    };
    // llama.cpp's n_ctx is 32 bits, padded to 256
    std::string error = count(o.ctx, "--ctx", 1, (uint64_t(1) << 32) - 256, in.context);
    if (error.empty())
        error = count(o.parallel, "--parallel", 1, 256, in.parallel);
    if (error.empty())
        error = count(o.ubatch, "--ubatch", 1, uint64_t(1) << 20, in.ubatch);
    if (error.empty() && o.gpuLayers) {
        int64_t n = 0;
        if (!parseNumber(*o.gpuLayers, n) || n < -1)
            error = "--gpu-layers needs a number of layers (-1: all), not '" + *o.gpuLayers + "'";
        in.gpuLayers = n;
    }
    for (const auto &[text, name, out] :
         {std::tuple{&o.typeK, "--cache-type-k", &in.typeK}, std::tuple{&o.typeV, "--cache-type-v", &in.typeV}}) {
        if (!error.empty() || !*text)
            continue;
        if (const auto id = cacheType(**text))
            *out = *id;
        else
            error = std::string(name) + " takes one of " + cacheTypeList() + ", not '" + **text + "'";
    }
    if (error.empty() && o.budget) {
        double gib = 0;
        if (!parseNumber(*o.budget, gib) || !std::isfinite(gib) || gib <= 0 || gib > 1e6)
            error = "--budget needs a positive number of GiB, not '" + *o.budget + "'";
        else
            budget = uint64_t(gib * 1024 * 1024 * 1024);
    }
    in.flashAttention = o.flashAttn;
    in.mmap = !o.noMmap;
    return error;
}

void writeMemoryJson(const gguf::MemoryEstimate &e, std::optional<uint64_t> maxContext, std::optional<uint64_t> budget)
{
    const gguf::MemoryInputs &in = e.inputs;
    JsonWriter json(stdout);
    json.beginObject();
    json.key("inputs");
    json.beginObject();
    json.field("ctx", in.context);
    json.field("n_ctx_padded", e.kv.nCtx);
    json.field("parallel", in.parallel);
    json.field("ubatch", in.ubatch);
    json.field("cache_type_k", gguf::kvCacheTypeName(in.typeK));
    json.field("cache_type_v", gguf::kvCacheTypeName(in.typeV));
    json.field("flash_attn", in.flashAttention);
    json.field("gpu_layers", e.gpuLayers);
    json.field("mmap", in.mmap);
    json.key("budget");
    if (budget)
        json.unsignedInteger(*budget);
    else
        json.null();
    json.endObject();
    json.key("devices");
    json.beginArray();
    for (const gguf::MemoryDevice d : {gguf::MemoryDevice::Cpu, gguf::MemoryDevice::Gpu}) {
        const gguf::DeviceMemory &m = e.devices[size_t(d)];
        json.beginObject();
        json.field("name", gguf::memoryDeviceName(d));
        json.field("weights", m.weights);
        json.field("kv", m.kv);
        json.field("compute", m.compute);
        json.field("output", m.output);
        json.field("total", m.total());
        json.endObject();
    }
    json.endArray();
    json.key("kv_per_layer");
    json.beginArray();
    for (const gguf::LayerKv &l : e.kv.layers) {
        json.beginObject();
        json.field("layer", l.layer);
        json.field("kind", gguf::kvLayerKindName(l.kind));
        json.field("device", l.onGpu ? "gpu" : "cpu");
        json.field("cells", l.cells);
        json.field("k", l.kBytes);
        json.field("v", l.vBytes);
        json.endObject();
    }
    json.endArray();
    json.key("terms");
    json.beginArray();
    for (const gguf::MemoryTerm &t : e.terms) {
        json.beginObject();
        json.field("part", gguf::memoryPartName(t.part));
        json.field("device", gguf::memoryDeviceName(t.device));
        json.field("what", t.what);
        json.field("formula", t.formula);
        json.field("bytes", t.bytes);
        json.endObject();
    }
    json.endArray();
    json.key("notes");
    json.beginArray();
    for (const std::string &n : e.notes)
        json.string(n);
    json.endArray();
    json.key("refusals");
    json.beginArray();
    for (const std::string &r : e.refusals)
        json.string(r);
    json.endArray();
    json.key("max_context_for_budget");
    if (maxContext)
        json.unsignedInteger(*maxContext);
    else
        json.null();
    json.endObject();
    json.finish();
}

void printText(const gguf::MemoryEstimate &e, std::optional<uint64_t> maxContext, std::optional<uint64_t> budget,
               uint64_t memoryTrained)
{
    const gguf::MemoryInputs &in = e.inputs;
    print("context " + std::to_string(in.context) + " (" + std::to_string(e.kv.nCtx) + " cells after padding, " +
          std::to_string(e.kv.streams) + (e.kv.streams == 1 ? " stream" : " streams") + "), " +
          std::to_string(in.parallel) + (in.parallel == 1 ? " sequence" : " sequences") + ", ubatch " +
          std::to_string(in.ubatch) + ", K " + gguf::kvCacheTypeName(in.typeK) + ", V " +
          gguf::kvCacheTypeName(in.typeV) + ", flash attention " + (in.flashAttention ? "on" : "off") + ", " +
          std::to_string(e.gpuLayers) + "/" + std::to_string(e.maxGpuLayers) + " layers on the GPU, mmap " +
          (in.mmap ? "on" : "off") + "\n\n");
    for (const std::string &r : e.refusals)
        print("llama.cpp would refuse these settings: " + r + "\n");
    if (!e.refusals.empty())
        print("\n");
    TextTable table({{"device"},
                     {"weights", TextTable::Align::Right},
                     {"KV cache", TextTable::Align::Right},
                     {"compute", TextTable::Align::Right},
                     {"output", TextTable::Align::Right},
                     {"total", TextTable::Align::Right}});
    for (const gguf::MemoryDevice d : {gguf::MemoryDevice::Cpu, gguf::MemoryDevice::Gpu}) {
        const gguf::DeviceMemory &m = e.devices[size_t(d)];
        table.addRow({d == gguf::MemoryDevice::Cpu ? "CPU (RAM)" : "GPU (VRAM)", gguf::mibText(m.weights),
                      gguf::mibText(m.kv), gguf::mibText(m.compute), gguf::mibText(m.output),
                      gguf::mibText(m.total())});
    }
    table.print();
    print("\nHow each figure is made:\n");
    for (const gguf::MemoryTerm &t : e.terms)
        if (t.bytes > 0)
            print("  " + std::string(t.device == gguf::MemoryDevice::Gpu ? "GPU" : "CPU") + " " +
                  gguf::memoryPartName(t.part) + ", " + t.what + ": " + humanBytes(t.bytes) + " = " + t.formula + "\n");
    if (!e.notes.empty()) {
        print("\nNotes:\n");
        for (const std::string &n : e.notes)
            print("  " + printable(n) + "\n");
    }
    if (budget) {
        const char *device = gguf::MemoryModel::budgetDevice(e) == gguf::MemoryDevice::Gpu ? "GPU" : "CPU";
        print("\nBudget " + gguf::mibText(*budget) + " on the " + device + ": " +
              (*maxContext > 0
                   ? "the largest context that fits is " + std::to_string(*maxContext) +
                         (*maxContext == memoryTrained ? " (the model's trained context; no longer one was tried)" : "")
                   : std::string("not even a context of 256 fits")) +
              "\n");
    }
}

} // namespace

int runMemory(const CommandArgs &args)
{
    gguf::MemoryInputs in;
    std::optional<uint64_t> budget;
    if (const std::string error = readInputs(args.memory, in, budget); !error.empty())
        return memoryUsage(error);
    const auto model = openModel(args.file);
    if (!model)
        return kExitBadFile;
    // no estimate for what llama.cpp would not run: an imatrix, a vocabulary file, no block_count…
    const gguf::MemoryModel memory(*model);
    if (!memory.whyNoEstimate().empty()) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", printable(args.file).c_str(),
                     printable(memory.whyNoEstimate()).c_str());
        return kExitBadFile;
    }
    const gguf::MemoryEstimate e = memory.estimate(in);
    std::optional<uint64_t> maxContext;
    if (budget)
        maxContext = memory.maxContextForBudget(in, *budget);
    if (args.json)
        writeMemoryJson(e, maxContext, budget);
    else
        printText(e, maxContext, budget, memory.shape().trainedContext);
    return kExitOk;
}

} // namespace cli
