// SPDX-License-Identifier: GPL-3.0-or-later
// `diff CHECKPOINT_A CHECKPOINT_B`: two Hugging Face checkpoints, their tensors paired by name and
// config.json and `__metadata__` key by key (core/compare/checkpoint_diff.h, #43).
#include "app/gguf_inspect/cli_diff.h"
#include "app/gguf_inspect/json_writer.h"
#include "core/compare/checkpoint_diff.h"
#include "core/safetensors/checkpoint.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace cli {
namespace {

using gguf::NamedTensorPair;
using gguf::TensorDiffStatus;
using gguf::st::Checkpoint;

struct Row {
    NamedTensorPair pair;
    gguf::CheckpointPairOutcome out;
};

struct Sides {
    std::string pathA, pathB;
    std::shared_ptr<const Checkpoint> a, b;
};

// What the comparison found, as a whole.
struct Verdict {
    bool differ = false;   ///< a config key or a tensor differs
    bool unlooked = false; ///< some tensors' values were not compared (no --values)
};

const gguf::st::TensorEntry *entryOf(const Checkpoint &c, int index)
{
    return index >= 0 ? c.tensors()[size_t(index)].entry : nullptr;
}

// The pair's name: A's tensor's, else B's.
const std::string &nameOf(const Sides &s, const NamedTensorPair &p)
{
    return (p.a >= 0 ? entryOf(*s.a, p.a) : entryOf(*s.b, p.b))->name;
}

std::string describe(const std::string &path, const Checkpoint &c)
{
    return printable(path) + "  (Hugging Face checkpoint, " + countOf(c.tensors().size(), "tensor", "tensors") +
           (c.architecture().empty() ? "" : ", " + c.architecture()) + ")";
}

void printReport(const Sides &s, const gguf::ConfigDiff &config, const std::vector<Row> &rows, bool values,
                 const Verdict &verdict)
{
    std::printf("A  %s\nB  %s\n", describe(s.pathA, *s.a).c_str(), describe(s.pathB, *s.b).c_str());
    std::printf("\nconfig.json and __metadata__: %s differ, %s the same\n", groupDigits(config.changes.size()).c_str(),
                groupDigits(config.same).c_str());
    if (!config.changes.empty()) {
        TextTable table({{"key"}, {"A"}, {"B"}});
        for (const gguf::ConfigChange &c : config.changes)
            table.addRow({printable(c.key, 60), c.a ? printable(*c.a, 50) : "-", c.b ? printable(*c.b, 50) : "-"});
        table.print(2);
    }
    std::vector<TextTable::Column> columns{{"tensor"}, {"status"}, {"A"}, {"B"}};
    if (values)
        addMeasureColumns(columns);
    TextTable table(std::move(columns));
    for (const Row &r : rows) {
        const gguf::st::TensorEntry *a = entryOf(*s.a, r.pair.a), *b = entryOf(*s.b, r.pair.b);
        const auto side = [](const gguf::st::TensorEntry *e) {
            return e ? std::string(gguf::st::dtypeName(e->dtype)) + " " + gguf::st::shapeText(e->shape)
                     : std::string("-");
        };
        std::vector<std::string> cells{printable(nameOf(s, r.pair), 60),
                                       std::string(gguf::tensorDiffStatusName(r.out.status)), side(a), side(b)};
        if (const auto m = r.out.measures())
            addMeasureCells(cells, *m);
        else if (values)
            cells.insert(cells.end(), 6, "-");
        table.addRow(std::move(cells));
    }
    std::printf("\n");
    table.print(2);
    for (const Row &r : rows)
        if (!r.out.problem.empty())
            std::printf("  %s: %s\n", printable(nameOf(s, r.pair), 60).c_str(), r.out.problem.c_str());
    std::printf(verdict.differ ? "\nThe two differ.\n"
                : verdict.unlooked
                    ? "\nNo difference found; tensors with other bytes were not compared (--values compares them).\n"
                    : "\nThe two are the same: every tensor's bytes or values, config.json and __metadata__.\n");
}

void writeTensorJson(JsonWriter &json, const Sides &s, const Row &r, bool values)
{
    const gguf::st::TensorEntry *a = entryOf(*s.a, r.pair.a), *b = entryOf(*s.b, r.pair.b);
    json.beginObject();
    for (const auto &[key, e] : {std::pair{"name", a}, std::pair{"name_b", b}}) {
        json.key(key);
        e ? json.string(e->name) : json.null();
    }
    for (const auto &[key, e] : {std::pair{"a_type", a}, std::pair{"b_type", b}}) {
        json.key(key);
        e ? json.string(gguf::st::dtypeName(e->dtype)) : json.null();
    }
    json.field("status", gguf::tensorDiffStatusName(r.out.status));
    for (const auto &[key, e] : {std::pair{"a_shape", a}, std::pair{"b_shape", b}}) {
        json.key(key);
        if (!e) {
            json.null();
            continue;
        }
        json.beginArray();
        for (const uint64_t d : e->shape)
            json.unsignedInteger(d);
        json.endArray();
    }
    writeOutcomeJson(json, r.out, values);
    json.endObject();
}

void writeConfigJson(JsonWriter &json, const gguf::ConfigDiff &config)
{
    json.key("metadata");
    json.beginObject();
    for (const char *kind : {"added", "removed", "changed"}) {
        json.key(kind);
        json.beginArray();
        for (const gguf::ConfigChange &c : config.changes) {
            const std::string_view k = !c.a ? "added" : !c.b ? "removed" : "changed";
            if (k != kind)
                continue;
            json.beginObject();
            json.field("key", c.key);
            if (c.a)
                json.field("a", *c.a);
            if (c.b)
                json.field("b", *c.b);
            json.endObject();
        }
        json.endArray();
    }
    json.field("same", config.same);
    json.endObject();
}

bool writeJson(const Sides &s, const gguf::ConfigDiff &config, const std::vector<Row> &rows, bool values,
               const Verdict &verdict)
{
    JsonWriter json(stdout);
    json.beginObject();
    json.field("a", s.pathA);
    json.field("b", s.pathB);
    json.field("checkpoint", "both");
    json.key("identical");
    verdict.differ ? json.boolean(false) : verdict.unlooked ? json.null() : json.boolean(true);
    json.field("values_compared", values);
    writeConfigJson(json, config);
    json.key("tensors");
    json.beginArray();
    for (const Row &r : rows)
        writeTensorJson(json, s, r, values);
    json.endArray();
    json.endObject();
    return json.finish();
}

} // namespace

int runTwoCheckpointsDiff(const CommandArgs &args)
{
    Sides s{args.file, args.rest.front(), nullptr, nullptr};
    gguf::Error error;
    for (const auto &[path, side] : {std::pair{&s.pathA, &s.a}, std::pair{&s.pathB, &s.b}}) {
        *side = Checkpoint::open(*path, error);
        if (!*side) {
            reportError(*path, error);
            return kExitUnreadable;
        }
    }
    const bool values = args.values || !args.tensors.empty();
    std::vector<NamedTensorPair> pairs = gguf::pairCheckpointsByName(*s.a, *s.b);
    if (!args.tensors.empty()) {
        auto chosen = chosenTensors(args.tensors, pairs, [&](const NamedTensorPair &p, const std::string &name) {
            return nameOf(s, p) == name;
        });
        if (!chosen)
            return kExitUsage;
        pairs = std::move(*chosen);
    }
    std::vector<Row> rows;
    for (const NamedTensorPair &p : pairs) {
        ProgressPrinter progress("comparing " + printable(nameOf(s, p), 60));
        gguf::ValueDiffOptions options;
        options.progress = std::ref(progress);
        rows.push_back({p, gguf::compareNamedTensors(*s.a, *s.b, p, values, options)});
    }
    const gguf::ConfigDiff config = gguf::diffConfigs(*s.a, *s.b);
    const Verdict verdict{!config.changes.empty() ||
                              std::any_of(rows.begin(), rows.end(), [](const Row &r) { return r.out.differs(); }),
                          std::any_of(rows.begin(), rows.end(),
                                      [](const Row &r) { return r.out.status == TensorDiffStatus::NotCompared; })};
    if (args.json) {
        if (!writeJson(s, config, rows, values, verdict))
            return kExitUnreadable;
    } else {
        printReport(s, config, rows, values, verdict);
    }
    return verdict.differ ? kExitDifferent : kExitOk;
}

} // namespace cli
