// SPDX-License-Identifier: GPL-3.0-or-later
// `diff A B`: what differs between two models — metadata, tokenizer, tensor index and, with
// --values, the tensors' values (core/compare).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/cli_diff.h"
#include "core/format/ggml_types.h"
#include "core/safetensors/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace cli {
namespace {

using gguf::TensorDiffStatus;

constexpr size_t kListedTokenChanges = 10; // (JSON lists 20: cli_diff_json.cpp)
constexpr size_t kListedMerges = 10;

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
        addMeasureColumns(columns);
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
            addMeasureCells(row, *m);
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

void printSide(const char *letter, const DiffSide &side)
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

void addMeasureCells(std::vector<std::string> &row, const gguf::DiffMeasures &m)
{
    row.push_back(measureText(m.rmse, "%.4g"));
    row.push_back(measureText(m.maxAbs, "%.4g"));
    row.push_back(measureText(m.meanAbsRelative, "%.4g"));
    row.push_back(measureText(m.cosine, "%.6f"));
    row.push_back(measureText(m.snrDb, "%.2f"));
    row.push_back(measureText(m.relativeL2, "%.4g"));
}

void addMeasureColumns(std::vector<TextTable::Column> &columns)
{
    for (const char *header : {"RMSE", "max|a-b|", "mean|a-b|/mean|a|", "cosine", "SNR dB", "rel L2"})
        columns.push_back({header, TextTable::Align::Right});
}

std::string formatText(const gguf::GgufFile &f)
{
    return "GGUF v" + std::to_string(f.version()) + ", " + (f.byteSwapped() ? "big" : "little") +
           "-endian, alignment " + std::to_string(f.alignment());
}

int runDiff(const CommandArgs &args)
{
    if (args.rest.empty()) {
        std::fputs("gguf-inspect: diff: missing the second FILE\nTry 'gguf-inspect --help'.\n", stderr);
        return kExitUsage;
    }
    // a Hugging Face checkpoint on either side: its tensors paired by llama.cpp's conversion (#43)
    const bool checkpointA = gguf::st::Checkpoint::looksLikeCheckpoint(args.file);
    const bool checkpointB = gguf::st::Checkpoint::looksLikeCheckpoint(args.rest.front());
    if (checkpointA && checkpointB)
        return runTwoCheckpointsDiff(args);
    if (checkpointA || checkpointB)
        return runCheckpointDiff(args, checkpointA);
    const DiffSide a{args.file, openModel(args.file)};
    if (!a.model)
        return kExitUnreadable;
    const DiffSide b{args.rest.front(), openModel(args.rest.front())};
    if (!b.model)
        return kExitUnreadable;

    const gguf::MetadataDiff metadata = gguf::compareMetadata(a.model->primary(), b.model->primary());
    const gguf::TokenizerDiff tokenizer = gguf::compareTokenizers(a.model->primary(), b.model->primary());
    std::vector<gguf::TensorPair> pairs = gguf::matchTensors(*a.model, *b.model);
    markSameFiles(*a.model, *b.model, pairs);

    // --tensor NAME…: those tensors only, their values compared
    const bool values = args.values || !args.tensors.empty();
    if (!args.tensors.empty()) {
        auto chosen = chosenTensors(args.tensors, pairs,
                                    [](const gguf::TensorPair &p, const std::string &name) { return p.name == name; });
        if (!chosen)
            return kExitUsage;
        pairs = std::move(*chosen);
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

    const bool tensorsDiffer =
        std::any_of(pairs.begin(), pairs.end(), [](const gguf::TensorPair &p) { return p.differs(); });
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
