// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_diff.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"
#include "core/compare/composed_values.h"
#include "core/compare/value_diff.h"
#include "core/format/gguf_file.h"
#include "core/safetensors/safetensors_file.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <thread>

namespace bench {
namespace {

// The same Q4_K tensor against its BF16 original in a safetensors file (#43): as `diff MODEL.gguf
// CHECKPOINT --values` compares them, the checkpoint side composed on the fly — rows as they are
// (an ffn weight), and regrouped over 32 heads as llama's q_proj is.
void benchCheckpointDiff(const std::string &dir, const std::string &q4k, uint64_t elements)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const std::string plain = dir + "/bench-diff-plain.safetensors", rope = dir + "/bench-diff-rope.safetensors";
    constexpr uint32_t kHeads = 32;
    if (writeBf16OriginalFile(plain, q4k, "model.layers.0.mlp.up_proj.weight", 0) != elements ||
        writeBf16OriginalFile(rope, q4k, "model.layers.0.self_attn.q_proj.weight", kHeads) != elements) {
        std::printf("\n## GGUF against its checkpoint: could not write the files\n");
        return;
    }
    std::printf("\n## GGUF against its checkpoint: the Q4_K tensor against its BF16 original (%llu MiB, safetensors), "
                "%llu Mi elements (as above; the original's rows as they are, and regrouped over %u heads as llama's "
                "q_proj)\n\n",
                static_cast<unsigned long long>(elements * 2 >> 20), static_cast<unsigned long long>(elements >> 20),
                kHeads);
    using Body = std::function<void(const gguf::TensorData &, const gguf::TensorData &, uint64_t)>;
    const auto withTensors = [&](const std::string &original, uint32_t heads, const Body &body) {
        return [&, original, heads, body] {
            const gguf::OpenResult a = gguf::GgufFile::open(q4k);
            const gguf::st::SafetensorsOpen b = gguf::st::SafetensorsFile::open(original);
            if (!a.file || !b.file || a.file->tensors().empty() || b.file->tensors().empty())
                std::exit(1);
            const gguf::st::TensorEntry &e = b.file->tensors()[0];
            body(gguf::tensorData(*a.file, a.file->tensors()[0]),
                 gguf::tensorData(b.file->source(), 30 /* BF16 */, e.elements, e.fileBegin, e.bytes(), e.dataInFile),
                 heads);
        };
    };
    const Body compare = [](const gguf::TensorData &a, const gguf::TensorData &b, uint64_t heads) {
        gguf::ComposedValues original;
        original.cols = 4096;
        original.pieces.push_back({b, 0, b.elements / 4096, static_cast<uint32_t>(heads)});
        gguf::ValueDiff v;
        // only BF16's rounding apart (relative L2 ≤ 2⁻⁸), unless the rows were paired wrongly
        if (gguf::compareValues(gguf::ComposedValues::of(a), original, {}, v) != gguf::StatsStatus::Ok ||
            v.elements != a.elements || !(v.relativeL2() < 1.0 / 256))
            std::exit(1);
    };
    Rounds rounds;
    const bool ok = runRounds({withTensors(plain, 0,
                                           [&](const gguf::TensorData &a, const gguf::TensorData &b, uint64_t) {
                                               decodeAll(a.typeId, a.bytes, a.elements, cores);
                                               decodeAll(b.typeId, b.bytes, b.elements, cores);
                                           }),
                               withTensors(plain, 0, compare), withTensors(rope, kHeads, compare)},
                              rounds);
    std::filesystem::remove(plain);
    std::filesystem::remove(rope);
    if (!ok) {
        std::printf("(a run failed)\n");
        return;
    }
    std::printf("| original's rows | dequantize both s | compare s | compare / dequantize both (range) | peak RSS of "
                "compare MiB | goal |\n|---|---:|---:|---:|---:|---|\n");
    for (const auto &[body, label] : {std::pair{size_t(1), "as they are"}, std::pair{size_t(2), "regrouped (RoPE)"}}) {
        const auto [ratio, lowest, highest] = rounds.ratio(body, 0);
        std::printf("| %s | %.3f | %.3f | %.2f× (%.2f–%.2f) | %.1f | ≤ 1.3× |\n", label, rounds.median(0),
                    rounds.median(body), ratio, lowest, highest, rounds.peakMiB(body));
    }
    std::fflush(stdout);
}

} // namespace

void benchDiff(const std::string &dir, bool quick)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    // 2^29 elements: the F16 tensor is 1 GiB, the Q4_K one 288 MiB
    const uint64_t elements = quick ? (uint64_t(1) << 25) : (uint64_t(1) << 29);
    const std::string q4k = dir + "/bench-diff-q4_k.gguf", f16 = dir + "/bench-diff-f16.gguf";
    writeSingleTensorFile(q4k, 12, elements / 256 * 144);
    if (writeF16CopyFile(f16, q4k) != elements) {
        std::printf("\n## Tensor comparison: could not write the files\n");
        return;
    }
    std::printf("\n## Tensor comparison: Q4_K against F16 of the same values, %llu Mi elements (files in the page "
                "cache; %u threads; %d rounds in fresh processes, mapping included; times are medians, the ratio is "
                "the median of the rounds' ratios, with their range)\n\n",
                static_cast<unsigned long long>(elements >> 20), cores, kRounds);
    const auto withTensors = [&](const std::function<void(const gguf::TensorData &, const gguf::TensorData &)> &body) {
        return [&, body] {
            const gguf::OpenResult a = gguf::GgufFile::open(q4k), b = gguf::GgufFile::open(f16);
            if (!a.file || !b.file || a.file->tensors().empty() || b.file->tensors().empty())
                std::exit(1);
            body(gguf::tensorData(*a.file, a.file->tensors()[0]), gguf::tensorData(*b.file, b.file->tensors()[0]));
        };
    };
    Rounds rounds;
    const bool ok =
        runRounds({withTensors([&](const gguf::TensorData &a, const gguf::TensorData &b) {
                       decodeAll(a.typeId, a.bytes, a.elements, cores);
                       decodeAll(b.typeId, b.bytes, b.elements, cores);
                   }),
                   withTensors([&](const gguf::TensorData &a, const gguf::TensorData &b) {
                       gguf::ValueDiff v;
                       if (gguf::compareValues(a, b, {}, v) != gguf::StatsStatus::Ok || v.elements != a.elements)
                           std::exit(1);
                   })},
                  rounds);
    std::filesystem::remove(f16);
    if (!ok) {
        std::filesystem::remove(q4k);
        std::printf("(a run failed)\n");
        return;
    }
    const auto [ratio, lowest, highest] = rounds.ratio(1, 0);
    std::printf(
        "| dequantize both s | compare s | compare / dequantize both (range) | Melem/s | peak RSS of compare MiB "
        "| of dequantize both MiB | goal |\n|---:|---:|---:|---:|---:|---:|---|\n");
    std::printf("| %.3f | %.3f | %.2f× (%.2f–%.2f) | %.0f | %.1f | %.1f | ≤ 1.3× |\n", rounds.median(0),
                rounds.median(1), ratio, lowest, highest, static_cast<double>(elements) / 1e6 / rounds.median(1),
                rounds.peakMiB(1), rounds.peakMiB(0));
    std::fflush(stdout);
    benchCheckpointDiff(dir, q4k, elements);
    std::filesystem::remove(q4k);
}

} // namespace bench
