// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/stats/heatmap.h"

#include "core/quant/dequantize.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace gguf {

const std::vector<float> &Heatmap::values(TileMeasure m) const
{
    switch (m) {
    case TileMeasure::Mean: return mean;
    case TileMeasure::MeanAbs: return meanAbs;
    case TileMeasure::MaxAbs: return maxAbs;
    case TileMeasure::Std: return std;
    }
    return mean;
}

StatsStatus computeHeatmap(const TensorData &data, uint64_t tensorCols, const HeatmapOptions &options, Heatmap &out)
{
    out = Heatmap{};
    if (!canDequantize(data.typeId))
        return StatsStatus::Unsupported;
    if (tensorCols == 0 || data.elements == 0 || data.elements % tensorCols != 0 || data.bytes.empty())
        return StatsStatus::NoData;
    HeatmapOptions watched = options;
    watched.progress = watchedProgress(data, options.progress);
    const StatsStatus status = reduceToHeatmap(
        data.elements / tensorCols, tensorCols,
        [&](uint64_t y, std::span<float> row) {
            return dequantizeRange(data.typeId, data.bytes, data.elements, y * tensorCols, row, data.swapBytes);
        },
        watched, out,
        [&](uint64_t first, uint64_t last) {
            std::vector<ElementHold> holds;
            holds.emplace_back(data, first * tensorCols, last * tensorCols);
            return holds;
        });
    return fetchStatus(data).value_or(status);
}

StatsStatus reduceToHeatmap(uint64_t tensorRows, uint64_t tensorCols, const HeatmapRowSource &source,
                            const HeatmapOptions &options, Heatmap &out, const HeatmapBandHold &bandHold)
{
    out = Heatmap{};
    if (tensorCols == 0 || tensorRows == 0)
        return StatsStatus::NoData;
    out.tensorCols = tensorCols;
    out.tensorRows = tensorRows;
    out.gridRows = static_cast<uint32_t>(std::clamp<uint64_t>(options.rows, 1, out.tensorRows));
    out.gridCols = static_cast<uint32_t>(std::clamp<uint64_t>(options.cols, 1, tensorCols));
    const size_t cells = size_t(out.gridRows) * out.gridCols;
    out.mean.assign(cells, 0.0f);
    out.meanAbs.assign(cells, 0.0f);
    out.maxAbs.assign(cells, 0.0f);
    out.std.assign(cells, 0.0f);

    // column → grid column, computed once
    std::vector<uint32_t> colCell(static_cast<size_t>(tensorCols));
    for (uint32_t c = 0; c < out.gridCols; ++c)
        for (uint64_t x = out.colStart(c); x < out.colStart(c + 1); ++x)
            colCell[static_cast<size_t>(x)] = c;

    std::atomic<bool> failed{false};
    const bool finished = runChunks(
        out.gridRows, options.threads,
        [&](uint64_t band, unsigned) {
            const uint32_t r = static_cast<uint32_t>(band);
            std::vector<float> row(static_cast<size_t>(tensorCols));
            std::vector<double> sum(out.gridCols, 0), sumAbs(out.gridCols, 0), sumSq(out.gridCols, 0);
            std::vector<float> maxAbs(out.gridCols, 0);
            std::vector<uint64_t> n(out.gridCols, 0);
            const std::vector<ElementHold> holds =
                bandHold ? bandHold(out.rowStart(r), out.rowStart(r + 1)) : std::vector<ElementHold>();
            if (!std::all_of(holds.begin(), holds.end(), [](const ElementHold &h) { return bool(h); }))
                return; // the band's bytes could not be fetched (the caller's data says why)
            for (uint64_t y = out.rowStart(r); y < out.rowStart(r + 1); ++y) {
                if (!source(y, row)) {
                    failed = true;
                    return;
                }
                for (size_t x = 0; x < row.size(); ++x) {
                    const float v = row[x];
                    if (!std::isfinite(v))
                        continue;
                    const uint32_t c = colCell[x];
                    sum[c] += v;
                    sumAbs[c] += std::fabs(v);
                    sumSq[c] += double(v) * v;
                    maxAbs[c] = std::max(maxAbs[c], std::fabs(v));
                    ++n[c];
                }
            }
            for (uint32_t c = 0; c < out.gridCols; ++c) {
                const size_t i = size_t(r) * out.gridCols + c;
                if (n[c] == 0)
                    continue;
                const double cnt = static_cast<double>(n[c]);
                const double mean = sum[c] / cnt;
                out.mean[i] = static_cast<float>(mean);
                out.meanAbs[i] = static_cast<float>(sumAbs[c] / cnt);
                out.maxAbs[i] = maxAbs[c];
                out.std[i] = static_cast<float>(std::sqrt(std::max(0.0, sumSq[c] / cnt - mean * mean)));
            }
        },
        options.progress);
    if (!finished)
        return StatsStatus::Cancelled;
    return failed ? StatsStatus::NoData : StatsStatus::Ok;
}

} // namespace gguf
