// SPDX-License-Identifier: GPL-3.0-or-later
// `diff MODEL.gguf CHECKPOINT` (either order): each GGUF tensor against the checkpoint tensors it
// was converted from, the conversion undone (core/compare/checkpoint_pairing.h, #43).
#include "app/gguf_inspect/cli_diff.h"
#include "app/gguf_inspect/json_writer.h"
#include "core/compare/checkpoint_pairing.h"
#include "core/format/ggml_types.h"
#include "core/safetensors/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

namespace cli {
namespace {

using gguf::CheckpointPair;
using gguf::TensorDiffStatus;
using gguf::st::Checkpoint;

struct CheckpointSides {
    std::string ggufPath, checkpointPath;
    std::shared_ptr<const gguf::SplitModel> model;
    std::shared_ptr<const Checkpoint> checkpoint;
    bool checkpointIsA = false;
};

// One row of the report, oriented A/B as the user gave the files.
struct PairRow {
    const CheckpointPair *pair = nullptr;
    gguf::CheckpointPairOutcome out;
};

const gguf::TensorInfo *ggufInfo(const CheckpointSides &s, const CheckpointPair &p)
{
    return p.ggufTensor >= 0 ? s.model->tensors()[size_t(p.ggufTensor)].info : nullptr;
}

std::string ggufName(const CheckpointSides &s, const CheckpointPair &p)
{
    const gguf::TensorInfo *info = ggufInfo(s, p);
    return info ? std::string(info->name) : std::string();
}

std::string checkpointDtype(const CheckpointSides &s, const CheckpointPair &p)
{
    if (p.sources.empty())
        return {};
    return std::string(gguf::st::dtypeName(s.checkpoint->tensors()[size_t(p.sources.front())].entry->dtype));
}

// The checkpoint side's dims in GGUF order (innermost first), as the GGUF would hold them.
std::vector<uint64_t> checkpointDims(const CheckpointSides &s, const CheckpointPair &p)
{
    if (!p.sourceDims.empty())
        return p.sourceDims;
    if (p.sources.empty())
        return {};
    const auto &shape = s.checkpoint->tensors()[size_t(p.sources.front())].entry->shape;
    return {shape.rbegin(), shape.rend()};
}

std::string dimsText(const std::vector<uint64_t> &dims)
{
    std::string text = "[";
    for (size_t i = 0; i < dims.size(); ++i)
        text += (i ? ", " : "") + std::to_string(dims[i]);
    return text + "]";
}

PairRow compareOne(const CheckpointSides &s, const CheckpointPair &p, bool values)
{
    PairRow row;
    row.pair = &p;
    ProgressPrinter progress("comparing " + printable(p.ggufTensor >= 0 ? ggufName(s, p) : p.sourceName, 60));
    gguf::ValueDiffOptions options;
    options.progress = std::ref(progress);
    row.out = gguf::compareCheckpointPair(*s.model, *s.checkpoint, p, s.checkpointIsA, values, options);
    return row;
}

// The A and B columns of a row: the GGUF's name, type and dims; the checkpoint's name, dtype, dims.
struct SideText {
    std::string name, type, dims;
};

std::pair<SideText, SideText> sideTexts(const CheckpointSides &s, const PairRow &r)
{
    SideText g, c;
    if (const gguf::TensorInfo *info = ggufInfo(s, *r.pair))
        g = {std::string(info->name), gguf::typeName(info->typeId), shapeText(*info)};
    if (!r.pair->sources.empty())
        c = {r.pair->sourceName, checkpointDtype(s, *r.pair), dimsText(checkpointDims(s, *r.pair))};
    return s.checkpointIsA ? std::pair{c, g} : std::pair{g, c};
}

void printCheckpointReport(const CheckpointSides &s, const gguf::CheckpointPairing &pairing,
                           const std::vector<PairRow> &rows, bool values, bool differ)
{
    const std::string ggufLine = printable(s.ggufPath) + "  (GGUF, " +
                                 countOf(s.model->tensors().size(), "tensor", "tensors") + ", " + pairing.architecture +
                                 ")";
    const std::string checkpointLine =
        printable(s.checkpointPath) + "  (Hugging Face checkpoint, " +
        countOf(s.checkpoint->tensors().size(), "tensor", "tensors") +
        (s.checkpoint->architecture().empty() ? "" : ", " + s.checkpoint->architecture()) + ")";
    std::printf("A  %s\nB  %s\n", (s.checkpointIsA ? checkpointLine : ggufLine).c_str(),
                (s.checkpointIsA ? ggufLine : checkpointLine).c_str());
    uint64_t paired = 0, onlyA = 0, onlyB = 0;
    for (const PairRow &r : rows) {
        paired += r.pair->paired();
        onlyA += r.out.status == TensorDiffStatus::OnlyA;
        onlyB += r.out.status == TensorDiffStatus::OnlyB;
    }
    if (!pairing.known)
        std::printf("\nNot paired: %s\n", pairing.problem.c_str());
    else
        std::printf("\nPairing: llama.cpp's conversion of %s undone: %s paired, %s only in A, %s only in B\n",
                    pairing.architecture.c_str(), groupDigits(paired).c_str(), groupDigits(onlyA).c_str(),
                    groupDigits(onlyB).c_str());
    std::vector<TextTable::Column> columns{{"A"}, {"B"}, {"status"}, {"A type"}, {"B type"}};
    if (values)
        addMeasureColumns(columns);
    TextTable table(std::move(columns));
    for (const PairRow &r : rows) {
        const auto [a, b] = sideTexts(s, r);
        std::vector<std::string> cells{
            a.name.empty() ? "-" : printable(a.name, 60), b.name.empty() ? "-" : printable(b.name, 60),
            std::string(gguf::tensorDiffStatusName(r.out.status)), a.type.empty() ? "-" : a.type + " " + a.dims,
            b.type.empty() ? "-" : b.type + " " + b.dims};
        if (const auto m = r.out.measures()) {
            addMeasureCells(cells, *m);
        } else if (values) {
            cells.insert(cells.end(), 6, "-");
        }
        table.addRow(std::move(cells));
    }
    table.print(2);
    for (const PairRow &r : rows) {
        const std::string name = printable(r.pair->ggufTensor >= 0 ? ggufName(s, *r.pair) : r.pair->sourceName, 60);
        if (!r.pair->undone.empty() && r.out.compared) {
            std::string text;
            for (const std::string &u : r.pair->undone)
                text += (text.empty() ? "" : "; ") + u;
            std::printf("  %s: undone: %s\n", name.c_str(), text.c_str());
        }
        if (!r.out.problem.empty())
            std::printf("  %s: not compared: %s\n", name.c_str(), r.out.problem.c_str());
    }
    if (differ)
        std::printf("\nThe two differ.\n");
    else if (!values)
        std::printf("\nEvery tensor pairs; their values were not compared (--values compares them).\n");
    else
        std::printf("\nEvery value equals the checkpoint's, the conversion undone.\n");
}

void writeDimsJson(JsonWriter &json, const std::vector<uint64_t> &dims)
{
    json.beginArray();
    for (uint64_t d : dims)
        json.unsignedInteger(d);
    json.endArray();
}

void writeRowJson(JsonWriter &json, const CheckpointSides &s, const PairRow &r, bool values)
{
    const auto [a, b] = sideTexts(s, r);
    const gguf::TensorInfo *info = ggufInfo(s, *r.pair);
    std::vector<uint64_t> ggufDims;
    if (info)
        ggufDims.assign(info->ne.begin(), info->ne.begin() + std::min<uint32_t>(info->nDims, 4));
    const std::vector<uint64_t> cDims = r.pair->sources.empty() ? std::vector<uint64_t>{} : checkpointDims(s, *r.pair);
    json.beginObject();
    for (const auto &[key, text] : {std::pair{"name", &a.name}, std::pair{"name_b", &b.name},
                                    std::pair{"a_type", &a.type}, std::pair{"b_type", &b.type}}) {
        json.key(key);
        text->empty() ? json.null() : json.string(*text);
    }
    json.field("status", gguf::tensorDiffStatusName(r.out.status));
    for (const auto &[key, dims] : {std::pair{"a_dims", s.checkpointIsA ? &cDims : &ggufDims},
                                    std::pair{"b_dims", s.checkpointIsA ? &ggufDims : &cDims}}) {
        json.key(key);
        dims->empty() ? json.null() : writeDimsJson(json, *dims);
    }
    json.key("undone");
    json.beginArray();
    for (const std::string &u : r.pair->undone)
        json.string(u);
    json.endArray();
    writeOutcomeJson(json, r.out, values);
    json.endObject();
}

bool writeCheckpointDiffJson(const CheckpointSides &s, const gguf::CheckpointPairing &pairing,
                             const std::vector<PairRow> &rows, bool values, bool differ)
{
    JsonWriter json(stdout);
    json.beginObject();
    json.field("a", s.checkpointIsA ? s.checkpointPath : s.ggufPath);
    json.field("b", s.checkpointIsA ? s.ggufPath : s.checkpointPath);
    json.field("checkpoint", s.checkpointIsA ? "a" : "b");
    json.field("architecture", pairing.architecture);
    json.field("paired_by_conversion", pairing.known);
    if (!pairing.problem.empty())
        json.field("problem", pairing.problem);
    json.key("identical");
    if (differ)
        json.boolean(false);
    else if (!values)
        json.null();
    else
        json.boolean(true);
    json.field("values_compared", values);
    json.key("tensors");
    json.beginArray();
    for (const PairRow &r : rows)
        writeRowJson(json, s, r, values);
    json.endArray();
    json.endObject();
    return json.finish();
}

} // namespace

void writeOutcomeJson(JsonWriter &json, const gguf::CheckpointPairOutcome &out, bool values)
{
    if (values) {
        const std::optional<gguf::DiffMeasures> measures = out.measures();
        writeMeasures(json, measures);
        json.key("differing"); // 0 for the same bytes, as a GGUF pair's
        measures ? json.unsignedInteger(out.compared ? out.values.differing : 0) : json.null();
        json.key("non_finite");
        out.compared ? json.unsignedInteger(out.values.nonFinitePairs) : json.null();
    }
    if (!out.problem.empty())
        json.field("problem", out.problem);
}

int runCheckpointDiff(const CommandArgs &args, bool checkpointIsA)
{
    CheckpointSides s;
    s.checkpointIsA = checkpointIsA;
    s.checkpointPath = checkpointIsA ? args.file : args.rest.front();
    s.ggufPath = checkpointIsA ? args.rest.front() : args.file;
    gguf::Error error;
    s.checkpoint = Checkpoint::open(s.checkpointPath, error);
    if (!s.checkpoint) {
        reportError(s.checkpointPath, error);
        return kExitUnreadable;
    }
    s.model = openModel(s.ggufPath);
    if (!s.model)
        return kExitUnreadable;
    const gguf::CheckpointPairing pairing = gguf::pairWithCheckpoint(*s.model, *s.checkpoint);
    const bool values = args.values || !args.tensors.empty();
    std::vector<const CheckpointPair *> chosen;
    for (const CheckpointPair &p : pairing.pairs)
        chosen.push_back(&p);
    if (!args.tensors.empty()) {
        auto asked = chosenTensors(args.tensors, chosen, [&](const CheckpointPair *p, const std::string &name) {
            return ggufName(s, *p) == name || (!p->sources.empty() && p->sourceName == name);
        });
        if (!asked)
            return kExitUsage;
        chosen = std::move(*asked);
    }
    std::vector<PairRow> rows;
    rows.reserve(chosen.size());
    for (const CheckpointPair *p : chosen)
        rows.push_back(compareOne(s, *p, values));
    const bool differ = std::any_of(rows.begin(), rows.end(), [](const PairRow &r) { return r.out.differs(); });
    if (args.json) {
        if (!writeCheckpointDiffJson(s, pairing, rows, values, differ))
            return kExitUnreadable;
    } else {
        printCheckpointReport(s, pairing, rows, values, differ);
    }
    return differ ? kExitDifferent : kExitOk;
}

} // namespace cli
