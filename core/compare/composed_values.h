// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A tensor as a converter lays it out from other tensors (#43): rows of source tensors stacked in
// order, rows regrouped per attention head, a constant added. It is how a GGUF tensor is read back
// from the checkpoint it was made from (checkpoint_pairing.h), so the two compare value by value
// (compareValues below) without writing the composed tensor anywhere.

#include "core/compare/value_diff.h"
#include "core/stats/tensor_data.h"

#include <cstdint>
#include <span>
#include <vector>

namespace gguf {

/// Rows [firstRow, firstRow + rows) of one source tensor (row-major, `cols` values a row).
struct ComposedPiece {
    TensorData data; ///< the whole source tensor
    uint64_t firstRow = 0;
    uint64_t rows = 0;
    /// When not 0, the rows are regrouped per head as llama.cpp's converter does for q and k of
    /// llama-family models (rotary halves interleaved): within each of `ropeHeads` heads of
    /// D = rows / ropeHeads rows, composed row 2i + j is source row j·D/2 + i (docs/SAFETENSORS.md §7).
    uint32_t ropeHeads = 0;
};

/// Pieces stacked in order, every value then increased by `shift` (in float, as the converter
/// adds it). Built from one TensorData it is that tensor as it is.
struct ComposedValues {
    uint64_t cols = 1;
    float shift = 0;
    std::vector<ComposedPiece> pieces;

    static ComposedValues of(const TensorData &data);
    uint64_t elements() const;
    /// Decodes elements [at, at + out.size()); false when a piece cannot be decoded there.
    bool decode(uint64_t at, std::span<float> out) const;
    /// The source element ranges [first, last) of `piece` that composed elements [at, end) read:
    /// one, or for regrouped rows two per head touched (its first and its second half's rows);
    /// none when they read nothing of it.
    std::vector<std::pair<uint64_t, uint64_t>> sourceRanges(size_t piece, uint64_t at, uint64_t end) const;
};

/// The row a composed row comes from, within a piece of `rows` rows regrouped over `heads` heads.
uint64_t ropeSourceRow(uint64_t row, uint64_t rows, uint32_t heads);

/// compareValues for composed tensors: the same sums, chunking and determinism as for two
/// TensorData (value_diff.h). Both must have the same element count.
StatsStatus compareValues(const ComposedValues &a, const ComposedValues &b, const ValueDiffOptions &options,
                          ValueDiff &out);
/// computeDiffHistogram for composed tensors (value_diff.h).
StatsStatus computeDiffHistogram(const ComposedValues &a, const ComposedValues &b, double lo, double hi, uint32_t bins,
                                 const ValueDiffOptions &options, Histogram &out);
/// computeDiffHeatmap for composed tensors, as rows of `tensorCols` values (the GGUF's ne[0]).
StatsStatus computeDiffHeatmap(const ComposedValues &a, const ComposedValues &b, uint64_t tensorCols,
                               const HeatmapOptions &options, Heatmap &out);
/// The histograms of a's and of b's finite values over one range, [min, max] of both (a constant's
/// one unit around it, as NumPy bins it), `bins` equal bins each: two passes over both.
StatsStatus commonRangeHistograms(const ComposedValues &a, const ComposedValues &b, uint32_t bins,
                                  const ValueDiffOptions &options, Histogram &outA, Histogram &outB);

} // namespace gguf
