// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/tensor_diff.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/quant/dequantize.h"

#include <limits>
#include <string>
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

// Why a tensor's data cannot be there in full, naming the side: its range runs past the end of
// its file (a cut copy); empty when it is all inside.
std::string missingData(const SplitModel &model, int position, const char *side)
{
    const SplitModel::TensorRef &ref = model.tensors()[static_cast<size_t>(position)];
    if (ref.info->dataInFile)
        return {};
    const GgufFile &file = *model.shards()[ref.shard].file;
    return "the data in " + std::string(side) + " (" + std::to_string(ref.info->byteSize) + " bytes at offset " +
           std::to_string(ref.info->fileOffset) + ") runs past the end of its file, which ends at " +
           std::to_string(file.fileSize());
}

// When a remote tensor's bytes could not be fetched: the pair's problem says why (the message
// names the URL), and the status is NoData (Cancelled for a cancelled fetch).
std::optional<StatsStatus> fetchFailed(const TensorData &da, const TensorData &db, TensorPair &pair)
{
    const std::optional<Error> e = readError(da, db);
    if (!e)
        return std::nullopt;
    if (e->kind == ErrorKind::Cancelled)
        return StatsStatus::Cancelled;
    pair.problem = e->message;
    return StatsStatus::NoData;
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

std::optional<DiffMeasures> TensorPair::measures() const
{
    if (status == TensorDiffStatus::SameBytes)
        return DiffMeasures{0, 0, 0, 1, std::numeric_limits<double>::infinity(), 0};
    if (!valuesCompared)
        return std::nullopt;
    return values.measures();
}

std::vector<TensorPair> matchTensors(const SplitModel &a, const SplitModel &b)
{
    // A name used more than once (a broken file) pairs its k-th use in A with its k-th in B
    std::unordered_map<std::string_view, std::vector<int>> inB;
    for (size_t i = 0; i < b.tensors().size(); ++i)
        inB[b.tensors()[i].info->name].push_back(static_cast<int>(i));
    std::unordered_map<std::string_view, size_t> usesInA;
    std::vector<bool> matchedB(b.tensors().size(), false);
    std::vector<TensorPair> pairs;
    pairs.reserve(a.tensors().size());
    for (size_t i = 0; i < a.tensors().size(); ++i) {
        const TensorInfo *info = a.tensors()[i].info;
        const size_t use = usesInA[info->name]++;
        TensorPair p;
        p.name = info->name;
        p.positionA = static_cast<int>(i);
        p.a = info;
        const auto it = inB.find(info->name);
        if (it != inB.end() && use < it->second.size()) {
            p.positionB = it->second[use];
            matchedB[static_cast<size_t>(p.positionB)] = true;
            p.b = b.tensors()[static_cast<size_t>(p.positionB)].info;
            if (!sameShape(*p.a, *p.b))
                p.status = TensorDiffStatus::ShapeChanged;
            else if (p.a->typeId != p.b->typeId)
                p.status = TensorDiffStatus::TypeChanged;
            // data missing or cut on either side: not comparable, so not known to be equal
            if (p.comparable()) {
                p.problem = missingData(a, p.positionA, "A");
                if (p.problem.empty())
                    p.problem = missingData(b, p.positionB, "B");
            }
        } else {
            p.status = TensorDiffStatus::OnlyA;
        }
        pairs.push_back(std::move(p));
    }
    for (size_t i = 0; i < b.tensors().size(); ++i) {
        if (matchedB[i])
            continue;
        TensorPair p;
        p.name = b.tensors()[i].info->name;
        p.positionB = static_cast<int>(i);
        p.b = b.tensors()[i].info;
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
    if (pair.a->elements == 0 && pair.b->elements == 0) {
        if (pair.a->typeId == pair.b->typeId)
            pair.status = TensorDiffStatus::SameBytes; // nothing to differ
        pair.problem.clear(); // (of another type: stays TypeChanged, with no values to measure)
        return StatsStatus::Ok;
    }
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
            return fetchFailed(da, db, pair).value_or(StatsStatus::Cancelled);
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
    if (const std::optional<StatsStatus> failed = fetchFailed(da, db, pair))
        return *failed;
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

} // namespace gguf
