// SPDX-License-Identifier: GPL-3.0-or-later
// The report of a Hugging Face checkpoint (docs/REPORT.md §5): its own overview, the safetensors
// library's verdict, config.json and each shard's __metadata__, the chat template beside it, the
// tensors, the dtype mix, and the memory of the GGUF llama.cpp's converter would make of it.
#include "core/compare/converted_model.h"
#include "core/format/split_model.h"
#include "core/memory/memory_estimate.h"
#include "core/report/model_report.h"
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/json_reader.h"
#include "core/util/text_format.h"
#include "report_document.h"

#include <map>

namespace gguf {
namespace {

using report::Code;
using report::Paragraph;
using report::Section;
using report::Table;
using st::Checkpoint;

constexpr size_t kJsonText = 300; ///< a config value's text in the table
constexpr size_t kJsonArrayAll = 16;

Section overviewSection(const Checkpoint &c, const std::string &source)
{
    Section s{"overview", "Overview", {}};
    std::map<st::Dtype, uint64_t> dtypes;
    for (const Checkpoint::TensorRef &t : c.tensors())
        ++dtypes[t.entry->dtype];
    std::string types;
    for (const auto &[dtype, n] : dtypes)
        types += (types.empty() ? "" : ", ") + std::string(st::dtypeName(dtype)) + " × " + groupDigits(n);
    Table t{{"Field", "Value"}, "ll", {}, {}};
    t.rows.push_back({"path", printable(source)});
    t.rows.push_back({"format", "safetensors (a Hugging Face checkpoint)"});
    if (!c.indexPath().empty())
        t.rows.push_back({"index", printable(c.indexPath())});
    t.rows.push_back({"architecture", c.architecture().empty()
                                          ? printable(c.configProblem().empty() ? "-" : c.configProblem())
                                          : printable(c.architecture()) + " (config.json)"});
    t.rows.push_back({"shards", std::to_string(c.shards().size())});
    t.rows.push_back({"tensors", groupDigits(c.tensors().size())});
    t.rows.push_back({"parameters", groupDigits(c.parameterCount())});
    t.rows.push_back({"tensor data", groupDigits(c.tensorBytes()) + " bytes (" + humanBytes(c.tensorBytes()) + ")"});
    t.rows.push_back({"tensor types", types.empty() ? "-" : types});
    s.blocks.emplace_back(std::move(t));
    Table shards{{"Shard", "Path", "Size", "Header", "Tensors", "Problem"}, "rlrrrl", {}, {}};
    for (size_t i = 0; i < c.shards().size(); ++i) {
        const Checkpoint::Shard &sh = c.shards()[i];
        shards.rows.push_back(
            {std::to_string(i + 1), printable(sh.path), sh.file ? groupDigits(sh.file->fileSize()) : "-",
             sh.file ? groupDigits(sh.file->headerLength()) : "-",
             sh.file ? groupDigits(sh.file->tensors().size()) : "-", sh.error ? printable(sh.error.message) : ""});
    }
    s.blocks.emplace_back(std::move(shards));
    return s;
}

Section verdictSection(const Checkpoint &c)
{
    std::vector<std::pair<const Finding *, std::string>> findings;
    for (const Checkpoint::FileFinding &f : c.findings())
        findings.emplace_back(&f.finding, f.file);
    for (const Checkpoint::Shard &sh : c.shards())
        if (sh.file)
            for (const Finding &f : sh.file->findings())
                findings.emplace_back(&f, sh.path);
    return report::verdictSection(checkpointVerdictLine(c), findings, true,
                                  "No findings: nothing in the files is unusual.");
}

Section metadataSection(const Checkpoint &c)
{
    Section s{"metadata", "Metadata", {}};
    if (const json::Value *config = c.config()) {
        std::vector<std::pair<std::string, std::string>> rows;
        rows = json::flatten(*config, kJsonArrayAll);
        s.blocks.push_back(Paragraph{"config.json, " + countOf(rows.size(), "field", "fields") +
                                         " (nested objects flattened with dots):",
                                     false});
        Table t{{"Key", "Value"}, "ll", {}, {}};
        for (const auto &[key, value] : rows)
            t.rows.push_back({printable(key), printable(value, kJsonText)});
        s.blocks.emplace_back(std::move(t));
    } else {
        s.blocks.push_back(
            Paragraph{"No config.json: " +
                          printable(c.configProblem().empty() ? "none beside the checkpoint" : c.configProblem()),
                      false});
    }
    for (const Checkpoint::Shard &sh : c.shards())
        if (sh.file && !sh.file->metadata().empty()) {
            Table t{{"Key", "Value"}, "ll", {}, {}};
            for (const st::MetadataItem &m : sh.file->metadata())
                t.rows.push_back({printable(m.key), printable(m.value, kJsonText)});
            s.blocks.push_back(Paragraph{"__metadata__ of " + printable(sh.path) + ":", false});
            s.blocks.emplace_back(std::move(t));
        }
    return s;
}

// tokenizer_config.json's chat_template (a string, or named templates), or chat_template.jinja.
Section chatTemplateSection(const Checkpoint &c)
{
    Section s{"chat-template", "Chat template", {}};
    Error error;
    if (const auto jinja = c.readBeside("chat_template.jinja", error))
        s.blocks.push_back(Code{"chat_template.jinja", "jinja", report::codeText(*jinja)});
    if (const auto text = c.readBeside("tokenizer_config.json", error)) {
        json::ParseError parseError;
        const std::optional<json::Value> config = json::parse(*text, parseError);
        const json::Value *t = config ? config->find("chat_template") : nullptr;
        if (t && t->kind == json::Value::Kind::String)
            s.blocks.push_back(Code{"tokenizer_config.json: chat_template", "jinja", report::codeText(t->text)});
        else if (t && t->kind == json::Value::Kind::Array)
            for (const json::Value &named : t->values) {
                const json::Value *name = named.find("name"), *body = named.find("template");
                if (name && body && name->kind == json::Value::Kind::String && body->kind == json::Value::Kind::String)
                    s.blocks.push_back(Code{"tokenizer_config.json: chat_template " + printable(name->text), "jinja",
                                            report::codeText(body->text)});
            }
    }
    if (s.blocks.empty())
        s.blocks.push_back(Paragraph{"No chat template beside the checkpoint (tokenizer_config.json's chat_template, "
                                     "or chat_template.jinja).",
                                     false});
    return s;
}

Section tensorSection(const Checkpoint &c)
{
    Section s{"tensors", "Tensors", {}};
    Table t{{"#", "Shard", "Name", "Dtype", "Shape", "Elements", "Bytes", "Data offset"}, "rrllrrrr", {}, {}};
    for (size_t i = 0; i < c.tensors().size(); ++i) {
        const Checkpoint::TensorRef &ref = c.tensors()[i];
        const st::TensorEntry &e = *ref.entry;
        t.rows.push_back({std::to_string(i), std::to_string(ref.shard + 1), printable(e.name),
                          std::string(st::dtypeName(e.dtype)), st::shapeText(e.shape), groupDigits(e.elements),
                          groupDigits(e.bytes()), groupDigits(e.begin)});
    }
    if (t.rows.empty()) {
        s.blocks.push_back(Paragraph{"No tensors.", false});
        return s;
    }
    t.fold = countOf(t.rows.size(), "tensor", "tensors") +
             " in the index's order (shape outermost first, as safetensors writes it; offsets from the start of each "
             "shard's data)";
    s.blocks.emplace_back(std::move(t));
    return s;
}

Section typeMixSection(const Checkpoint &c)
{
    Section s{"type-mix", "Type mix", {}};
    std::map<st::Dtype, report::TypeMix::Share> byType;
    std::vector<report::TypeMix::Share> shares;
    for (const Checkpoint::TensorRef &ref : c.tensors()) {
        report::TypeMix::Share &share = byType[ref.entry->dtype];
        share.type = st::dtypeName(ref.entry->dtype);
        ++share.tensors;
        share.parameters += ref.entry->elements;
        share.bytes += ref.entry->bytes();
    }
    shares.reserve(byType.size());
    for (auto &[dtype, share] : byType)
        shares.push_back(share);
    report::appendTypeMix(std::move(shares), s);
    return s;
}

Section memorySection(const Checkpoint &c)
{
    const ConvertedModel converted = convertedModel(c);
    if (!converted.model) {
        Section s{"memory", "Memory", {}};
        s.blocks.push_back(Paragraph{"No estimate: " + printable(converted.problem), false});
        return s;
    }
    Section s = report::memorySection(*converted.model);
    s.blocks.insert(s.blocks.begin(),
                    Paragraph{"For the GGUF llama.cpp's converter would make of this checkpoint at its own dtype "
                              "(convert_hf_to_gguf.py; docs/SAFETENSORS.md §9)" +
                                  (converted.unmapped.empty()
                                       ? std::string(".")
                                       : ", without the " + countOf(converted.unmapped.size(), "tensor", "tensors") +
                                             " it maps no rule for."),
                              false});
    return s;
}

std::string checkpointName(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string checkpointVerdictLine(const st::Checkpoint &c)
{
    const char *what = c.shards().size() > 1 ? "checkpoint" : "file";
    if (c.referenceAccepts())
        return std::string("the safetensors library would load this ") + what;
    for (const Checkpoint::FileFinding &f : c.findings())
        if (f.finding.severity == Severity::Error)
            return std::string("the safetensors library would refuse this ") + what + ": " + f.finding.message;
    for (const Checkpoint::Shard &sh : c.shards())
        if (sh.file)
            for (const Finding &f : sh.file->findings())
                if (f.severity == Severity::Error)
                    return std::string("the safetensors library would refuse this ") + what + ": " + f.message;
    return std::string("the safetensors library would refuse this ") + what;
}

std::string renderCheckpointReport(const st::Checkpoint &checkpoint, const ReportOptions &options)
{
    report::Document doc;
    doc.title = "Checkpoint report: " + printable(checkpointName(options.source));
    doc.generator = printable(options.generator);
    doc.sections.push_back(overviewSection(checkpoint, options.source));
    doc.sections.push_back(verdictSection(checkpoint));
    doc.sections.push_back(metadataSection(checkpoint));
    doc.sections.push_back(chatTemplateSection(checkpoint));
    doc.sections.push_back(tensorSection(checkpoint));
    doc.sections.push_back(typeMixSection(checkpoint));
    doc.sections.push_back(memorySection(checkpoint));
    return options.format == ReportFormat::Html ? report::renderHtml(doc) : report::renderMarkdown(doc);
}

} // namespace gguf
