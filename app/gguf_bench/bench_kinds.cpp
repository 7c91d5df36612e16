// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_kinds.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"
#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"
#include "core/kind/importance.h"
#include "core/kind/lora_delta.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

namespace bench {
namespace {

// The floor of one pass over ΔW: every row formed from the decoded factors (the same r · n_in
// multiply-adds per row, no statistics), rows split over `threads`.
double bareProduct(const gguf::LoraDelta &d, unsigned threads)
{
    std::vector<double> sums(threads, 0.0);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&d, &sums, t, threads] {
            std::vector<float> row(d.columns());
            for (uint64_t r = t; r < d.rows(); r += threads) {
                d.row(r, row);
                sums[t] += row[r % row.size()];
            }
        });
    for (std::thread &th : pool)
        th.join();
    double total = 0;
    for (double s : sums)
        total += s;
    return total;
}

void benchLora(const std::string &dir, uint64_t n, uint64_t rank, unsigned cores)
{
    const std::string path = dir + "/bench-lora.gguf";
    writeLoraFile(path, n, n, rank);
    const gguf::OpenResult opened = gguf::GgufFile::open(path);
    const auto pair = opened.file ? gguf::loraPairFor(*opened.file, "blk.0.ffn_up.weight.lora_a") : std::nullopt;
    if (!pair) {
        std::printf("| ΔW %llu × %llu, rank %llu | (the file did not open) |\n", static_cast<unsigned long long>(n),
                    static_cast<unsigned long long>(n), static_cast<unsigned long long>(rank));
        return;
    }
    const gguf::LoraDelta delta(*opened.file, pair->pair, pair->scale);
    double keep = 0;
    const double floor = timePerRun([&] { keep += bareProduct(delta, cores); });
    const double stats = timePerRun([&] {
        gguf::LoraDeltaStats s;
        gguf::computeLoraDeltaStats(delta, 200, {}, s);
        keep += s.frobenius;
    });
    const double heatmap = timePerRun([&] {
        gguf::Heatmap h;
        gguf::HeatmapOptions options;
        gguf::loraDeltaHeatmap(delta, 0, delta.rows(), 0, delta.columns(), options, h);
        keep += h.mean.empty() ? 0 : h.mean[0];
    });
    const double macs = static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(rank);
    std::printf("| ΔW %llu × %llu, rank %llu: statistics (2 passes) | %.3f | %.3f (one pass) | %.2f× | %.1f |\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(rank), stats, floor, stats / floor, 2 * macs / stats / 1e9);
    std::printf("| ΔW %llu × %llu, rank %llu: 512 × 512 heatmap (1 pass) | %.3f | %.3f | %.2f× | %.1f |\n",
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(rank), heatmap, floor, heatmap / floor, macs / heatmap / 1e9);
    if (keep == 42.0)
        std::puts("");
    std::filesystem::remove(path);
}

void benchImatrix(const std::string &dir, uint32_t layers, uint64_t experts, uint64_t channels, unsigned cores)
{
    const std::string path = dir + "/bench-imatrix.gguf";
    const uint64_t size = writeImatrixFile(path, layers, experts, channels);
    const gguf::OpenResult opened = gguf::GgufFile::open(path);
    if (!opened.file) {
        std::printf("| imatrix | (the file did not open) |\n");
        return;
    }
    const gguf::KindReport kind = gguf::describeKind(*opened.file);
    const auto bytes = opened.file->source().bytes();
    const double floor = timePerRun([&] {
        if (measureFloorOnce(bytes.data(), bytes.size(), cores) == 42)
            std::puts("");
    });
    uint64_t tensors = 0;
    const double stats = timePerRun([&] {
        const auto report = gguf::computeImportance(*opened.file, *kind.imatrix);
        tensors = report ? report->tensors.size() : 0;
    });
    std::printf("| imatrix statistics: %u layers, %llu weights, %llu experts × %llu channels, %.1f MiB | %.3f | %.3f "
                "(read on %u threads) | %.2f× | %.0f MB/s |\n",
                layers, static_cast<unsigned long long>(tensors), static_cast<unsigned long long>(experts),
                static_cast<unsigned long long>(channels), static_cast<double>(size) / (1 << 20), stats, floor, cores,
                stats / floor, static_cast<double>(size) / 1e6 / stats);
    std::filesystem::remove(path);
}

} // namespace

void benchKinds(const std::string &dir, bool quick)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    std::printf("\n## Other kinds of GGUF (files in the page cache, timed in this process; seconds per run)\n\n");
    std::printf("| computation | s | floor s, same run | × floor | G multiply-adds/s or MB/s |\n");
    std::printf("|---|---:|---:|---:|---:|\n");
    benchLora(dir, quick ? 1024 : 4096, 16, cores);
    benchLora(dir, quick ? 1024 : 4096, 64, cores);
    benchImatrix(dir, quick ? 4 : 32, quick ? 16 : 64, quick ? 512 : 2048, cores);
    std::fflush(stdout);
}

} // namespace bench
