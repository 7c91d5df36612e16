// SPDX-License-Identifier: GPL-3.0-or-later
// The report's content (docs/REPORT.md): what the overview, validate, dump, tensors and memory say
// about a model, gathered into one document.
#include "core/report/model_report.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_parser.h"
#include "core/format/model_summary.h"
#include "core/format/split_model.h"
#include "core/kind/file_kind.h"
#include "core/memory/kv_estimate.h"
#include "core/memory/memory_estimate.h"
#include "core/util/text_format.h"
#include "core/vocab/well_known_keys.h"
#include "report_document.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace gguf {
namespace {

using report::Block;
using report::Code;
using report::Paragraph;
using report::Section;
using report::Table;

constexpr size_t kNameChars = 80;      ///< names and reasons in the overview
constexpr size_t kStringChars = 300;   ///< a string value in the metadata table
constexpr size_t kElementChars = 40;   ///< one element of an array
constexpr uint64_t kArrayAllUpTo = 16; ///< longer arrays show their first kArrayHead elements
constexpr uint64_t kArrayHead = 8;

bool isChatTemplateKey(std::string_view key)
{
    return key == "tokenizer.chat_template" || key.starts_with("tokenizer.chat_template.");
}

size_t codePoints(std::string_view text)
{
    size_t n = 0;
    for (size_t pos = 0; pos < text.size(); ++n)
        decodeUtf8(text, pos);
    return n;
}

std::string shortNumber(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

void addKindFields(const KindReport &kind, std::vector<OverviewField> &out)
{
    if (kind.lora) {
        std::string ranks;
        for (const uint64_t r : kind.lora->ranks)
            ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
        out.push_back({"LoRA", std::to_string(kind.lora->pairs.size()) + " pairs, rank " +
                                   (ranks.empty() ? "-" : ranks) + ", alpha " +
                                   (kind.lora->alpha ? shortNumber(*kind.lora->alpha) : std::string("-"))});
    }
    if (kind.imatrix)
        out.push_back({"importance matrix", std::to_string(kind.imatrix->entries.size()) + " weights, " +
                                                std::to_string(kind.imatrix->chunkCount.value_or(0)) + " chunks of " +
                                                std::to_string(kind.imatrix->chunkSize.value_or(0)) + " tokens, " +
                                                std::to_string(kind.imatrix->unusedExperts.size()) +
                                                " unused experts"});
    if (kind.projector)
        out.push_back({"projector", printable(kind.projector->type, 40) +
                                        (kind.projector->hasVision ? ", vision" : "") +
                                        (kind.projector->hasAudio ? ", audio" : "")});
    if (kind.quantizedWith)
        out.push_back({"quantized with", "importance matrix " + printable(kind.quantizedWith->file, kNameChars)});
}

// ---- metadata

std::string elementText(const Value &v)
{
    if (v.type() == ValueType::String)
        return printable(v.toDisplayString(kElementChars));
    return v.toDisplayString(kElementChars);
}

std::string arrayText(const ArrayRef &a)
{
    std::string out = groupDigits(a.size()) + " × " + valueTypeName(a.elementType());
    if (a.empty())
        return out;
    const uint64_t shown = a.size() <= kArrayAllUpTo ? a.size() : kArrayHead;
    out += ": ";
    for (uint64_t i = 0; i < shown; ++i)
        out += (i ? ", " : "") + elementText(a.at(i));
    if (shown < a.size())
        out += ", … (" + groupDigits(a.size() - shown) + " more)";
    return out;
}

std::string valueText(const MetadataEntry &e)
{
    switch (e.value.type()) {
    case ValueType::String: {
        const std::string_view s = e.value.toStringView();
        std::string out = printable(s, kStringChars);
        if (codePoints(s) > kStringChars)
            out += " (" + groupDigits(s.size()) + " bytes in all)";
        return out;
    }
    case ValueType::Array: return arrayText(e.value.array());
    default: return e.value.toDisplayString();
    }
}

Section metadataSection(const GgufFile &file, std::vector<Section> &templates)
{
    Section s{"metadata", "Metadata", {}};
    Table t{{"#", "Key", "Type", "Value"}, "rlll", {}, {}};
    Section chat{"chat-template", "Chat template", {}};
    for (const MetadataEntry &e : file.metadata()) {
        std::string type = valueTypeName(e.value.type());
        if (e.value.type() == ValueType::Array)
            type += " of " + valueTypeName(e.value.array().elementType());
        std::string value = valueText(e);
        if (e.value.type() == ValueType::String && isChatTemplateKey(e.key)) {
            value = groupDigits(e.value.toStringView().size()) + " bytes: in full under Chat template";
            chat.blocks.push_back(Code{printable(e.key), "jinja", report::codeText(e.value.toStringView())});
        }
        t.rows.push_back({std::to_string(e.index), printable(e.key), type, value});
    }
    s.blocks.push_back(
        Paragraph{countOf(file.metadata().size(), "key", "keys") +
                      " of the model's metadata (of shard 1 in a split set), in file order; arrays of more "
                      "than " +
                      std::to_string(kArrayAllUpTo) + " elements show their first " + std::to_string(kArrayHead) +
                      ", strings their first " + std::to_string(kStringChars) + " characters.",
                  false});
    s.blocks.emplace_back(std::move(t));
    if (chat.blocks.empty())
        chat.blocks.push_back(Paragraph{"The model has no chat template (tokenizer.chat_template).", false});
    templates.push_back(std::move(chat));
    return s;
}

// ---- verdict

Section verdictSection(const SplitModel &model, const KindReport &kind)
{
    const std::vector<Finding> setFindings = model.setFindings(); // made on each call: kept while used
    std::vector<std::pair<const Finding *, std::string>> findings;
    findings.reserve(setFindings.size());
    for (const Finding &f : setFindings)
        findings.emplace_back(&f, "(the set)");
    for (const SplitModel::Shard &shard : model.shards())
        if (shard.file)
            for (const Finding &f : shard.file->findings())
                findings.emplace_back(&f, shard.path);
    Section s = report::verdictSection(verdictLine(model), findings, model.isSplit(),
                                       "No findings: nothing in the file is unusual.");
    for (const KindFinding &f : kind.findings)
        s.blocks.push_back(Paragraph{std::string("As a ") + fileKindTitle(kind.kind) + ": " + printable(f.message) +
                                         (f.refusal ? " (llama.cpp would refuse it)" : ""),
                                     false});
    return s;
}

// ---- tensors and their types

std::string shapeText(const TensorInfo &t)
{
    std::string out = "[";
    for (uint32_t d = 0; d < std::min<uint32_t>(t.nDims, 4); ++d)
        out += (d ? ", " : "") + std::to_string(t.ne[d]);
    return out + (t.nDims > 4 ? ", …]" : "]");
}

Section tensorSection(const SplitModel &model)
{
    Section s{"tensors", "Tensors", {}};
    Table t{{"#", "Shard", "Name", "Type", "Shape", "Elements", "Bytes", "Data offset"}, "rrllrrrr", {}, {}};
    const auto &tensors = model.tensors();
    for (size_t i = 0; i < tensors.size(); ++i) {
        const TensorInfo &info = *tensors[i].info;
        t.rows.push_back({std::to_string(i), std::to_string(tensors[i].shard + 1), printable(info.name),
                          typeName(info.typeId), shapeText(info), groupDigits(info.elements),
                          groupDigits(info.byteSize) + (info.sizeInferred ? " (inferred)" : ""),
                          groupDigits(info.relativeOffset)});
    }
    if (!model.isSplit()) {
        t.header.erase(t.header.begin() + 1);
        t.align.erase(1, 1);
        for (auto &row : t.rows)
            row.erase(row.begin() + 1);
    }
    if (t.rows.empty()) {
        s.blocks.push_back(Paragraph{"The file holds no tensors.", false});
        return s;
    }
    t.fold = countOf(t.rows.size(), "tensor", "tensors") + " in file order (shape innermost first, as ggml "
                                                           "stores it; offsets from the start of the data section)";
    s.blocks.emplace_back(std::move(t));
    return s;
}

Section typeMixSection(const SplitModel &model)
{
    Section s{"type-mix", "Type mix", {}};
    std::map<uint32_t, report::TypeMix::Share> byType;
    std::vector<report::TypeMix::Share> shares;
    for (const SplitModel::TensorRef &ref : model.tensors()) {
        report::TypeMix::Share &share = byType[ref.info->typeId];
        share.type = typeName(ref.info->typeId);
        ++share.tensors;
        share.parameters += ref.info->elements;
        share.bytes += ref.info->byteSize;
    }
    shares.reserve(byType.size());
    for (auto &[id, share] : byType)
        shares.push_back(share);
    report::appendTypeMix(std::move(shares), s);
    return s;
}

Section overviewSection(const SplitModel &model, const std::string &source, const KindReport &kind,
                        const ModelSummary &summary)
{
    Section s{"overview", "Overview", {}};
    Table t{{"Field", "Value"}, "ll", {}, {}};
    for (const OverviewField &f : overviewFields(model, source, kind, summary))
        t.rows.push_back({f.name, printable(f.value)});
    s.blocks.emplace_back(std::move(t));
    if (model.isSplit()) {
        Table shards{{"Shard", "Path", "Size", "Problem"}, "rlrl", {}, {}};
        for (size_t i = 0; i < summary.shards.size(); ++i) {
            const auto &shard = summary.shards[i];
            shards.rows.push_back({std::to_string(i + 1), printable(shard.path),
                                   shard.size ? groupDigits(*shard.size) : "-", printable(shard.error)});
        }
        s.blocks.emplace_back(std::move(shards));
    }
    return s;
}

std::string baseName(std::string_view path)
{
    const size_t slash = path.find_last_of('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

} // namespace

std::optional<ReportFormat> reportFormatForPath(std::string_view path)
{
    std::string lower(path.substr(std::min(path.size(), path.find_last_of('.'))));
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower == ".md" || lower == ".markdown")
        return ReportFormat::Markdown;
    if (lower == ".html" || lower == ".htm")
        return ReportFormat::Html;
    return std::nullopt;
}

std::string verdictLine(const SplitModel &model)
{
    const char *what = model.isSplit() ? "model" : "file";
    if (const auto refusal = model.firstRefusal())
        return std::string("llama.cpp would refuse this ") + what + ": " + refusal->finding.message;
    // what its model loader checks first (the layer counts) refuses even a file its reader accepts
    if (const std::string loader = layerCountRefusal(model.primary()); !loader.empty())
        return std::string("llama.cpp's reader would accept this ") + what + ", but: " + loader;
    return std::string("llama.cpp would accept this ") + what;
}

std::vector<OverviewField> overviewFields(const SplitModel &model, std::string_view source, const KindReport &kind,
                                          const ModelSummary &summary)
{
    const GgufFile &file = model.primary();
    std::vector<OverviewField> out;
    out.push_back({"path", std::string(source)});
    out.push_back({"file size", groupDigits(summary.fileSize) + " bytes (" + humanBytes(summary.fileSize) + ")"});
    if (summary.shards.size() > 1)
        out.push_back({"shards", std::to_string(summary.shards.size()) + " (" + std::to_string(summary.missingShards) +
                                     " missing)"});
    out.push_back({"GGUF version", std::to_string(file.version())});
    out.push_back({"byte order", file.byteSwapped() ? "big-endian (byte-swapped)" : "little-endian"});
    out.push_back({"header layout", file.headerLayout() == HeaderLayout::Plain ? "plain" : "extended (BitNet-rs)"});
    out.push_back({"alignment", std::to_string(file.alignment())});
    out.push_back({"data offset", formatOffset(file.dataOffset())});
    out.push_back({"tensors", groupDigits(summary.tensorCount)});
    out.push_back({"metadata keys", groupDigits(file.metadata().size())});
    out.push_back({"kind", std::string(fileKindTitle(kind.kind)) + " (" + printable(kind.why, kNameChars) + ")"});
    const std::string arch = file.architecture(), name = file.name();
    out.push_back({"architecture", arch.empty() ? "-" : printable(arch, kNameChars)});
    out.push_back({"name", name.empty() ? "-" : printable(name, kNameChars)});
    const auto ftype = file.fileType();
    out.push_back(
        {"file type",
         ftype ? std::to_string(*ftype) + " (" + std::string(fileTypeName(*ftype).value_or("unknown")) + ")" : "-"});
    out.push_back({"layers", std::to_string(summary.layers)});
    out.push_back({"parameters", groupDigits(summary.parameters)});
    out.push_back(
        {"tensor data", groupDigits(summary.tensorBytes) + " bytes (" + humanBytes(summary.tensorBytes) + ")"});
    std::string types;
    for (const auto &[id, count] : summary.tensorTypes)
        types += (types.empty() ? "" : ", ") + typeName(id) + " × " + std::to_string(count);
    out.push_back({"tensor types", types.empty() ? "-" : types});
    addKindFields(kind, out);
    return out;
}

std::string renderReport(const SplitModel &model, const ReportOptions &options)
{
    report::Document doc;
    doc.title = "GGUF report: " + printable(baseName(options.source));
    doc.generator = printable(options.generator);
    const KindReport kind = describeKind(model.primary());
    doc.sections.push_back(overviewSection(model, options.source, kind, summarizeModel(model)));
    doc.sections.push_back(verdictSection(model, kind));
    std::vector<Section> templates;
    doc.sections.push_back(metadataSection(model.primary(), templates));
    for (Section &t : templates)
        doc.sections.push_back(std::move(t));
    doc.sections.push_back(tensorSection(model));
    doc.sections.push_back(typeMixSection(model));
    doc.sections.push_back(report::memorySection(model));
    return options.format == ReportFormat::Html ? report::renderHtml(doc) : report::renderMarkdown(doc);
}

namespace report {

// The template as it is, lines and tabs kept; other control characters and ill-formed bytes shown
// escaped (a document must stay valid UTF-8).
std::string codeText(std::string_view text)
{
    std::string out;
    size_t line = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        if (i < text.size() && text[i] != '\n' && text[i] != '\t')
            continue;
        out += printable(text.substr(line, i - line));
        if (i < text.size())
            out += text[i];
        line = i + 1;
    }
    return out;
}

Section verdictSection(const std::string &line, const std::vector<std::pair<const Finding *, std::string>> &findings,
                       bool withFile, const std::string &none)
{
    Section s{"verdict", "Verdict", {}};
    s.blocks.push_back(Paragraph{printable(line), true});
    Table t{{"Severity", "File", "Offset", "Code", "Message"}, "llrll", {}, {}};
    for (const auto &[f, file] : findings)
        t.rows.push_back({std::string(severityName(f->severity)), printable(file), formatOffset(f->offset), f->code,
                          printable(f->message)});
    if (!withFile) {
        t.header.erase(t.header.begin() + 1);
        t.align.erase(1, 1);
        for (auto &row : t.rows)
            row.erase(row.begin() + 1);
    }
    if (t.rows.empty())
        s.blocks.push_back(Paragraph{none, false});
    else
        s.blocks.emplace_back(std::move(t));
    return s;
}

void appendTypeMix(std::vector<TypeMix::Share> shares, Section &s)
{
    if (shares.empty()) {
        s.blocks.push_back(Paragraph{"No tensors, no types.", false});
        return;
    }
    TypeMix mix;
    std::stable_sort(shares.begin(), shares.end(), [](const auto &a, const auto &b) { return a.bytes > b.bytes; });
    for (const TypeMix::Share &share : shares)
        mix.totalBytes += share.bytes;
    mix.shares = std::move(shares);
    s.blocks.push_back(Paragraph{"Tensor data by type: " + humanBytes(mix.totalBytes) + " in all.", false});
    Table t{{"Type", "Tensors", "Parameters", "Bytes", "Share of bytes"}, "lrrrr", {}, {}};
    for (const auto &share : mix.shares)
        t.rows.push_back({share.type, groupDigits(share.tensors), groupDigits(share.parameters),
                          groupDigits(share.bytes) + " (" + humanBytes(share.bytes) + ")",
                          percentText(share.bytes, mix.totalBytes)});
    s.blocks.emplace_back(std::move(mix));
    s.blocks.emplace_back(std::move(t));
}

Section memorySection(const SplitModel &model)
{
    Section s{"memory", "Memory", {}};
    const MemoryModel memory(model);
    if (!memory.whyNoEstimate().empty()) {
        s.blocks.push_back(Paragraph{"No estimate: " + printable(memory.whyNoEstimate()), false});
        return s;
    }
    MemoryInputs gpu; // llama.cpp's defaults: the trained context, every layer offloaded
    MemoryInputs cpu = gpu;
    cpu.gpuLayers = 0;
    const MemoryEstimate g = memory.estimate(gpu), c = memory.estimate(cpu);
    const MemoryInputs &in = g.inputs;
    s.blocks.push_back(
        Paragraph{"What llama.cpp allocates at the trained context of " + groupDigits(in.context) + " tokens (" +
                      groupDigits(g.kv.nCtx) + " cells), one sequence, ubatch " + std::to_string(in.ubatch) + ", K " +
                      kvCacheTypeName(in.typeK) + " and V " + kvCacheTypeName(in.typeV) +
                      ", flash attention off, the weights memory-mapped: on the CPU alone (-ngl 0), and with all " +
                      std::to_string(g.maxGpuLayers) +
                      " layers (the output layer counted) on one GPU. As gguf-inspect memory "
                      "estimates it; the formulas are in its --json output.",
                  false});
    Table t{{"Part", "CPU only: RAM", "All on the GPU: RAM", "All on the GPU: VRAM"}, "lrrr", {}, {}};
    const char *names[] = {"Weights", "KV cache", "Compute buffer", "Output buffer"};
    for (const MemoryPart part : {MemoryPart::Weights, MemoryPart::Kv, MemoryPart::Compute, MemoryPart::Output}) {
        DeviceMemory cr = c.cpu(), gr = g.cpu(), gv = g.gpu();
        t.rows.push_back({names[static_cast<size_t>(part)], mibText(cr[part]), mibText(gr[part]), mibText(gv[part])});
    }
    t.rows.push_back({"Total", mibText(c.cpu().total()), mibText(g.cpu().total()), mibText(g.gpu().total())});
    s.blocks.emplace_back(std::move(t));
    for (const std::string &r : g.refusals)
        s.blocks.push_back(Paragraph{"llama.cpp would refuse these settings: " + printable(r), false});
    for (const std::string &n : g.notes)
        s.blocks.push_back(Paragraph{"Note: " + printable(n), false});
    return s;
}

} // namespace report

} // namespace gguf
