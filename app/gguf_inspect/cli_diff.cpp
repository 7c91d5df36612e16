// SPDX-License-Identifier: GPL-3.0-or-later
// `diff A B`: what differs between two models — metadata, tokenizer, tensor index and, with
// --values, the tensors' values (core/compare).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/compare/metadata_diff.h"
#include "core/compare/tensor_diff.h"
#include "core/compare/tokenizer_diff.h"
#include "core/format/ggml_types.h"
#include "core/format/split_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <set>

namespace cli {
namespace {

using gguf::TensorDiffStatus;

constexpr size_t kListedTokenChanges = 10; // text output; JSON lists 20
constexpr size_t kJsonTokenChanges = 20;
constexpr size_t kListedMerges = 10;
constexpr uint64_t kJsonArrayElements = 32;

struct Side {
    std::string path;
    std::shared_ptr<const gguf::SplitModel> model;
};

// A model and every shard of it, or a message and null: a shard that is missing would make its
// tensors look removed, so the diff refuses it.
std::string typeText(const gguf::Value &v)
{
    if (v.type() == gguf::ValueType::Array)
        return "ARRAY[" + gguf::valueTypeName(v.array().elementType()) + "]";
    return gguf::valueTypeName(v.type());
}

std::string measureText(double v, const char *format)
{
    if (std::isnan(v))
        return "-";
    if (std::isinf(v))
        return v > 0 ? "∞" : "-∞";
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

// Where two long strings part: "first difference at byte 512 (line 14)".
std::string firstDifferenceText(std::string_view a, std::string_view b)
{
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
    const size_t line =
        1 + static_cast<size_t>(std::count(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(i), '\n'));
    return "first difference at byte " + groupDigits(i) + " (line " + groupDigits(line) + ")";
}

bool longString(const gguf::Value &v)
{
    return v.type() == gguf::ValueType::String &&
           (v.toStringView().size() > 60 || v.toStringView().find('\n') != std::string_view::npos);
}

// "UINT32 7", "STRING \"llama\"", "[INT32 × 32000]" (an array's text names its type)
std::string valueSummary(const gguf::Value &v)
{
    std::string text = printable(v.toDisplayString(60));
    if (longString(v))
        text += " (" + groupDigits(v.toStringView().size()) + " bytes)";
    return v.type() == gguf::ValueType::Array ? text : gguf::valueTypeName(v.type()) + " " + text;
}

void printMetadata(const gguf::MetadataDiff &diff)
{
    std::printf("\nMetadata: %s changed, %s added, %s removed, %s the same\n", groupDigits(diff.changed).c_str(),
                groupDigits(diff.added).c_str(), groupDigits(diff.removed).c_str(), groupDigits(diff.same).c_str());
    for (const gguf::MetadataDifference &d : diff.entries) {
        if (d.status == gguf::DiffStatus::Same)
            continue;
        const std::string key = printable(d.key, 80);
        if (d.status == gguf::DiffStatus::Added) {
            std::printf("  added    %s  %s\n", key.c_str(), valueSummary(d.b->value).c_str());
            continue;
        }
        if (d.status == gguf::DiffStatus::Removed) {
            std::printf("  removed  %s  %s\n", key.c_str(), valueSummary(d.a->value).c_str());
            continue;
        }
        const gguf::Value &a = d.a->value, &b = d.b->value;
        std::printf("  changed  %s  %s → %s\n", key.c_str(), valueSummary(a).c_str(), valueSummary(b).c_str());
        if (longString(a) && longString(b))
            std::printf("           %s\n", firstDifferenceText(a.toStringView(), b.toStringView()).c_str());
        if (a.type() == gguf::ValueType::Array && !d.typeChanged) {
            std::printf("           %s of %s elements differ\n", groupDigits(d.differingElements).c_str(),
                        groupDigits(std::max(a.array().size(), b.array().size())).c_str());
            for (const gguf::ElementDifference &e : d.firstDifferences)
                std::printf("           [%s] %s → %s\n", groupDigits(e.index).c_str(),
                            e.a.empty() ? "(none)" : printable(e.a, 60).c_str(),
                            e.b.empty() ? "(none)" : printable(e.b, 60).c_str());
        }
    }
}

std::string optionalText(const std::optional<uint64_t> &v)
{
    return v ? std::to_string(*v) : std::string("(none)");
}

void printTokenizer(const gguf::TokenizerDiff &t)
{
    std::printf("\nTokenizer: %s\n", t.verdict.c_str());
    if (!t.hasA || !t.hasB)
        return;
    if (t.modelA != t.modelB)
        std::printf("  model          %s → %s\n", printable(t.modelA).c_str(), printable(t.modelB).c_str());
    if (t.preA != t.preB)
        std::printf("  pre-tokenizer  %s → %s\n", printable(t.preA).c_str(), printable(t.preB).c_str());
    if (t.sizeA != t.sizeB)
        std::printf("  tokens         %s → %s\n", groupDigits(t.sizeA).c_str(), groupDigits(t.sizeB).c_str());
    if (!t.changes.empty()) {
        std::printf("  changed ids    %s (text %s, type %s, score %s)\n", groupDigits(t.changes.size()).c_str(),
                    groupDigits(t.textChanged).c_str(), groupDigits(t.typeChanged).c_str(),
                    groupDigits(t.scoreChanged).c_str());
        for (size_t i = 0; i < std::min(kListedTokenChanges, t.changes.size()); ++i) {
            const gguf::TokenChange &c = t.changes[i];
            std::string line = "    " + std::to_string(c.id) + ":";
            if (c.what & gguf::TokenChange::Text)
                line += " text " + printable(c.textA, 40) + " → " + printable(c.textB, 40);
            if (c.what & gguf::TokenChange::Type)
                line += " type " + (c.typeA ? std::to_string(*c.typeA) : "-") + " → " +
                        (c.typeB ? std::to_string(*c.typeB) : "-");
            if (c.what & gguf::TokenChange::Score)
                line += " score " + (c.scoreA ? measureText(*c.scoreA, "%.9g") : "-") + " → " +
                        (c.scoreB ? measureText(*c.scoreB, "%.9g") : "-");
            std::printf("%s\n", line.c_str());
        }
    }
    if (t.mergesAdded + t.mergesRemoved + t.mergesReranked > 0) {
        std::printf("  merges         %s → %s: %s added, %s removed, %s at another rank\n",
                    groupDigits(t.mergesA).c_str(), groupDigits(t.mergesB).c_str(), groupDigits(t.mergesAdded).c_str(),
                    groupDigits(t.mergesRemoved).c_str(), groupDigits(t.mergesReranked).c_str());
        for (size_t i = 0; i < std::min(kListedMerges, t.firstMergesAdded.size()); ++i)
            std::printf("    + %s\n", printable(t.firstMergesAdded[i], 60).c_str());
        for (size_t i = 0; i < std::min(kListedMerges, t.firstMergesRemoved.size()); ++i)
            std::printf("    - %s\n", printable(t.firstMergesRemoved[i], 60).c_str());
    }
    for (const gguf::SpecialTokenChange &s : t.special)
        std::printf("  %s  %s → %s\n", printable(s.key).c_str(), optionalText(s.a).c_str(), optionalText(s.b).c_str());
}

void printTensors(const std::vector<gguf::TensorPair> &pairs, bool values)
{
    uint64_t onlyA = 0, onlyB = 0, shape = 0, type = 0, notCompared = 0, problems = 0;
    for (const gguf::TensorPair &p : pairs) {
        onlyA += p.status == TensorDiffStatus::OnlyA;
        onlyB += p.status == TensorDiffStatus::OnlyB;
        shape += p.status == TensorDiffStatus::ShapeChanged;
        type += p.status == TensorDiffStatus::TypeChanged;
        notCompared += p.status == TensorDiffStatus::NotCompared && p.problem.empty();
        problems += !p.problem.empty();
    }
    std::printf("\nTensors: %s; %s only in A, %s only in B, %s of another shape, %s of another type%s\n",
                groupDigits(pairs.size()).c_str(), groupDigits(onlyA).c_str(), groupDigits(onlyB).c_str(),
                groupDigits(shape).c_str(), groupDigits(type).c_str(),
                problems > 0 ? (", " + groupDigits(problems) + " not comparable").c_str() : "");
    std::vector<TextTable::Column> columns{{"name"}, {"status"}, {"A"}, {"B"}};
    if (values)
        for (const char *header : {"RMSE", "max|a-b|", "mean|a-b|/mean|a|", "cosine", "SNR dB", "rel L2"})
            columns.push_back({header, TextTable::Align::Right});
    TextTable table(std::move(columns));
    size_t rows = 0;
    for (const gguf::TensorPair &p : pairs) {
        if (!values && p.status == TensorDiffStatus::NotCompared)
            continue;
        std::vector<std::string> row{printable(p.name, 60), std::string(gguf::tensorDiffStatusName(p.status))};
        row.push_back(p.a ? gguf::typeName(p.a->typeId) + " " + shapeText(*p.a) : "-");
        row.push_back(p.b ? gguf::typeName(p.b->typeId) + " " + shapeText(*p.b) : "-");
        if (!values) {
            // index differences only
        } else if (const auto m = p.measures()) {
            row.push_back(measureText(m->rmse, "%.4g"));
            row.push_back(measureText(m->maxAbs, "%.4g"));
            row.push_back(measureText(m->meanAbsRelative, "%.4g"));
            row.push_back(measureText(m->cosine, "%.6f"));
            row.push_back(measureText(m->snrDb, "%.2f"));
            row.push_back(measureText(m->relativeL2, "%.4g"));
        } else {
            row.insert(row.end(), 6, p.problem.empty() ? "" : "-");
        }
        table.addRow(std::move(row));
        ++rows;
    }
    if (rows > 0)
        table.print(2);
    for (const gguf::TensorPair &p : pairs) {
        if (!p.problem.empty())
            std::printf("  %s: not compared: %s\n", printable(p.name, 60).c_str(), p.problem.c_str());
        if (p.valuesCompared && p.values.nonFinitePairs > 0)
            std::printf("  %s: %s pairs with a NaN or an infinity, left out of the measures (%s of all pairs differ)\n",
                        printable(p.name, 60).c_str(), groupDigits(p.values.nonFinitePairs).c_str(),
                        groupDigits(p.values.differing).c_str());
    }
    if (!values && notCompared > 0)
        std::printf("  %s of the same type and shape: data not compared (--values compares it)\n",
                    countOf(notCompared, "tensor", "tensors").c_str());
}

void writeValue(JsonWriter &json, const gguf::Value &v, int depth = 0)
{
    switch (v.type()) {
    case gguf::ValueType::String: json.string(v.toStringView()); return;
    case gguf::ValueType::Bool: json.boolean(v.toBool().value_or(false)); return;
    case gguf::ValueType::Float32:
    case gguf::ValueType::Float64: {
        const double d = v.toDouble().value_or(0);
        std::isfinite(d) ? json.number(d) : json.null(); // strict JSON has no NaN or Infinity
        return;
    }
    case gguf::ValueType::Uint8:
    case gguf::ValueType::Uint16:
    case gguf::ValueType::Uint32:
    case gguf::ValueType::Uint64: json.unsignedInteger(v.toUInt().value_or(0)); return;
    case gguf::ValueType::Array: {
        const gguf::ArrayRef a = v.array();
        if (a.size() > kJsonArrayElements || depth > 8) {
            json.beginObject();
            json.field("array", gguf::valueTypeName(a.elementType()));
            json.field("count", a.size());
            json.endObject();
            return;
        }
        json.beginArray();
        for (uint64_t i = 0; i < a.size(); ++i)
            writeValue(json, a.at(i), depth + 1);
        json.endArray();
        return;
    }
    default: json.integer(v.toInt().value_or(0)); return;
    }
}

void writeMeasure(JsonWriter &json, const char *key, double v)
{
    json.key(key);
    if (std::isfinite(v))
        json.number(v);
    else
        json.null(); // strict JSON: +∞ (identical), NaN (undefined)
}

void writeDims(JsonWriter &json, const gguf::TensorInfo *t)
{
    if (!t) {
        json.null();
        return;
    }
    json.beginArray();
    for (uint32_t d = 0; d < std::min<uint32_t>(t->nDims, 4); ++d)
        json.unsignedInteger(t->ne[d]);
    json.endArray();
}

void writeOptionalId(JsonWriter &json, const std::optional<uint64_t> &id)
{
    if (id)
        json.unsignedInteger(*id);
    else
        json.null();
}

void writeMetadataJson(JsonWriter &json, const gguf::MetadataDiff &diff)
{
    json.beginObject();
    for (const auto status : {gguf::DiffStatus::Added, gguf::DiffStatus::Removed}) {
        json.key(gguf::diffStatusName(status));
        json.beginArray();
        for (const gguf::MetadataDifference &d : diff.entries)
            if (d.status == status)
                json.string(d.key);
        json.endArray();
    }
    json.key("changed");
    json.beginArray();
    for (const gguf::MetadataDifference &d : diff.entries) {
        if (d.status != gguf::DiffStatus::Changed)
            continue;
        json.beginObject();
        json.field("key", d.key);
        json.key("a");
        writeValue(json, d.a->value);
        json.key("b");
        writeValue(json, d.b->value);
        json.field("a_type", typeText(d.a->value));
        json.field("b_type", typeText(d.b->value));
        if (d.a->value.type() == gguf::ValueType::Array && !d.typeChanged) {
            json.field("a_count", d.a->value.array().size());
            json.field("b_count", d.b->value.array().size());
            json.field("differing_elements", d.differingElements);
            json.key("first_differences");
            json.beginArray();
            for (const gguf::ElementDifference &e : d.firstDifferences) {
                json.beginObject();
                json.field("index", e.index);
                json.field("a", e.a);
                json.field("b", e.b);
                json.endObject();
            }
            json.endArray();
        }
        json.endObject();
    }
    json.endArray();
    json.field("same", diff.same);
    json.endObject();
}

void writeOptionalScore(JsonWriter &json, const char *key, const std::optional<float> &s)
{
    json.key(key);
    if (s && std::isfinite(*s))
        json.number(*s);
    else
        json.null();
}

void writeTokenizerJson(JsonWriter &json, const gguf::TokenizerDiff &t)
{
    json.beginObject();
    json.field("verdict", t.verdict);
    json.field("identical", t.identical());
    for (const auto &[key, a, b] : {std::tuple{"model", t.modelA, t.modelB}, std::tuple{"pre", t.preA, t.preB}}) {
        json.key(key);
        json.beginObject();
        json.field("a", a);
        json.field("b", b);
        json.endObject();
    }
    const std::pair<const char *, uint64_t> counts[] = {{"a_tokens", t.sizeA},
                                                        {"b_tokens", t.sizeB},
                                                        {"added", t.added},
                                                        {"removed", t.removed},
                                                        {"text_changed", t.textChanged},
                                                        {"type_changed", t.typeChanged},
                                                        {"score_changed", t.scoreChanged},
                                                        {"a_merges", t.mergesA},
                                                        {"b_merges", t.mergesB},
                                                        {"merges_added", t.mergesAdded},
                                                        {"merges_removed", t.mergesRemoved},
                                                        {"merges_reranked", t.mergesReranked}};
    for (const auto &[key, n] : counts) {
        json.field(key, n);
    }
    json.key("changes");
    json.beginArray();
    for (size_t i = 0; i < std::min(kJsonTokenChanges, t.changes.size()); ++i) {
        const gguf::TokenChange &c = t.changes[i];
        json.beginObject();
        json.field("id", c.id);
        json.field("a", c.textA);
        json.field("b", c.textB);
        json.key("a_type");
        c.typeA ? json.integer(*c.typeA) : json.null();
        json.key("b_type");
        c.typeB ? json.integer(*c.typeB) : json.null();
        writeOptionalScore(json, "a_score", c.scoreA);
        writeOptionalScore(json, "b_score", c.scoreB);
        json.endObject();
    }
    json.endArray();
    for (const auto &[key, list] : {std::pair{"first_merges_added", &t.firstMergesAdded},
                                    std::pair{"first_merges_removed", &t.firstMergesRemoved}}) {
        json.key(key);
        json.beginArray();
        for (size_t i = 0; i < std::min(kJsonTokenChanges, list->size()); ++i)
            json.string((*list)[i]);
        json.endArray();
    }
    json.key("special_changed");
    json.beginArray();
    for (const gguf::SpecialTokenChange &s : t.special) {
        json.beginObject();
        json.field("key", s.key);
        json.key("a");
        writeOptionalId(json, s.a);
        json.key("b");
        writeOptionalId(json, s.b);
        json.endObject();
    }
    json.endArray();
    json.endObject();
}

void writeTensorsJson(JsonWriter &json, const std::vector<gguf::TensorPair> &pairs, bool values)
{
    json.beginArray();
    for (const gguf::TensorPair &p : pairs) {
        json.beginObject();
        json.field("name", p.name);
        json.field("status", gguf::tensorDiffStatusName(p.status));
        json.key("a_type");
        p.a ? json.string(gguf::typeName(p.a->typeId)) : json.null();
        json.key("b_type");
        p.b ? json.string(gguf::typeName(p.b->typeId)) : json.null();
        json.key("a_dims");
        writeDims(json, p.a);
        json.key("b_dims");
        writeDims(json, p.b);
        if (values) {
            const std::optional<gguf::DiffMeasures> m = p.measures();
            const double nan = std::numeric_limits<double>::quiet_NaN();
            writeMeasure(json, "rmse", m ? m->rmse : nan);
            writeMeasure(json, "max_abs", m ? m->maxAbs : nan);
            writeMeasure(json, "mean_abs_rel", m ? m->meanAbsRelative : nan);
            writeMeasure(json, "cosine", m ? m->cosine : nan);
            writeMeasure(json, "snr_db", m ? m->snrDb : nan);
            writeMeasure(json, "rel_l2", m ? m->relativeL2 : nan);
            // identical bytes: no pair differs; how many are NaN or infinite was not looked at
            json.key("differing");
            m ? json.unsignedInteger(p.valuesCompared ? p.values.differing : 0) : json.null();
            json.key("non_finite");
            p.valuesCompared ? json.unsignedInteger(p.values.nonFinitePairs) : json.null();
        }
        if (!p.problem.empty())
            json.field("problem", p.problem);
        json.endObject();
    }
    json.endArray();
}

// Both sides are the very same files (one path twice, a link, the same set): every pair of the same
// type and shape has the same bytes, known without reading them.
void markSameFiles(const gguf::SplitModel &a, const gguf::SplitModel &b, std::vector<gguf::TensorPair> &pairs)
{
    if (a.shards().size() != b.shards().size())
        return;
    for (size_t i = 0; i < a.shards().size(); ++i) {
        std::error_code error;
        if (!std::filesystem::equivalent(a.shards()[i].path, b.shards()[i].path, error) || error)
            return;
    }
    for (gguf::TensorPair &p : pairs)
        if (p.status == TensorDiffStatus::NotCompared && p.problem.empty())
            p.status = TensorDiffStatus::SameBytes;
}

// How a file is written, apart from what it holds: "GGUF v3, little-endian, alignment 32".
std::string formatText(const gguf::GgufFile &f)
{
    return "GGUF v" + std::to_string(f.version()) + ", " + (f.byteSwapped() ? "big" : "little") +
           "-endian, alignment " + std::to_string(f.alignment());
}

void writeFormatJson(JsonWriter &json, const gguf::GgufFile &a, const gguf::GgufFile &b)
{
    json.beginObject();
    for (const auto &[key, f] : {std::pair{"a", &a}, std::pair{"b", &b}}) {
        json.key(key);
        json.beginObject();
        json.field("version", f->version());
        json.field("byte_order", f->byteSwapped() ? "big" : "little");
        json.field("alignment", f->alignment());
        json.endObject();
    }
    json.field("same", formatText(a) == formatText(b));
    json.endObject();
}

// A pair whose data could not be compared (outside its file, a type the decoder lacks) is not
// known to be equal, so it counts as a difference.
bool pairDiffers(const gguf::TensorPair &p)
{
    if (!p.problem.empty())
        return true;
    return p.status != TensorDiffStatus::NotCompared && p.status != TensorDiffStatus::SameBytes &&
           p.status != TensorDiffStatus::SameValues;
}

// What diff found, for its report.
struct DiffFindings {
    const Side &a, &b;
    const gguf::MetadataDiff &metadata;
    const gguf::TokenizerDiff &tokenizer;
    const std::vector<gguf::TensorPair> &pairs;
    bool values = false;
    bool differ = false;
    uint64_t notCompared = 0; ///< pairs of the same type and shape whose data was not looked at
};

// identical: the same bytes or the same values, everywhere looked at, and nothing left unlooked at;
// without --values, tensors of the same type and shape are not compared, so "no difference found"
// is all that can be said (identical null, status 0).
bool writeDiffJson(const DiffFindings &d)
{
    const gguf::GgufFile &fa = d.a.model->primary(), &fb = d.b.model->primary();
    JsonWriter json(stdout);
    json.beginObject();
    json.field("a", d.a.path);
    json.field("b", d.b.path);
    json.key("identical");
    if (d.differ)
        json.boolean(false);
    else if (d.notCompared > 0)
        json.null();
    else
        json.boolean(true);
    json.field("values_compared", d.values);
    json.field("tensors_not_compared", d.notCompared);
    json.key("format");
    writeFormatJson(json, fa, fb);
    json.key("metadata");
    writeMetadataJson(json, d.metadata);
    json.key("tokenizer");
    writeTokenizerJson(json, d.tokenizer);
    json.key("tensors");
    writeTensorsJson(json, d.pairs, d.values);
    json.endObject();
    return json.finish();
}

void printSide(const char *letter, const Side &side)
{
    std::printf("%s  %s  (%s, %s, %s)\n", letter, printable(side.path).c_str(),
                countOf(side.model->tensors().size(), "tensor", "tensors").c_str(),
                countOf(side.model->primary().metadata().size(), "key", "keys").c_str(),
                humanBytes(side.model->totalFileSize()).c_str());
}

void printDiff(const DiffFindings &d)
{
    const gguf::GgufFile &fa = d.a.model->primary(), &fb = d.b.model->primary();
    printSide("A", d.a);
    printSide("B", d.b);
    if (formatText(fa) == formatText(fb))
        std::printf("\nFormat: the same (%s)\n", formatText(fa).c_str());
    else
        std::printf("\nFormat: %s → %s (the bytes differ even where the values are the same)\n", formatText(fa).c_str(),
                    formatText(fb).c_str());
    printMetadata(d.metadata);
    printTokenizer(d.tokenizer);
    printTensors(d.pairs, d.values);
    if (d.differ)
        std::printf("\nThe two differ.\n");
    else if (d.notCompared > 0)
        std::printf("\nNo difference found, but the data of %s was not compared (--values compares it).\n",
                    countOf(d.notCompared, "tensor", "tensors").c_str());
    else
        std::printf("\nThe two are identical.\n");
}

} // namespace

int runDiff(const CommandArgs &args)
{
    if (args.rest.empty()) {
        std::fputs("gguf-inspect: diff: missing the second FILE\nTry 'gguf-inspect --help'.\n", stderr);
        return kExitUsage;
    }
    const Side a{args.file, openModel(args.file)};
    if (!a.model)
        return kExitUnreadable;
    const Side b{args.rest.front(), openModel(args.rest.front())};
    if (!b.model)
        return kExitUnreadable;

    const gguf::MetadataDiff metadata = gguf::compareMetadata(a.model->primary(), b.model->primary());
    const gguf::TokenizerDiff tokenizer = gguf::compareTokenizers(a.model->primary(), b.model->primary());
    std::vector<gguf::TensorPair> pairs = gguf::matchTensors(*a.model, *b.model);
    markSameFiles(*a.model, *b.model, pairs);

    // --tensor NAME…: those tensors only, their values compared
    const bool values = args.values || !args.tensors.empty();
    if (!args.tensors.empty()) {
        std::vector<gguf::TensorPair> chosen;
        for (const std::string &name : args.tensors) {
            const auto it = std::find_if(pairs.begin(), pairs.end(), [&](const auto &p) { return p.name == name; });
            if (it == pairs.end()) {
                std::fprintf(stderr, "gguf-inspect: diff: no tensor named '%s' in either file\n",
                             printable(name, 80).c_str());
                return kExitUsage;
            }
            if (std::none_of(chosen.begin(), chosen.end(), [&](const auto &p) { return p.name == name; }))
                chosen.push_back(*it);
        }
        pairs = std::move(chosen);
    }
    if (values) {
        for (gguf::TensorPair &p : pairs) {
            if (!p.comparable())
                continue;
            ProgressPrinter progress("comparing " + printable(p.name, 60));
            gguf::ValueDiffOptions options;
            options.progress = std::ref(progress);
            gguf::compareTensorData(*a.model, *b.model, p, options);
        }
    }

    const bool tensorsDiffer = std::any_of(pairs.begin(), pairs.end(), pairDiffers);
    DiffFindings findings{a, b, metadata, tokenizer, pairs};
    findings.values = values;
    findings.differ = !metadata.identical() || !tokenizer.identical() || tensorsDiffer;
    findings.notCompared = static_cast<uint64_t>(std::count_if(pairs.begin(), pairs.end(), [](const auto &p) {
        return p.status == TensorDiffStatus::NotCompared && p.problem.empty();
    }));
    if (args.json) {
        if (!writeDiffJson(findings))
            return kExitUnreadable;
    } else {
        printDiff(findings);
    }
    return findings.differ ? kExitDifferent : kExitOk;
}

} // namespace cli
