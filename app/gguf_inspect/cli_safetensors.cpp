// SPDX-License-Identifier: GPL-3.0-or-later
// A Hugging Face checkpoint given to gguf-inspect (#43): a .safetensors file (told by its first
// bytes, not its name), a `*.safetensors.index.json`, or a folder. The overview, info, tensors,
// validate and layout, read by core/safetensors (docs/SAFETENSORS.md).
#include "app/gguf_inspect/commands.h"

#include "core/compare/converted_model.h"
#include "core/report/model_report.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/gguf_parser.h"
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/hf_tokenizer.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace cli {
namespace {

using gguf::st::Checkpoint;
using gguf::st::SafetensorsFile;
using gguf::st::TensorEntry;

/// The dtypes and how many tensors hold each, in the format's order.
std::map<gguf::st::Dtype, uint64_t> dtypeCounts(const Checkpoint &c)
{
    std::map<gguf::st::Dtype, uint64_t> counts;
    for (const Checkpoint::TensorRef &t : c.tensors())
        ++counts[t.entry->dtype];
    return counts;
}

/// Every finding: the checkpoint's, then each shard's, with the file each is about.
std::vector<std::pair<const gguf::Finding *, std::string>> allFindings(const Checkpoint &c)
{
    std::vector<std::pair<const gguf::Finding *, std::string>> out;
    for (const Checkpoint::FileFinding &f : c.findings())
        out.emplace_back(&f.finding, f.file);
    for (const Checkpoint::Shard &s : c.shards())
        if (s.file)
            for (const gguf::Finding &f : s.file->findings())
                out.emplace_back(&f, s.path);
    return out;
}

std::string verdict(const Checkpoint &c)
{
    return printable(gguf::checkpointVerdictLine(c));
}

/// A shard that could not be read, or whose header broke: one line on stderr; true when any.
bool reportShardProblem(const Checkpoint &c)
{
    for (const Checkpoint::Shard &s : c.shards())
        if (s.error) {
            reportError(s.path, s.error);
            return true;
        }
    return false;
}

/// config.json's scalar fields people look for first.
void writeConfigSummary(JsonWriter &json, const gguf::json::Value &config)
{
    json.key("config");
    json.beginObject();
    for (const char *key : {"model_type", "hidden_size", "num_hidden_layers", "num_attention_heads",
                            "num_key_value_heads", "intermediate_size", "vocab_size", "max_position_embeddings",
                            "torch_dtype", "num_local_experts", "num_experts"})
        if (const gguf::json::Value *v = config.find(key)) {
            if (v->kind == gguf::json::Value::Kind::String)
                json.field(key, v->text);
            else if (const auto n = v->asUnsigned())
                json.field(key, *n);
        }
    json.endObject();
}

void writeInfoJson(const Checkpoint &c)
{
    JsonWriter json(stdout);
    json.beginObject();
    json.field("path", c.path());
    json.field("format", "safetensors");
    if (c.shards().size() == 1 && c.shards()[0].file) { // one file: its figures at the top, as for a GGUF
        const SafetensorsFile &f = *c.shards()[0].file;
        json.field("file_size", f.fileSize());
        json.field("header_length", f.headerLength());
        json.field("data_offset", f.dataOffset());
    }
    json.key("shards");
    json.beginArray();
    for (const Checkpoint::Shard &s : c.shards()) {
        json.beginObject();
        json.field("path", s.path);
        json.field("file_size", s.file ? std::optional(s.file->fileSize()) : std::nullopt);
        json.field("header_length", s.file ? std::optional(s.file->headerLength()) : std::nullopt);
        json.field("data_offset", s.file ? std::optional(s.file->dataOffset()) : std::nullopt);
        json.field("tensor_count", s.file ? std::optional<uint64_t>(s.file->tensors().size()) : std::nullopt);
        json.endObject();
    }
    json.endArray();
    json.field("index", c.indexPath().empty() ? std::optional<std::string>() : std::optional(c.indexPath()));
    json.field("architecture", c.architecture());
    json.field("tensor_count", static_cast<uint64_t>(c.tensors().size()));
    json.field("parameter_count", c.parameterCount());
    json.field("tensor_bytes", c.tensorBytes());
    json.key("tensor_types");
    json.beginObject();
    for (const auto &[dtype, n] : dtypeCounts(c))
        json.field(gguf::st::dtypeName(dtype), n);
    json.endObject();
    json.key("metadata"); // the first shard's __metadata__
    json.beginObject();
    if (!c.shards().empty() && c.shards()[0].file)
        for (const gguf::st::MetadataItem &m : c.shards()[0].file->metadata())
            json.field(m.key, m.value);
    json.endObject();
    if (c.config())
        writeConfigSummary(json, *c.config());
    json.field("accepted", c.referenceAccepts());
    json.endObject();
    json.finish();
}

/// The first `count` tensors as a table, names cut at `nameWidth` characters; a shard column when
/// there are several.
void printTensorRows(const Checkpoint &c, size_t count, size_t nameWidth)
{
    const bool sharded = c.shards().size() > 1;
    std::vector<TextTable::Column> columns = {{"#", TextTable::Align::Right},
                                              {"name"},
                                              {"dtype"},
                                              {"shape"},
                                              {"elements", TextTable::Align::Right},
                                              {"bytes", TextTable::Align::Right},
                                              {"data offset", TextTable::Align::Right},
                                              {"file offset", TextTable::Align::Right}};
    if (sharded)
        columns.push_back({"shard", TextTable::Align::Right});
    TextTable table(columns);
    for (size_t i = 0; i < count; ++i) {
        const TensorEntry &t = *c.tensors()[i].entry;
        std::vector<std::string> row = {std::to_string(i),
                                        printable(t.name, nameWidth),
                                        std::string(gguf::st::dtypeName(t.dtype)),
                                        gguf::st::shapeText(t.shape),
                                        groupDigits(t.elements),
                                        groupDigits(t.bytes()),
                                        groupDigits(t.begin),
                                        groupDigits(t.fileBegin)};
        if (sharded)
            row.push_back(std::to_string(c.tensors()[i].shard + 1));
        table.addRow(row);
    }
    table.print();
}

void printOverview(const Checkpoint &c, bool withTensors)
{
    std::string types;
    for (const auto &[dtype, n] : dtypeCounts(c))
        types += (types.empty() ? "" : ", ") + std::string(gguf::st::dtypeName(dtype)) + " × " + groupDigits(n);
    std::string out;
    out += "path:           " + printable(c.path()) + "\n";
    out += "format:         safetensors\n";
    if (!c.indexPath().empty())
        out += "index:          " + printable(c.indexPath()) + "\n";
    for (size_t i = 0; i < c.shards().size(); ++i) {
        const Checkpoint::Shard &s = c.shards()[i];
        const std::string what = s.file ? groupDigits(s.file->fileSize()) + " bytes, header " +
                                              groupDigits(s.file->headerLength()) + " bytes of JSON, " +
                                              countOf(s.file->tensors().size(), "tensor", "tensors")
                                        : "not read: " + s.error.message;
        out += (i == 0 ? "shards:         " : "                ") + printable(s.path) + " (" + printable(what) + ")\n";
    }
    if (!c.architecture().empty())
        out += "architecture:   " + printable(c.architecture()) + " (config.json)\n";
    else if (!c.configProblem().empty())
        out += "config.json:    " + printable(c.configProblem()) + "\n";
    out += "tensors:        " + groupDigits(c.tensors().size()) + "\n";
    out += "parameters:     " + groupDigits(c.parameterCount()) + "\n";
    out += "tensor data:    " + groupDigits(c.tensorBytes()) + " bytes (" + humanBytes(c.tensorBytes()) + ")\n";
    out += "tensor types:   " + (types.empty() ? std::string("-") : types) + "\n";
    if (!c.shards().empty() && c.shards()[0].file)
        for (const gguf::st::MetadataItem &m : c.shards()[0].file->metadata())
            out += "metadata:       " + printable(m.key, 40) + " = " + printable(m.value, 80) + "\n";
    out += verdict(c) + "\n";
    print(out);
    if (!withTensors || c.tensors().empty())
        return;
    print("\n");
    const size_t shown = std::min<size_t>(c.tensors().size(), 10);
    printTensorRows(c, shown, 60);
    if (shown < c.tensors().size())
        print("… and " + countOf(c.tensors().size() - shown, "more tensor", "more tensors") + "\n");
}

void writeTensorsJson(const Checkpoint &c)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (size_t i = 0; i < c.tensors().size(); ++i) {
        const TensorEntry &t = *c.tensors()[i].entry;
        json.beginObject();
        json.field("index", static_cast<uint64_t>(i));
        json.field("name", t.name);
        json.field("type", gguf::st::dtypeName(t.dtype));
        json.key("shape"); // as written: outermost first
        json.beginArray();
        for (const uint64_t d : t.shape)
            json.unsignedInteger(d);
        json.endArray();
        json.key("dims"); // GGUF's order: innermost first
        json.beginArray();
        for (auto d = t.shape.rbegin(); d != t.shape.rend(); ++d)
            json.unsignedInteger(*d);
        json.endArray();
        json.field("elements", t.elements);
        json.field("bytes", t.bytes());
        json.field("offset", t.begin);
        json.field("file_offset", t.fileBegin);
        if (c.shards().size() > 1)
            json.field("file", c.shards()[c.tensors()[i].shard].path);
        json.endObject();
    }
    json.endArray();
    json.finish();
}

int runTensorsOf(const Checkpoint &c, const CommandArgs &args)
{
    if (args.json) {
        writeTensorsJson(c);
    } else if (args.names) {
        for (const Checkpoint::TensorRef &t : c.tensors())
            print(printable(t.entry->name) + "\n");
    } else {
        printTensorRows(c, c.tensors().size(), 80);
    }
    return reportShardProblem(c) ? kExitBadFile : kExitOk;
}

int runValidateOf(const Checkpoint &c, const CommandArgs &args)
{
    const auto findings = allFindings(c);
    const bool several = c.shards().size() > 1 || !c.indexPath().empty();
    if (args.json) {
        JsonWriter json(stdout);
        json.beginArray();
        for (const auto &[f, file] : findings) {
            json.beginObject();
            json.field("severity", gguf::severityName(f->severity));
            json.field("code", f->code);
            json.field("offset", f->offset);
            json.field("message", f->message);
            if (several)
                json.field("file", file);
            json.endObject();
        }
        json.endArray();
        json.finish();
    } else {
        for (const auto &[f, file] : findings)
            print(std::string(gguf::severityName(f->severity)) + ": " + (several ? printable(file) + ": " : "") +
                  "offset " + gguf::formatOffset(f->offset) + ": " + f->code + ": " + printable(f->message) + "\n");
        print((findings.empty() ? std::string("no findings") : countOf(findings.size(), "finding", "findings")) + "\n" +
              verdict(c) + "\n");
    }
    return c.referenceAccepts() ? kExitOk : kExitBadFile;
}

int runLayoutOf(const Checkpoint &c, const CommandArgs &args)
{
    const bool several = c.shards().size() > 1;
    JsonWriter json(stdout);
    if (args.json)
        json.beginArray();
    for (size_t i = 0; i < c.shards().size(); ++i) {
        const Checkpoint::Shard &s = c.shards()[i];
        if (!args.json && several)
            print(std::string(i ? "\n" : "") + "== shard " + std::to_string(i + 1) + " of " +
                  std::to_string(c.shards().size()) + ": " + printable(s.path) + "\n");
        if (!s.file)
            continue;
        const std::vector<gguf::st::Region> regions = gguf::st::byteRegions(*s.file);
        std::vector<LayoutRow> rows;
        rows.reserve(regions.size());
        for (const gguf::st::Region &r : regions) {
            if (!args.json) {
                rows.push_back({r.offset, r.size, gguf::st::regionKindName(r.kind), r.label});
                continue;
            }
            json.beginObject();
            if (several)
                json.field("file", s.path);
            json.field("offset", r.offset);
            json.field("size", r.size);
            json.field("kind", gguf::st::regionKindName(r.kind));
            json.field("label", r.label);
            json.endObject();
        }
        if (!args.json)
            printLayoutTable(rows);
    }
    if (args.json) {
        json.endArray();
        json.finish();
    }
    return reportShardProblem(c) ? kExitBadFile : kExitOk;
}

// A JSON value as read, written again (integers that fit stay exact).
void writeJsonValue(JsonWriter &json, const gguf::json::Value &v)
{
    using Kind = gguf::json::Value::Kind;
    switch (v.kind) {
    case Kind::Null: json.null(); break;
    case Kind::Bool: json.boolean(v.boolean); break;
    case Kind::Number:
        if (const auto u = v.asUnsigned())
            json.unsignedInteger(*u);
        else
            json.number(std::strtod(v.text.c_str(), nullptr));
        break;
    case Kind::String: json.string(v.text); break;
    case Kind::Array:
        json.beginArray();
        for (const gguf::json::Value &e : v.values)
            writeJsonValue(json, e);
        json.endArray();
        break;
    case Kind::Object:
        json.beginObject();
        for (size_t i = 0; i < v.values.size(); ++i) {
            json.key(v.keys[i].first);
            writeJsonValue(json, v.values[i]);
        }
        json.endObject();
        break;
    }
}

// The JSON header of a shard as its bytes (up to where the object ends).
std::optional<std::string> headerText(const gguf::st::SafetensorsFile &file)
{
    const uint64_t end = file.jsonEnd();
    if (end <= 8)
        return std::nullopt;
    const gguf::ByteLease lease = file.source().acquire(8, end - 8);
    if (!lease)
        return std::nullopt;
    return std::string(reinterpret_cast<const char *>(lease.bytes().data()), lease.bytes().size());
}

// `dump CHECKPOINT [--json]`: each shard's header as written (#43) — its length, where the data
// begins, and the JSON itself; with --json, the headers as JSON values, and config.json.
int runDumpOf(const Checkpoint &c, const CommandArgs &args)
{
    if (args.json) {
        JsonWriter json(stdout);
        json.beginObject();
        json.field("path", args.file);
        json.key("shards");
        json.beginArray();
        for (const Checkpoint::Shard &s : c.shards()) {
            json.beginObject();
            json.field("path", s.path);
            json.key("header");
            const auto text = s.file ? headerText(*s.file) : std::nullopt;
            gguf::json::ParseError why;
            const auto value = text ? gguf::json::parse(*text, why) : std::nullopt;
            value ? writeJsonValue(json, *value) : json.null();
            if (s.file) {
                json.field("header_length", s.file->headerLength());
                json.field("data_offset", s.file->dataOffset());
            }
            json.endObject();
        }
        json.endArray();
        json.key("config");
        c.config() ? writeJsonValue(json, *c.config()) : json.null();
        json.endObject();
        return json.finish() && !reportShardProblem(c) ? kExitOk : kExitBadFile;
    }
    for (const Checkpoint::Shard &s : c.shards()) {
        if (!s.file)
            continue;
        std::printf("%s: header %s bytes at 8, data at %s\n", printable(s.path).c_str(),
                    groupDigits(s.file->headerLength()).c_str(), groupDigits(s.file->dataOffset()).c_str());
        if (const auto text = headerText(*s.file))
            std::printf("%s\n", printable(*text, text->size() + 1).c_str());
    }
    return reportShardProblem(c) ? kExitBadFile : kExitOk;
}

// `vocab CHECKPOINT`: the vocabulary of the tokenizer.json beside it (#43): id, kind, score, token.
int runVocabOf(const Checkpoint &c, const CommandArgs &args)
{
    gguf::Error error;
    const auto t = gguf::st::readHfTokenizer(c, error);
    if (!t) {
        reportTokenizerJsonError(c, args.file, error);
        return kExitBadFile;
    }
    const auto kind = [](const gguf::st::HfToken &token) {
        return !token.named ? "none" : token.special ? "special" : token.added ? "added" : "normal";
    };
    if (args.json) {
        JsonWriter json(stdout);
        json.beginArray();
        for (size_t id = 0; id < t->tokens.size(); ++id) {
            const gguf::st::HfToken &token = t->tokens[id];
            json.beginObject();
            json.field("id", static_cast<uint64_t>(id));
            json.key("token");
            token.named ? json.string(token.text) : json.null();
            json.field("type", kind(token));
            json.key("score");
            token.score ? json.number(*token.score) : json.null();
            json.endObject();
        }
        json.endArray();
        return json.finish() ? kExitOk : kExitBadFile;
    }
    uint64_t added = 0, special = 0;
    for (const gguf::st::HfToken &token : t->tokens) {
        added += token.added;
        special += token.special;
    }
    std::printf("%s ids, model %s (tokenizer.json), %s added (%s special), %s merges%s\n",
                groupDigits(t->tokens.size()).c_str(), t->model.empty() ? "?" : printable(t->model).c_str(),
                groupDigits(added).c_str(), groupDigits(special).c_str(), groupDigits(t->merges).c_str(),
                t->gaps ? (", " + groupDigits(t->gaps) + " ids without a token").c_str() : "");
    TextTable table({{"id", TextTable::Align::Right}, {"type"}, {"score", TextTable::Align::Right}, {"token"}});
    for (size_t id = 0; id < t->tokens.size(); ++id) {
        const gguf::st::HfToken &token = t->tokens[id];
        char score[32] = "-";
        if (token.score)
            std::snprintf(score, sizeof score, "%.6g", *token.score);
        table.addRow({std::to_string(id), kind(token), score, token.named ? printable(token.text, 60) : "-"});
    }
    table.print(2);
    return kExitOk;
}

// The GGUF the converter would write for a checkpoint, for fit's llama-server line: the folder's or
// the file's name with .gguf ("Qwen3-8B/" → "Qwen3-8B.gguf").
std::string convertedPath(std::string path)
{
    while (path.size() > 1 && path.back() == '/')
        path.pop_back();
    for (const std::string_view ending : {".safetensors.index.json", ".safetensors"})
        if (path.size() > ending.size() && path.ends_with(ending)) {
            path.resize(path.size() - ending.size());
            break;
        }
    return path + ".gguf";
}

// memory and fit: the model llama.cpp's converter would make of the checkpoint, at its own dtype
// (docs/SAFETENSORS.md §8); what no rule maps is named and left out.
int runMemoryOfCheckpoint(const Checkpoint &c, std::string_view command, const CommandArgs &args)
{
    const gguf::ConvertedModel converted = gguf::convertedModel(c);
    if (!converted.model) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", printable(args.file).c_str(),
                     printable(converted.problem).c_str());
        return kExitBadFile;
    }
    if (!converted.unmapped.empty()) {
        std::string names;
        for (size_t i = 0; i < converted.unmapped.size() && i < 5; ++i)
            names += (i ? ", " : "") + printable(converted.unmapped[i]);
        std::fprintf(stderr, "gguf-inspect: %s: %s the conversion does not map, left out: %s%s\n",
                     printable(args.file).c_str(), countOf(converted.unmapped.size(), "tensor", "tensors").c_str(),
                     names.c_str(), converted.unmapped.size() > 5 ? ", …" : "");
    }
    if (!args.json) {
        const char *outtype = "f32";
        for (const gguf::SplitModel::TensorRef &t : converted.model->tensors())
            outtype = t.info->typeId == 30 ? "bf16" : t.info->typeId == 1 && outtype[0] != 'b' ? "f16" : outtype;
        std::printf("A Hugging Face checkpoint, as llama.cpp's converter would make it at its own dtype "
                    "(convert_hf_to_gguf.py --outtype %s): %s\n\n",
                    outtype, countOf(converted.model->tensors().size(), "tensor", "tensors").c_str());
    }
    return command == "fit" ? runFitOn(args, *converted.model, convertedPath(args.file))
                            : runMemoryOn(args, *converted.model);
}

} // namespace

void reportTokenizerJsonError(const Checkpoint &c, const std::string &file, const gguf::Error &error)
{
    if (error.kind == gguf::ErrorKind::NotFound)
        std::fprintf(stderr, "gguf-inspect: %s: no tokenizer.json beside the checkpoint\n", printable(file).c_str());
    else
        reportError(c.besidePath("tokenizer.json"), error);
}

std::optional<int> runSafetensors(std::string_view command, const CommandArgs &args)
{
    // the values are read by the same commands as a GGUF's, which tell the two apart themselves
    // (cli_values.cpp): the file's first bytes are read once
    if (command == "stats" || command == "dequant" || command == "diff") // diff: cli_diff_checkpoint.cpp
        return std::nullopt;
    if (args.file.empty() || !Checkpoint::looksLikeCheckpoint(args.file))
        return std::nullopt;
    // every command reads a checkpoint (#43)
    gguf::Error error;
    const auto checkpoint = Checkpoint::open(args.file, error);
    if (!checkpoint) {
        reportError(args.file, error);
        return kExitBadFile;
    }
    const Checkpoint &c = *checkpoint;
    if (command == "memory" || command == "fit")
        return runMemoryOfCheckpoint(c, command, args);
    if (command == "report")
        return runReportOf(c, args);
    if (command == "hash")
        return runHashOf(c, args);
    if (command == "tensors")
        return runTensorsOf(c, args);
    if (command == "validate")
        return runValidateOf(c, args);
    if (command == "layout")
        return runLayoutOf(c, args);
    if (command == "vocab")
        return runVocabOf(c, args);
    if (command == "tokenize")
        return runTokenizeOf(c, args);
    if (command == "split")
        return runSplitOf(c, args);
    if (command == "merge")
        return runMergeOf(c, args);
    if (command == "set")
        return runSetOf(c, args);
    if (command == "detokenize")
        return runDetokenizeOf(c, args);
    if (command == "dump")
        return runDumpOf(c, args);
    if (args.json)
        writeInfoJson(c);
    else
        printOverview(c, command.empty());
    return reportShardProblem(c) ? kExitBadFile : kExitOk;
}

} // namespace cli
