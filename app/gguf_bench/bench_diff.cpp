// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_diff.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"
#include "core/compare/value_diff.h"
#include "core/format/gguf_file.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>

namespace bench {

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
    std::filesystem::remove(q4k);
    std::filesystem::remove(f16);
    if (!ok) {
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
}

} // namespace bench
