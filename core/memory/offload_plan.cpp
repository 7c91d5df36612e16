// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-device plan (docs/MEMORY.md §9): llama_model::load_tensors' layer split over the
// devices, the buffer overrides per tensor, each layer's KV cache on its device and the compute
// buffers per device.
#include "core/memory/offload_plan.h"

#include "saturate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>
#include <regex>

namespace gguf {
namespace {

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

// What a tensor does, for the placement map's colours: its name after "blk.N."
std::string roleOf(const ModelTensor &t)
{
    switch (t.cls) {
    case TensorClass::Input: return "input";
    case TensorClass::Output: return "output";
    case TensorClass::Other: return "other";
    case TensorClass::Layer: break;
    }
    const std::string_view name = t.name;
    if (contains(name, "_exps") || contains(name, "_chexps"))
        return "experts";
    if (contains(name, "_shexp"))
        return "shared expert";
    if (contains(name, ".attn_") || contains(name, ".ssm_") || contains(name, ".time_mix"))
        return contains(name, "_norm") ? "norm" : "attention";
    if (contains(name, ".ffn_") || contains(name, ".channel_mix"))
        return contains(name, "_norm") ? "norm" : (contains(name, "gate_inp") ? "router" : "feed-forward");
    if (contains(name, "norm"))
        return "norm";
    return "other";
}

// The cumulative split points of llama_model::load_tensors, in float as there: each device's
// weight (the given split, or its free memory when none is given) summed and divided by the total.
// Devices that all report no memory share equally (llama.cpp weighs each by the host's memory).
std::vector<float> splitPoints(const OffloadInputs &in, const std::vector<size_t> &used)
{
    const bool given = std::any_of(in.tensorSplit.begin(), in.tensorSplit.end(), [](double w) { return w != 0; });
    std::vector<float> weights;
    weights.reserve(used.size());
    for (const size_t d : used)
        weights.push_back(given ? static_cast<float>(d < in.tensorSplit.size() ? in.tensorSplit[d] : 0.0)
                                : static_cast<float>(in.devices[d].freeBytes));
    if (std::all_of(weights.begin(), weights.end(), [](float w) { return w == 0.0f; }))
        std::fill(weights.begin(), weights.end(), 1.0f);
    std::vector<float> points;
    points.reserve(weights.size());
    float sum = 0.0f;
    for (const float w : weights) {
        sum += w;
        points.push_back(sum);
    }
    for (float &p : points)
        p /= sum;
    return points;
}

struct CompiledRule {
    std::regex regex;
    std::vector<std::string> literals; ///< a pattern of expertPattern: the names it finds, as text
    size_t device = 0;
    bool matches(const std::string &name) const
    {
        if (literals.empty())
            return std::regex_search(name, regex);
        return std::any_of(literals.begin(), literals.end(),
                           [&](const std::string &l) { return name.find(l) != std::string::npos; });
    }
};

// The strings expertPattern(layer)'s regex finds (the rules of --cpu-moe and --n-cpu-moe, many
// per plan, matched without the regex engine).
std::vector<std::string> expertLiterals(int64_t layer)
{
    const std::string head = layer < 0 ? ".ffn_" : "blk." + std::to_string(layer) + ".ffn_";
    std::vector<std::string> out;
    for (const char *which : {"up", "down", "gate", "gate_up"})
        for (const char *ch : {"", "ch"})
            out.push_back(head + which + "_" + ch + "exps");
    return out;
}

} // namespace

const char *splitModeName(SplitMode mode)
{
    switch (mode) {
    case SplitMode::None: return "none";
    case SplitMode::Layer: return "layer";
    case SplitMode::Row: return "row";
    }
    return "layer";
}

std::optional<SplitMode> splitModeFromName(std::string_view name)
{
    for (const SplitMode m : {SplitMode::None, SplitMode::Layer, SplitMode::Row})
        if (name == splitModeName(m))
            return m;
    return std::nullopt;
}

std::optional<std::vector<double>> parseTensorSplit(std::string_view text)
{
    std::vector<double> out;
    size_t from = 0;
    while (from <= text.size()) {
        const size_t end = std::min(text.find_first_of(",/", from), text.size());
        std::string_view item = text.substr(from, end - from);
        while (!item.empty() && item.front() == ' ')
            item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ')
            item.remove_suffix(1);
        double w = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), w);
        if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || !std::isfinite(w) || w < 0)
            return std::nullopt;
        out.push_back(w);
        from = end + 1;
    }
    return out;
}

std::optional<std::vector<TensorOverride>> parseOverrides(std::string_view text, std::string &bad)
{
    std::vector<TensorOverride> out;
    size_t from = 0;
    while (from <= text.size()) {
        const size_t comma = std::min(text.find(',', from), text.size());
        const std::string_view item = text.substr(from, comma - from);
        const size_t eq = item.find('=');
        if (eq == 0 || eq == std::string_view::npos || eq + 1 == item.size()) {
            bad = std::string(item);
            return std::nullopt;
        }
        out.push_back({std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))});
        from = comma + 1;
    }
    return out;
}

std::string expertPattern(int64_t layer)
{
    const std::string experts = "\\.ffn_(up|down|gate|gate_up)_(ch|)exps";
    return layer < 0 ? experts : "blk\\." + std::to_string(layer) + experts;
}

std::vector<TensorOverride> effectiveOverrides(const OffloadInputs &in)
{
    std::vector<TensorOverride> rules = in.overrides;
    if (in.cpuMoe)
        rules.push_back({expertPattern(-1), "CPU"});
    for (uint32_t il = 0; il < in.nCpuMoe; ++il)
        rules.push_back({expertPattern(il), "CPU"});
    return rules;
}

uint64_t OffloadPlan::total() const
{
    uint64_t sum = 0;
    for (const PlannedDevice &d : devices)
        sum = sat::add(sum, d.memory.total());
    return sum;
}

namespace {

// planOffload's steps, each on the plan so far.
class Planner {
public:
    Planner(const MemoryModel &model, const OffloadInputs &in, OffloadPlan &plan)
        : m_model(model), m_in(in), m_plan(plan), m_used(in.devices.size())
    {
        std::iota(m_used.begin(), m_used.end(), size_t{0});
    }

    // Layers: i_gpu_start = max(n_layer + 1 − ngl, 0); slot n_layer is the output layer; a slot's
    // device is the first split point above (il − start) / act_gpu_layers. False on an error.
    bool assignLayers()
    {
        const OffloadInputs &in = m_in;
        if (in.splitMode == SplitMode::None) { // only the main GPU takes layers
            if (in.mainGpu >= in.devices.size())
                return fail("--main-gpu " + std::to_string(in.mainGpu) + " names no device (there are " +
                            std::to_string(in.devices.size()) + ")");
            m_used = {in.mainGpu};
        }
        if (in.tensorSplit.size() > in.devices.size())
            return fail("--tensor-split has " + std::to_string(in.tensorSplit.size()) + " values for " +
                        std::to_string(in.devices.size()) + (in.devices.size() == 1 ? " device" : " devices"));
        const uint64_t layers = m_model.shape().layers, gpuLayers = m_plan.base.gpuLayers;
        m_start = firstGpuLayer(layers, int64_t(gpuLayers));
        const uint64_t act = std::min<uint64_t>(gpuLayers, layers + 1);
        m_points = splitPoints(in, m_used);
        m_plan.layerDevice.assign(layers + 1, 0);
        for (uint64_t il = m_start; il <= layers && act > 0; ++il) {
            const float f = static_cast<float>(il - m_start) / static_cast<float>(act);
            const auto k = size_t(std::upper_bound(m_points.begin(), m_points.end(), f) - m_points.begin());
            m_plan.layerDevice[il] = 1 + m_used[std::min(k, m_used.size() - 1)];
        }
        for (uint64_t il = 0; il < layers; ++il)
            ++m_plan.devices[m_plan.layerDevice[il]].layers;
        m_plan.devices[m_plan.layerDevice[layers]].output = true;
        return true;
    }

    // The override rules, compiled; a buffer must be CPU or a device's name. False on an error.
    bool compileRules()
    {
        m_plan.rules = effectiveOverrides(m_in);
        for (const TensorOverride &r : m_plan.rules) {
            CompiledRule c;
            if (r.buffer != "CPU") {
                const auto it = std::find_if(m_in.devices.begin(), m_in.devices.end(),
                                             [&](const GpuDevice &g) { return g.name == r.buffer; });
                if (it == m_in.devices.end()) {
                    std::string names = "CPU";
                    for (const GpuDevice &g : m_in.devices)
                        names += ", " + g.name;
                    return fail("unknown buffer type '" + r.buffer + "' in '" + r.pattern + "=" + r.buffer +
                                "' (available: " + names + ")");
                }
                c.device = 1 + size_t(it - m_in.devices.begin());
            }
            // effectiveOverrides' order: the user's rules, then --cpu-moe's, then one per --n-cpu-moe layer
            const size_t index = m_rules.size(), user = m_in.overrides.size();
            if (index >= user)
                c.literals =
                    expertLiterals(m_in.cpuMoe && index == user ? -1 : int64_t(index - user - (m_in.cpuMoe ? 1 : 0)));
            try {
                if (c.literals.empty())
                    c.regex = std::regex(r.pattern, std::regex::ECMAScript | std::regex::optimize);
            } catch (const std::regex_error &) {
                return fail("'" + r.pattern +
                            "' is not a regular expression llama.cpp accepts (std::regex, "
                            "ECMAScript)");
            }
            m_rules.push_back(std::move(c));
        }
        m_plan.ruleHits.assign(m_rules.size(), 0);
        return true;
    }

    // Every tensor on its layer's device unless a rule moves it; a tied output's copy too.
    void placeTensors()
    {
        const uint64_t layers = m_model.shape().layers;
        const size_t outputDev = m_plan.layerDevice[layers];
        const size_t firstLayerDev = layers > 0 ? m_plan.layerDevice[0] : 0;
        for (const ModelTensor &t : m_model.tensors()) {
            switch (t.cls) {
            case TensorClass::Input: place(t, 0, "input layer: always on the CPU"); break;
            case TensorClass::Output:
                place(t, outputDev,
                      "output layer (layer slot " + std::to_string(layers) + ") on " + deviceName(outputDev));
                break;
            case TensorClass::Layer: {
                const size_t d = m_plan.layerDevice[size_t(t.layer)];
                place(t, d,
                      "layer " + std::to_string(uint64_t(t.layer)) +
                          (d == 0 ? " is below the first offloaded layer " + std::to_string(m_start)
                                  : " on " + deviceName(d) + " by the split"));
                break;
            }
            case TensorClass::Other:
                place(t, firstLayerDev, "outside any layer: with the first layer, on " + deviceName(firstLayerDev));
                break;
            }
        }
        if (m_plan.base.tiedOutput && m_plan.base.outputOnGpu)
            for (const ModelTensor &t : m_model.tensors())
                if (t.name == "token_embd.weight") {
                    ModelTensor copy = t;
                    copy.cls = TensorClass::Output;
                    copy.layer = int64_t(layers);
                    place(copy, outputDev,
                          "tied output: a copy of the token embedding for the output layer on " +
                              deviceName(outputDev));
                }
    }

    // KV per layer on its layer's device (overrides do not move it), the output buffer in host
    // memory, and the compute buffers: the single-device estimate's parts per device.
    void addBuffers()
    {
        const MemoryEstimate &e = m_plan.base;
        for (const LayerKv &l : e.kv.layers) {
            const size_t d = l.layer < m_plan.layerDevice.size() ? m_plan.layerDevice[l.layer] : 0;
            m_plan.devices[d].memory.kv = sat::add(m_plan.devices[d].memory.kv, l.bytes());
        }
        m_plan.devices[0].memory.output = e.cpu().output;
        const ComputeParts &c = e.compute;
        if (e.gpuLayers == 0) {
            m_plan.devices[0].memory.compute = e.cpu().compute;
            return;
        }
        for (PlannedDevice &dev : m_plan.devices)
            if (&dev != &m_plan.devices.front() && (dev.layers > 0 || dev.output))
                dev.memory.compute = sat::add(dev.output ? std::max(c.logits, c.layerPeak) : c.layerPeak, c.hidden);
        m_plan.devices[0].memory.compute = m_start > 0 ? sat::add(c.layerPeak, c.hidden) : c.inputRows;
    }

    // The estimate's notes, the mmap one with this plan's CPU weights, and the plan's own.
    void addNotes()
    {
        if (rowSplit())
            m_plan.notes.push_back("row split: each offloaded layer's matrices are divided by rows in proportion to "
                                   "the split; llama.cpp rounds the split points to a backend's row granularity, and "
                                   "its CUDA backend no longer offers row split (llama.cpp 74976e1ae, July 2026)");
        const MemoryEstimate &e = m_plan.base;
        const std::string estimated = mmapNote(e.inputs.mmap, e.cpu().weights);
        for (const std::string &n : e.notes)
            m_plan.notes.push_back(n == estimated ? mmapNote(e.inputs.mmap, m_plan.devices[0].memory.weights) : n);
        if (!m_rules.empty())
            m_plan.notes.push_back("with overrides llama.cpp turns pipeline parallelism off; the compute buffers "
                                   "are estimated as without overrides");
    }

private:
    bool fail(std::string message)
    {
        m_plan.error = std::move(message);
        return false;
    }
    std::string deviceName(size_t d) const { return d == 0 ? std::string("the CPU") : m_plan.devices[d].name; }
    bool rowSplit() const { return m_in.splitMode == SplitMode::Row && m_in.devices.size() > 1; }
    void place(const ModelTensor &t, size_t layerDev, std::string why)
    {
        TensorPlacement p{t.name, layerDev, t.bytes, t.layer, roleOf(t), std::move(why)};
        bool overridden = false;
        for (size_t r = 0; r < m_rules.size() && !overridden; ++r)
            if (m_rules[r].matches(t.name)) {
                p.device = m_rules[r].device;
                p.why =
                    "override '" + m_plan.rules[r].pattern + "=" + m_plan.rules[r].buffer + "' (first rule to match)";
                ++m_plan.ruleHits[r];
                overridden = true;
            }
        // row split: a GPU layer's matrices (not the experts, whose matrix product ggml does not
        // split) spread over the devices by rows, in proportion to the split
        if (rowSplit() && p.device != 0 && !overridden && t.nDims >= 2 && p.role != "experts" && t.rows > 0) {
            const uint64_t rowBytes = p.bytes / t.rows;
            uint64_t before = 0;
            for (size_t k = 0; k < m_used.size(); ++k) {
                const auto upTo = static_cast<uint64_t>(static_cast<double>(t.rows) * m_points[k]);
                const uint64_t rows = (k + 1 == m_used.size() ? t.rows : upTo) - before;
                uint64_t &weights = m_plan.devices[1 + m_used[k]].memory.weights;
                weights = sat::add(weights, rows * rowBytes);
                before += rows;
            }
            p.why += "; rows split over the devices (-sm row)";
        } else {
            uint64_t &weights = m_plan.devices[p.device].memory.weights;
            weights = sat::add(weights, p.bytes);
        }
        m_plan.placement.push_back(std::move(p));
    }

    const MemoryModel &m_model;
    const OffloadInputs &m_in;
    OffloadPlan &m_plan;
    std::vector<size_t> m_used; ///< the devices layers go to: every GPU, or with split mode none the main one
    std::vector<float> m_points;
    uint64_t m_start = 0;
    std::vector<CompiledRule> m_rules;
};

} // namespace

OffloadPlan planOffload(const MemoryModel &model, const MemoryInputs &memory, const OffloadInputs &in)
{
    OffloadPlan plan;
    plan.base = model.estimate(memory);
    if (in.devices.empty()) {
        plan.error = "no device to place layers on";
        return plan;
    }
    plan.devices.push_back({"cpu", 0, {}, 0, false});
    for (const GpuDevice &g : in.devices)
        plan.devices.push_back({g.name, g.freeBytes, {}, 0, false});
    Planner planner(model, in, plan);
    if (!planner.assignLayers() || !planner.compileRules())
        return plan;
    planner.placeTensors();
    planner.addBuffers();
    planner.addNotes();
    return plan;
}

} // namespace gguf
