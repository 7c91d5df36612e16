// SPDX-License-Identifier: GPL-3.0-or-later
// `report FILE [-o F.md | F.html]`: one self-contained document about the model (core/report,
// docs/REPORT.md), Markdown on stdout without -o.
#include "app/gguf_inspect/commands.h"

#include "app/build_info/build_info.h"
#include "core/report/model_report.h"

#include <QSaveFile>

#include <cstdio>
#include <filesystem>

namespace cli {
namespace {

// Whether `output` is one of the model's own files (never written over).
bool writesOverModel(const gguf::SplitModel &model, const std::string &output)
{
    std::error_code ec;
    if (!std::filesystem::exists(output, ec))
        return false;
    for (const gguf::SplitModel::Shard &shard : model.shards())
        if (std::filesystem::equivalent(output, shard.path, ec))
            return true;
    return false;
}

// Written beside and renamed over the target when complete and synced (QSaveFile), so a failure
// leaves any earlier report as it was.
bool writeReport(const std::string &path, const std::string &text)
{
    QSaveFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
        !file.commit()) {
        std::fprintf(stderr, "gguf-inspect: cannot write %s: %s\n", printable(path).c_str(),
                     file.errorString().toStdString().c_str());
        return false;
    }
    return true;
}

} // namespace

int runReport(const CommandArgs &args)
{
    gguf::ReportOptions options;
    if (!args.output.empty() && args.output != "-") {
        const auto format = gguf::reportFormatForPath(args.output);
        if (!format)
            return usageError("report", "-o takes a file ending in .md or .html (or - for Markdown on stdout): " +
                                            printable(args.output));
        options.format = *format;
    }
    // a damaged file or set is reported as far as it parses: that is when a report is wanted most
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    if (!args.output.empty() && args.output != "-" && writesOverModel(*model, args.output)) {
        std::fprintf(stderr, "gguf-inspect: refusing to write the report over the model file %s\n",
                     printable(args.output).c_str());
        return kExitUsage;
    }
    options.source = args.file;
    options.generator = "gguf-inspect " + gguf::build::versionLine();
    const std::string text = gguf::renderReport(*model, options);
    if (args.output.empty() || args.output == "-") {
        print(text);
        return kExitOk;
    }
    return writeReport(args.output, text) ? kExitOk : kExitBadFile;
}

} // namespace cli
