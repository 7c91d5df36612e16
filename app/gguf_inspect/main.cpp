// SPDX-License-Identifier: GPL-3.0-or-later
// gguf-inspect: the command-line companion of GGUF Explorer (its commands, JSON keys and exit statuses are a stable
// contract: README.md, `gguf-inspect`).
#include "app/build_info/build_info.h"
#include "app/gguf_inspect/commands.h"
#include "core/net/remote_files.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QStringList>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Command {
    const char *name;
    const char *synopsis;
    const char *summary;
    int (*run)(const cli::CommandArgs &);
    bool takesArguments = false; ///< further positional arguments (tensor names, text, ids)
};

constexpr Command kCommands[] = {
    {"info", "info FILE [--json]", "header, counts, architecture, parameter count, tensor types", cli::runInfo},
    {"dump", "dump FILE [--json [--json-array]]",
     "every key/value pair and tensor record; --json prints llama.cpp's gguf_dump.py --json document", cli::runDump},
    {"tensors", "tensors FILE [--json | --names]",
     "the tensor index: name, type, dims, elements, bytes, offsets; --names: only the names, one per line",
     cli::runTensors},
    {"vocab", "vocab FILE [--json]", "the tokenizer vocabulary: id, token, decoded text, type, score", cli::runVocab},
    {"validate", "validate FILE [--json]",
     "what llama.cpp would object to; exit status 0 when it would load the file, 1 when not", cli::runValidate},
    {"layout", "layout FILE [--json]", "every byte of the file in order: offset, size, kind, label", cli::runLayout},
    {"dequant", "dequant FILE TENSOR -o OUT",
     "the tensor's values as float32: raw little-endian, or NumPy when OUT ends in .npy ('-': stdout)", cli::runDequant,
     true},
    {"stats", "stats FILE [TENSOR...] [--bins N] [--range LO HI] [--fast] [--sample MIB] [--json]",
     "count, min, max, mean, std, zeros, NaN, Inf, percentiles and a histogram (every tensor when none is named); "
     "exact unless --fast asks for the one-pass estimates, or --sample for estimates from about MIB MiB of each "
     "larger tensor (a remote file fetches only those blocks)",
     cli::runStats, true},
    {"tokenize", "tokenize FILE [TEXT | --file F] [--add-special] [--parse-special] [--json]",
     "the token ids of TEXT (or of file F, or of standard input) as llama.cpp gives them, on one line; "
     "--json: [{\"id\",\"token\",\"text\"}]",
     cli::runTokenize, true},
    {"detokenize", "detokenize FILE ID...", "the text of the token ids, as llama.cpp renders them", cli::runDetokenize,
     true},
    {"diff", "diff A B [--values] [--tensor NAME...] [--json]",
     "what differs between two models (each may be a split set): metadata, tokenizer, tensor index; --values also "
     "compares the tensors' values (RMSE, max |a-b|, mean |a-b|/mean |a|, cosine, SNR, relative L2); --tensor "
     "compares only the tensors named. Exit status 0 identical, 1 different, 3 a file could not be read",
     cli::runDiff, true},
    {"set", "set FILE KEY=VALUE... [--type KEY=TYPE] [--remove KEY] [--chat-template-file F] (-o OUT | --in-place)",
     "edits the metadata; tensor bytes are kept as they are. A value is read by the key's type (a list [a, b] "
     "for arrays; KEY[N]=VALUE changes one element); a new key needs --type. Written in place when the new header "
     "fits before the data, else by a copy renamed over the target; without -o or --in-place nothing is written",
     cli::runSet, true},
    {"memory",
     "memory FILE [--ctx N] [--parallel N] [--ubatch N] [--cache-type-k T] [--cache-type-v T] [--flash-attn] "
     "[--gpu-layers N] [--no-mmap] [--budget GIB] [--json]",
     "the memory llama.cpp needs to run the model, per device: weights, KV cache (per layer), compute and output "
     "buffers, each with its formula; --budget: the largest context that fits in GIB (on the GPU when layers are "
     "offloaded, else in RAM)",
     cli::runMemory},
};

const Command *findCommand(const QString &name)
{
    for (const Command &c : kCommands)
        if (name == QLatin1String(c.name))
            return &c;
    return nullptr;
}

QString description()
{
    QString text = QStringLiteral("Look inside GGUF model files.\n\n"
                                  "  gguf-inspect FILE            overview of the file and its first tensors\n");
    for (const Command &c : kCommands)
        text +=
            QStringLiteral("  gguf-inspect %1\n      %2\n").arg(QLatin1String(c.synopsis), QLatin1String(c.summary));
    text += QStringLiteral(
        "\nExit status: 0 success, 1 the file could not be read as GGUF (validate: llama.cpp "
        "would refuse it; diff: the two differ; set: the write failed, the file unchanged), 2 wrong usage (set: "
        "nothing written), 3 diff: a file could not be read.");
    return text;
}

int usageError(const QString &message)
{
    std::fprintf(stderr, "gguf-inspect: %s\nTry 'gguf-inspect --help'.\n", message.toLocal8Bit().constData());
    return cli::kExitUsage;
}

// The argument's bytes as the shell passed them: a file name need not be valid in the locale's
// encoding, and a round trip through QString would lose such bytes.
std::string rawArgument(const QString &argument, const std::vector<std::pair<QString, std::string>> &argv)
{
    for (const auto &[decoded, raw] : argv)
        if (decoded == argument)
            return raw;
    return argument.toLocal8Bit().toStdString();
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // every FILE may be an http(s) URL or an hf: name (docs/REMOTE.md)
    gguf::net::enableRemoteFiles(gguf::net::remoteOptionsFromEnvironment());
    QCoreApplication::setApplicationName(QStringLiteral("gguf-inspect"));
    QCoreApplication::setApplicationVersion(QString::fromStdString(gguf::build::versionLine()));
    std::vector<std::pair<QString, std::string>> rawArgs;
    for (int i = 1; i < argc; ++i)
        rawArgs.emplace_back(QString::fromLocal8Bit(argv[i]), std::string(argv[i]));

    QCommandLineParser parser;
    parser.setApplicationDescription(description());
    const QCommandLineOption helpOption = parser.addHelpOption();
    const QCommandLineOption versionOption = parser.addVersionOption();
    const QCommandLineOption jsonOption(QStringLiteral("json"), QStringLiteral("Print one JSON document."));
    const QCommandLineOption jsonArrayOption(QStringLiteral("json-array"),
                                             QStringLiteral("dump: include the elements of arrays (implies --json)."));
    const QCommandLineOption outputOption({QStringLiteral("o"), QStringLiteral("output")},
                                          QStringLiteral("dequant: where to write the values; set: the edited file."),
                                          QStringLiteral("OUT"));
    const QCommandLineOption binsOption(QStringLiteral("bins"), QStringLiteral("stats: histogram bins (default 64)."),
                                        QStringLiteral("N"), QStringLiteral("64"));
    const QCommandLineOption fastOption(QStringLiteral("fast"),
                                        QStringLiteral("stats: one pass, with estimated percentiles and histogram."));
    const QCommandLineOption sampleOption(
        QStringLiteral("sample"),
        QStringLiteral(
            "stats: estimates from evenly spaced blocks, about MIB MiB of each larger tensor (implies --fast)."),
        QStringLiteral("MIB"));
    // `--range LO HI` takes two values (either may be negative), which QCommandLineParser cannot
    // express: it is taken out of the arguments before they are parsed, and listed here for --help
    const QCommandLineOption rangeHelp(QStringLiteral("range"),
                                       QStringLiteral("stats: histogram over [LO, HI] instead of [min, max]."),
                                       QStringLiteral("LO HI"));
    const QCommandLineOption addSpecialOption(QStringLiteral("add-special"),
                                              QStringLiteral("tokenize: add BOS/EOS as the model asks."));
    const QCommandLineOption parseSpecialOption(
        QStringLiteral("parse-special"), QStringLiteral("tokenize: text of control tokens becomes those tokens."));
    const QCommandLineOption textFileOption(QStringLiteral("file"),
                                            QStringLiteral("tokenize: the text to tokenize ('-': standard input)."),
                                            QStringLiteral("F"));
    const QCommandLineOption namesOption(QStringLiteral("names"),
                                         QStringLiteral("tensors: only the tensor names, one per line."));
    parser.addOption(jsonOption);
    parser.addOption(namesOption);
    parser.addOption(addSpecialOption);
    parser.addOption(parseSpecialOption);
    parser.addOption(textFileOption);
    const QCommandLineOption valuesOption(QStringLiteral("values"),
                                          QStringLiteral("diff: compare the tensors' values too."));
    const QCommandLineOption tensorOption(
        QStringLiteral("tensor"), QStringLiteral("diff: compare only this tensor, with its values (repeatable)."),
        QStringLiteral("NAME"));
    parser.addOption(valuesOption);
    parser.addOption(tensorOption);
    const QCommandLineOption typeOption(QStringLiteral("type"),
                                        QStringLiteral("set: the type of a new key, or a new type (repeatable)."),
                                        QStringLiteral("KEY=TYPE"));
    const QCommandLineOption removeOption(QStringLiteral("remove"), QStringLiteral("set: remove a key (repeatable)."),
                                          QStringLiteral("KEY"));
    const QCommandLineOption chatTemplateOption(
        QStringLiteral("chat-template-file"),
        QStringLiteral("set: tokenizer.chat_template from this file ('-': standard input)."), QStringLiteral("F"));
    const QCommandLineOption inPlaceOption(QStringLiteral("in-place"), QStringLiteral("set: write FILE itself."));
    const QCommandLineOption reserveOption(
        QStringLiteral("reserve"),
        QStringLiteral("set: when the file must be copied, leave this many spare header bytes for later edits."),
        QStringLiteral("BYTES"));
    const QCommandLineOption ctxOption(
        QStringLiteral("ctx"), QStringLiteral("memory: context length (default: the model's)."), QStringLiteral("N"));
    const QCommandLineOption parallelOption(
        QStringLiteral("parallel"), QStringLiteral("memory: parallel sequences (default 1)."), QStringLiteral("N"));
    const QCommandLineOption ubatchOption(
        QStringLiteral("ubatch"), QStringLiteral("memory: physical batch size (default 512)."), QStringLiteral("N"));
    const QCommandLineOption cacheTypeKOption(
        QStringLiteral("cache-type-k"), QStringLiteral("memory: K cache type (default f16)."), QStringLiteral("T"));
    const QCommandLineOption cacheTypeVOption(
        QStringLiteral("cache-type-v"), QStringLiteral("memory: V cache type (default f16)."), QStringLiteral("T"));
    const QCommandLineOption flashAttnOption(QStringLiteral("flash-attn"),
                                             QStringLiteral("memory: flash attention on."));
    const QCommandLineOption gpuLayersOption(QStringLiteral("gpu-layers"),
                                             QStringLiteral("memory: layers offloaded to the GPU (default all)."),
                                             QStringLiteral("N"));
    const QCommandLineOption noMmapOption(QStringLiteral("no-mmap"),
                                          QStringLiteral("memory: read the weights into memory instead of mapping."));
    const QCommandLineOption budgetOption(QStringLiteral("budget"),
                                          QStringLiteral("memory: find the largest context that fits in GIB."),
                                          QStringLiteral("GIB"));
    for (const QCommandLineOption *o :
         {&ctxOption, &parallelOption, &ubatchOption, &cacheTypeKOption, &cacheTypeVOption, &flashAttnOption,
          &gpuLayersOption, &noMmapOption, &budgetOption})
        parser.addOption(*o);
    parser.addOption(typeOption);
    parser.addOption(removeOption);
    parser.addOption(chatTemplateOption);
    parser.addOption(inPlaceOption);
    parser.addOption(reserveOption);
    parser.addOption(jsonArrayOption);
    parser.addOption(outputOption);
    parser.addOption(binsOption);
    parser.addOption(fastOption);
    parser.addOption(sampleOption);
    parser.addOption(rangeHelp);
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("One of the commands above (optional)."),
                                 QStringLiteral("[command]"));
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("A GGUF file."));

    QStringList arguments = QCoreApplication::arguments();
    std::optional<std::pair<double, double>> range;
    if (const qsizetype at = arguments.indexOf(QStringLiteral("--range")); at > 0) {
        bool loOk = false, hiOk = false;
        const double lo = at + 2 < arguments.size() ? arguments[at + 1].toDouble(&loOk) : 0.0;
        const double hi = at + 2 < arguments.size() ? arguments[at + 2].toDouble(&hiOk) : 0.0;
        if (!loOk || !hiOk)
            return usageError(QStringLiteral("--range needs two numbers: --range LO HI"));
        if (!(std::isfinite(lo) && std::isfinite(hi) && hi > lo))
            return usageError(QStringLiteral("--range LO HI needs finite numbers with LO < HI"));
        range = std::pair{lo, hi};
        arguments.remove(at, 3);
    }
    if (!parser.parse(arguments))
        return usageError(parser.errorText());
    // what is left of --range after the two-value form was taken out: "--range=LO" or a lone "--range"
    if (parser.isSet(rangeHelp))
        return usageError(QStringLiteral("--range needs two numbers: --range LO HI"));
    // --help-all (which addHelpOption adds) prints the same: a QCoreApplication has no Qt options
    // worth listing
    if (parser.isSet(helpOption) || parser.isSet(QStringLiteral("help-all"))) {
        // "Usage: gguf-inspect …" rather than the full path the program was started by
        QString help = parser.helpText();
        const QString program = QCoreApplication::arguments().constFirst();
        if (help.startsWith(QStringLiteral("Usage: ") + program))
            help.replace(7, program.size(), QStringLiteral("gguf-inspect"));
        std::fputs(help.toLocal8Bit().constData(), stdout);
        return cli::kExitOk;
    }
    if (parser.isSet(versionOption)) {
        std::printf("gguf-inspect %s\n", gguf::build::versionLine().c_str());
        return cli::kExitOk;
    }

    const QStringList positional = parser.positionalArguments();
    if (positional.isEmpty())
        return usageError(QStringLiteral("missing FILE"));
    const Command *command = findCommand(positional.front());
    const qsizetype fileIndex = command ? 1 : 0;
    if (positional.size() <= fileIndex)
        return usageError(QStringLiteral("%1: missing FILE").arg(positional.front()));
    if (positional.size() > fileIndex + 1 && !(command && command->takesArguments))
        return usageError(command
                              ? QStringLiteral("%1: unexpected argument '%2'").arg(positional.front(), positional[2])
                              : QStringLiteral("unknown command '%1'").arg(positional.front()));
    if (parser.isSet(jsonArrayOption) && (!command || QLatin1String(command->name) != QLatin1String("dump")))
        return usageError(QStringLiteral("--json-array belongs to the dump command"));
    if (parser.isSet(namesOption) && (!command || QLatin1String(command->name) != QLatin1String("tensors")))
        return usageError(QStringLiteral("--names belongs to the tensors command"));
    if (parser.isSet(namesOption) && parser.isSet(jsonOption))
        return usageError(QStringLiteral("tensors: --names and --json cannot go together"));
    const bool stats = command && QLatin1String(command->name) == QLatin1String("stats");
    if ((range || parser.isSet(fastOption) || parser.isSet(sampleOption)) && !stats)
        return usageError(QStringLiteral("--range, --fast and --sample belong to the stats command"));

    const bool tokenize = command && QLatin1String(command->name) == QLatin1String("tokenize");
    if ((parser.isSet(addSpecialOption) || parser.isSet(parseSpecialOption) || parser.isSet(textFileOption)) &&
        !tokenize)
        return usageError(QStringLiteral("--add-special, --parse-special and --file belong to the tokenize command"));

    const bool diff = command && QLatin1String(command->name) == QLatin1String("diff");
    if ((parser.isSet(valuesOption) || parser.isSet(tensorOption)) && !diff)
        return usageError(QStringLiteral("--values and --tensor belong to the diff command"));
    const bool set = command && QLatin1String(command->name) == QLatin1String("set");
    if ((parser.isSet(typeOption) || parser.isSet(removeOption) || parser.isSet(chatTemplateOption) ||
         parser.isSet(inPlaceOption) || parser.isSet(reserveOption)) &&
        !set)
        return usageError(QStringLiteral("--type, --remove, --chat-template-file, --in-place and --reserve belong to "
                                         "the set command"));
    cli::MemoryOptions memory;
    auto optionText = [&](const QCommandLineOption &o) -> std::optional<std::string> {
        if (!parser.isSet(o))
            return std::nullopt;
        return parser.value(o).toStdString();
    };
    memory.ctx = optionText(ctxOption);
    memory.parallel = optionText(parallelOption);
    memory.ubatch = optionText(ubatchOption);
    memory.typeK = optionText(cacheTypeKOption);
    memory.typeV = optionText(cacheTypeVOption);
    memory.gpuLayers = optionText(gpuLayersOption);
    memory.budget = optionText(budgetOption);
    memory.flashAttn = parser.isSet(flashAttnOption);
    memory.noMmap = parser.isSet(noMmapOption);
    if (memory.any() && !(command && QLatin1String(command->name) == QLatin1String("memory")))
        return usageError(QStringLiteral("--ctx, --parallel, --ubatch, --cache-type-k, --cache-type-v, --flash-attn, "
                                         "--gpu-layers, --no-mmap and --budget belong to the memory command"));
    const bool dequant = command && QLatin1String(command->name) == QLatin1String("dequant");
    if (parser.isSet(outputOption) && !set && !dequant)
        return usageError(QStringLiteral("-o belongs to the dequant and set commands"));
    // diff A B [--tensor NAME NAME…]: names after B only with --tensor
    if (diff && positional.size() > fileIndex + 2 && !parser.isSet(tensorOption))
        return usageError(QStringLiteral("diff: unexpected argument '%1'").arg(positional[fileIndex + 2]));

    cli::CommandArgs args;
    args.file = rawArgument(positional[fileIndex], rawArgs);
    args.json = parser.isSet(jsonOption) || parser.isSet(jsonArrayOption);
    args.jsonArray = parser.isSet(jsonArrayOption);
    args.names = parser.isSet(namesOption);
    for (qsizetype i = fileIndex + 1; i < positional.size(); ++i)
        args.rest.push_back(rawArgument(positional[i], rawArgs));
    if (parser.isSet(outputOption))
        args.output = rawArgument(parser.value(outputOption), rawArgs);
    args.fast = parser.isSet(fastOption) || parser.isSet(sampleOption);
    if (parser.isSet(sampleOption)) {
        bool ok = false;
        args.sampleMiB = parser.value(sampleOption).toLongLong(&ok);
        if (!ok || args.sampleMiB < 1 || args.sampleMiB > (1 << 20))
            return usageError(QStringLiteral("--sample needs a number of MiB from 1 to 1048576"));
    }
    args.addSpecial = parser.isSet(addSpecialOption);
    args.parseSpecial = parser.isSet(parseSpecialOption);
    if (parser.isSet(textFileOption))
        args.textFile = rawArgument(parser.value(textFileOption), rawArgs);
    args.range = range;
    args.values = parser.isSet(valuesOption);
    for (const QString &name : parser.values(tensorOption))
        args.tensors.push_back(rawArgument(name, rawArgs));
    if (diff)
        for (size_t i = 1; i < args.rest.size(); ++i)
            args.tensors.push_back(args.rest[i]);
    for (const QString &spec : parser.values(typeOption))
        args.types.push_back(rawArgument(spec, rawArgs));
    for (const QString &key : parser.values(removeOption))
        args.removes.push_back(rawArgument(key, rawArgs));
    if (parser.isSet(chatTemplateOption))
        args.chatTemplateFile = rawArgument(parser.value(chatTemplateOption), rawArgs);
    args.inPlace = parser.isSet(inPlaceOption);
    args.memory = memory;
    if (parser.isSet(reserveOption)) {
        bool ok = false;
        args.reserve = parser.value(reserveOption).toULongLong(&ok);
        if (!ok || args.reserve > (uint64_t(1) << 30))
            return usageError(QStringLiteral("--reserve needs a number of bytes (at most 1 GiB)"));
    }
    bool binsOk = false;
    args.bins = parser.value(binsOption).toLongLong(&binsOk);
    if (!binsOk)
        return usageError(QStringLiteral("--bins needs a number"));

    // Full buffering: JSON and tables are written in many small pieces.
    static char buffer[1 << 16];
    std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    int status = cli::kExitOk;
    if (command)
        status = command->run(args);
    else
        status = args.json ? cli::runInfo(args) : cli::runSummary(args);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        std::fputs("gguf-inspect: cannot write to standard output\n", stderr);
        // for diff, 1 would read as "the two differ"
        return diff ? cli::kExitUnreadable : cli::kExitBadFile;
    }
    return status;
}
