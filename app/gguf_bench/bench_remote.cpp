// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_remote.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"
#include "core/format/gguf_file.h"
#include "core/net/ranged_source.h"
#include "core/net/remote_files.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/range_server/range_server.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace bench {
namespace {

double mb(uint64_t bytes)
{
    return static_cast<double>(bytes) / 1e6;
}

// A 1 GiB Q4_K tensor over the loopback server: its statistics read it within the cache's cap, and a
// sample of 16 MiB fetches only the sampled blocks.
void benchRemoteTensor(const std::string &dir, gguf::test::RangeServer &server, const gguf::net::RemoteOptions &options)
{
    const std::string path = dir + "/bench-remote-tensor.gguf";
    constexpr uint32_t kQ4K = 12;
    writeSingleTensorFile(path, kQ4K, uint64_t(1) << 30);
    server.serve("/tensor.gguf", path);
    gguf::Error error;
    const auto source = gguf::net::openRemote(server.url("/tensor.gguf"), options, error);
    const gguf::OpenResult remote = source ? gguf::GgufFile::openSource(source) : gguf::OpenResult{};
    if (!remote.file || remote.file->tensors().empty()) {
        std::printf("| a 1 GiB tensor | (failed: %s) |\n",
                    source ? remote.error.message.c_str() : error.message.c_str());
        std::filesystem::remove(path);
        return;
    }
    const gguf::TensorInfo &t = remote.file->tensors().front();
    const uint64_t block = options.cache.blockBytes, cap = options.cache.cacheBytes;
    const auto step = [&](const char *what, uint64_t sampleBytes, uint64_t goal, const char *goalText) {
        const uint64_t bytes0 = source->bytesFetched(), requests0 = source->requestCount();
        const double t0 = now();
        gguf::StatsOptions o;
        o.sampleBytes = sampleBytes;
        gguf::TensorStatistics s;
        const bool ok = gguf::computeStatistics(gguf::tensorData(*remote.file, t), o, s) == gguf::StatsStatus::Ok &&
                        (sampleBytes == 0) == (s.sampledElements == 0);
        const double seconds = now() - t0;
        const uint64_t bytes = source->bytesFetched() - bytes0, requests = source->requestCount() - requests0;
        std::printf("| %s of a 1 GiB Q4_K tensor (%s; %llu of %llu values read) | %.1f MB | %llu | %s = %.1f MB: %s | "
                    "%.0f ms (%.0f MB/s) | |\n",
                    what, ok ? "ok" : "FAILED",
                    static_cast<unsigned long long>(s.sampledElements ? s.sampledElements : s.count),
                    static_cast<unsigned long long>(s.count), mb(bytes), static_cast<unsigned long long>(requests),
                    goalText, mb(goal), bytes <= goal ? "met" : "MISSED", seconds * 1e3, mb(bytes) / seconds);
    };
    constexpr uint64_t kSample = uint64_t(16) << 20;
    step("sampled statistics (`--sample 16`)", kSample, (kSample + block - 1) / block * block,
         "≤ 16 MiB in whole blocks");
    step("statistics", 0, t.byteSize + 2 * block, "≤ its blocks");
    std::printf(
        "| the block cache while it was read | peak %.1f MB | | ≤ cap %.1f MB + the chunks two workers hold: %s | "
        "| |\n",
        mb(source->peakCachedBytes()), mb(cap),
        source->peakCachedBytes() <= cap + 4 * (uint64_t(4) << 20) + 4 * block ? "met" : "MISSED");
    std::fflush(stdout);
    std::filesystem::remove(path);
}

} // namespace

void benchRemote(const std::string &dir)
{
    const std::string path = dir + "/bench-remote-big.gguf";
    uint64_t claimed = 0;
    const uint64_t header = writeBigSparseModel(path, claimed);
    gguf::test::RangeServer server;
    if (!server.start()) {
        std::printf("\n## Remote files: (the loopback server did not start)\n");
        return;
    }
    server.serve("/big.gguf", path);
    const gguf::net::RemoteOptions options;
    const uint64_t block = options.cache.blockBytes;
    std::printf("\n## Remote files: the generated %.1f GB model over HTTP on 127.0.0.1 (header %.2f MB; "
                "%llu KiB blocks, %llu MiB cache)\n\n",
                static_cast<double>(claimed) / 1e9, mb(header), static_cast<unsigned long long>(block >> 10),
                static_cast<unsigned long long>(options.cache.cacheBytes >> 20));
    std::printf(
        "| step | bytes fetched | requests | goal | time | the same on the local file |\n|---|---|---|---|---|---|\n");

    double t0 = now();
    gguf::Error error;
    auto source = gguf::net::openRemote(server.url("/big.gguf"), options, error);
    const gguf::OpenResult remote = source ? gguf::GgufFile::openSource(source) : gguf::OpenResult{};
    const double openSeconds = now() - t0;
    t0 = now();
    const gguf::OpenResult local = gguf::GgufFile::open(path);
    const double localOpenSeconds = now() - t0;
    if (!remote.file || !local.file || remote.file->tensors().size() != local.file->tensors().size()) {
        std::printf("| open | (failed: %s) |\n", source ? remote.error.message.c_str() : error.message.c_str());
        std::filesystem::remove(path);
        return;
    }
    const uint64_t openBytes = source->bytesFetched(), openRequests = source->requestCount();
    std::printf("| open (header, metadata, tensor index) | %.2f MB | %llu | ≤ header + 1 block = %.2f MB: %s | %.0f ms "
                "| %.0f ms |\n",
                mb(openBytes), static_cast<unsigned long long>(openRequests), mb(header + block),
                openBytes <= header + block ? "met" : "MISSED", openSeconds * 1e3, localOpenSeconds * 1e3);

    // the largest tensor under 256 MiB: its statistics fetch its blocks and nothing else
    const gguf::TensorInfo *chosen = nullptr;
    for (const gguf::TensorInfo &t : remote.file->tensors())
        if (t.dataInFile && t.byteSize < (uint64_t(256) << 20) && (!chosen || t.byteSize > chosen->byteSize))
            chosen = &t;
    if (!chosen) {
        std::filesystem::remove(path);
        return;
    }
    const auto statistics = [&](const gguf::GgufFile &file) {
        const gguf::TensorInfo *t = file.findTensor(chosen->name);
        const gguf::TensorData data = gguf::tensorData(file, *t);
        gguf::TensorStatistics s;
        return gguf::computeStatistics(data, {}, s) == gguf::StatsStatus::Ok;
    };
    t0 = now();
    const bool ok = statistics(*remote.file);
    const double statsSeconds = now() - t0;
    t0 = now();
    const bool localOk = statistics(*local.file);
    const double localStatsSeconds = now() - t0;
    const uint64_t statsBytes = source->bytesFetched() - openBytes,
                   statsRequests = source->requestCount() - openRequests;
    // the tensor's blocks: from the one holding its first byte to the one holding its last
    const uint64_t firstBlock = chosen->fileOffset / block,
                   lastBlock = (chosen->fileOffset + chosen->byteSize - 1) / block;
    const uint64_t goal = (lastBlock - firstBlock + 1) * block;
    std::printf("| statistics of `%.*s` (%s, %.1f MB) | %.1f MB | %llu | ≤ its blocks = %.1f MB: %s | %.0f ms (%.0f "
                "MB/s) | %.0f ms |\n",
                static_cast<int>(chosen->name.size()), chosen->name.data(), ok && localOk ? "ok" : "FAILED",
                mb(chosen->byteSize), mb(statsBytes), static_cast<unsigned long long>(statsRequests), mb(goal),
                statsBytes <= goal ? "met" : "MISSED", statsSeconds * 1e3, mb(statsBytes) / statsSeconds,
                localStatsSeconds * 1e3);

    std::fflush(stdout);
    std::filesystem::remove(path);
    benchRemoteTensor(dir, server, options);
}

} // namespace bench
