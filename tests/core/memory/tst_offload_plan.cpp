// SPDX-License-Identifier: GPL-3.0-or-later
// The multi-device plan (#44) on a generated MoE model of 8 layers and 8 experts: the weights of
// each device, to the byte, against sums made here of the sizes the builder wrote, by layer
// ranges worked out by hand from llama.cpp's rule (src/llama-model.cpp, load_tensors: first GPU
// slot max(n_layer + 1 − ngl, 0); slot il goes to the first device whose cumulative split point,
// in float, lies above (il − start) / act; slot n_layer is the output layer; the token embedding
// stays on the CPU; -ot rules by std::regex_search, first match wins; --n-cpu-moe N adds one rule
// per layer below N). And with one GPU, the plan gives the single-device estimate's figures.
#include "core/format/gguf_file.h"
#include "core/memory/offload_fit.h"
#include "core/memory/offload_plan.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/kind_samples.h"
#include "tests/support/test_paths.h"

#include <QtTest>

#include <functional>
#include <map>

using namespace gguf;
using namespace gguf::test;

namespace {

constexpr uint64_t GiB = uint64_t(1) << 30;
constexpr uint32_t kLayers = 8; // moeSample()'s

OpenedBuilt moeModel(uint32_t embd = 64, uint32_t ff = 32)
{
    return buildAndOpen(moeSample(embd, ff));
}

// The tensors' sizes as the builder wrote them.
std::map<std::string, uint64_t> sizes(const OpenedBuilt &m)
{
    std::map<std::string, uint64_t> out;
    for (const TensorLayout &t : m.built.layout().tensors)
        out[t.name] = t.dataSize;
    return out;
}

bool isExperts(const std::string &name)
{
    return name.find("_exps.") != std::string::npos;
}
int layerOf(const std::string &name)
{
    return name.rfind("blk.", 0) == 0 ? std::stoi(name.substr(4)) : -1;
}

// Expected weights per device ("CPU", "CUDA0", "CUDA1"): each tensor's device by `deviceOf`.
std::map<std::string, uint64_t> expectedWeights(const OpenedBuilt &m,
                                                const std::function<std::string(const std::string &)> &deviceOf)
{
    std::map<std::string, uint64_t> out{{"CPU", 0}, {"CUDA0", 0}, {"CUDA1", 0}};
    for (const auto &[name, bytes] : sizes(m))
        out[deviceOf(name)] += bytes;
    return out;
}

// A device by layer range: layers below `cpuBelow` on the CPU, below `cuda0Below` on CUDA0, the
// rest and the output (outputDevice) on CUDA1; the token embedding on the CPU.
std::function<std::string(const std::string &)> byLayers(int cpuBelow, int cuda0Below, std::string outputDevice)
{
    return [=](const std::string &name) -> std::string {
        if (name == "token_embd.weight")
            return "CPU";
        const int il = layerOf(name);
        if (il < 0)
            return outputDevice;
        return il < cpuBelow ? "CPU" : il < cuda0Below ? "CUDA0" : "CUDA1";
    };
}

std::map<std::string, uint64_t> planned(const OffloadPlan &plan)
{
    std::map<std::string, uint64_t> out;
    for (const PlannedDevice &d : plan.devices)
        out[d.name == "cpu" ? "CPU" : d.name] = d.memory.weights;
    return out;
}

OffloadInputs twoGpus()
{
    OffloadInputs in;
    in.devices = {{"CUDA0", 24 * GiB}, {"CUDA1", 8 * GiB}};
    return in;
}

} // namespace

class TestOffloadPlan : public QObject {
    Q_OBJECT
private slots:
    void perDeviceWeights_data()
    {
        QTest::addColumn<int>("gpuLayers");
        QTest::addColumn<QString>("tensorSplit");
        QTest::addColumn<QString>("override");
        QTest::addColumn<uint32_t>("nCpuMoe");
        QTest::addColumn<QString>("expected");
        // 9 slots (8 layers + output), free 24 and 8 GiB: split points 0.75 and 1; slot il goes
        // to CUDA0 while il / 9 < 0.75, i.e. il ≤ 6
        QTest::newRow("split by free memory") << -1 << ""
                                              << "" << 0u << "free";
        // 1,1: points 0.5, 1: il / 9 < 0.5 for il ≤ 4
        QTest::newRow("--tensor-split 1,1") << -1 << "1,1"
                                            << "" << 0u << "even";
        // 5 layers: start 9 − 5 = 4, act 5; (il − 4) / 5 < 0.75 for il ≤ 7; the output slot 8
        // gives 0.8: CUDA1
        QTest::newRow("--gpu-layers 5") << 5 << ""
                                        << "" << 0u << "five";
        // 3 layers, 1,2: start 6, act 3, points 1/3 and 1 in float; slot 7 gives exactly 1/3,
        // which is not below the first point: CUDA1 (upper_bound)
        QTest::newRow("--tensor-split 1,2 --gpu-layers 3") << 3 << "1,2"
                                                           << "" << 0u << "edge";
        QTest::newRow("-ot exps=CPU") << -1 << ""
                                      << "exps=CPU" << 0u << "exps";
        QTest::newRow("--n-cpu-moe 3") << -1 << ""
                                       << "" << 3u << "ncmoe";
        // the first layer's tensors to the second GPU; the experts of layer 1 to the CPU after it
        QTest::newRow("override to the second GPU") << -1 << ""
                                                    << "blk\\.0\\.=CUDA1" << 2u << "second";
    }

    void perDeviceWeights()
    {
        QFETCH(int, gpuLayers);
        QFETCH(QString, tensorSplit);
        QFETCH(QString, override);
        QFETCH(uint32_t, nCpuMoe);
        QFETCH(QString, expected);
        const OpenedBuilt m = moeModel();
        QVERIFY(m.file);
        const MemoryModel model(*m.file);
        QVERIFY2(model.whyNoEstimate().empty(), model.whyNoEstimate().c_str());
        MemoryInputs mi;
        mi.gpuLayers = gpuLayers;
        OffloadInputs in = twoGpus();
        if (!tensorSplit.isEmpty())
            for (const QString &w : tensorSplit.split(u','))
                in.tensorSplit.push_back(w.toDouble());
        if (!override.isEmpty()) {
            const QStringList parts = override.split(u'=');
            in.overrides.push_back({parts[0].toStdString(), parts[1].toStdString()});
        }
        in.nCpuMoe = nCpuMoe;
        const OffloadPlan plan = planOffload(model, mi, in);
        QVERIFY2(plan.error.empty(), plan.error.c_str());

        std::function<std::string(const std::string &)> deviceOf;
        if (expected == "free")
            deviceOf = byLayers(0, 7, "CUDA1");
        else if (expected == "even")
            deviceOf = byLayers(0, 5, "CUDA1");
        else if (expected == "five")
            deviceOf = byLayers(4, 8, "CUDA1");
        else if (expected == "edge")
            deviceOf = byLayers(6, 7, "CUDA1");
        else if (expected == "exps")
            deviceOf = [](const std::string &n) {
                return isExperts(n) ? std::string("CPU") : byLayers(0, 7, "CUDA1")(n);
            };
        else if (expected == "ncmoe")
            deviceOf = [](const std::string &n) {
                return isExperts(n) && layerOf(n) < 3 ? std::string("CPU") : byLayers(0, 7, "CUDA1")(n);
            };
        else // layer 0 whole on CUDA1 (the -ot rule comes first), layer 1's experts on the CPU
            deviceOf = [](const std::string &n) {
                if (layerOf(n) == 0)
                    return std::string("CUDA1");
                return isExperts(n) && layerOf(n) == 1 ? std::string("CPU") : byLayers(0, 7, "CUDA1")(n);
            };
        QCOMPARE(planned(plan), expectedWeights(m, deviceOf));

        // every tensor placed once, its bytes the file's
        const auto bytes = sizes(m);
        QCOMPARE(plan.placement.size(), bytes.size());
        for (const TensorPlacement &p : plan.placement) {
            QCOMPARE(p.bytes, bytes.at(p.tensor));
            const std::string want = deviceOf(p.tensor);
            QCOMPARE(plan.devices[p.device].name == "cpu" ? std::string("CPU") : plan.devices[p.device].name, want);
            QVERIFY(!p.why.empty());
        }
    }

    // Each layer's KV cache on its layer's device, whatever the overrides move.
    void kvFollowsTheLayers()
    {
        const OpenedBuilt m = moeModel();
        const MemoryModel model(*m.file);
        MemoryInputs mi;
        mi.gpuLayers = 5;
        OffloadInputs in = twoGpus();
        in.overrides.push_back({"attn", "CPU"});
        const OffloadPlan plan = planOffload(model, mi, in);
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        std::map<std::string, uint64_t> kv;
        for (const LayerKv &l : plan.base.kv.layers)
            kv[l.layer < 4 ? "cpu" : "CUDA0"] += l.bytes(); // layers 4–7 on CUDA0 (see above)
        QVERIFY(kv["cpu"] > 0 && kv["CUDA0"] > 0);
        QCOMPARE(plan.devices[0].memory.kv, kv["cpu"]);
        QCOMPARE(plan.devices[1].memory.kv, kv["CUDA0"]);
        QCOMPARE(plan.devices[2].memory.kv, uint64_t(0));
        QCOMPARE(plan.devices[1].layers, uint64_t(4));
        QVERIFY(plan.devices[2].output);
    }

    // The first rule that matches wins; rule counts; an unknown buffer and a bad regex are refused.
    void rulesInOrder()
    {
        const OpenedBuilt m = moeModel();
        const MemoryModel model(*m.file);
        OffloadInputs in = twoGpus();
        in.overrides = {{"ffn_up_exps", "CUDA0"}, {"exps", "CPU"}};
        OffloadPlan plan = planOffload(model, {}, in);
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(plan.ruleHits, (std::vector<uint64_t>{kLayers, 2 * kLayers}));
        for (const TensorPlacement &p : plan.placement)
            if (p.tensor.find("ffn_up_exps") != std::string::npos)
                QCOMPARE(plan.devices[p.device].name, std::string("CUDA0"));

        in.overrides = {{"exps", "CUDA7"}};
        plan = planOffload(model, {}, in);
        QVERIFY(plan.error.find("unknown buffer type 'CUDA7'") != std::string::npos);
        QVERIFY(plan.error.find("CPU, CUDA0, CUDA1") != std::string::npos);
        in.overrides = {{"blk\\.(", "CPU"}};
        plan = planOffload(model, {}, in);
        QVERIFY(plan.error.find("not a regular expression") != std::string::npos);
        // --n-cpu-moe's patterns: blk\.1\. does not reach blk.11 (the dot is required)
        QCOMPARE(expertPattern(1), std::string("blk\\.1\\.ffn_(up|down|gate|gate_up)_(ch|)exps"));
    }

    // The rules of --n-cpu-moe, matched without the regex engine, place as the same patterns
    // given to -ot (there matched by std::regex; "(?:)" matches the empty string).
    void expertRulesAsRegexes()
    {
        const OpenedBuilt m = moeModel();
        const MemoryModel model(*m.file);
        OffloadInputs fast = twoGpus(), slow = twoGpus();
        fast.nCpuMoe = 5;
        fast.cpuMoe = false;
        for (int il = 0; il < 5; ++il)
            slow.overrides.push_back({expertPattern(il) + "(?:)", "CPU"});
        const OffloadPlan a = planOffload(model, {}, fast), b = planOffload(model, {}, slow);
        QVERIFY(a.error.empty() && b.error.empty());
        QCOMPARE(a.placement.size(), b.placement.size());
        for (size_t i = 0; i < a.placement.size(); ++i)
            QCOMPARE(a.placement[i].device, b.placement[i].device);
        QCOMPARE(planned(a), planned(b));
        QCOMPARE(a.ruleHits, (std::vector<uint64_t>(5, 3)));
    }

    // fit: the most layers, then the fewest CPU expert layers, then the largest context. Its plan
    // fits every device less the margin; one more layer's experts on the GPU, or one more layer,
    // or a longer context would not (each checked here with the plan).
    void fitIsTight_data()
    {
        QTest::addColumn<double>("cuda0MiB");
        QTest::addColumn<double>("cuda1MiB");
        QTest::addColumn<bool>("maxContext");
        QTest::newRow("16 + 8 MiB, context 4096") << 16.0 << 8.0 << false;
        QTest::newRow("12 + 12 MiB, the largest context") << 12.0 << 12.0 << true;
        QTest::newRow("12 + 6 MiB, the largest context") << 12.0 << 6.0 << true;
        QTest::newRow("4 + 3 MiB, context 4096: not every layer") << 4.0 << 3.0 << false;
    }
    void fitIsTight()
    {
        QFETCH(double, cuda0MiB);
        QFETCH(double, cuda1MiB);
        QFETCH(bool, maxContext);
        // experts of 3 × 256 × 512 × 8 Q8_0 values (3.2 MiB) per layer outweigh the rest
        const OpenedBuilt m = moeModel(256, 512);
        QVERIFY(m.file);
        const MemoryModel model(*m.file);
        MemoryInputs mi;
        mi.context = 4096;
        mi.flashAttention = true; // a compute buffer smaller than the experts
        mi.ubatch = 128;
        OffloadInputs in;
        in.devices = {{"CUDA0", uint64_t(cuda0MiB * 1048576)}, {"CUDA1", uint64_t(cuda1MiB * 1048576)}};
        FitOptions options;
        options.marginBytes = uint64_t(1) << 20;
        options.maxContext = maxContext;
        options.minContext = 1024;
        const FitResult fit = fitOffload(model, mi, in, options);
        QVERIFY2(fit.plan.error.empty(), fit.plan.error.c_str());
        QVERIFY(fit.experts);
        qInfo("fit: %lld layers, %u expert layers on the CPU, context %llu", static_cast<long long>(fit.gpuLayers),
              fit.nCpuMoe, static_cast<unsigned long long>(fit.context));
        // a choice with something to trade: layers offloaded and some experts kept back
        QVERIFY(fit.gpuLayers > 0);
        QVERIFY(fit.nCpuMoe > 0 && fit.nCpuMoe <= kLayers);

        const auto planWith = [&](int64_t layers, uint32_t cpuMoe, uint64_t context) {
            MemoryInputs x = mi;
            x.gpuLayers = layers;
            x.context = context;
            OffloadInputs o = in;
            o.nCpuMoe = cpuMoe;
            return planOffload(model, x, o);
        };
        const auto fitsEvery = [&](const OffloadPlan &p) {
            for (size_t d = 1; d < p.devices.size(); ++d)
                if (p.devices[d].memory.total() + options.marginBytes > p.devices[d].freeBytes)
                    return false;
            return true;
        };
        QVERIFY(fitsEvery(planWith(fit.gpuLayers, fit.nCpuMoe, fit.context)));
        QVERIFY(!fitsEvery(planWith(fit.gpuLayers, fit.nCpuMoe - 1, fit.context)));
        if (fit.gpuLayers < int64_t(kLayers) + 1)
            QVERIFY(!fitsEvery(planWith(fit.gpuLayers + 1, fit.nCpuMoe, fit.context)));
        if (maxContext)
            QVERIFY(fit.context == 4096 || !fitsEvery(planWith(fit.gpuLayers, fit.nCpuMoe, fit.context + 256)));
        else
            QCOMPARE(fit.context, uint64_t(4096));
        // the arguments say the same
        const auto at = [&](const char *flag) {
            const auto it = std::find(fit.args.begin(), fit.args.end(), std::string(flag));
            return it == fit.args.end() || it + 1 == fit.args.end() ? std::string() : *(it + 1);
        };
        QCOMPARE(at("--gpu-layers"), std::to_string(fit.gpuLayers));
        QCOMPARE(at("--n-cpu-moe"), std::to_string(fit.nCpuMoe));
        QCOMPARE(at("--ctx-size"), std::to_string(fit.context));
        QCOMPARE(fit.whyNotMore.size(), size_t(3));
    }

    // Split mode none: every offloaded layer on the main GPU.
    void splitModeNone()
    {
        const OpenedBuilt m = moeModel();
        const MemoryModel model(*m.file);
        OffloadInputs in = twoGpus();
        in.splitMode = SplitMode::None;
        in.mainGpu = 1;
        const OffloadPlan plan = planOffload(model, {}, in);
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        QCOMPARE(planned(plan), expectedWeights(m, byLayers(0, 0, "CUDA1")));
        in.mainGpu = 2;
        QVERIFY(!planOffload(model, {}, in).error.empty());
    }

    // One GPU: the plan's devices are the single-device estimate's, figure for figure.
    void oneGpuIsTheEstimate_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("gpuLayers");
        for (const char *f : {"real/tiny-llama-q4_k_m.gguf", "real/tiny-llama-tied-q8_0.gguf"})
            for (const int ngl : {-1, 0, 1, 3})
                QTest::addRow("%s ngl %d", f, ngl) << QString::fromLatin1(f) << ngl;
    }
    void oneGpuIsTheEstimate()
    {
        QFETCH(QString, file);
        QFETCH(int, gpuLayers);
        const auto f = GgufFile::open(dataPath(file).toStdString()).file;
        QVERIFY(f);
        const MemoryModel model(*f);
        MemoryInputs mi;
        mi.gpuLayers = gpuLayers;
        OffloadInputs in;
        in.devices = {{"CUDA0", 8 * GiB}};
        const OffloadPlan plan = planOffload(model, mi, in);
        QVERIFY2(plan.error.empty(), plan.error.c_str());
        const MemoryEstimate e = model.estimate(mi);
        for (size_t d = 0; d < 2; ++d) {
            const DeviceMemory &want = e.devices[d], &got = plan.devices[d].memory;
            QCOMPARE(got.weights, want.weights);
            QCOMPARE(got.kv, want.kv);
            QCOMPARE(got.compute, want.compute);
            QCOMPARE(got.output, want.output);
        }
    }
};

QTEST_GUILESS_MAIN(TestOffloadPlan)
#include "tst_offload_plan.moc"
