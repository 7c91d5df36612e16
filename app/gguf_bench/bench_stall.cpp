// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_stall.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace bench {

namespace {

struct TourRun {
    double stallMs = -1; ///< -1: no report line
    std::string during;
    double seconds = 0;
};

std::string quoted(const std::string &s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// One screenshot tour of `file` (none: the bundled sample); its stall report from stderr.
TourRun runTour(const std::string &explorer, const std::string &prefix, const std::string &file)
{
    const char *platform = std::getenv("QT_QPA_PLATFORM");
    std::string command = "GGUF_STALL_REPORT=1 QT_QPA_PLATFORM=";
    command.append(platform && *platform ? platform : "offscreen");
    command.append(" ").append(quoted(explorer)).append(" --screenshot ").append(quoted(prefix));
    if (!file.empty())
        command.append(" ").append(quoted(file));
    command.append(" 2>&1 >/dev/null"); // the report is on stderr, the files written on stdout
    TourRun run;
    const double t0 = now();
    FILE *pipe = popen(command.c_str(), "r");
    if (!pipe)
        return run;
    char line[1024];
    while (std::fgets(line, sizeof line, pipe)) {
        const std::string text(line);
        const std::string key = "max-stall-ms ";
        const size_t at = text.find(key);
        if (at == std::string::npos)
            continue;
        run.stallMs = std::atof(text.c_str() + at + key.size());
        const size_t open = text.find('(', at);
        const size_t close = text.rfind(')');
        if (open != std::string::npos && close != std::string::npos && close > open)
            run.during = text.substr(open + 1, close - open - 1);
    }
    const int status = pclose(pipe);
    run.seconds = now() - t0;
    if (status != 0)
        run.stallMs = -1;
    return run;
}

void report(const char *what, const std::string &explorer, const std::string &prefix, const std::string &file)
{
    std::vector<TourRun> runs(3);
    for (TourRun &run : runs)
        run = runTour(explorer, prefix, file);
    const auto worst = std::max_element(runs.begin(), runs.end(),
                                        [](const TourRun &a, const TourRun &b) { return a.stallMs < b.stallMs; });
    std::string each;
    for (const TourRun &r : runs) {
        char figure[32];
        std::snprintf(figure, sizeof figure, "%s%.0f", each.empty() ? "" : ", ", r.stallMs);
        each += figure;
    }
    std::printf("| %s | %s | %.0f ms | %s | %.1f s |\n", what, each.c_str(), worst->stallMs, worst->during.c_str(),
                runs.front().seconds);
}

// Every core kept busy by a spinning thread at the normal priority for as long as it lives: the
// "under load" of a machine building or running something else beside the window (#40).
class BusyCores {
public:
    BusyCores()
    {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        for (unsigned i = 0; i < cores; ++i)
            m_threads.emplace_back([this] {
                volatile uint64_t spin = 0;
                while (!m_stop.load(std::memory_order_relaxed))
                    spin = spin + 1;
            });
    }
    ~BusyCores()
    {
        m_stop = true;
        for (std::thread &t : m_threads)
            t.join();
    }
    BusyCores(const BusyCores &) = delete;
    BusyCores &operator=(const BusyCores &) = delete;

private:
    std::atomic<bool> m_stop{false};
    std::vector<std::thread> m_threads;
};

} // namespace

void benchStall(const std::string &dir, const std::string &explorer)
{
    if (!std::filesystem::exists(explorer)) {
        std::printf("\n(no %s: the `stall` section needs gguf-explorer; pass --explorer PATH)\n", explorer.c_str());
        return;
    }
    const std::string shots = dir + "/bench-stall-shots";
    std::filesystem::create_directories(shots);
    const std::string big = dir + "/bench-stall-big.gguf";
    uint64_t claimed = 0;
    writeBigSparseModel(big, claimed);
    std::printf("\n## The window never waits: `gguf-explorer --screenshot` tours with GGUF_STALL_REPORT=1\n\n"
                "Every page and Weights view, the Bytes page at the last byte; the longest time the GUI thread "
                "did not return to its event loop (PNG encoding of the tour left out), three runs each.\n\n");
    std::printf("| file | max-stall-ms, 3 runs | worst | during | tour (first run) |\n|---|---:|---:|---|---:|\n");
    report("floor: a file that does not exist (empty window)", explorer, shots + "/floor", dir + "/no-such-file.gguf");
    report("bundled sample (tiny-llama-tied-q4_k_m, 9 MB)", explorer, shots + "/sample", "");
    char what[160];
    std::snprintf(what, sizeof what, "generated model: 256k tokens, 500k merges, 20,000 tensors, %.1f GB (sparse)",
                  static_cast<double>(claimed) / 1e9);
    report(what, explorer, shots + "/big", big);
    {
        // under load: one spinning thread per core beside the window, and the floor under the same load
        const BusyCores busy;
        report("under load (a spinning thread per core): floor, empty window", explorer, shots + "/floor-busy",
               dir + "/no-such-file.gguf");
        report("under load: bundled sample", explorer, shots + "/sample-busy", "");
    }
    std::filesystem::remove(big);
    std::filesystem::remove_all(shots);
}

} // namespace bench
