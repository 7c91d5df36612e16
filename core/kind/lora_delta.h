// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/kind/file_kind.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_stats.h"
#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class GgufFile;

/// The LoRA pair `tensorName` (a `<base>.lora_a` or `<base>.lora_b`) belongs to in `file`, with
/// llama.cpp's scale for it at adapter scale 1 (`adapter.lora.alpha` / r, or 1 without alpha);
/// nullopt when the name is not part of a complete pair.
struct LoraPairScale {
    LoraPair pair;
    std::optional<double> alpha; ///< `adapter.lora.alpha`
    double scale = 1;
};
std::optional<LoraPairScale> loraPairFor(const GgufFile &file, std::string_view tensorName);

/// The update a LoRA pair makes to its base tensor, ΔW = scale · B·A (docs/KINDS.md §LoRA), read
/// row by row and never held whole: only A and B are decoded (r · (n_in + n_out) values per
/// expert). Rows and columns are the base tensor's: ΔW has the base's ne[1] (× experts) rows of
/// ne[0] values. As llama.cpp applies it (src/llama-graph.cpp, build_lora_mm): lora_a ne = [n_in, r]
/// and lora_b ne = [r, n_out] give ΔW[i][j] = scale · Σ_k b[i][k] · a[k][j]; a token embedding's
/// pair is read the other way (build_inp_embd: lora_a ne = [r, n_vocab]), ΔW[t][e] = scale · Σ_k
/// a[t][k] · b[e][k]; 3-D pairs (experts) give one ΔW per expert, stacked.
class LoraDelta {
public:
    /// Decodes the pair's tensors; `scale` is llama.cpp's alpha / r times the adapter scale.
    LoraDelta(const GgufFile &file, const LoraPair &pair, double scale);

    bool ok() const { return m_error.empty(); }
    /// Why ΔW cannot be formed (a tensor that does not decode, shapes that do not chain, too big).
    const std::string &error() const { return m_error; }
    uint64_t rows() const { return m_rows * m_experts; }
    uint64_t columns() const { return m_cols; }
    uint64_t rank() const { return m_rank; }
    uint64_t experts() const { return m_experts; }
    double scale() const { return m_scale; }

    /// Writes row `row` of ΔW into `out` (columns() values). Safe to call from several threads.
    void row(uint64_t row, std::span<float> out) const;
    /// Columns [first, first + out.size()) of row `row`.
    void rowPart(uint64_t row, uint64_t first, std::span<float> out) const;

    /// At most this many values of A and B together are decoded (256 MiB of floats).
    static constexpr uint64_t kMaxDecoded = uint64_t(64) << 20;
    /// Bounds on ΔW (far beyond any real adapter: a 256k-token embedding of width 16k at rank 64
    /// is 2.7 · 10¹¹ multiply-adds): columns and rows held as norms, and the work of one pass.
    static constexpr uint64_t kMaxColumns = uint64_t(1) << 20;
    static constexpr uint64_t kMaxRows = uint64_t(1) << 24;
    static constexpr uint64_t kMaxWork = uint64_t(1) << 39;

private:
    bool m_embedding = false;
    uint64_t m_rows = 0, m_cols = 0, m_rank = 0, m_experts = 1;
    double m_scale = 1;
    /// ΔW[row] = scale · Σ_k m_left[row][k] · m_right[expert][k][·]: `m_left` holds r values per row
    /// of every expert, `m_right` r rows of columns() values per expert.
    std::vector<float> m_left, m_right;
    std::string m_error;
};

/// The statistics of a ΔW: its values' min/max/mean/std and an exact histogram (two passes), the
/// L2 norm of each row and each column, and the Frobenius norm.
struct LoraDeltaStats {
    uint64_t count = 0;
    double min = 0, max = 0, mean = 0, std = 0;
    double frobenius = 0;
    Histogram histogram;
    std::vector<double> rowNorms, columnNorms;
};

/// Computes `out` over every value of `delta`, rows split among worker threads; `progress` runs over
/// both passes, false cancels.
StatsStatus computeLoraDeltaStats(const LoraDelta &delta, uint32_t bins, const ProgressFn &progress,
                                  LoraDeltaStats &out);

/// Rows [firstRow, firstRow + rows) × columns [firstColumn, firstColumn + columns) of `delta`
/// reduced to a heatmap (its firstRow/firstColumn set), computing only that region.
StatsStatus loraDeltaHeatmap(const LoraDelta &delta, uint64_t firstRow, uint64_t rows, uint64_t firstColumn,
                             uint64_t columns, const HeatmapOptions &options, Heatmap &out);

} // namespace gguf
