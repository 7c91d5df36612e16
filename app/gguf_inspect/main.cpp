// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-inspect: the command-line companion of GGUF Explorer (its commands, JSON keys and exit statuses are a stable
// contract: README.md, `gguf-inspect`). Each command declares the options it takes (command_line.h); any other is
// wrong usage.
#include "app/build_info/build_info.h"
#include "app/gguf_inspect/command_line.h"
#include "app/gguf_inspect/commands.h"
#include "core/net/remote_files.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstring>

namespace {

using cli::Command;
using cli::Option;
using cli::optionSet;

constexpr Command kCommands[] = {
    {"info", "info FILE [--json]", "header, counts, architecture, parameter count, tensor types", cli::runInfo,
     optionSet({Option::Json})},
    {"dump", "dump FILE [--json [--json-array]]",
     "every key/value pair and tensor record; --json prints llama.cpp's gguf_dump.py --json document", cli::runDump,
     optionSet({Option::Json, Option::JsonArray})},
    {"tensors", "tensors FILE [--json | --names]",
     "the tensor index: name, type, dims, elements, bytes, offsets; --names: only the names, one per line",
     cli::runTensors, optionSet({Option::Json, Option::Names})},
    {"vocab", "vocab FILE [--json]", "the tokenizer vocabulary: id, token, decoded text, type, score", cli::runVocab,
     optionSet({Option::Json})},
    {"validate", "validate FILE [--json]",
     "what llama.cpp would object to; exit status 0 when it would load the file, 1 when not", cli::runValidate,
     optionSet({Option::Json})},
    {"layout", "layout FILE [--json]", "every byte of the file in order: offset, size, kind, label", cli::runLayout,
     optionSet({Option::Json})},
    {"dequant", "dequant FILE TENSOR -o OUT",
     "the tensor's values as float32: raw little-endian, or NumPy when OUT ends in .npy ('-': stdout)", cli::runDequant,
     optionSet({Option::Output}), true},
    {"stats", "stats FILE [TENSOR...] [--bins N] [--range LO HI] [--fast] [--sample MIB] [--json]",
     "count, min, max, mean, std, zeros, NaN, Inf, percentiles and a histogram (every tensor when none is named); "
     "exact unless --fast asks for the one-pass estimates, or --sample for estimates from about MIB MiB of each "
     "larger tensor (a remote file fetches only those blocks)",
     cli::runStats, optionSet({Option::Bins, Option::Range, Option::Fast, Option::Sample, Option::Json}), true},
    {"tokenize", "tokenize FILE [TEXT | --file F] [--add-special] [--parse-special] [--json]",
     "the token ids of TEXT (or of file F, or of standard input) as llama.cpp gives them, on one line; "
     "--json: [{\"id\",\"token\",\"text\"}]",
     cli::runTokenize, optionSet({Option::TextFile, Option::AddSpecial, Option::ParseSpecial, Option::Json}), true},
    {"detokenize", "detokenize FILE ID...", "the text of the token ids, as llama.cpp renders them", cli::runDetokenize,
     0, true},
    {"diff", "diff A B [--values] [--tensor NAME...] [--json]",
     "what differs between two models (each may be a split set): metadata, tokenizer, tensor index; --values also "
     "compares the tensors' values (RMSE, max |a-b|, mean |a-b|/mean |a|, cosine, SNR, relative L2); --tensor "
     "compares only the tensors named. With a Hugging Face checkpoint (folder, index or .safetensors) as A or B, the "
     "GGUF's tensors pair with the checkpoint's by llama.cpp's conversion, undone; two checkpoints pair by name, "
     "config.json key by key. Exit status 0 identical, 1 "
     "different, 3 a file could not be read",
     cli::runDiff, optionSet({Option::Values, Option::Tensor, Option::Json}), true},
    {"set",
     "set FILE KEY=VALUE... [--type KEY=TYPE] [--remove KEY] [--chat-template-file F [--force]] [--reserve BYTES] "
     "(-o OUT | --in-place) [--json]",
     "edits the metadata; tensor bytes are kept as they are. A value is read by the key's type (a list [a, b] "
     "for arrays; KEY[N]=VALUE changes one element; an enum key also takes its names: general.file_type=Q8_0); a new "
     "key needs --type. A chat template that does not parse is refused unless --force. Written in place when the new "
     "header "
     "fits before the data, else by a copy renamed over the target; without -o or --in-place nothing is written",
     cli::runSet,
     optionSet({Option::Type, Option::Remove, Option::ChatTemplateFile, Option::InPlace, Option::Reserve, Option::Force,
                Option::Output, Option::Json}),
     true},
    {"memory",
     "memory FILE [--ctx N] [--parallel N] [--ubatch N] [--cache-type-k T] [--cache-type-v T] [--flash-attn] "
     "[--gpu-layers N] [--device NAME=GIB]… [--tensor-split a,b,…] [--split-mode M] [--main-gpu N] "
     "[-ot REGEX=BUF]… [--n-cpu-moe N] [--cpu-moe] [--no-mmap] [--budget GIB] [--json]",
     "the memory llama.cpp needs to run the model, per device: weights, KV cache (per layer), compute and output "
     "buffers, each with its formula; with --device (repeatable) the layers are split over several GPUs as "
     "llama.cpp does, -ot/--n-cpu-moe/--cpu-moe move tensors, and every tensor's place is listed with why; "
     "--budget: the largest context that fits in GIB (on the GPU when layers are offloaded, else in RAM)",
     cli::runMemory,
     optionSet({Option::Ctx, Option::Parallel, Option::Ubatch, Option::CacheTypeK, Option::CacheTypeV,
                Option::FlashAttn, Option::GpuLayers, Option::NoMmap, Option::Budget, Option::Json, Option::Device,
                Option::TensorSplit, Option::SplitMode, Option::MainGpu, Option::OverrideTensor, Option::NCpuMoe,
                Option::CpuMoe})},
    {"fit",
     "fit FILE --device NAME=GIB... [--ctx N | --max-ctx] [--margin MIB] [--tensor-split A,B,...] [--split-mode M] "
     "[--main-gpu N] [-ot REGEX=BUF]... [--cache-type-k T] [--cache-type-v T] [--flash-attn] [--parallel N] "
     "[--ubatch N] [--no-mmap] [--json]",
     "the llama.cpp settings that fit the devices, each keeping a margin free: the most layers on the GPUs, then "
     "the fewest layers whose experts stay on the CPU (--n-cpu-moe), then the context given or (--max-ctx) the "
     "largest; the plan per device, why one step more would not fit, and the llama-server command line",
     cli::runFit,
     optionSet({Option::Ctx, Option::MaxCtx, Option::Margin, Option::Parallel, Option::Ubatch, Option::CacheTypeK,
                Option::CacheTypeV, Option::FlashAttn, Option::NoMmap, Option::Json, Option::Device,
                Option::TensorSplit, Option::SplitMode, Option::MainGpu, Option::OverrideTensor, Option::CpuMoe})},
    {"hash", "hash FILE [--xxh64] [--sha1] [--sha256] [--uuid] [--all] [--no-layer] [--check MANIFEST]",
     "llama-gguf-hash's hashes of each tensor's data and of all of it (never the metadata: an edit leaves them), "
     "a split set as one model; --check: each line Ok, Mismatch or Not Found against a manifest of those lines, "
     "exit 1 when any differs",
     cli::runHash,
     optionSet({Option::Xxh64, Option::Sha1, Option::Sha256, Option::Uuid, Option::AllHashes, Option::NoLayer,
                Option::Check})},
    {"split", "split FILE -o PREFIX (--split-max-tensors N | --split-max-size SIZE) [--dry-run]",
     "shards as llama.cpp's gguf-split writes them: PREFIX-00001-of-0000N.gguf…, the split.no/split.count/"
     "split.tensors.count keys, the metadata in the first; written beside, synced and named at the end, never "
     "over an existing file; a Hugging Face checkpoint's as PREFIX-00001-of-0000N.safetensors and "
     "PREFIX.safetensors.index.json",
     cli::runSplit, optionSet({Option::Output, Option::SplitMaxTensors, Option::SplitMaxSize, Option::DryRun})},
    {"merge", "merge SHARD1 -o OUT [--dry-run]",
     "a split set as one file: the first shard's metadata less the split keys, every tensor's bytes; a checkpoint's "
     "shards as one .safetensors file",
     cli::runMerge, optionSet({Option::Output, Option::DryRun})},
    {"report", "report FILE [-o F.md | F.html]",
     "one self-contained document to attach to an issue: overview, llama.cpp's verdict with its findings, the "
     "metadata (long arrays summarised, chat templates in full), the tensors, the type mix as a chart and the memory "
     "at the trained context; Markdown (GitHub's) on stdout, or a file by its ending: .md, or .html (one page, "
     "images inline, readable offline)",
     cli::runReport, optionSet({Option::Output})},
};

// `gguf-inspect FILE`: the overview, or with --json what `info --json` prints.
int runOverview(const cli::CommandArgs &args)
{
    return args.json ? cli::runInfo(args) : cli::runSummary(args);
}
constexpr Command kOverview{"", "FILE [--json]", "overview of the file and its first tensors", runOverview,
                            optionSet({Option::Json})};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // every FILE may be an http(s) URL or an hf: name (docs/REMOTE.md)
    gguf::net::enableRemoteFiles(gguf::net::remoteOptionsFromEnvironment());
    QCoreApplication::setApplicationName(QStringLiteral("gguf-inspect"));
    QCoreApplication::setApplicationVersion(QString::fromStdString(gguf::build::versionLine()));
    const cli::Invocation invocation = cli::parseCommandLine(kCommands, kOverview, argc, argv);
    if (invocation.exit)
        return *invocation.exit;

    // Full buffering: JSON and tables are written in many small pieces.
    static char buffer[1 << 16];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    // a safetensors FILE takes its own path (#43)
    const std::optional<int> safetensors = cli::runSafetensors(invocation.command->name, invocation.args);
    const int status = safetensors ? *safetensors : invocation.command->run(invocation.args);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fputs("gguf-inspect: cannot write to standard output\n", stderr);
        // for diff, 1 would read as "the two differ"
        return std::strcmp(invocation.command->name, "diff") == 0 ? cli::kExitUnreadable : cli::kExitBadFile;
    }
    return status;
}
