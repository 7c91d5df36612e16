// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-bench: prints throughput and peak memory figures, each beside a floor measured in the same
// run (reading / memcpy of the same bytes, `head -c` of the same header, a byte scan of the same
// tokens), so the ratio to the physical limit is visible.
// Usage: gguf-bench [--quick] [--dir DIR] [--explorer PATH] [dequant] [stats] [open] [tokenize] [tokens] [stall]
//                   [diff] [edit] [kinds] [remote]
//        gguf-bench --write-big-model PATH   (writes the generated model of `open` and `stall`)
#include "app/gguf_bench/bench_diff.h"
#include "app/gguf_bench/bench_edit.h"
#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_kinds.h"
#include "app/gguf_bench/bench_remote.h"
#include "app/gguf_bench/bench_stall.h"
#include "app/gguf_bench/bench_tokenize.h"
#include "app/gguf_bench/bench_tokens.h"
#include "app/gguf_bench/bench_util.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"
#include "core/stats/tensor_stats.h"
#include "core/util/cpu_features.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

// the folder of the repository's real vocabularies (build/…/app/gguf_bench/bench_vocab_dir.cpp)
extern const char *const kBenchVocabDir;

namespace {

using namespace bench;

void benchDequant(bool quick)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const uint64_t inputBytes = quick ? (4u << 20) : (32u << 20);
    std::printf("\n## Dequantization (%llu MiB of input per type; %u threads = all cores)\n\n",
                static_cast<unsigned long long>(inputBytes >> 20), cores);
    std::printf("| type | 1 thread MB/s in | Melem/s | ns/elem | %u threads MB/s in | Melem/s | scaling | memcpy MB/s "
                "(1 thread) | in/memcpy |\n",
                cores);
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    std::vector<uint8_t> input(inputBytes);
    fillWeightLike(input.data(), input.size(), 7);
    const Floors floor1 = measureFloors(input.data(), input.size(), 1);
    for (uint32_t id = 0; id < 64; ++id) {
        if (!gguf::canDequantize(id))
            continue;
        const gguf::TypeTraits &t = gguf::typeTraits(id);
        const uint64_t blocks = inputBytes / std::max<uint32_t>(t.typeSize, 1);
        uint64_t elements = blocks * t.blockSize;
        uint64_t bytes = blocks * t.typeSize;
        if (t.rule == gguf::SizeRule::BitNetI2S) {
            elements = (inputBytes - 32) / 32 * 128;
            bytes = elements / 4 + 32;
        }
        const std::span<const uint8_t> span(input.data(), static_cast<size_t>(bytes));
        const double one = timePerRun([&] { decodeAll(id, span, elements, 1); });
        const double all = timePerRun([&] { decodeAll(id, span, elements, cores); });
        const double mb = static_cast<double>(bytes) / 1e6, me = static_cast<double>(elements) / 1e6;
        const double memcpyMBs = static_cast<double>(input.size()) / 1e6 / floor1.memcpySeconds;
        std::printf("| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f× | %.0f | %.2f |\n", gguf::typeName(id).c_str(),
                    mb / one, me / one, one * 1e9 / static_cast<double>(elements), mb / all, me / all, one / all,
                    memcpyMBs, (mb / one) / memcpyMBs);
    }
}

// The CPU's name as the kernel reports it (the figures depend on it: AVX-512 throughput and
// memory bandwidth differ between models with the same instruction sets).
std::string cpuModel()
{
    FILE *info = std::fopen("/proc/cpuinfo", "r");
    if (!info)
        return "unknown";
    char line[512];
    std::string model = "unknown";
    while (std::fgets(line, sizeof line, info)) {
        std::string_view text(line);
        if (!text.starts_with("model name"))
            continue;
        const size_t colon = text.find(':');
        if (colon != std::string_view::npos) {
            text.remove_prefix(colon + 1);
            const size_t first = text.find_first_not_of(" \t");
            const size_t last = text.find_last_not_of(" \t\n");
            if (first != std::string_view::npos && last != std::string_view::npos && last >= first)
                model = std::string(text.substr(first, last - first + 1));
        }
        break;
    }
    std::fclose(info);
    return model;
}

// The widest hand-written kernels the decoders and statistics choose here (GGUF_SIMD lowers it).
std::string kernelLevel()
{
#if GGUF_X86_KERNELS
    using namespace gguf::detail;
    const int ceiling = simdCeiling();
    if (ceiling >= 2 && cpuHasAvx512())
        return cpuHasAvx512Vnni() ? "AVX-512 with VNNI" : "AVX-512 (no VNNI)";
    if (ceiling >= 1 && cpuHasAvx2())
        return std::string("AVX2") + (cpuHasFma() ? " with FMA" : "") + (ceiling < 2 ? " (GGUF_SIMD=avx2)" : "");
    return ceiling == 0 ? "portable (GGUF_SIMD=portable)" : "portable (no AVX2)";
#else
    return "portable (not x86-64)";
#endif
}

void benchStats(const std::string &dir, bool quick)
{
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    const uint64_t size = quick ? (64u << 20) : (1u << 30);
    std::printf("\n## Statistics of one %llu MiB tensor (file in the page cache; %u threads; %d rounds, each running "
                "the five passes in turn in fresh processes, mapping included; times are medians, the ratio is the "
                "median of the rounds' ratios, with their range; the count floor is the dequant pass with each "
                "value also placed in one of 256 bins, one counter incremented per value)\n\n",
                static_cast<unsigned long long>(size >> 20), cores, kRounds);
    std::printf(
        "| type | elements | read floor s | dequant pass s | count floor s | stats (fast) s | exact stats s | fast / "
        "dequant (range) | exact / dequant (range) | count floor / dequant (range) | exact / count floor (range) | "
        "Melem/s fast | key sample | peak RSS fast MiB | peak RSS exact MiB | peak RSS of dequant pass MiB | RSS at "
        "start MiB |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    // the types #22 names: Q4_K, Q8_0, F16, Q2_K, Q3_K, Q5_K, Q6_K, Q4_0, Q5_0, IQ4_XS, BF16, F32
    for (const uint32_t type : {12u, 8u, 1u, 10u, 11u, 13u, 14u, 2u, 6u, 23u, 30u, 0u}) {
        const std::string path = dir + "/bench-stats-" + gguf::typeName(type) + ".gguf";
        const uint64_t elements = writeSingleTensorFile(path, type, size);
        const auto withTensor = [&](const std::function<void(const gguf::TensorData &)> &body) {
            return [&path, body] {
                const gguf::OpenResult r = gguf::GgufFile::open(path);
                if (!r.file || r.file->tensors().empty())
                    std::exit(1);
                body(gguf::tensorData(*r.file, r.file->tensors()[0]));
            };
        };
        Rounds rounds;
        const bool ok =
            runRounds({withTensor([&](const gguf::TensorData &data) {
                           if (measureFloorOnce(data.bytes.data(), data.bytes.size(), cores) == 42)
                               std::puts("");
                       }),
                       withTensor([&](const gguf::TensorData &data) { decodeAll(type, data.bytes, elements, cores); }),
                       withTensor([&](const gguf::TensorData &data) {
                           gguf::TensorStatistics st;
                           gguf::StatsOptions opt;
                           opt.bins = 256;
                           if (gguf::computeStatistics(data, opt, st) != gguf::StatsStatus::Ok)
                               std::exit(1);
                       }),
                       // the default of `gguf-inspect stats` and the window: exact percentiles and histogram
                       withTensor([&](const gguf::TensorData &data) {
                           gguf::TensorStatistics st;
                           gguf::StatsOptions opt;
                           opt.bins = 256;
                           if (gguf::computeStatistics(data, opt, st) != gguf::StatsStatus::Ok ||
                               gguf::refineStatistics(data, opt, st) != gguf::StatsStatus::Ok)
                               std::exit(1);
                       }),
                       // the count floor: the dequant pass, and each value placed in one of 256 bins
                       withTensor([&](const gguf::TensorData &data) {
                           if (countAll(type, data.bytes, elements, cores) != elements)
                               std::exit(1);
                       })},
                      rounds);
        std::filesystem::remove(path);
        if (!ok) {
            std::printf("| %s | (a run failed) |\n", gguf::typeName(type).c_str());
            continue;
        }
        const uint32_t stride = gguf::keySampleStride(elements, gguf::StatsOptions{}.exactKeyElements);
        const auto [ratio, lowest, highest] = rounds.ratio(2, 1);
        const auto [exact, exactLowest, exactHighest] = rounds.ratio(3, 1);
        const auto [count, countLowest, countHighest] = rounds.ratio(4, 1);
        const auto [overCount, overCountLowest, overCountHighest] = rounds.ratio(3, 4);
        std::printf("| %s | %llu | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f× (%.2f–%.2f) | %.2f× (%.2f–%.2f) | %.2f× "
                    "(%.2f–%.2f) | %.2f× (%.2f–%.2f) | %.0f | 1 in %u | %.1f | %.1f | %.1f | %.1f |\n",
                    gguf::typeName(type).c_str(), static_cast<unsigned long long>(elements), rounds.median(0),
                    rounds.median(1), rounds.median(4), rounds.median(2), rounds.median(3), ratio, lowest, highest,
                    exact, exactLowest, exactHighest, count, countLowest, countHighest, overCount, overCountLowest,
                    overCountHighest, static_cast<double>(elements) / 1e6 / rounds.median(2), stride, rounds.peakMiB(2),
                    rounds.peakMiB(3), rounds.peakMiB(1), rounds.runs[2][0].residentAtStartMiB);
        std::fflush(stdout);
    }
}

// Median of 9 runs of a shell command, in seconds.
double medianRun(const std::string &command)
{
    std::vector<double> times;
    for (int i = 0; i < 9; ++i) {
        const double t0 = now();
        if (std::system(command.c_str()) != 0)
            std::printf("(%s failed)\n", command.c_str());
        times.push_back(now() - t0);
    }
    return medianOf(times);
}

void benchOpen(const std::string &dir, const std::string &inspect)
{
    const std::string path = dir + "/bench-open-big.gguf";
    uint64_t claimed = 0;
    const uint64_t header = writeBigSparseModel(path, claimed);
    std::printf("\n## Opening a generated model: 256k tokens, 500k merges, 20,000 tensors, %.1f GB claimed "
                "(sparse), header %.1f MB\n\n",
                static_cast<double>(claimed) / 1e9, static_cast<double>(header) / 1e6);
    const double headMs = medianRun("head -c " + std::to_string(header) + " '" + path + "' > /dev/null") * 1e3;
    double peak = peakMemoryOfChild([&] {
        std::vector<double> times;
        for (int i = 0; i < 9; ++i) {
            const double t0 = now();
            const gguf::OpenResult r = gguf::GgufFile::open(path);
            times.push_back(now() - t0);
            if (!r.file || r.file->tensors().size() != 20000)
                std::exit(1);
        }
        std::printf("| open (header, metadata, tensor index), median of 9 | %.2f ms |\n", medianOf(times) * 1e3);
    });
    std::printf("| `head -c %llu` (process included), median of 9 | %.2f ms |\n",
                static_cast<unsigned long long>(header), headMs);
    std::printf("| peak RSS of the opening process | %.1f MiB |\n", peak);
    // the whole program as a user runs it: start, open, print, exit (goal: at most 3× `head -c`)
    if (std::filesystem::exists(inspect)) {
        const double startMs = medianRun("'" + inspect + "' --version > /dev/null") * 1e3;
        const double infoMs = medianRun("'" + inspect + "' info '" + path + "' > /dev/null") * 1e3;
        std::printf("| `gguf-inspect --version` (starting the program), median of 9 | %.2f ms |\n", startMs);
        std::printf("| `gguf-inspect info` (process included), median of 9 | %.2f ms, %.2f× `head -c` (goal ≤ 3×) |\n",
                    infoMs, infoMs / headMs);
    } else {
        std::printf("| `gguf-inspect info` | not measured: no %s |\n", inspect.c_str());
    }
    std::filesystem::remove(path);
}

} // namespace

int main(int argc, char **argv)
{
    bool quick = false;
    std::string dir = std::filesystem::temp_directory_path().string();
    std::set<std::string> phases;
    // the programs of the same build: app/gguf-explorer and app/gguf-inspect beside app/gguf_bench/
    std::error_code noError;
    const std::filesystem::path appDir =
        std::filesystem::read_symlink("/proc/self/exe", noError).parent_path().parent_path();
    std::string explorer = (appDir / "gguf-explorer").string();
    const std::string inspect = (appDir / "gguf-inspect").string(); // of the same build, beside it too
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick")
            quick = true;
        else if (a == "--dir" && i + 1 < argc)
            dir = argv[++i];
        else if (a == "--explorer" && i + 1 < argc)
            explorer = argv[++i];
        else if (a == "--write-big-model" && i + 1 < argc) {
            // the generated model of `open` and `stall`, kept for a look by hand
            uint64_t claimed = 0;
            writeBigSparseModel(argv[++i], claimed);
            std::printf("%s: %.1f GB (sparse)\n", argv[i], static_cast<double>(claimed) / 1e9);
            return 0;
        } else if (a == "--write-stats-tensor" && i + 2 < argc) {
            // the 1 GiB tensor of `stats` for one type (its ggml id), kept for a look by hand
            const auto type = static_cast<uint32_t>(std::stoul(argv[++i]));
            const uint64_t elements = writeSingleTensorFile(argv[++i], type, quick ? (64u << 20) : (1u << 30));
            std::printf("%s: %llu elements of %s\n", argv[i], static_cast<unsigned long long>(elements),
                        gguf::typeName(type).c_str());
            return 0;
        } else if (a == "dequant" || a == "stats" || a == "open" || a == "tokenize" || a == "tokens" || a == "stall" ||
                   a == "diff" || a == "edit" || a == "kinds" || a == "remote")
            phases.insert(a);
        else {
            std::fprintf(stderr, "usage: gguf-bench [--quick] [--dir DIR] [--explorer PATH] [dequant] [stats] [open] "
                                 "[tokenize] [tokens] [stall] [diff] [edit] [kinds] [remote]\n");
            return 2;
        }
    }
#ifndef GGUF_BENCH_STALL
    // the `stall` section runs gguf-explorer, which a GGUF_BUILD_GUI=OFF build does not have
    if (phases.count("stall")) {
        std::fprintf(stderr, "gguf-bench: built without the GUI (GGUF_BUILD_GUI=OFF): no `stall` section\n");
        return 2;
    }
#endif
    if (phases.empty()) {
        phases = {"dequant", "stats", "open", "tokenize", "tokens", "diff", "edit", "kinds", "remote"};
#ifdef GGUF_BENCH_STALL
        phases.insert("stall");
#endif
    }
    std::printf("# gguf-bench (%u cores)\n\nCPU: %s; kernels: %s\n", std::max(1u, std::thread::hardware_concurrency()),
                cpuModel().c_str(), kernelLevel().c_str());
    if (phases.count("dequant"))
        benchDequant(quick);
    if (phases.count("stats"))
        benchStats(dir, quick);
    if (phases.count("open"))
        benchOpen(dir, inspect);
    if (phases.count("diff"))
        benchDiff(dir, quick);
    if (phases.count("edit"))
        benchEdit(dir, quick);
    if (phases.count("tokenize"))
        benchTokenize(kBenchVocabDir, quick);
    if (phases.count("kinds"))
        benchKinds(dir, quick);
    if (phases.count("remote"))
        benchRemote(dir);
    if (phases.count("tokens"))
        benchTokens(dir, quick ? 32000 : 256000);
#ifdef GGUF_BENCH_STALL
    if (phases.count("stall"))
        benchStall(dir, explorer);
#endif
    return 0;
}
