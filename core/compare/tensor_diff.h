// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/compare/value_diff.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class SplitModel;
struct TensorInfo;

/// How a tensor of A relates to the tensor of the same name in B.
enum class TensorDiffStatus : uint8_t {
    NotCompared,  ///< same type and shape; the data has not been compared (yet)
    SameBytes,    ///< same type and shape, identical bytes (nothing decoded)
    SameValues,   ///< same type and shape, other bytes but every decoded value equal
    Changed,      ///< same type and shape, some values differ
    TypeChanged,  ///< other type, same shape (values comparable)
    ShapeChanged, ///< other dimensions (values not comparable)
    OnlyA,
    OnlyB,
};

/// "not-compared", "same-bytes", "same-values", "changed", "type-changed", "shape-changed",
/// "only-a", "only-b".
std::string_view tensorDiffStatusName(TensorDiffStatus status);

/// Whether a pair's outcome counts as a difference (diff's exit status): any status but
/// not-compared, same-bytes or same-values, and a pair whose data could not be compared (a
/// `problem`): it is not known to be equal.
bool outcomeDiffers(TensorDiffStatus status, std::string_view problem);
/// A pair's measures: those of equal values (0, 0, 0, 1, +∞, 0) for identical bytes, which are
/// never decoded; the sums' once `compared`; else nullopt.
std::optional<DiffMeasures> outcomeMeasures(TensorDiffStatus status, bool compared, const ValueDiff &values);

/// A tensor name of either model and what is known about the pair so far.
struct TensorPair {
    std::string_view name;
    int positionA = -1, positionB = -1; ///< index into SplitModel::tensors(); -1 when absent
    const TensorInfo *a = nullptr, *b = nullptr;
    TensorDiffStatus status = TensorDiffStatus::NotCompared;
    bool valuesCompared = false; ///< `values` holds the sums of every pair of values
    ValueDiff values;
    std::string problem; ///< why the data could not be compared (a type the decoder lacks, data outside the file)

    bool comparable() const { return status != TensorDiffStatus::ShapeChanged && a && b; }
    std::optional<DiffMeasures> measures() const { return outcomeMeasures(status, valuesCompared, values); }
    bool differs() const { return outcomeDiffers(status, problem); }
};

/// Matches the tensors of two models by name: A's in A's order, then those only in B in B's
/// order, each with its index status (only in one, shape changed, type changed, not compared). A
/// name used more than once pairs its k-th use in A with its k-th use in B. A comparable pair whose
/// data runs past the end of its file on either side (a cut copy) gets a `problem` saying so,
/// without reading any data.
std::vector<TensorPair> matchTensors(const SplitModel &a, const SplitModel &b);

/// Compares the data of a comparable pair: identical bytes (same type, same byte order) are
/// reported as SameBytes without decoding; otherwise both are decoded and measured
/// (compareValues), giving SameValues or Changed (TypeChanged stays). Cancelled when the
/// progress callback says so (the pair is left as it was).
StatsStatus compareTensorData(const SplitModel &a, const SplitModel &b, TensorPair &pair,
                              const ValueDiffOptions &options = {});

} // namespace gguf
