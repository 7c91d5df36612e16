// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/compare/tensor_diff.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/quant/dequantize.h"
#include "name_pairing.h"

#include <string>

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

bool outcomeDiffers(TensorDiffStatus status, std::string_view problem)
{
    return !problem.empty() || (status != TensorDiffStatus::NotCompared && status != TensorDiffStatus::SameBytes &&
                                status != TensorDiffStatus::SameValues);
}

std::optional<DiffMeasures> outcomeMeasures(TensorDiffStatus status, bool compared, const ValueDiff &values)
{
    if (status == TensorDiffStatus::SameBytes)
        return DiffMeasures::identical();
    return compared ? std::optional(values.measures()) : std::nullopt;
}

std::vector<TensorPair> matchTensors(const SplitModel &a, const SplitModel &b)
{
    std::vector<TensorPair> pairs;
    const auto nameOf = [](const SplitModel &m) { return [&m](size_t i) { return m.tensors()[i].info->name; }; };
    for (const auto &[i, j] : detail::pairByName(a.tensors().size(), nameOf(a), b.tensors().size(), nameOf(b))) {
        TensorPair p;
        p.positionA = i;
        p.positionB = j;
        p.a = i >= 0 ? a.tensors()[static_cast<size_t>(i)].info : nullptr;
        p.b = j >= 0 ? b.tensors()[static_cast<size_t>(j)].info : nullptr;
        p.name = (p.a ? p.a : p.b)->name;
        if (!p.b) {
            p.status = TensorDiffStatus::OnlyA;
        } else if (!p.a) {
            p.status = TensorDiffStatus::OnlyB;
        } else {
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
        }
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
