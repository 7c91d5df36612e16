// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "app/gguf_inspect/cli_common.h"

namespace gguf::st {
class Checkpoint;
}

namespace cli {

// Each command returns an exit status (kExitOk, kExitBadFile). Output goes to stdout, the one-line
// diagnostic of an unreadable file to stderr.

/// `gguf-inspect FILE`: overview and the first tensors.
int runSummary(const CommandArgs &args);
/// `info FILE [--json]`.
int runInfo(const CommandArgs &args);
/// `dump FILE --json [--json-array]`: gguf_dump.py's document (tests/data/gguf-dump/README.md).
int runDump(const CommandArgs &args);
/// `tensors FILE [--json | --names]`.
int runTensors(const CommandArgs &args);
/// `vocab FILE [--json]`.
int runVocab(const CommandArgs &args);
/// `validate FILE [--json]`: exit 0 when llama.cpp would accept the file (docs/FORMAT.md §5), 1 when not.
int runValidate(const CommandArgs &args);
/// `layout FILE [--json]`: every byte of the file, in order.
int runLayout(const CommandArgs &args);
/// A FILE whose first bytes say safetensors (#43): the overview ("" command), info, tensors,
/// validate and layout for it, or a clear refusal for the other commands; nullopt for any other file.
std::optional<int> runSafetensors(std::string_view command, const CommandArgs &args);
/// `dequant FILE TENSOR -o OUT`: float32 values, raw or .npy.
int runDequant(const CommandArgs &args);
/// `stats FILE [TENSOR…] [--bins N] [--range LO HI] [--fast] [--json]`.
int runStats(const CommandArgs &args);
/// `tokenize FILE [TEXT | --file F] [--add-special] [--parse-special] [--json]`: llama.cpp's token ids.
int runTokenize(const CommandArgs &args);
/// `detokenize FILE ID...`: the text of the ids.
int runDetokenize(const CommandArgs &args);

/// `diff A B [--values] [--tensor NAME...] [--json]`: exit 0 identical, 1 different, 3 a file unreadable.
int runDiff(const CommandArgs &args);

/// `set FILE KEY=VALUE... [--type KEY=TYPE] [--remove KEY] [--chat-template-file F] (-o OUT | --in-place)`:
/// exit 0 written, 1 unreadable or the write failed (the file is then unchanged), 2 usage (nothing written).
int runSet(const CommandArgs &args);

/// `memory FILE [--ctx N] [--parallel N] [--ubatch N] [--cache-type-k T] [--cache-type-v T] [--flash-attn]
/// [--gpu-layers N] [--no-mmap] [--budget GIB] [--json]`: what llama.cpp needs to run the model.
int runMemory(const CommandArgs &args);

/// `fit FILE --device NAME=GIB... [--ctx N | --max-ctx] [--margin MIB] [--json]` and the placement and
/// cache options of memory: the llama.cpp settings that fit the devices, as a llama-server command line.
int runFit(const CommandArgs &args);

/// memory and fit on a model already opened (a checkpoint as its converter would make it, #43); fit's
/// llama-server line names `modelPath`.
int runMemoryOn(const CommandArgs &args, const gguf::SplitModel &model);
int runFitOn(const CommandArgs &args, const gguf::SplitModel &model, const std::string &modelPath);

/// `hash FILE [--xxh64] [--sha1] [--sha256] [--uuid] [--all] [--no-layer] [--check MANIFEST]`:
/// llama-gguf-hash's lines; with --check each marked Ok, Mismatch or Not Found, exit 1 when any
/// differs.
int runHash(const CommandArgs &args);
/// `hash` of a Hugging Face checkpoint: each tensor's bytes as the shards hold them, in the index's order.
int runHashOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);

/// `split FILE -o PREFIX (--split-max-tensors N | --split-max-size SIZE) [--dry-run]` and
/// `merge SHARD1 -o OUT [--dry-run]`: gguf-split's shards, and a set as one file.
int runSplit(const CommandArgs &args);
int runMerge(const CommandArgs &args);

/// `report FILE [-o F.md | F.html]`: one self-contained document about the model (Markdown on stdout
/// without -o); exit 0 written, 1 the file unreadable or the write failed, 2 usage.
int runReport(const CommandArgs &args);
/// `report` of a Hugging Face checkpoint (cli_safetensors.cpp hands it over).
int runReportOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);
/// `tokenize` and `detokenize` on a checkpoint: its tokenizer.json, run as Hugging Face's tokenizers
/// library runs it (cli_tokenize.cpp).
int runTokenizeOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);
int runDetokenizeOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);
/// split, merge and set on a Hugging Face checkpoint: safetensors shards with their index, the
/// shards as one file, a file's `__metadata__` (cli_split.cpp, cli_set.cpp).
int runSplitOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);
int runMergeOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);
int runSetOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args);
/// The tokenizer.json beside a checkpoint could not be read: "no tokenizer.json beside the
/// checkpoint", or the error at its path (cli_safetensors.cpp).
void reportTokenizerJsonError(const gguf::st::Checkpoint &checkpoint, const std::string &file,
                              const gguf::Error &error);

} // namespace cli
