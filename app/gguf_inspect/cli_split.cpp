// SPDX-License-Identifier: GPL-3.0-or-later
// `split` and `merge`: shards as llama.cpp's gguf-split makes them, and a set made one file again
// (core/edit/shard_writer.h, docs/EDITING.md §6); for a Hugging Face checkpoint, safetensors
// shards with their index, and shards as one .safetensors file (core/edit/checkpoint_writer.h).
#include "app/gguf_inspect/commands.h"

#include "core/edit/checkpoint_writer.h"
#include "core/edit/shard_writer.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"

#include <charconv>
#include <cstdio>

namespace cli {
namespace {

// "500M", "2G" (decimal, as gguf-split reads them), or a number of bytes; nullopt when not that.
std::optional<uint64_t> sizeOf(const std::string &text)
{
    uint64_t n = 0;
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, n);
    if (ec != std::errc() || n == 0)
        return std::nullopt;
    if (ptr == end)
        return n;
    if (ptr + 1 != end)
        return std::nullopt;
    const uint64_t unit = *ptr == 'M' ? 1000 * 1000 : *ptr == 'G' ? 1000 * 1000 * 1000 : 0;
    if (unit == 0 || n > UINT64_MAX / unit)
        return std::nullopt;
    return n * unit;
}

int writeOut(const char *command, const gguf::SplitModel &model, const gguf::WritePlan &plan, bool split, bool dryRun)
{
    if (!plan.error.empty()) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", command, printable(plan.error).c_str());
        return kExitBadFile;
    }
    for (const gguf::PlannedFile &f : plan.files)
        print(printable(f.path) + ": " + std::to_string(f.tensors.size()) +
              (f.tensors.size() == 1 ? " tensor, " : " tensors, ") + humanBytes(f.dataBytes) + " of tensor data\n");
    if (dryRun) {
        print("(dry run: nothing written)\n");
        return kExitOk;
    }
    const InterruptWatch interrupt;
    ProgressPrinter progress("writing the tensor data");
    const gguf::WriteOutcome out = gguf::writePlan(model, plan, split, [&](uint64_t done, uint64_t total) {
        return !interrupt.interrupted() && progress(done, total);
    });
    if (!out.ok) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", command, printable(out.message).c_str());
        return kExitBadFile;
    }
    print(std::string("written: ") + std::to_string(plan.files.size()) +
          (plan.files.size() == 1 ? " file\n" : " files\n"));
    return kExitOk;
}

// --split-max-tensors N or --split-max-size SIZE (one of them); nullopt after a usage message.
std::optional<gguf::SplitLimits> splitLimits(const CommandArgs &args)
{
    gguf::SplitLimits limits;
    if (args.split.maxTensors) {
        uint64_t n = 0;
        const std::string &t = *args.split.maxTensors;
        const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (ec != std::errc() || ptr != t.data() + t.size() || n == 0) {
            usageError("split", "--split-max-tensors needs a number of tensors, not '" + t + "'");
            return std::nullopt;
        }
        limits.maxTensors = n;
    }
    if (args.split.maxSize) {
        const auto n = sizeOf(*args.split.maxSize);
        if (!n) {
            usageError("split", "--split-max-size needs a size such as 500M or 2G, not '" + *args.split.maxSize + "'");
            return std::nullopt;
        }
        limits.maxBytes = *n;
    }
    if ((limits.maxTensors != 0) == (limits.maxBytes != 0)) {
        usageError("split", "give one of --split-max-tensors N and --split-max-size SIZE");
        return std::nullopt;
    }
    return limits;
}

} // namespace

int runSplit(const CommandArgs &args)
{
    if (args.output.empty())
        return usageError("split", "split needs -o PREFIX (the shards are PREFIX-00001-of-0000N.gguf, …)");
    const std::optional<gguf::SplitLimits> limits = splitLimits(args);
    if (!limits)
        return kExitUsage;
    const auto model = openModel(args.file);
    if (!model)
        return kExitBadFile;
    return writeOut("split", *model, gguf::planSplit(*model, args.output, *limits), true, args.split.dryRun);
}

int runMerge(const CommandArgs &args)
{
    if (args.output.empty())
        return usageError("merge", "merge needs -o OUT");
    const auto model = openModel(args.file);
    if (!model)
        return kExitBadFile;
    if (!model->isSplit()) {
        std::fprintf(
            stderr, "gguf-inspect: merge: %s is no shard of a split set (its name is not PREFIX-0000K-of-0000N.gguf)\n",
            printable(args.file).c_str());
        return kExitBadFile;
    }
    return writeOut("merge", *model, gguf::planMerge(*model, args.output), false, args.split.dryRun);
}

namespace {

// A checkpoint's plan: the files, then (unless a dry run) written.
int writeCheckpoint(const char *command, const gguf::st::Checkpoint &checkpoint, const gguf::CheckpointPlan &plan,
                    bool dryRun)
{
    if (!plan.error.empty()) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", command, printable(plan.error).c_str());
        return kExitBadFile;
    }
    for (const gguf::CheckpointFile &f : plan.files)
        print(printable(f.path) + ": " + countOf(f.tensors.size(), "tensor", "tensors") + ", " +
              humanBytes(f.dataBytes) + " of tensor data\n");
    if (!plan.indexPath.empty())
        print(printable(plan.indexPath) + ": the index (weight_map of " +
              countOf(checkpoint.tensors().size(), "tensor", "tensors") + ")\n");
    if (dryRun) {
        print("(dry run: nothing written)\n");
        return kExitOk;
    }
    const InterruptWatch interrupt;
    ProgressPrinter progress("writing the tensor data");
    const gguf::WriteOutcome out = gguf::writeCheckpointPlan(checkpoint, plan, [&](uint64_t done, uint64_t total) {
        return !interrupt.interrupted() && progress(done, total);
    });
    if (!out.ok) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", command, printable(out.message).c_str());
        return kExitBadFile;
    }
    const size_t count = plan.files.size() + (plan.indexPath.empty() ? 0 : 1);
    print("written: " + countOf(count, "file", "files") + "\n");
    return kExitOk;
}

} // namespace

int runSplitOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    if (args.output.empty())
        return usageError("split", "split needs -o PREFIX (the shards are PREFIX-00001-of-0000N.safetensors, …)");
    const std::optional<gguf::SplitLimits> limits = splitLimits(args);
    if (!limits)
        return kExitUsage;
    return writeCheckpoint("split", checkpoint, gguf::planCheckpointSplit(checkpoint, args.output, *limits),
                           args.split.dryRun);
}

int runMergeOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    if (args.output.empty())
        return usageError("merge", "merge needs -o OUT.safetensors");
    return writeCheckpoint("merge", checkpoint, gguf::planCheckpointMerge(checkpoint, args.output), args.split.dryRun);
}

} // namespace cli
