// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/gguf_inspect/command_line.h"

#include "app/build_info/build_info.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>

#include <cmath>
#include <cstdio>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace cli {
namespace {

struct OptionDef {
    Option id;
    const char *names;                  ///< comma-separated, the short one first: "o,output"
    const char *help;                   ///< what --help says
    const char *valueName = nullptr;    ///< null for a flag
    const char *defaultValue = nullptr; ///< the value when not given
};

// The order of Option; --help lists them so.
constexpr OptionDef kOptions[] = {
    {Option::Json, "json", "Print one JSON document."},
    {Option::JsonArray, "json-array", "dump: include the elements of arrays (implies --json)."},
    {Option::Names, "names", "tensors: only the tensor names, one per line."},
    {Option::Output, "o,output", "dequant: where to write the values; set: the edited file.", "OUT"},
    {Option::Bins, "bins", "stats: histogram bins (default 64).", "N", "64"},
    // `--range LO HI` takes two values (either may be negative), which QCommandLineParser cannot
    // express: takeRange() takes it out of the arguments before they are parsed; this entry is for
    // --help, and catches a lone "--range" or "--range=LO"
    {Option::Range, "range", "stats: histogram over [LO, HI] instead of [min, max].", "LO HI"},
    {Option::Fast, "fast", "stats: one pass, with estimated percentiles and histogram."},
    {Option::Sample, "sample",
     "stats: estimates from evenly spaced blocks, about MIB MiB of each larger tensor (implies --fast).", "MIB"},
    {Option::TextFile, "file", "tokenize: the text to tokenize ('-': standard input).", "F"},
    {Option::AddSpecial, "add-special", "tokenize: add BOS/EOS as the model asks."},
    {Option::ParseSpecial, "parse-special", "tokenize: text of control tokens becomes those tokens."},
    {Option::Values, "values", "diff: compare the tensors' values too."},
    {Option::Tensor, "tensor", "diff: compare only this tensor, with its values (repeatable).", "NAME"},
    {Option::Type, "type", "set: the type of a new key, or a new type (repeatable).", "KEY=TYPE"},
    {Option::Remove, "remove", "set: remove a key (repeatable).", "KEY"},
    {Option::ChatTemplateFile, "chat-template-file",
     "set: tokenizer.chat_template from this file ('-': standard input).", "F"},
    {Option::InPlace, "in-place", "set: write FILE itself."},
    {Option::Reserve, "reserve",
     "set: when the file must be copied, leave this many spare header bytes for later edits.", "BYTES"},
    {Option::Force, "force", "set: write a chat template that does not parse (refused without it)."},
    {Option::Ctx, "ctx", "memory: context length (default: the model's).", "N"},
    {Option::Parallel, "parallel", "memory: parallel sequences (default 1).", "N"},
    {Option::Ubatch, "ubatch", "memory: physical batch size (default 512).", "N"},
    {Option::CacheTypeK, "cache-type-k", "memory: K cache type (default f16).", "T"},
    {Option::CacheTypeV, "cache-type-v", "memory: V cache type (default f16).", "T"},
    {Option::FlashAttn, "flash-attn", "memory: flash attention on."},
    {Option::GpuLayers, "gpu-layers", "memory: layers offloaded to the GPU (default all).", "N"},
    {Option::NoMmap, "no-mmap", "memory: read the weights into memory instead of mapping."},
    {Option::Budget, "budget", "memory: find the largest context that fits in GIB.", "GIB"},
    {Option::Device, "device", "memory: a GPU and its free memory, e.g. CUDA0=24 (repeatable, in order).", "NAME=GIB"},
    {Option::TensorSplit, "tensor-split", "memory: the share of layers of each device (default: by free memory).",
     "A,B,..."},
    {Option::SplitMode, "split-mode", "memory: layer (default), row or none.", "M"},
    {Option::MainGpu, "main-gpu", "memory: the device of --split-mode none (default 0).", "N"},
    {Option::OverrideTensor, "override-tensor",
     "memory: tensors whose name REGEX finds go to BUF, CPU or a device (repeatable; first match wins).", "REGEX=BUF"},
    {Option::NCpuMoe, "n-cpu-moe", "memory: keep the experts of the first N layers on the CPU.", "N"},
    {Option::CpuMoe, "cpu-moe", "memory: keep every layer's experts on the CPU."},
    {Option::MaxCtx, "max-ctx", "fit: the largest context that fits (after the layers and experts)."},
    {Option::Margin, "margin", "fit: memory left free on each device, in MiB (default 1024, as llama.cpp's fit).",
     "MIB"},
    {Option::Xxh64, "xxh64", "hash: XXH64 (the default)."},
    {Option::Sha1, "sha1", "hash: SHA-1."},
    {Option::Sha256, "sha256", "hash: SHA-256."},
    {Option::Uuid, "uuid", "hash: the model's UUIDv5 (llama.cpp's namespace)."},
    {Option::AllHashes, "all", "hash: XXH64, SHA-1 and SHA-256."},
    {Option::NoLayer, "no-layer", "hash: the whole model only, no line per tensor."},
    {Option::Check, "check", "hash: compare with a manifest (llama-gguf-hash's lines).", "MANIFEST"},
    {Option::SplitMaxTensors, "split-max-tensors", "split: at most N tensors per shard.", "N"},
    {Option::SplitMaxSize, "split-max-size", "split: at most SIZE of tensor data per shard (500M, 2G).", "SIZE"},
    {Option::DryRun, "dry-run", "split, merge: say what would be written, write nothing."},
};
constexpr bool inOptionOrder()
{
    for (size_t i = 0; i < std::size(kOptions); ++i)
        if (static_cast<size_t>(kOptions[i].id) != i)
            return false;
    return std::size(kOptions) == static_cast<size_t>(Option::Count);
}
static_assert(inOptionOrder(), "kOptions lists every Option, in its order");

// How an option is written in messages: its first name, with one dash when it is a letter.
QString displayName(Option o)
{
    const QString first = QString::fromLatin1(kOptions[static_cast<size_t>(o)].names).section(u',', 0, 0);
    return (first.size() == 1 ? QStringLiteral("-") : QStringLiteral("--")) + first;
}

int rejectUsage(const QString &message)
{
    std::fprintf(stderr, "gguf-inspect: %s\nTry 'gguf-inspect --help'.\n", message.toLocal8Bit().constData());
    return kExitUsage;
}

// The argument's bytes as the shell passed them: a file name need not be valid in the locale's
// encoding, and a round trip through QString would lose such bytes.
class RawArguments {
public:
    RawArguments(int argc, char *argv[])
    {
        for (int i = 1; i < argc; ++i)
            m_args.emplace_back(QString::fromLocal8Bit(argv[i]), std::string(argv[i]));
    }
    std::string operator()(const QString &argument) const
    {
        for (const auto &[decoded, raw] : m_args)
            if (decoded == argument)
                return raw;
        return argument.toLocal8Bit().toStdString();
    }

private:
    std::vector<std::pair<QString, std::string>> m_args;
};

// The parser with every option of kOptions.
class Parser {
public:
    explicit Parser(std::span<const Command> commands)
    {
        QString text = QStringLiteral("Look inside GGUF model files.\n\n"
                                      "  gguf-inspect FILE            overview of the file and its first tensors\n");
        for (const Command &c : commands)
            text += QStringLiteral("  gguf-inspect %1\n      %2\n")
                        .arg(QLatin1String(c.synopsis), QLatin1String(c.summary));
        text += QStringLiteral(
            "\nExit status: 0 success, 1 the file could not be read as GGUF (validate: llama.cpp "
            "would refuse it; diff: the two differ; set: the write failed, the file unchanged; "
            "stats: a tensor's statistics could not be computed), 2 "
            "wrong usage (set: nothing written), 3 diff: a file could not be read.\n\n"
            "A FILE may also be a Hugging Face .safetensors file, a model.safetensors.index.json or a "
            "checkpoint folder: the overview, info, tensors, validate, layout, dump, vocab, stats, dequant and diff "
            "read it.");
        m_parser.setApplicationDescription(text);
        m_help = m_parser.addHelpOption();
        m_version = m_parser.addVersionOption();
        for (const OptionDef &d : kOptions) {
            QCommandLineOption option(QString::fromLatin1(d.names).split(u','), QString::fromLatin1(d.help));
            if (d.valueName)
                option.setValueName(QString::fromLatin1(d.valueName));
            if (d.defaultValue)
                option.setDefaultValue(QString::fromLatin1(d.defaultValue));
            m_options.push_back(option);
            m_parser.addOption(option);
        }
        m_parser.addPositionalArgument(QStringLiteral("command"),
                                       QStringLiteral("One of the commands above (optional)."),
                                       QStringLiteral("[command]"));
        m_parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A GGUF file."));
    }

    bool parse(const QStringList &arguments) { return m_parser.parse(arguments); }
    QString errorText() const { return m_parser.errorText(); }
    bool isSet(Option o) const { return m_parser.isSet(m_options[static_cast<size_t>(o)]); }
    QString value(Option o) const { return m_parser.value(m_options[static_cast<size_t>(o)]); }
    QStringList values(Option o) const { return m_parser.values(m_options[static_cast<size_t>(o)]); }
    QStringList positional() const { return m_parser.positionalArguments(); }

    // --help or --version: printed, with the exit status; else nullopt. (--help-all, which
    // addHelpOption adds, prints the same: a QCoreApplication has no Qt options worth listing.)
    std::optional<int> helpOrVersion() const
    {
        if (m_parser.isSet(m_help) || m_parser.isSet(QStringLiteral("help-all"))) {
            // "Usage: gguf-inspect …" rather than the full path the program was started by
            QString help = m_parser.helpText();
            const QString program = QCoreApplication::arguments().constFirst();
            if (help.startsWith(QStringLiteral("Usage: ") + program))
                help.replace(7, program.size(), QStringLiteral("gguf-inspect"));
            std::fputs(help.toLocal8Bit().constData(), stdout);
            return kExitOk;
        }
        if (m_parser.isSet(m_version)) {
            std::printf("gguf-inspect %s\n", gguf::build::versionLine().c_str());
            return kExitOk;
        }
        return std::nullopt;
    }

private:
    QCommandLineParser m_parser;
    QCommandLineOption m_help{QStringLiteral("h")};
    QCommandLineOption m_version{QStringLiteral("v")};
    std::vector<QCommandLineOption> m_options;
};

// Takes `--range LO HI` out of the arguments into `range`; a usage error's status when it is wrong.
std::optional<int> takeRange(QStringList &arguments, std::optional<std::pair<double, double>> &range)
{
    const qsizetype at = arguments.indexOf(QStringLiteral("--range"));
    if (at <= 0)
        return std::nullopt;
    bool loOk = false, hiOk = false;
    const double lo = at + 2 < arguments.size() ? arguments[at + 1].toDouble(&loOk) : 0.0;
    const double hi = at + 2 < arguments.size() ? arguments[at + 2].toDouble(&hiOk) : 0.0;
    if (!loOk || !hiOk)
        return rejectUsage(QStringLiteral("--range needs two numbers: --range LO HI"));
    if (!(std::isfinite(lo) && std::isfinite(hi) && hi > lo))
        return rejectUsage(QStringLiteral("--range LO HI needs finite numbers with LO < HI"));
    range = std::pair{lo, hi};
    arguments.remove(at, 3);
    return std::nullopt;
}

// llama.cpp's spellings of the memory options, as gguf-inspect's (-ot is not -o -t), so that fit's
// llama-server arguments can be given back to memory as they are: --ctx-size, --ubatch-size, and
// --flash-attn on|off|auto (gguf-inspect's is a flag: on; off and auto as the default, off).
void takeLlamaSpellings(QStringList &arguments)
{
    static const std::pair<const char *, const char *> kSpellings[] = {
        {"-ot", "--override-tensor"}, {"-ts", "--tensor-split"},  {"-sm", "--split-mode"},
        {"-mg", "--main-gpu"},        {"-ngl", "--gpu-layers"},   {"--n-gpu-layers", "--gpu-layers"},
        {"-ncmoe", "--n-cpu-moe"},    {"-cmoe", "--cpu-moe"},     {"-c", "--ctx"},
        {"--ctx-size", "--ctx"},      {"-ub", "--ubatch"},        {"--ubatch-size", "--ubatch"},
        {"-ctk", "--cache-type-k"},   {"-ctv", "--cache-type-v"}, {"-np", "--parallel"},
        {"-fa", "--flash-attn"}};
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        for (const auto &[llamaName, ours] : kSpellings)
            if (arguments[i] == QLatin1String(llamaName))
                arguments[i] = QLatin1String(ours);
        if (arguments[i] == QLatin1String("--flash-attn") && i + 1 < arguments.size()) {
            const QString value = arguments[i + 1];
            if (value == QLatin1String("on")) {
                arguments.removeAt(i + 1);
            } else if (value == QLatin1String("off") || value == QLatin1String("auto")) {
                arguments.removeAt(i + 1);
                arguments.removeAt(i--);
            }
        }
    }
}

// Every option given must be one the command takes.
std::optional<int> checkTakes(const Parser &parser, const Command &command, bool named, bool range)
{
    for (size_t i = 0; i < static_cast<size_t>(Option::Count); ++i) {
        const auto o = static_cast<Option>(i);
        const bool given = o == Option::Range ? range : parser.isSet(o);
        if (!given || (command.takes >> i & 1u))
            continue;
        QStringList takes;
        for (size_t k = 0; k < static_cast<size_t>(Option::Count); ++k)
            if (command.takes >> k & 1u)
                takes << displayName(static_cast<Option>(k));
        const QString what = named ? QStringLiteral("the %1 command").arg(QLatin1String(command.name))
                                   : QStringLiteral("gguf-inspect FILE (no command)");
        return rejectUsage(QStringLiteral("%1 does not take %2 (%3)")
                               .arg(what, displayName(o),
                                    takes.isEmpty() ? QStringLiteral("it takes no option")
                                                    : QStringLiteral("it takes ") + takes.join(QStringLiteral(", "))));
    }
    return std::nullopt;
}

// The numbers: --bins, --sample, --reserve.
std::optional<int> readNumbers(const Parser &parser, CommandArgs &args)
{
    if (parser.isSet(Option::Bins)) {
        bool ok = false;
        args.bins = parser.value(Option::Bins).toLongLong(&ok);
        if (!ok)
            return rejectUsage(QStringLiteral("--bins needs a number"));
    }
    if (parser.isSet(Option::Sample)) {
        bool ok = false;
        args.sampleMiB = parser.value(Option::Sample).toLongLong(&ok);
        if (!ok || args.sampleMiB < 1 || args.sampleMiB > (1 << 20))
            return rejectUsage(QStringLiteral("--sample needs a number of MiB from 1 to 1048576"));
    }
    if (parser.isSet(Option::Reserve)) {
        bool ok = false;
        args.reserve = parser.value(Option::Reserve).toULongLong(&ok);
        if (!ok || args.reserve > (uint64_t(1) << 30))
            return rejectUsage(QStringLiteral("--reserve needs a number of bytes (at most 1 GiB)"));
    }
    return std::nullopt;
}

// The command's arguments from what the parser read (the options are those the command takes).
void fillArgs(const Parser &parser, const RawArguments &raw, const QStringList &rest, CommandArgs &args)
{
    args.json = parser.isSet(Option::Json) || parser.isSet(Option::JsonArray);
    args.jsonArray = parser.isSet(Option::JsonArray);
    args.names = parser.isSet(Option::Names);
    for (const QString &r : rest)
        args.rest.push_back(raw(r));
    if (parser.isSet(Option::Output))
        args.output = raw(parser.value(Option::Output));
    args.fast = parser.isSet(Option::Fast) || parser.isSet(Option::Sample);
    args.addSpecial = parser.isSet(Option::AddSpecial);
    args.parseSpecial = parser.isSet(Option::ParseSpecial);
    if (parser.isSet(Option::TextFile))
        args.textFile = raw(parser.value(Option::TextFile));
    args.values = parser.isSet(Option::Values);
    for (const QString &name : parser.values(Option::Tensor))
        args.tensors.push_back(raw(name));
    for (const QString &spec : parser.values(Option::Type))
        args.types.push_back(raw(spec));
    for (const QString &key : parser.values(Option::Remove))
        args.removes.push_back(raw(key));
    if (parser.isSet(Option::ChatTemplateFile))
        args.chatTemplateFile = raw(parser.value(Option::ChatTemplateFile));
    args.inPlace = parser.isSet(Option::InPlace);
    args.force = parser.isSet(Option::Force);
    const auto text = [&](Option o) -> std::optional<std::string> {
        return parser.isSet(o) ? std::optional(parser.value(o).toStdString()) : std::nullopt;
    };
    args.memory.ctx = text(Option::Ctx);
    args.memory.parallel = text(Option::Parallel);
    args.memory.ubatch = text(Option::Ubatch);
    args.memory.typeK = text(Option::CacheTypeK);
    args.memory.typeV = text(Option::CacheTypeV);
    args.memory.gpuLayers = text(Option::GpuLayers);
    args.memory.budget = text(Option::Budget);
    args.memory.flashAttn = parser.isSet(Option::FlashAttn);
    args.memory.noMmap = parser.isSet(Option::NoMmap);
    for (const QString &d : parser.values(Option::Device))
        args.memory.devices.push_back(d.toStdString());
    args.memory.tensorSplit = text(Option::TensorSplit);
    args.memory.splitMode = text(Option::SplitMode);
    args.memory.mainGpu = text(Option::MainGpu);
    for (const QString &o : parser.values(Option::OverrideTensor))
        args.memory.overrides.push_back(raw(o));
    args.memory.nCpuMoe = text(Option::NCpuMoe);
    args.memory.cpuMoe = parser.isSet(Option::CpuMoe);
    args.memory.maxCtx = parser.isSet(Option::MaxCtx);
    args.memory.margin = text(Option::Margin);
    args.hash.xxh64 = parser.isSet(Option::Xxh64);
    args.hash.sha1 = parser.isSet(Option::Sha1);
    args.hash.sha256 = parser.isSet(Option::Sha256);
    args.hash.uuid = parser.isSet(Option::Uuid);
    args.hash.all = parser.isSet(Option::AllHashes);
    args.hash.noLayer = parser.isSet(Option::NoLayer);
    if (parser.isSet(Option::Check))
        args.hash.check = raw(parser.value(Option::Check));
    args.split.maxTensors = text(Option::SplitMaxTensors);
    args.split.maxSize = text(Option::SplitMaxSize);
    args.split.dryRun = parser.isSet(Option::DryRun);
}

const Command *findCommand(std::span<const Command> commands, const QString &name)
{
    for (const Command &c : commands)
        if (name == QLatin1String(c.name))
            return &c;
    return nullptr;
}

} // namespace

Invocation parseCommandLine(std::span<const Command> commands, const Command &overview, int argc, char *argv[])
{
    Invocation out;
    const auto fail = [&out](std::optional<int> status) {
        out.exit = status;
        return out;
    };
    Parser parser(commands);
    QStringList arguments = QCoreApplication::arguments();
    if (const auto status = takeRange(arguments, out.args.range))
        return fail(status);
    takeLlamaSpellings(arguments);
    if (!parser.parse(arguments))
        return fail(rejectUsage(parser.errorText()));
    // what is left of --range after the two-value form was taken out: "--range=LO" or a lone "--range"
    if (parser.isSet(Option::Range))
        return fail(rejectUsage(QStringLiteral("--range needs two numbers: --range LO HI")));
    if (const auto status = parser.helpOrVersion())
        return fail(status);

    const QStringList positional = parser.positional();
    if (positional.isEmpty())
        return fail(rejectUsage(QStringLiteral("missing FILE")));
    const Command *named = findCommand(commands, positional.front());
    const Command &command = named ? *named : overview;
    const qsizetype fileIndex = named ? 1 : 0;
    if (positional.size() <= fileIndex)
        return fail(rejectUsage(QStringLiteral("%1: missing FILE").arg(positional.front())));
    if (positional.size() > fileIndex + 1 && !command.takesArguments)
        return fail(
            rejectUsage(named ? QStringLiteral("%1: unexpected argument '%2'").arg(positional.front(), positional[2])
                              : QStringLiteral("unknown command '%1'").arg(positional.front())));
    if (const auto status = checkTakes(parser, command, named != nullptr, out.args.range.has_value()))
        return fail(status);
    if (parser.isSet(Option::Names) && parser.isSet(Option::Json))
        return fail(rejectUsage(QStringLiteral("tensors: --names and --json cannot go together")));
    const bool diff = named && QLatin1String(named->name) == QLatin1String("diff");
    // diff A B [--tensor NAME NAME…]: names after B only with --tensor
    if (diff && positional.size() > fileIndex + 2 && !parser.isSet(Option::Tensor))
        return fail(rejectUsage(QStringLiteral("diff: unexpected argument '%1'").arg(positional[fileIndex + 2])));
    if (const auto status = readNumbers(parser, out.args))
        return fail(status);

    const RawArguments raw(argc, argv);
    out.args.file = raw(positional[fileIndex]);
    fillArgs(parser, raw, positional.mid(fileIndex + 1), out.args);
    if (diff)
        for (size_t i = 1; i < out.args.rest.size(); ++i)
            out.args.tensors.push_back(out.args.rest[i]);
    out.command = &command;
    return out;
}

} // namespace cli
