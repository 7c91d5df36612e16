// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/tensor_stats.h"

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace gguf {

/// What a heatmap cell shows about its tile.
enum class TileMeasure : uint8_t { Mean, MeanAbs, MaxAbs, Std };

/// A 2-D tensor reduced to a grid: cell (r, c) summarises the tile of rows
/// [rowStart(r), rowStart(r+1)) and columns [colStart(c), colStart(c+1)). Rows are ne[1] (and any
/// higher dims flattened), columns are ne[0]. NaN and ±Inf are left out of every measure.
struct Heatmap {
    uint32_t gridRows = 0, gridCols = 0;
    uint64_t tensorRows = 0, tensorCols = 0; ///< the rows and columns reduced (a region's, for a region)
    /// Where the region starts when only part of a matrix was reduced (rowStart and colStart count
    /// from the matrix's first row and column); 0 for a whole tensor.
    uint64_t firstRow = 0, firstColumn = 0;
    std::vector<float> mean, meanAbs, maxAbs, std; ///< gridRows × gridCols, row-major

    uint64_t rowStart(uint32_t r) const { return firstRow + tensorRows * r / gridRows; }
    uint64_t colStart(uint32_t c) const { return firstColumn + tensorCols * c / gridCols; }
    const std::vector<float> &values(TileMeasure m) const;
};

struct HeatmapOptions {
    uint32_t rows = 512, cols = 512; ///< grid size; clipped to the tensor's own size
    unsigned threads = 0;
    ProgressFn progress; ///< (row bands done, total); false cancels
};

/// Reduces `data` (a tensor of `tensorCols` = ne[0] columns) to a heatmap in one streaming pass,
/// one band of grid rows per work unit, decoding one tensor row at a time.
StatsStatus computeHeatmap(const TensorData &data, uint64_t tensorCols, const HeatmapOptions &options, Heatmap &out);

/// Fills `out` (tensorCols values) with row `row`; false when it cannot (the reduction then stops
/// with NoData). Called from several threads at once, each with its own `out`.
using HeatmapRowSource = std::function<bool(uint64_t row, std::span<float> out)>;
/// Called before a band of rows [first, last) is read: holds its bytes while the band is read
/// (fetching a remote tensor's; releasing the pages after). A false hold skips the band, and the
/// caller's data says why (readError).
using HeatmapBandHold = std::function<std::vector<ElementHold>(uint64_t first, uint64_t last)>;

/// The reduction behind computeHeatmap over any rows: `tensorRows` × `tensorCols` values given
/// row by row by `source` (a difference of two tensors, for one).
StatsStatus reduceToHeatmap(uint64_t tensorRows, uint64_t tensorCols, const HeatmapRowSource &source,
                            const HeatmapOptions &options, Heatmap &out, const HeatmapBandHold &bandHold = {});

} // namespace gguf
