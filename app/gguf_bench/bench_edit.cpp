// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_bench/bench_edit.h"

#include "app/gguf_bench/bench_files.h"
#include "app/gguf_bench/bench_util.h"
#include "core/edit/file_writer.h"
#include "core/edit/header_writer.h"
#include "core/format/gguf_file.h"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace bench {
namespace {

// One save of `changes` to `path`: open, plan, write. Seconds of plan + write; negative on failure.
double saveOnce(const std::string &path, const gguf::MetadataChanges &changes, bool expectInPlace)
{
    const gguf::OpenResult r = gguf::GgufFile::open(path);
    if (!r.file)
        return -1;
    const double t0 = now();
    std::string error;
    const auto plan = gguf::planHeader(*r.file, changes, {}, error);
    if (!plan || plan->fitsInPlace != expectInPlace)
        return -1;
    const gguf::SaveResult s = gguf::writeEdited(*r.file, *plan, path, true);
    const double seconds = now() - t0;
    return s.ok && s.inPlace == expectInPlace ? seconds : -1;
}

// What an in-place save must do at least: write `bytes` bytes twice (backup, header) and sync each.
double writeTwiceAndSync(const std::string &dir, uint64_t bytes)
{
    std::vector<uint8_t> data(bytes, 0x20);
    const double t0 = now();
    for (int i = 0; i < 2; ++i) {
        const std::string path = dir + "/bench-edit-floor-" + std::to_string(i);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || ::pwrite(fd, data.data(), data.size(), 0) != static_cast<ssize_t>(data.size()) ||
            ::fsync(fd) != 0)
            return -1;
        ::close(fd);
    }
    const double seconds = now() - t0;
    for (int i = 0; i < 2; ++i)
        std::filesystem::remove(dir + "/bench-edit-floor-" + std::to_string(i));
    return seconds;
}

double timedShell(const std::string &command)
{
    const double t0 = now();
    return std::system(command.c_str()) == 0 ? now() - t0 : -1;
}

} // namespace

void benchEdit(const std::string &dir, bool quick)
{
    // in place: the generated model with 20,000 tensors claiming 30 GB
    const std::string big = dir + "/bench-edit-big.gguf";
    uint64_t claimed = 0;
    const uint64_t header = writeBigSparseModel(big, claimed);
    std::vector<double> saves, floors;
    for (int i = 0; i < 9; ++i) {
        gguf::MetadataChanges c; // same length each time: the header keeps its size
        c.set("general.name",
              gguf::OwnedValue::string(i % 2 ? "benchmark model (edited 1)" : "benchmark model (edited 2)"));
        saves.push_back(saveOnce(big, c, true));
        floors.push_back(writeTwiceAndSync(dir, header));
    }
    std::filesystem::remove(big);
    std::printf("\n## Saving a metadata edit (median of 9 in place, of 3 by a copy)\n\n"
                "| save | time | floor in the same run | goal |\n|---|---:|---:|---|\n");
    const bool inPlaceOk = std::none_of(saves.begin(), saves.end(), [](double s) { return s < 0; });
    if (inPlaceOk)
        std::printf("| in place, %.1f GB model (sparse), header %.1f MB: plan + backup + write + sync | %.1f ms | "
                    "write and sync the header twice: %.1f ms | < 100 ms |\n",
                    static_cast<double>(claimed) / 1e9, static_cast<double>(header) / 1e6, medianOf(saves) * 1e3,
                    medianOf(floors) * 1e3);
    else
        std::printf("| in place | (a save failed) | | |\n");

    // by a copy: a model of real bytes, its header grown past the space before the data
    const uint64_t bytes = quick ? (uint64_t(256) << 20) : (uint64_t(1) << 30);
    const std::string model = dir + "/bench-edit-copy.gguf", copy = dir + "/bench-edit-cp.gguf";
    writeSingleTensorFile(model, 8 /* Q8_0 */, bytes / 34 * 34);
    std::vector<double> copies, cps, cpSyncs;
    for (int i = 0; i < 3; ++i) {
        gguf::MetadataChanges c;
        c.set("general.name", gguf::OwnedValue::string(std::string(4096 + i * 4096, 'n')));
        copies.push_back(saveOnce(model, c, false));
        cps.push_back(timedShell("cp '" + model + "' '" + copy + "'"));
        std::filesystem::remove(copy);
        cpSyncs.push_back(timedShell("cp '" + model + "' '" + copy + "' && sync '" + copy + "'"));
        std::filesystem::remove(copy);
    }
    const uint64_t size = std::filesystem::file_size(model);
    std::filesystem::remove(model);
    const auto rate = [&](double seconds) { return static_cast<double>(size) / 1e6 / seconds; };
    if (std::any_of(copies.begin(), copies.end(), [](double s) { return s < 0; }))
        std::printf("| by a copy | (a save failed) | | |\n");
    else
        std::printf("| by a copy, %.0f MB of real bytes: write beside, copy the data, sync, rename | %.0f MB/s "
                    "(%.2f s) | `cp`: %.0f MB/s; `cp` + `sync`: %.0f MB/s | disk speed |\n",
                    static_cast<double>(size) / 1e6, rate(medianOf(copies)), medianOf(copies), rate(medianOf(cps)),
                    rate(medianOf(cpSyncs)));
}

} // namespace bench
