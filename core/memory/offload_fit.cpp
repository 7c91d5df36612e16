// SPDX-License-Identifier: GPL-3.0-or-later
// fitOffload (docs/MEMORY.md §10): the most layers, then the fewest CPU expert layers, then the
// largest context that keep every GPU's margin free, by the plan of offload_plan.cpp.
#include "core/memory/offload_fit.h"

#include "saturate.h"

#include <algorithm>

namespace gguf {
namespace {

std::string num(uint64_t v)
{
    return std::to_string(v);
}

bool hasExperts(const MemoryModel &model)
{
    return std::any_of(model.tensors().begin(), model.tensors().end(), [](const ModelTensor &t) {
        return t.cls == TensorClass::Layer && t.name.find("_exps.") != std::string::npos;
    });
}

// llama.cpp's arguments for the settings of a fit.
std::vector<std::string> llamaArgs(const FitResult &r, const MemoryInputs &m, const OffloadInputs &o)
{
    std::vector<std::string> a{"--gpu-layers", num(uint64_t(r.gpuLayers))};
    if (r.nCpuMoe > 0)
        a.insert(a.end(), {"--n-cpu-moe", num(r.nCpuMoe)});
    a.insert(a.end(), {"--ctx-size", num(r.context)});
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
        a.insert(a.end(), {"--main-gpu", num(o.mainGpu)});
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
        a.insert(a.end(), {"--parallel", num(m.parallel)});
    if (m.ubatch != 512)
        a.insert(a.end(), {"--ubatch-size", num(m.ubatch)});
    if (!m.mmap)
        a.emplace_back("--no-mmap");
    return a;
}

// Why one more layer, one more layer's experts on the GPU, or a longer context would not fit.
template <typename PlanAt>
std::vector<std::string> whyNotMore(const FitResult &r, const PlanAt &planAt, const FitOptions &options, uint64_t cap,
                                    uint64_t step)
{
    std::vector<std::string> why;
    const uint64_t maxLayers = r.plan.base.maxGpuLayers;
    if (uint64_t(r.gpuLayers) < maxLayers)
        why.push_back("one more layer (--gpu-layers " + num(uint64_t(r.gpuLayers + 1)) +
                      "): " + overflowOf(planAt(r.gpuLayers + 1, r.nCpuMoe, r.context), options.marginBytes));
    else
        why.emplace_back("every layer is on the GPUs");
    if (r.experts && r.nCpuMoe > 0)
        why.push_back("one more layer's experts on the GPU (--n-cpu-moe " + num(r.nCpuMoe - 1) +
                      "): " + overflowOf(planAt(r.gpuLayers, r.nCpuMoe - 1, r.context), options.marginBytes));
    if (!options.maxContext)
        why.push_back("the context is the one asked for (" + num(r.context) + "; --max-ctx finds the largest)");
    else if (r.context >= cap)
        why.push_back("the context is the model's trained context (" + num(cap) + ")");
    else
        why.push_back("a longer context (" + num(r.context + step) +
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
    const auto planAt = [&](int64_t layers, uint32_t cpuMoe, uint64_t context) {
        MemoryInputs m = memory;
        m.gpuLayers = layers;
        m.context = context;
        OffloadInputs o = offload;
        o.nCpuMoe = cpuMoe;
        return planOffload(model, m, o);
    };
    const auto fits = [&](const OffloadPlan &p) {
        return p.error.empty() && overflowOf(p, options.marginBytes).empty();
    };
    const auto maxLayers = int64_t(s.layers + 1);
    const uint32_t allMoe = r.experts ? uint32_t(s.layers) : 0;

    // 1. the most layers, the experts of all on the CPU (a layer of fewer slots can fit where one of
    //    more does not only by where the output slot falls, so every count is tried from the top)
    r.gpuLayers = 0;
    for (int64_t n = maxLayers; n > 0; --n)
        if (fits(planAt(n, allMoe, memory.context))) {
            r.gpuLayers = n;
            break;
        }
    // 2. the fewest layers whose experts stay on the CPU: fewer only adds to the GPUs
    r.nCpuMoe = allMoe;
    if (r.experts && r.gpuLayers > 0) {
        uint32_t lo = 0, hi = allMoe; // fits(hi)
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if (fits(planAt(r.gpuLayers, mid, memory.context)))
                hi = mid;
            else
                lo = mid + 1;
        }
        r.nCpuMoe = hi;
    }
    if (r.gpuLayers == 0)
        r.nCpuMoe = 0; // nothing offloaded: no experts to keep back
    // 3. the largest context (multiples of `step`), or the one given
    r.context = memory.context;
    if (options.maxContext) {
        if (fits(planAt(r.gpuLayers, r.nCpuMoe, cap))) {
            r.context = cap;
        } else {
            uint64_t lo = r.context / step, hi = (cap + step - 1) / step; // fits(lo·step) by 1., not hi
            while (hi - lo > 1) {
                const uint64_t mid = lo + (hi - lo) / 2;
                (fits(planAt(r.gpuLayers, r.nCpuMoe, mid * step)) ? lo : hi) = mid;
            }
            r.context = lo * step;
        }
    }
    r.plan = planAt(r.gpuLayers, r.nCpuMoe, r.context);
    r.context = r.plan.base.inputs.context;

    r.whyNotMore = whyNotMore(r, planAt, options, cap, step);
    r.args = llamaArgs(r, memory, offload);
    return r;
}

} // namespace gguf
