// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/checkpoint_diff.h"

#include "core/safetensors/checkpoint.h"

#include "name_pairing.h"

#include <map>

namespace gguf {

std::vector<NamedTensorPair> pairCheckpointsByName(const st::Checkpoint &a, const st::Checkpoint &b)
{
    const auto nameOf = [](const st::Checkpoint &c) {
        return [&c](size_t i) { return std::string_view(c.tensors()[i].entry->name); };
    };
    std::vector<NamedTensorPair> out;
    for (const auto &[i, j] : detail::pairByName(a.tensors().size(), nameOf(a), b.tensors().size(), nameOf(b)))
        out.push_back({i, j});
    return out;
}

CheckpointPairOutcome compareNamedTensors(const st::Checkpoint &a, const st::Checkpoint &b, const NamedTensorPair &pair,
                                          bool values, const ValueDiffOptions &options)
{
    CheckpointPairOutcome out;
    if (pair.a < 0 || pair.b < 0) {
        out.status = pair.a < 0 ? TensorDiffStatus::OnlyB : TensorDiffStatus::OnlyA;
        return out;
    }
    const st::TensorEntry &ea = *a.tensors()[size_t(pair.a)].entry;
    const st::TensorEntry &eb = *b.tensors()[size_t(pair.b)].entry;
    if (ea.shape != eb.shape) {
        out.status = TensorDiffStatus::ShapeChanged;
        out.problem = "shapes " + st::shapeText(ea.shape) + " and " + st::shapeText(eb.shape);
        return out;
    }
    const std::optional<TensorData> da = checkpointTensorData(a, size_t(pair.a));
    const std::optional<TensorData> db = checkpointTensorData(b, size_t(pair.b));
    const bool sameDtype = ea.dtype == eb.dtype;
    out.status = sameDtype ? TensorDiffStatus::NotCompared : TensorDiffStatus::TypeChanged;
    if (sameDtype && da && db) {
        if (const std::optional<bool> same = sameBytes(*da, *db, options); same && *same) {
            out.status = TensorDiffStatus::SameBytes;
            return out;
        }
    }
    if (!values)
        return out;
    if (!da || !db) {
        out.problem = "values of dtype " + std::string(st::dtypeName(da ? eb.dtype : ea.dtype)) +
                      " are not decoded; only the bytes are compared";
        if (sameDtype)
            out.status = TensorDiffStatus::Changed;
        return out;
    }
    switch (compareValues(ComposedValues::of(*da), ComposedValues::of(*db), options, out.values)) {
    case StatsStatus::Ok:
        out.compared = true;
        if (sameDtype)
            out.status = out.values.sameValues() ? TensorDiffStatus::SameValues : TensorDiffStatus::Changed;
        break;
    case StatsStatus::Unsupported: out.problem = "a dtype that cannot be decoded"; break;
    case StatsStatus::NoData: out.problem = "the data of one side is not inside its file"; break;
    case StatsStatus::Cancelled: out.problem = "cancelled"; break;
    }
    return out;
}

namespace {

// config.json flattened (arrays in full) and the first shard's __metadata__ as "__metadata__.KEY".
std::vector<std::pair<std::string, std::string>> configRows(const st::Checkpoint &c)
{
    std::vector<std::pair<std::string, std::string>> rows;
    if (const json::Value *config = c.config())
        rows = json::flatten(*config, size_t(1) << 20);
    if (!c.shards().empty() && c.shards().front().file)
        for (const st::MetadataItem &m : c.shards().front().file->metadata())
            rows.emplace_back("__metadata__." + m.key, "\"" + m.value + "\"");
    return rows;
}

} // namespace

ConfigDiff diffConfigs(const st::Checkpoint &a, const st::Checkpoint &b)
{
    const auto rowsA = configRows(a), rowsB = configRows(b);
    std::map<std::string, std::string> inB(rowsB.begin(), rowsB.end()), inA(rowsA.begin(), rowsA.end());
    ConfigDiff out;
    for (const auto &[key, value] : rowsA) {
        const auto it = inB.find(key);
        if (it == inB.end())
            out.changes.push_back({key, value, std::nullopt});
        else if (it->second != value)
            out.changes.push_back({key, value, it->second});
        else
            ++out.same;
    }
    for (const auto &[key, value] : rowsB)
        if (!inA.contains(key))
            out.changes.push_back({key, std::nullopt, value});
    return out;
}

} // namespace gguf
