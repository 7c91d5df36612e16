// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class SplitModel;
struct KindReport;
struct ModelSummary;
namespace st {
class Checkpoint;
}

/// The two forms of a report (docs/REPORT.md): GitHub-flavoured Markdown, or one HTML page with
/// everything inline (styles, the chart as SVG), readable offline.
enum class ReportFormat : uint8_t { Markdown, Html };

/// The form a report file's name asks for: .md / .markdown → Markdown, .html / .htm → HTML
/// (case-insensitive); nullopt for any other name.
std::optional<ReportFormat> reportFormatForPath(std::string_view path);

struct ReportOptions {
    ReportFormat format = ReportFormat::Markdown;
    std::string source;    ///< the file, URL or hf: name as the user gave it
    std::string generator; ///< the program and its version ("gguf-inspect 0.9.0 (abc1234)")
};

/// One self-contained document about `model` (a single file or a split set, damaged or not) to
/// attach to an issue: overview, llama.cpp's verdict with every finding, the metadata (long arrays
/// summarised, chat templates in full), the tensor table, the mix of tensor types as a chart, and
/// the memory llama.cpp needs at the trained context. Reads no tensor data.
std::string renderReport(const SplitModel &model, const ReportOptions &options);

/// The report of a Hugging Face checkpoint (folder, index or .safetensors): its overview and shards,
/// the safetensors library's verdict with every finding, config.json (flattened) and each shard's
/// __metadata__, the chat template beside it (tokenizer_config.json or chat_template.jinja) in
/// full, the tensor table, the dtype mix as a chart, and the memory of the GGUF llama.cpp's
/// converter would make of it (docs/SAFETENSORS.md §9). Reads no tensor data.
std::string renderCheckpointReport(const st::Checkpoint &checkpoint, const ReportOptions &options);

/// "the safetensors library would load this checkpoint" / "… would refuse this file: <why>".
std::string checkpointVerdictLine(const st::Checkpoint &checkpoint);

/// One line of a model's overview, as `gguf-inspect FILE`, the window and the report show it;
/// values are the file's text as it is (the caller makes it printable).
struct OverviewField {
    std::string name, value;
};
/// `kind` is describeKind(model.primary()), `summary` summarizeModel(model): the caller's, so that
/// neither is made twice.
std::vector<OverviewField> overviewFields(const SplitModel &model, std::string_view source, const KindReport &kind,
                                          const ModelSummary &summary);

/// "llama.cpp would accept this file" / "llama.cpp would refuse this model: <why>" / "llama.cpp's
/// reader would accept this file, but: <why its model loader refuses the layer counts>".
std::string verdictLine(const SplitModel &model);

} // namespace gguf
