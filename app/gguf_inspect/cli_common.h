// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/util/text_format.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cli {

/// Exit statuses of the command contract (README.md, `gguf-inspect`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadFile =
    1; ///< the file could not be read as GGUF (or, for validate, llama.cpp would refuse it)
inline constexpr int kExitUsage = 2;
/// diff: the two files differ (kExitBadFile's value), or one could not be read.
inline constexpr int kExitDifferent = 1;
inline constexpr int kExitUnreadable = 3;

/// memory: the options as typed (checked by the command).
struct MemoryOptions {
    std::optional<std::string> ctx, parallel, ubatch, typeK, typeV, gpuLayers, budget;
    bool flashAttn = false;
    bool noMmap = false;
    // placement over several devices (#44)
    std::vector<std::string> devices; ///< --device NAME=GIB, in order
    std::optional<std::string> tensorSplit, splitMode, mainGpu, nCpuMoe;
    std::vector<std::string> overrides; ///< -ot REGEX=BUF, in order
    bool cpuMoe = false;
    bool maxCtx = false;               ///< fit: --max-ctx
    std::optional<std::string> margin; ///< fit: --margin MIB
    bool any() const
    {
        return ctx || parallel || ubatch || typeK || typeV || gpuLayers || budget || flashAttn || noMmap || placement();
    }
    /// Any option of the multi-device plan.
    bool placement() const
    {
        return !devices.empty() || tensorSplit || splitMode || mainGpu || nCpuMoe || !overrides.empty() || cpuMoe;
    }
};

/// hash: the options as typed.
struct HashOptions {
    bool xxh64 = false, sha1 = false, sha256 = false, uuid = false, all = false, noLayer = false;
    std::optional<std::string> check; ///< --check MANIFEST
};

/// split, merge: the options as typed.
struct SplitOptions {
    std::optional<std::string> maxTensors, maxSize;
    bool dryRun = false;
};

/// What a command was given on the command line.
struct CommandArgs {
    std::string file;              ///< FILE exactly as typed (gguf_dump.py echoes it as "filename")
    std::vector<std::string> rest; ///< further positional arguments
    bool json = false;
    bool jsonArray = false;
    bool names = false;                             ///< tensors: --names (one name per line)
    std::string output;                             ///< dequant: -o OUT
    long long bins = 64;                            ///< stats: --bins N
    long long sampleMiB = 0;                        ///< stats: --sample MIB (0: read every value)
    bool fast = false;                              ///< stats: --fast (one pass: estimated histogram and percentiles)
    std::optional<std::pair<double, double>> range; ///< stats: --range LO HI
    bool addSpecial = false;                        ///< tokenize: --add-special
    bool parseSpecial = false;                      ///< tokenize: --parse-special
    std::optional<std::string> textFile;            ///< tokenize: --file F ('-': standard input)
    bool values = false;                            ///< diff: --values
    std::vector<std::string> tensors;               ///< diff: --tensor NAME (repeatable)
    std::vector<std::string> types;                 ///< set: --type KEY=TYPE (repeatable)
    std::vector<std::string> removes;               ///< set: --remove KEY (repeatable)
    std::optional<std::string> chatTemplateFile;    ///< set: --chat-template-file F ('-': standard input)
    bool inPlace = false;                           ///< set: --in-place
    uint64_t reserve = 0;                           ///< set: --reserve BYTES
    bool force = false;                             ///< set: --force (a chat template that does not parse)
    MemoryOptions memory;                           ///< memory: --ctx, --parallel, …
    HashOptions hash;                               ///< hash: --xxh64, --check, …
    SplitOptions split;                             ///< split, merge: --split-max-tensors, --dry-run, …
};

/// Opens the one file `path` (not its split set), which must parse whole; on failure prints the
/// one-line diagnostic and returns null.
std::shared_ptr<const gguf::GgufFile> openFile(const std::string &path);

/// Opens `path` and, when it is one shard of a split, the others; on failure (any shard) prints
/// one line and returns null.
std::shared_ptr<const gguf::SplitModel> openModel(const std::string &path);

/// Opens `path` as the window does: a split set as a set, a damaged file or set as far as it
/// parses, a missing shard left out. Null, after the one-line diagnostic, when `path` itself is
/// refused (not a GGUF, unreadable, …).
std::shared_ptr<const gguf::SplitModel> openModelAsFarAsItParses(const std::string &path);

/// The file that holds a model's metadata (vocabulary, chat template, hyperparameters): FILE itself,
/// or shard 1 of the split set FILE belongs to, whichever shard FILE names.
struct MetadataFile {
    std::string path;
    std::shared_ptr<const gguf::GgufFile> file;
};
/// Opens `path` as a set and returns its metadata file; null `file`, after the one-line diagnostic,
/// when that file cannot be read whole (shard 1 missing, cut, not a GGUF…).
MetadataFile openMetadataFile(const std::string &path);

/// The tensor table of `model` (of a split set: every shard's tensors as one list, "#" counting
/// across the set, a shard column): rows [first, first + count), indented by `indent`. Offsets are
/// named: "data offset" from the start of the tensor data, "file offset" from the start of the file.
void printTensorTable(const gguf::SplitModel &model, size_t first, size_t count, size_t indent);

/// "== shard 2 of 3: PATH" before a shard's part of a per-file listing (a blank line before all but the
/// first); a shard that was not read gets "not read: <why>" under it. Returns that shard's file, or null.
const gguf::GgufFile *printShardHeading(const gguf::SplitModel &model, size_t index);

/// When a shard of `model` is missing or broke off, prints the first such problem in shard order as
/// one line on stderr and returns true (the command then exits 1 after its output).
bool reportModelProblem(const gguf::SplitModel &model);

/// One row of `layout`'s text table.
struct LayoutRow {
    uint64_t offset = 0, size = 0;
    std::string_view kind;
    std::string label;
};
/// `layout`'s table: offset, hex offset, size, kind, label (made printable, at most 120 characters).
void printLayoutTable(const std::vector<LayoutRow> &rows);

/// Whether `path` names an existing file among `files` (links followed): an output a command must
/// never write over its input.
bool namesOneOf(const std::vector<std::string> &files, const std::string &path);

/// "gguf-inspect: COMMAND: <message>" and the --help hint on stderr; returns kExitUsage.
int usageError(std::string_view command, const std::string &message);

/// "gguf-inspect: model.gguf: <what was wrong> (offset N)" on stderr.
void reportError(const std::string &path, const gguf::Error &error);

/// Writes text to stdout (buffered by the C library).
void print(std::string_view text);

// printable, groupDigits, countOf, humanBytes: core/util/text_format.h
using gguf::countOf;
using gguf::groupDigits;
using gguf::humanBytes;
using gguf::printable;

/// "[4096, 32000]": a tensor's dims, innermost first.
std::string shapeText(const gguf::TensorInfo &tensor);

/// A progress line on stderr ("decoding x  42%") for jobs long enough to want one, only when
/// stderr is a terminal; a ProgressFn that never cancels.
class ProgressPrinter {
public:
    explicit ProgressPrinter(std::string label);
    ~ProgressPrinter();
    ProgressPrinter(const ProgressPrinter &) = delete;
    ProgressPrinter &operator=(const ProgressPrinter &) = delete;
    bool operator()(uint64_t done, uint64_t total);

private:
    std::string m_label;
    bool m_tty = false;
    bool m_shown = false;
    int m_last = -1;
};

/// While a write runs, Ctrl-C asks it to stop (the writer removes its temporary files and leaves
/// every target as it was) instead of killing the process with the temporaries left behind.
class InterruptWatch {
public:
    InterruptWatch();
    ~InterruptWatch();
    InterruptWatch(const InterruptWatch &) = delete;
    InterruptWatch &operator=(const InterruptWatch &) = delete;
    bool interrupted() const;

private:
    void (*m_previous)(int);
};

/// A plain-text table whose columns are padded to their widest cell (counted in code points).
class TextTable {
public:
    enum class Align : uint8_t { Left, Right };
    struct Column {
        std::string header;
        Align align = Align::Left;
    };

    explicit TextTable(std::vector<Column> columns);
    void addRow(std::vector<std::string> cells);
    /// Prints the header and a rule (unless `header` is false) and the rows, each line indented by
    /// `indent` spaces.
    void print(size_t indent = 0, bool header = true) const;

private:
    std::vector<Column> m_columns;
    std::vector<std::vector<std::string>> m_rows;
};

} // namespace cli
