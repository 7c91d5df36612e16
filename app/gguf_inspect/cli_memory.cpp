// SPDX-License-Identifier: GPL-3.0-or-later
// `memory`: what llama.cpp needs to run the model (core/memory, docs/MEMORY.md).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/memory/memory_estimate.h"
#include "core/memory/offload_fit.h"
#include "core/memory/offload_plan.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>

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

// The placement options as llama.cpp's model parameters; a message on failure.
std::string readPlacement(const MemoryOptions &o, gguf::OffloadInputs &in)
{
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    for (const std::string &d : o.devices) {
        const size_t eq = d.find('=');
        double gib = 0;
        if (eq == 0 || eq == std::string::npos || !parseNumber(d.substr(eq + 1), gib) || !std::isfinite(gib) ||
            gib < 0 || gib > 1e6)
            return "--device needs NAME=GIB (a device's name and its free memory in GiB), not '" + d + "'";
        const std::string name = d.substr(0, eq);
        if (name == "CPU" ||
            std::any_of(in.devices.begin(), in.devices.end(), [&](const gguf::GpuDevice &g) { return g.name == name; }))
            return "--device " + name + " is given twice (or is the CPU, which is always there)";
        in.devices.push_back({name, static_cast<uint64_t>(gib * kGiB)});
    }
    if (o.tensorSplit) {
        const auto split = gguf::parseTensorSplit(*o.tensorSplit);
        if (!split)
            return "--tensor-split needs non-negative numbers separated by commas, not '" + *o.tensorSplit + "'";
        in.tensorSplit = *split;
    }
    if (o.splitMode) {
        const auto mode = gguf::splitModeFromName(*o.splitMode);
        if (!mode)
            return "--split-mode takes none, layer or row, not '" + *o.splitMode + "'";
        in.splitMode = *mode;
    }
    if (o.mainGpu && !parseNumber(*o.mainGpu, in.mainGpu))
        return "--main-gpu needs a device number, not '" + *o.mainGpu + "'";
    for (const std::string &r : o.overrides) {
        std::string bad;
        const auto rules = gguf::parseOverrides(r, bad);
        if (!rules)
            return "-ot needs REGEX=BUFFER (e.g. exps=CPU), not '" + bad + "'";
        in.overrides.insert(in.overrides.end(), rules->begin(), rules->end());
    }
    if (o.nCpuMoe && (!parseNumber(*o.nCpuMoe, in.nCpuMoe) || in.nCpuMoe > 100000))
        return "--n-cpu-moe needs a number of layers, not '" + *o.nCpuMoe + "'";
    in.cpuMoe = o.cpuMoe;
    if (in.devices.empty()) // the placement options without --device: the one GPU of the estimate
        in.devices.push_back({"gpu", 0});
    if (in.mainGpu >= in.devices.size())
        return "--main-gpu " + std::to_string(in.mainGpu) + " names no device (" + std::to_string(in.devices.size()) +
               " given)";
    return {};
}

// The placement of the single-device estimate: its one GPU.
gguf::OffloadInputs oneGpu()
{
    gguf::OffloadInputs in;
    in.devices.push_back({"gpu", 0});
    return in;
}

void writePlacementJson(JsonWriter &json, const gguf::OffloadPlan &plan)
{
    json.key("placement");
    json.beginArray();
    for (const gguf::TensorPlacement &p : plan.placement) {
        json.beginObject();
        json.field("tensor", p.tensor);
        json.field("device", plan.devices[p.device].name);
        json.field("bytes", p.bytes);
        json.field("role", p.role);
        json.field("why", p.why);
        json.endObject();
    }
    json.endArray();
}

void writeInputsJson(JsonWriter &json, const gguf::MemoryEstimate &e, std::optional<uint64_t> budget)
{
    const gguf::MemoryInputs &in = e.inputs;
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
}

void writeDeviceJson(JsonWriter &json, const std::string &name, const gguf::DeviceMemory &m)
{
    json.beginObject();
    json.field("name", name);
    json.field("weights", m.weights);
    json.field("kv", m.kv);
    json.field("compute", m.compute);
    json.field("output", m.output);
    json.field("total", m.total());
}

void writeStrings(JsonWriter &json, const char *key, const std::vector<std::string> &strings)
{
    json.key(key);
    json.beginArray();
    for (const std::string &n : strings)
        json.string(n);
    json.endArray();
}

// Each layer's cache, on its layer's device.
void writeKvPerLayer(JsonWriter &json, const gguf::OffloadPlan &plan)
{
    json.key("kv_per_layer");
    json.beginArray();
    for (const gguf::LayerKv &l : plan.base.kv.layers) {
        json.beginObject();
        json.field("layer", l.layer);
        json.field("kind", gguf::kvLayerKindName(l.kind));
        json.field("device", plan.devices[l.layer < plan.layerDevice.size() ? plan.layerDevice[l.layer] : 0].name);
        json.field("cells", l.cells);
        json.field("k", l.kBytes);
        json.field("v", l.vBytes);
        json.endObject();
    }
    json.endArray();
}

// notes, refusals and max_context_for_budget, and the end of the document.
void writeEnd(JsonWriter &json, const std::vector<std::string> &notes, const std::vector<std::string> &refusals,
              std::optional<uint64_t> maxContext)
{
    writeStrings(json, "notes", notes);
    writeStrings(json, "refusals", refusals);
    json.key("max_context_for_budget");
    if (maxContext)
        json.unsignedInteger(*maxContext);
    else
        json.null();
    json.endObject();
    json.finish();
}

// The JSON of a plan over the given devices (docs/MEMORY.md §9).
// split_mode, devices (with `margin`: usable and fits), layers, rules, placement, kv_per_layer.
void writePlanBody(JsonWriter &json, const gguf::OffloadPlan &plan, const gguf::OffloadInputs &in,
                   std::optional<uint64_t> margin)
{
    json.key("split_mode");
    json.string(gguf::splitModeName(in.splitMode));
    json.key("devices");
    json.beginArray();
    for (const gguf::PlannedDevice &d : plan.devices) {
        writeDeviceJson(json, d.name, d.memory);
        json.key("free");
        if (&d == &plan.devices.front())
            json.null();
        else
            json.unsignedInteger(d.freeBytes);
        json.field("layers", d.layers);
        json.field("output_layer", d.output);
        if (margin && &d != &plan.devices.front()) {
            json.field("usable", gguf::usableBytes(d, *margin));
            json.field("fits", d.memory.total() <= gguf::usableBytes(d, *margin));
        }
        json.endObject();
    }
    json.endArray();
    json.key("layers");
    json.beginArray();
    for (size_t il = 0; il < plan.layerDevice.size(); ++il)
        json.string(plan.devices[plan.layerDevice[il]].name);
    json.endArray();
    json.key("rules");
    json.beginArray();
    for (size_t r = 0; r < plan.rules.size(); ++r) {
        json.beginObject();
        json.field("pattern", plan.rules[r].pattern);
        json.field("buffer", plan.rules[r].buffer);
        json.field("tensors", plan.ruleHits[r]);
        json.endObject();
    }
    json.endArray();
    writePlacementJson(json, plan);
    writeKvPerLayer(json, plan);
}

void writePlanJson(const gguf::OffloadPlan &plan, const gguf::OffloadInputs &in)
{
    JsonWriter json(stdout);
    json.beginObject();
    writeInputsJson(json, plan.base, std::nullopt);
    writePlanBody(json, plan, in, std::nullopt);
    writeEnd(json, plan.notes, plan.base.refusals, std::nullopt);
}

// The plan as text: a row per device, the layers each holds, what each rule moved; a device fits
// when its total leaves `margin` of its free memory.
void printPlan(const gguf::OffloadPlan &plan, const gguf::OffloadInputs &in, uint64_t margin = 0)
{
    const gguf::MemoryEstimate &e = plan.base;
    print("context " + std::to_string(e.inputs.context) + " (" + std::to_string(e.kv.nCtx) + " cells), " +
          std::to_string(e.gpuLayers) + "/" + std::to_string(e.maxGpuLayers) + " layers offloaded, split mode " +
          gguf::splitModeName(in.splitMode) + "\n\n");
    for (const std::string &r : e.refusals)
        print("llama.cpp would refuse these settings: " + r + "\n");
    TextTable table({{"device"},
                     {"free", TextTable::Align::Right},
                     {"layers", TextTable::Align::Right},
                     {"weights", TextTable::Align::Right},
                     {"KV cache", TextTable::Align::Right},
                     {"compute", TextTable::Align::Right},
                     {"output", TextTable::Align::Right},
                     {"total", TextTable::Align::Right},
                     {"fits"}});
    for (size_t d = 0; d < plan.devices.size(); ++d) {
        const gguf::PlannedDevice &dev = plan.devices[d];
        const bool named = d > 0 && !(in.devices.size() == 1 && dev.freeBytes == 0);
        table.addRow({d == 0 ? "CPU (RAM)" : dev.name, named ? gguf::mibText(dev.freeBytes) : "",
                      std::to_string(dev.layers) + (dev.output ? " + output" : ""), gguf::mibText(dev.memory.weights),
                      gguf::mibText(dev.memory.kv), gguf::mibText(dev.memory.compute), gguf::mibText(dev.memory.output),
                      gguf::mibText(dev.memory.total()),
                      named ? (dev.memory.total() <= gguf::usableBytes(dev, margin) ? "yes" : "no") : ""});
    }
    table.print();
    print("\nLayers by device:\n");
    size_t from = 0;
    for (size_t il = 1; il <= plan.layerDevice.size(); ++il)
        if (il == plan.layerDevice.size() || plan.layerDevice[il] != plan.layerDevice[from]) {
            const size_t last = il - 1, n = plan.layerDevice.size() - 1;
            std::string what = from == last ? "layer " + std::to_string(from)
                                            : "layers " + std::to_string(from) + "–" + std::to_string(last);
            if (last == n)
                what += from == last ? " (the output layer)" : " (" + std::to_string(n) + ": the output layer)";
            print("  " + what + ": " +
                  (plan.layerDevice[from] == 0 ? "CPU" : plan.devices[plan.layerDevice[from]].name) + "\n");
            from = il;
        }
    if (!plan.rules.empty()) {
        print("\nOverrides, in order (first match wins):\n");
        for (size_t r = 0; r < plan.rules.size(); ++r)
            print("  " + plan.rules[r].pattern + "=" + plan.rules[r].buffer + ": " + std::to_string(plan.ruleHits[r]) +
                  (plan.ruleHits[r] == 1 ? " tensor\n" : " tensors\n"));
    }
    if (!plan.notes.empty()) {
        print("\nNotes:\n");
        for (const std::string &n : plan.notes)
            print("  " + printable(n) + "\n");
    }
    print("\nEvery tensor's place and why: --json (\"placement\").\n");
}

void writeFitJson(const gguf::FitResult &fit, const gguf::OffloadInputs &in, uint64_t margin,
                  const std::string &command)
{
    JsonWriter json(stdout);
    json.beginObject();
    json.key("args");
    json.beginArray();
    for (const std::string &a : fit.args)
        json.string(a);
    json.endArray();
    json.field("command", command);
    json.field("gpu_layers", uint64_t(fit.gpuLayers));
    json.field("n_cpu_moe", fit.nCpuMoe);
    json.field("ctx", fit.context);
    json.field("margin", margin);
    writeStrings(json, "why_not_more", fit.whyNotMore);
    writeInputsJson(json, fit.plan.base, std::nullopt);
    writePlanBody(json, fit.plan, in, margin);
    writeEnd(json, fit.plan.notes, fit.plan.base.refusals, std::nullopt);
}

void writeMemoryJson(const gguf::MemoryEstimate &e, std::optional<uint64_t> maxContext, std::optional<uint64_t> budget,
                     const gguf::OffloadPlan &plan)
{
    JsonWriter json(stdout);
    json.beginObject();
    writeInputsJson(json, e, budget);
    json.key("devices");
    json.beginArray();
    for (const gguf::MemoryDevice d : {gguf::MemoryDevice::Cpu, gguf::MemoryDevice::Gpu}) {
        writeDeviceJson(json, gguf::memoryDeviceName(d), e.devices[size_t(d)]);
        json.endObject();
    }
    json.endArray();
    writePlacementJson(json, plan);
    writeKvPerLayer(json, plan);
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
    writeEnd(json, e.notes, e.refusals, maxContext);
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

// The model of FILE for an estimate; null, after one line on stderr, when it cannot be opened or is
// no model llama.cpp would run (an imatrix, a vocabulary file, no block_count…).
std::unique_ptr<gguf::MemoryModel> memoryModelOf(const std::string &file, const gguf::SplitModel &model)
{
    auto memory = std::make_unique<gguf::MemoryModel>(model);
    if (!memory->whyNoEstimate().empty()) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", printable(file).c_str(),
                     printable(memory->whyNoEstimate()).c_str());
        return nullptr;
    }
    return memory;
}

// The model is opened where the checks of the options are done, so that wrong usage is told first.
using ModelOpener = std::function<std::shared_ptr<const gguf::SplitModel>()>;

int runFitWith(const CommandArgs &args, const ModelOpener &open, const std::string &modelPath)
{
    gguf::MemoryInputs in;
    std::optional<uint64_t> budget;
    if (const std::string error = readInputs(args.memory, in, budget); !error.empty())
        return usageError("fit", error);
    if (args.memory.devices.empty())
        return usageError("fit", "fit needs the devices to fit: --device NAME=GIB (repeatable)");
    if (args.memory.maxCtx && args.memory.ctx)
        return usageError("fit", "--ctx and --max-ctx cannot go together");
    gguf::FitOptions options;
    options.maxContext = args.memory.maxCtx;
    if (args.memory.margin) {
        uint64_t mib = 0;
        if (!parseNumber(*args.memory.margin, mib) || mib > (uint64_t(1) << 30))
            return usageError("fit", "--margin needs a number of MiB, not '" + *args.memory.margin + "'");
        options.marginBytes = mib << 20;
    }
    gguf::OffloadInputs offload;
    if (const std::string error = readPlacement(args.memory, offload); !error.empty())
        return usageError("fit", error);
    const auto model = open();
    const auto opened = model ? memoryModelOf(args.file, *model) : nullptr;
    if (!opened)
        return kExitBadFile;
    const gguf::MemoryModel &memory = *opened;
    const gguf::FitResult fit = gguf::fitOffload(memory, in, offload, options);
    if (!fit.plan.error.empty())
        return usageError("fit", fit.plan.error);
    const std::string command = gguf::llamaServerCommand(modelPath, fit.args);
    if (args.json) {
        writeFitJson(fit, offload, options.marginBytes, command);
        return kExitOk;
    }
    print("Fits with " + gguf::mibText(options.marginBytes) + " left free on each device: " +
          std::to_string(fit.gpuLayers) + " of " + std::to_string(fit.plan.base.maxGpuLayers) + " layers on the GPUs" +
          (fit.experts ? ", the experts of " + std::to_string(fit.nCpuMoe) + " on the CPU" : std::string()) +
          ", context " + std::to_string(fit.context) + "\n\n");
    printPlan(fit.plan, offload, options.marginBytes);
    print("\nWhy not more:\n");
    for (const std::string &w : fit.whyNotMore)
        print("  " + printable(w) + "\n");
    print("\n" + command + "\n");
    return kExitOk;
}

int runMemoryWith(const CommandArgs &args, const ModelOpener &open)
{
    gguf::MemoryInputs in;
    std::optional<uint64_t> budget;
    if (const std::string error = readInputs(args.memory, in, budget); !error.empty())
        return memoryUsage(error);
    const auto model = open();
    const auto opened = model ? memoryModelOf(args.file, *model) : nullptr;
    if (!opened)
        return kExitBadFile;
    const gguf::MemoryModel &memory = *opened;
    if (args.memory.placement()) {
        if (budget)
            return memoryUsage("--budget is for one device; with several, fit finds what fits");
        gguf::OffloadInputs offload;
        if (const std::string error = readPlacement(args.memory, offload); !error.empty())
            return memoryUsage(error);
        const gguf::OffloadPlan plan = gguf::planOffload(memory, in, offload);
        if (!plan.error.empty())
            return memoryUsage(plan.error);
        if (args.json)
            writePlanJson(plan, offload);
        else
            printPlan(plan, offload);
        return kExitOk;
    }
    const gguf::MemoryEstimate e = memory.estimate(in);
    std::optional<uint64_t> maxContext;
    if (budget)
        maxContext = memory.maxContextForBudget(in, *budget);
    if (args.json)
        writeMemoryJson(e, maxContext, budget, gguf::planOffload(memory, in, oneGpu()));
    else
        printText(e, maxContext, budget, memory.shape().trainedContext);
    return kExitOk;
}

} // namespace

int runMemory(const CommandArgs &args)
{
    return runMemoryWith(args, [&] { return openModel(args.file); });
}

int runMemoryOn(const CommandArgs &args, const gguf::SplitModel &model)
{
    return runMemoryWith(args, [&] { return std::shared_ptr<const gguf::SplitModel>(&model, [](const auto *) {}); });
}

int runFit(const CommandArgs &args)
{
    return runFitWith(
        args, [&] { return openModel(args.file); }, args.file);
}

int runFitOn(const CommandArgs &args, const gguf::SplitModel &model, const std::string &modelPath)
{
    return runFitWith(
        args, [&] { return std::shared_ptr<const gguf::SplitModel>(&model, [](const auto *) {}); }, modelPath);
}

} // namespace cli
