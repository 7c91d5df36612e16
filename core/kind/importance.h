// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/heatmap.h"
#include "core/util/parallel_chunks.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;
struct ImatrixEntry;
struct ImatrixFacts;

/// What an importance matrix says about one weight tensor (docs/KINDS.md §imatrix). The importance
/// of input channel c of matrix (expert) m is in_sum2[c, m] / counts[m], the mean squared
/// activation that reached the channel; matrices whose count rounds to 0 are left out, as
/// llama.cpp's `llama-imatrix --show-statistics` (tools/imatrix/imatrix.cpp, compute_statistics)
/// does. Every figure is over the importances of the used matrices together.
struct ImportanceStats {
    std::string weight; ///< the weight tensor, e.g. "blk.3.ffn_down_exps.weight"
    int32_t layer = -1;
    std::string role; ///< "ffn_down_exps.weight"
    uint64_t channels = 0, matrices = 0;
    uint64_t usedMatrices = 0;            ///< matrices whose count rounds to more than 0
    std::vector<uint64_t> unusedMatrices; ///< experts never activated (count rounds to 0), ascending
    uint64_t elements = 0;                ///< channels · usedMatrices
    double sum = 0;                       ///< Σ importance (llama.cpp's Σ(Act²))
    double min = 0, max = 0, mean = 0;
    double stddev = 0;      ///< population standard deviation
    double skewness = 0;    ///< third standardized moment (0 when stddev is 0)
    double kurtosis = 0;    ///< excess kurtosis: fourth standardized moment − 3 (0 when stddev is 0)
    double active = 0;      ///< share of importances above 1e-5 (llama.cpp's "% Active")
    double entropy = 0;     ///< −Σ p·log2 p with p = importance / sum (bits)
    double entropyNorm = 0; ///< entropy / log2(elements): 1 when every channel matters equally
    double zd = 0;          ///< share of importances more than one stddev above the mean ("ZD")
    double share = 0;       ///< sum / the sum over every tensor of the file
    /// Cosine similarity of the raw in_sum2 with the same tensor of the block before ("CosSim");
    /// none for the first block, tensors outside the blocks, or when the shapes differ.
    std::optional<double> cosinePrevious;
    std::string problem; ///< why there are no figures (every count zero, data outside the file)
};

struct ImportanceReport {
    std::vector<ImportanceStats> tensors; ///< in the order of ImatrixFacts::entries
    double total = 0;                     ///< Σ importance over every tensor
};

/// Computes the statistics of every complete entry of `facts` (from describeKind of `file`),
/// reading in_sum2 and counts. `progress` runs over the entries; false cancels (then nullopt).
std::optional<ImportanceReport> computeImportance(const GgufFile &file, const ImatrixFacts &facts,
                                                  const ProgressFn &progress = {});

/// The importances of matrix `matrix` of `entry`: in_sum2[c, matrix] / counts[matrix] for every
/// channel c. Empty when the matrix was never used (count rounds to 0) or its data cannot be read.
std::vector<float> channelImportance(const GgufFile &file, const ImatrixEntry &entry, uint64_t matrix);

/// The importances of an entry averaged over its used matrices, channel by channel (for a dense
/// tensor: the importances of its one matrix). Empty when no matrix was used.
std::vector<float> meanChannelImportance(const GgufFile &file, const ImatrixEntry &entry);

/// Matrices × channels importances of `entry` reduced to a heatmap (rows: experts, columns:
/// channels). Rows of unused experts hold no values: their cells read 0, as reduceToHeatmap
/// fills a tile without values.
StatsStatus importanceHeatmap(const GgufFile &file, const ImatrixEntry &entry, const HeatmapOptions &options,
                              Heatmap &out);

} // namespace gguf
