// SPDX-License-Identifier: GPL-3.0-or-later
// `diff --json`: the document of the command contract (docs/COMPARE.md §4).
#include "app/gguf_inspect/cli_diff.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace cli {
namespace {

constexpr size_t kJsonTokenChanges = 20;
constexpr uint64_t kJsonArrayElements = 32;

std::string typeText(const gguf::Value &v)
{
    if (v.type() == gguf::ValueType::Array)
        return "ARRAY[" + gguf::valueTypeName(v.array().elementType()) + "]";
    return gguf::valueTypeName(v.type());
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
            writeMeasures(json, m);
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

} // namespace

void writeMeasure(JsonWriter &json, const char *key, double v)
{
    json.key(key);
    if (std::isfinite(v))
        json.number(v);
    else
        json.null(); // strict JSON: +∞ (identical), NaN (undefined)
}

void writeMeasures(JsonWriter &json, const std::optional<gguf::DiffMeasures> &m)
{
    const double nan = std::numeric_limits<double>::quiet_NaN();
    writeMeasure(json, "rmse", m ? m->rmse : nan);
    writeMeasure(json, "max_abs", m ? m->maxAbs : nan);
    writeMeasure(json, "mean_abs_rel", m ? m->meanAbsRelative : nan);
    writeMeasure(json, "cosine", m ? m->cosine : nan);
    writeMeasure(json, "snr_db", m ? m->snrDb : nan);
    writeMeasure(json, "rel_l2", m ? m->relativeL2 : nan);
}

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

} // namespace cli
