// SPDX-License-Identifier: GPL-3.0-or-later
// `report FILE [-o F.md | F.html]`: one self-contained document about the model (core/report,
// docs/REPORT.md), Markdown on stdout without -o.
#include "app/gguf_inspect/commands.h"

#include "app/build_info/build_info.h"
#include "core/report/model_report.h"
#include "core/safetensors/checkpoint.h"

#include <QSaveFile>

#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

namespace cli {
namespace {

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

// The form -o asks for (Markdown without it); nullopt after the usage message for another ending.
std::optional<gguf::ReportFormat> outputFormat(const CommandArgs &args)
{
    if (args.output.empty() || args.output == "-")
        return gguf::ReportFormat::Markdown;
    const auto format = gguf::reportFormatForPath(args.output);
    if (!format)
        usageError("report",
                   "-o takes a file ending in .md or .html (or - for Markdown on stdout): " + printable(args.output));
    return format;
}

// Writes `render(options)` to -o or stdout, never over `files`.
int deliverReport(const CommandArgs &args, gguf::ReportFormat format, const std::vector<std::string> &files,
                  const std::function<std::string(const gguf::ReportOptions &)> &render)
{
    const bool toStdout = args.output.empty() || args.output == "-";
    if (!toStdout && namesOneOf(files, args.output)) {
        std::fprintf(stderr, "gguf-inspect: refusing to write the report over the model file %s\n",
                     printable(args.output).c_str());
        return kExitUsage;
    }
    gguf::ReportOptions options;
    options.format = format;
    options.source = args.file;
    options.generator = "gguf-inspect " + gguf::build::versionLine();
    const std::string text = render(options);
    if (toStdout) {
        print(text);
        return kExitOk;
    }
    return writeReport(args.output, text) ? kExitOk : kExitBadFile;
}

} // namespace

int runReport(const CommandArgs &args)
{
    const auto format = outputFormat(args);
    if (!format)
        return kExitUsage;
    // a damaged file or set is reported as far as it parses: that is when a report is wanted most
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    std::vector<std::string> files;
    for (const gguf::SplitModel::Shard &shard : model->shards())
        files.push_back(shard.path);
    return deliverReport(args, *format, files,
                         [&](const gguf::ReportOptions &o) { return gguf::renderReport(*model, o); });
}

int runReportOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    const auto format = outputFormat(args);
    if (!format)
        return kExitUsage;
    std::vector<std::string> files;
    for (const gguf::st::Checkpoint::Shard &shard : checkpoint.shards())
        files.push_back(shard.path);
    if (!checkpoint.indexPath().empty())
        files.push_back(checkpoint.indexPath());
    return deliverReport(args, *format, files,
                         [&](const gguf::ReportOptions &o) { return gguf::renderCheckpointReport(checkpoint, o); });
}

} // namespace cli
