// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-inspect's command line: the options it knows, the commands that take each of them, and the
// parse that turns argv into one command's arguments (or an exit status: help, version, wrong usage).
#pragma once

#include "app/gguf_inspect/cli_common.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>

namespace cli {

/// Every option of gguf-inspect (the table in command_line.cpp gives their names and help).
enum class Option : uint8_t {
    Json,
    JsonArray,
    Names,
    Output,
    Bins,
    Range,
    Fast,
    Sample,
    TextFile,
    AddSpecial,
    ParseSpecial,
    Values,
    Tensor,
    Type,
    Remove,
    ChatTemplateFile,
    InPlace,
    Reserve,
    Force,
    Ctx,
    Parallel,
    Ubatch,
    CacheTypeK,
    CacheTypeV,
    FlashAttn,
    GpuLayers,
    NoMmap,
    Budget,
    Device,
    TensorSplit,
    SplitMode,
    MainGpu,
    OverrideTensor,
    NCpuMoe,
    CpuMoe,
    MaxCtx,
    Margin,
    Xxh64,
    Sha1,
    Sha256,
    Uuid,
    AllHashes,
    NoLayer,
    Check,
    SplitMaxTensors,
    SplitMaxSize,
    DryRun,
    Count
};

/// A set of options, one bit each.
using OptionSet = uint64_t;
static_assert(static_cast<unsigned>(Option::Count) <= 64);
constexpr OptionSet optionSet(std::initializer_list<Option> options)
{
    OptionSet set = 0;
    for (const Option o : options)
        set |= OptionSet(1) << static_cast<unsigned>(o);
    return set;
}

/// A sub-command: what --help says of it, the options it takes (any other is wrong usage) and
/// whether it takes positional arguments after FILE (tensor names, text, ids, KEY=VALUE).
struct Command {
    const char *name;
    const char *synopsis;
    const char *summary;
    int (*run)(const CommandArgs &);
    OptionSet takes = 0;
    bool takesArguments = false;
};

/// What the command line asks for: `command` (the overview when no command is named) run with
/// `args`, or, when `exit` is set, nothing more to do: help or the version was printed, or a
/// usage error was (exit is then kExitUsage).
struct Invocation {
    const Command *command = nullptr;
    CommandArgs args;
    std::optional<int> exit;
};

/// Parses argv. `overview` is `gguf-inspect FILE`, the form without a command.
Invocation parseCommandLine(std::span<const Command> commands, const Command &overview, int argc, char *argv[]);

} // namespace cli
