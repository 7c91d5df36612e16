// SPDX-License-Identifier: GPL-3.0-or-later
// fitOffload (docs/MEMORY.md §10): the most layers, then the fewest CPU expert layers, then the
// largest context that keep every GPU's margin free, by the plan of offload_plan.cpp.
#include "core/memory/offload_fit.h"

#include "saturate.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>

namespace gguf {
namespace {

bool hasExperts(const MemoryModel &model)
{
    return std::any_of(model.tensors().begin(), model.tensors().end(), [](const ModelTensor &t) {
        return t.cls == TensorClass::Layer && t.name.find("_exps.") != std::string::npos;
    });
}

} // namespace

std::vector<std::string> llamaArgs(const MemoryModel &model, const MemoryInputs &m, const OffloadInputs &o)
{
    const uint64_t all = model.shape().layers + 1;
    std::vector<std::string> a{"--gpu-layers",
                               std::to_string(m.gpuLayers < 0 ? all : std::min<uint64_t>(m.gpuLayers, all))};
    if (o.nCpuMoe > 0)
        a.insert(a.end(), {"--n-cpu-moe", std::to_string(o.nCpuMoe)});
    if (m.context > 0)
        a.insert(a.end(), {"--ctx-size", std::to_string(m.context)});
    if (!o.tensorSplit.empty()) {
        std::string split;
        for (const double w : o.tensorSplit) {
            std::string text = std::to_string(w);
            text.erase(text.find_last_not_of('0') + 1);
            if (!text.empty() && text.back() == '.')
                text.pop_back();
            split += (split.empty() ? "" : ",") + text;
        }
        a.insert(a.end(), {"--tensor-split", split});
    }
    if (o.splitMode != SplitMode::Layer)
        a.insert(a.end(), {"--split-mode", splitModeName(o.splitMode)});
    if (o.mainGpu != 0)
        a.insert(a.end(), {"--main-gpu", std::to_string(o.mainGpu)});
    if (!o.overrides.empty()) {
        std::string rules;
        for (const TensorOverride &rule : o.overrides)
            rules += (rules.empty() ? "" : ",") + rule.pattern + "=" + rule.buffer;
        a.insert(a.end(), {"--override-tensor", rules});
    }
    if (o.cpuMoe)
        a.emplace_back("--cpu-moe");
    // flash attention as estimated (llama.cpp's default "auto" may differ)
    a.insert(a.end(), {"--flash-attn", m.flashAttention ? "on" : "off"});
    if (m.typeK != 1)
        a.insert(a.end(), {"--cache-type-k", kvCacheTypeName(m.typeK)});
    if (m.typeV != 1)
        a.insert(a.end(), {"--cache-type-v", kvCacheTypeName(m.typeV)});
    if (m.parallel != 1)
        a.insert(a.end(), {"--parallel", std::to_string(m.parallel)});
    if (m.ubatch != 512)
        a.insert(a.end(), {"--ubatch-size", std::to_string(m.ubatch)});
    if (!m.mmap)
        a.emplace_back("--no-mmap");
    return a;
}

std::string llamaServerCommand(const std::string &model, const std::vector<std::string> &args)
{
    std::vector<std::string> words{"llama-server", "-m", model};
    words.insert(words.end(), args.begin(), args.end());
    std::string line;
    for (const std::string &w : words) {
        const bool safe = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_./,:=+@%", c) != nullptr;
        });
        std::string quoted = w;
        if (!safe) {
            quoted = "'";
            for (const char c : w)
                quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
            quoted += "'";
        }
        line += (line.empty() ? "" : " ") + quoted;
    }
    return line;
}

namespace {

// Why one more layer, one more layer's experts on the GPU, or a longer context would not fit.
template <typename PlanAt>
std::vector<std::string> whyNotMore(const FitResult &r, const PlanAt &planAt, const FitOptions &options, uint64_t cap,
                                    uint64_t step)
{
    std::vector<std::string> why;
    const uint64_t maxLayers = r.plan.base.maxGpuLayers;
    if (uint64_t(r.gpuLayers) < maxLayers)
        why.push_back("one more layer (--gpu-layers " + std::to_string(uint64_t(r.gpuLayers + 1)) +
                      "): " + overflowOf(planAt(r.gpuLayers + 1, r.nCpuMoe, r.context), options.marginBytes));
    else
        why.emplace_back("every layer is on the GPUs");
    if (r.experts && r.nCpuMoe > 0)
        why.push_back("one more layer's experts on the GPU (--n-cpu-moe " + std::to_string(r.nCpuMoe - 1) +
                      "): " + overflowOf(planAt(r.gpuLayers, r.nCpuMoe - 1, r.context), options.marginBytes));
    if (!options.maxContext)
        why.push_back("the context is the one asked for (" + std::to_string(r.context) +
                      "; --max-ctx finds the largest)");
    else if (r.context >= cap)
        why.push_back("the context is the model's trained context (" + std::to_string(cap) + ")");
    else
        why.push_back("a longer context (" + std::to_string(r.context + step) +
                      "): " + overflowOf(planAt(r.gpuLayers, r.nCpuMoe, r.context + step), options.marginBytes));
    return why;
}

} // namespace

uint64_t usableBytes(const PlannedDevice &device, uint64_t margin)
{
    return device.freeBytes > margin ? device.freeBytes - margin : 0;
}

std::string overflowOf(const OffloadPlan &plan, uint64_t margin)
{
    if (!plan.error.empty())
        return plan.error;
    for (size_t d = 1; d < plan.devices.size(); ++d) {
        const PlannedDevice &dev = plan.devices[d];
        const uint64_t need = dev.memory.total(), usable = usableBytes(dev, margin);
        if (need > usable)
            return dev.name + " would need " + mibText(need) + " of its " + mibText(usable) + " (" +
                   mibText(dev.freeBytes) + " free less the " + mibText(margin) + " margin)";
    }
    return {};
}

namespace {

// The plans fitOffload tries, each one step of the progress; after a cancel, empty failures.
class Trials {
public:
    Trials(const MemoryModel &model, const MemoryInputs &memory, const OffloadInputs &offload,
           const FitOptions &options, uint64_t steps)
        : m_model(model), m_memory(memory), m_offload(offload), m_options(options), m_steps(steps)
    {
    }
    OffloadPlan operator()(int64_t layers, uint32_t cpuMoe, uint64_t context) const
    {
        if (m_stopped) {
            OffloadPlan none;
            none.error = "cancelled";
            return none;
        }
        MemoryInputs m = m_memory;
        m.gpuLayers = layers;
        m.context = context;
        OffloadInputs o = m_offload;
        o.nCpuMoe = cpuMoe;
        OffloadPlan plan = planOffload(m_model, m, o);
        ++m_tried;
        if (m_options.progress && !m_options.progress(m_tried, std::max(m_steps, m_tried)))
            m_stopped = true;
        return plan;
    }
    bool fits(int64_t layers, uint32_t cpuMoe, uint64_t context) const
    {
        const OffloadPlan p = (*this)(layers, cpuMoe, context);
        return p.error.empty() && overflowOf(p, m_options.marginBytes).empty();
    }
    bool stopped() const { return m_stopped; }

private:
    const MemoryModel &m_model;
    const MemoryInputs &m_memory;
    const OffloadInputs &m_offload;
    const FitOptions &m_options;
    uint64_t m_steps;
    mutable uint64_t m_tried = 0;
    mutable bool m_stopped = false;
};

// The largest k in [lo, hi) with fits(k), fits(lo) known and fits monotone (true, then false).
template <typename Fits> uint64_t lastFitting(uint64_t lo, uint64_t hi, const Fits &fits)
{
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

} // namespace

FitResult fitOffload(const MemoryModel &model, MemoryInputs memory, const OffloadInputs &offload,
                     const FitOptions &options)
{
    FitResult r;
    const ModelShape &s = model.shape();
    r.experts = hasExperts(model);
    const uint64_t step = 256 * std::max<uint32_t>(1, memory.parallel);
    const uint64_t cap = std::max(step, s.trainedContext ? s.trainedContext : uint64_t(1) << 22);
    if (options.maxContext)
        memory.context = std::min(cap, std::max(step, options.minContext));
    const Trials trial(model, memory, offload, options,
                       s.layers + 2 + 2 * std::bit_width(s.layers + 1) + std::bit_width(cap / step + 1) + 4);
    const auto maxLayers = int64_t(s.layers + 1);
    const uint32_t allMoe = r.experts ? uint32_t(s.layers) : 0;

    // 1. the most layers, the experts of all on the CPU (a layer of fewer slots can fit where one of
    //    more does not only by where the output slot falls, so every count is tried from the top)
    r.gpuLayers = 0;
    for (int64_t n = maxLayers; n > 0 && r.gpuLayers == 0; --n)
        if (trial.fits(n, allMoe, memory.context))
            r.gpuLayers = n;
    // 2. the fewest layers whose experts stay on the CPU: fewer only adds to the GPUs (none when
    //    nothing is offloaded)
    r.nCpuMoe = 0;
    if (r.experts && r.gpuLayers > 0 && !trial.fits(r.gpuLayers, 0, memory.context))
        r.nCpuMoe = uint32_t(1 + lastFitting(0, allMoe, [&](uint64_t k) {
                                 return !trial.fits(r.gpuLayers, uint32_t(k), memory.context);
                             }));
    // 3. the largest context (multiples of `step`), or the one given
    r.context = memory.context;
    if (options.maxContext)
        r.context = trial.fits(r.gpuLayers, r.nCpuMoe, cap)
                        ? cap
                        : step * lastFitting(r.context / step, (cap + step - 1) / step,
                                             [&](uint64_t k) { return trial.fits(r.gpuLayers, r.nCpuMoe, k * step); });
    r.plan = trial(r.gpuLayers, r.nCpuMoe, r.context);
    r.context = r.plan.base.inputs.context;
    r.whyNotMore = whyNotMore(r, trial, options, cap, step);
    if (trial.stopped()) {
        r.cancelled = true;
        return r;
    }
    MemoryInputs chosen = memory;
    chosen.gpuLayers = r.gpuLayers;
    chosen.context = r.context;
    OffloadInputs placed = offload;
    placed.nCpuMoe = r.nCpuMoe;
    r.args = llamaArgs(model, chosen, placed);
    return r;
}

} // namespace gguf
