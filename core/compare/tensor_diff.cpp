// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/tensor_diff.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/quant/dequantize.h"

#include <unordered_map>

namespace gguf {
namespace {

bool sameShape(const TensorInfo &a, const TensorInfo &b)
{
    return a.nDims == b.nDims && a.ne == b.ne && a.elements == b.elements;
}

TensorData dataOf(const SplitModel &model, int position)
{
    const SplitModel::TensorRef &ref = model.tensors()[static_cast<size_t>(position)];
    return tensorData(*model.shards()[ref.shard].file, *ref.info);
}

bool byteSwapped(const SplitModel &model, int position)
{
    const SplitModel::TensorRef &ref = model.tensors()[static_cast<size_t>(position)];
    return model.shards()[ref.shard].file->byteSwapped();
}

} // namespace

std::string_view tensorDiffStatusName(TensorDiffStatus status)
{
    switch (status) {
    case TensorDiffStatus::NotCompared: return "not-compared";
    case TensorDiffStatus::SameBytes: return "same-bytes";
    case TensorDiffStatus::SameValues: return "same-values";
    case TensorDiffStatus::Changed: return "changed";
    case TensorDiffStatus::TypeChanged: return "type-changed";
    case TensorDiffStatus::ShapeChanged: return "shape-changed";
    case TensorDiffStatus::OnlyA: return "only-a";
    case TensorDiffStatus::OnlyB: return "only-b";
    }
    return "not-compared";
}

std::vector<TensorPair> matchTensors(const SplitModel &a, const SplitModel &b)
{
    std::unordered_map<std::string_view, int> inB;
    for (size_t i = 0; i < b.tensors().size(); ++i)
        inB.emplace(b.tensors()[i].info->name, static_cast<int>(i)); // a repeated name: the first counts
    std::unordered_map<std::string_view, int> inA;
    std::vector<TensorPair> pairs;
    pairs.reserve(a.tensors().size());
    for (size_t i = 0; i < a.tensors().size(); ++i) {
        const TensorInfo *info = a.tensors()[i].info;
        if (!inA.emplace(info->name, static_cast<int>(i)).second)
            continue;
        TensorPair p;
        p.name = info->name;
        p.positionA = static_cast<int>(i);
        p.a = info;
        if (const auto it = inB.find(info->name); it != inB.end()) {
            p.positionB = it->second;
            p.b = b.tensors()[static_cast<size_t>(it->second)].info;
            if (!sameShape(*p.a, *p.b))
                p.status = TensorDiffStatus::ShapeChanged;
            else if (p.a->typeId != p.b->typeId)
                p.status = TensorDiffStatus::TypeChanged;
        } else {
            p.status = TensorDiffStatus::OnlyA;
        }
        pairs.push_back(std::move(p));
    }
    for (size_t i = 0; i < b.tensors().size(); ++i) {
        const TensorInfo *info = b.tensors()[i].info;
        if (inA.contains(info->name) || inB.at(info->name) != static_cast<int>(i))
            continue;
        TensorPair p;
        p.name = info->name;
        p.positionB = static_cast<int>(i);
        p.b = info;
        p.status = TensorDiffStatus::OnlyB;
        pairs.push_back(std::move(p));
    }
    return pairs;
}

StatsStatus compareTensorData(const SplitModel &a, const SplitModel &b, TensorPair &pair,
                              const ValueDiffOptions &options)
{
    if (!pair.comparable())
        return StatsStatus::NoData;
    const TensorData da = dataOf(a, pair.positionA), db = dataOf(b, pair.positionB);
    if (da.bytes.empty() || db.bytes.empty()) {
        pair.problem =
            "the data of the tensor in " + std::string(da.bytes.empty() ? "A" : "B") + " lies outside its file";
        return StatsStatus::NoData;
    }
    const bool sameEncoding =
        pair.a->typeId == pair.b->typeId && byteSwapped(a, pair.positionA) == byteSwapped(b, pair.positionB);
    if (sameEncoding && da.bytes.size() == db.bytes.size()) {
        const std::optional<bool> same = sameBytes(da, db, options);
        if (!same)
            return StatsStatus::Cancelled;
        if (*same) {
            pair.status = TensorDiffStatus::SameBytes;
            pair.valuesCompared = false;
            pair.problem.clear();
            return StatsStatus::Ok;
        }
    }
    ValueDiff values;
    const StatsStatus status = compareValues(da, db, options, values);
    if (status == StatsStatus::Cancelled)
        return status;
    if (status != StatsStatus::Ok) {
        if (pair.status == TensorDiffStatus::NotCompared && sameEncoding)
            pair.status = TensorDiffStatus::Changed; // the bytes differ
        const uint32_t undecodable = canDequantize(pair.a->typeId) ? pair.b->typeId : pair.a->typeId;
        pair.problem = status == StatsStatus::Unsupported
                           ? "values of type " + typeName(undecodable) + " cannot be decoded"
                           : "the data could not be decoded";
        return status;
    }
    pair.values = values;
    pair.valuesCompared = true;
    pair.problem.clear();
    if (pair.status != TensorDiffStatus::TypeChanged)
        pair.status = values.sameValues() ? TensorDiffStatus::SameValues : TensorDiffStatus::Changed;
    return StatsStatus::Ok;
}

std::string tensorRole(std::string_view name)
{
    for (const std::string_view prefix : {std::string_view("blk."), std::string_view("layers.")}) {
        if (!name.starts_with(prefix))
            continue;
        size_t i = prefix.size();
        while (i < name.size() && name[i] >= '0' && name[i] <= '9')
            ++i;
        if (i > prefix.size() && i < name.size() && name[i] == '.')
            return std::string(name.substr(i + 1));
    }
    return std::string(name);
}

} // namespace gguf
