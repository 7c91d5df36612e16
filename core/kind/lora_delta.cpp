// SPDX-License-Identifier: GPL-3.0-or-later
// ΔW = scale · B·A of a LoRA pair, as llama.cpp applies it (src/llama-graph.cpp: build_lora_mm,
// build_lora_mm_id, build_inp_embd); docs/KINDS.md §LoRA.
#include "core/kind/lora_delta.h"

#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"
#include "core/quant/dequantize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gguf {
namespace {

/// At most 4 dimensions, and as many values as they multiply to (a hostile file may say otherwise).
bool wellFormed(const TensorInfo &t)
{
    if (t.nDims > 4)
        return false;
    uint64_t product = 1;
    for (const uint64_t n : t.ne)
        if (__builtin_mul_overflow(product, n, &product))
            return false;
    return product == t.elements;
}

// False with `why` set when a remote file's bytes could not be fetched; false alone when the
// tensor does not decode.
bool decode(const GgufFile &file, const TensorInfo &t, std::vector<float> &out, std::string &why)
{
    const ByteLease lease = file.tensorLease(t);
    if (!lease)
        why = lease.error().message;
    const auto bytes = lease.bytes();
    if (bytes.empty() || !canDequantize(t.typeId))
        return false;
    out.resize(static_cast<size_t>(t.elements));
    return dequantizeRange(t.typeId, bytes, t.elements, 0, out, file.byteSwapped());
}

/// Rows per work unit: about 2²² multiply-adds each.
uint64_t rowsPerChunk(const LoraDelta &d)
{
    const uint64_t perRow = std::max<uint64_t>(1, d.columns() * std::max<uint64_t>(1, d.rank()));
    return std::max<uint64_t>(1, (uint64_t(1) << 22) / perRow);
}

} // namespace

std::optional<LoraPairScale> loraPairFor(const GgufFile &file, std::string_view tensorName)
{
    if (!tensorName.ends_with(".lora_a") && !tensorName.ends_with(".lora_b"))
        return std::nullopt;
    const std::string base(tensorName.substr(0, tensorName.size() - 7));
    const TensorInfo *a = file.findTensor(base + ".lora_a");
    const TensorInfo *b = file.findTensor(base + ".lora_b");
    if (!a || !b)
        return std::nullopt;
    LoraPairScale r;
    r.pair = makeLoraPair(base, *a, *b);
    LoraFacts facts;
    facts.alpha = r.alpha = file.value("adapter.lora.alpha").toDouble();
    r.scale = facts.scale(r.pair.rank);
    return r;
}

LoraDelta::LoraDelta(const GgufFile &file, const LoraPair &pair, double scale) : m_scale(scale)
{
    if (!pair.a || !pair.b) {
        m_error = "the pair is incomplete";
        return;
    }
    const TensorInfo &a = *pair.a, &b = *pair.b;
    if (!wellFormed(a) || !wellFormed(b)) {
        m_error = "lora_a or lora_b has more than 4 dimensions or more values than its dimensions allow";
        return;
    }
    m_embedding = pair.embedding;
    const auto dim = [](const TensorInfo &t, size_t i) { return i < t.ne.size() ? t.ne[i] : 1; };
    if (dim(a, 3) != 1 || dim(b, 3) != 1 || dim(a, 2) != dim(b, 2)) {
        m_error = "lora_a and lora_b do not have the same experts";
        return;
    }
    m_experts = dim(a, 2);
    if (m_embedding) {
        m_rank = dim(a, 0);
        m_rows = dim(a, 1);
        m_cols = dim(b, 1);
        if (dim(b, 0) != m_rank) {
            m_error = "lora_a and lora_b of the token embedding have different ranks";
            return;
        }
    } else {
        m_rank = dim(b, 0);
        m_rows = dim(b, 1);
        m_cols = dim(a, 0);
        if (dim(a, 1) != m_rank) {
            m_error = "lora_a has rank " + std::to_string(dim(a, 1)) + ", lora_b " + std::to_string(m_rank);
            return;
        }
    }
    if (m_rank == 0 || m_rows == 0 || m_cols == 0 || m_experts == 0) {
        m_error = "the pair has an empty dimension";
        return;
    }
    if (a.elements > kMaxDecoded || b.elements > kMaxDecoded - a.elements) {
        m_error = "lora_a and lora_b hold more than " + std::to_string(kMaxDecoded) + " values together";
        return;
    }
    // ΔW itself is never held, but a row, the column norms and the row norms are
    uint64_t work = 0;
    if (m_cols > kMaxColumns || m_rows * m_experts > kMaxRows ||
        __builtin_mul_overflow(m_rows * m_experts, m_cols, &work) || __builtin_mul_overflow(work, m_rank, &work) ||
        work > kMaxWork) {
        m_error = "ΔW would be too large to compute (" + std::to_string(m_rows * m_experts) + " × " +
                  std::to_string(m_cols) + " at rank " + std::to_string(m_rank) + ")";
        return;
    }
    std::vector<float> av, bv;
    std::string why;
    if (!decode(file, a, av, why) || !decode(file, b, bv, why)) {
        m_error = why.empty() ? "lora_a or lora_b cannot be decoded (type or data outside the file)" : why;
        return;
    }
    if (!m_embedding) {
        // B's rows (r values per output row) and A's rows (n_in values per rank) are already the
        // left and right factors, row-major
        m_left = std::move(bv);
        m_right = std::move(av);
        return;
    }
    // the embedding: left = A (r values per token); right[k][e] = B[e][k]
    m_left = std::move(av);
    m_right.resize(bv.size());
    for (uint64_t x = 0; x < m_experts; ++x)
        for (uint64_t e = 0; e < m_cols; ++e)
            for (uint64_t k = 0; k < m_rank; ++k)
                m_right[(x * m_rank + k) * m_cols + e] = bv[(x * m_cols + e) * m_rank + k];
}

void LoraDelta::rowPart(uint64_t row, uint64_t first, std::span<float> out) const
{
    std::fill(out.begin(), out.end(), 0.0f);
    if (!ok() || row >= rows() || first >= m_cols)
        return;
    const uint64_t expert = row / m_rows;
    const uint64_t n = std::min<uint64_t>(out.size(), m_cols - first);
    const float *left = m_left.data() + row * m_rank; // rows of all experts are stacked alike
    const float *right = m_right.data() + expert * m_rank * m_cols + first;
    for (uint64_t k = 0; k < m_rank; ++k) {
        const float w = static_cast<float>(m_scale * left[k]);
        const float *r = right + k * m_cols;
        for (uint64_t j = 0; j < n; ++j)
            out[j] += w * r[j];
    }
}

void LoraDelta::row(uint64_t row, std::span<float> out) const
{
    rowPart(row, 0, out);
}

StatsStatus computeLoraDeltaStats(const LoraDelta &delta, uint32_t bins, const ProgressFn &progress,
                                  LoraDeltaStats &out)
{
    out = LoraDeltaStats{};
    if (!delta.ok())
        return StatsStatus::NoData;
    const uint64_t rows = delta.rows(), cols = delta.columns();
    const uint64_t step = rowsPerChunk(delta);
    const uint64_t chunks = (rows + step - 1) / step;
    const unsigned workers = workerCount(0, chunks);
    const auto passProgress = [&progress, chunks](uint64_t pass) -> ProgressFn {
        if (!progress)
            return {};
        return
            [&progress, chunks, pass](uint64_t done, uint64_t) { return progress(pass * chunks + done, 2 * chunks); };
    };

    // pass 1: sums, extremes, row and column norms
    struct Lane {
        double sum = 0, sumSq = 0;
        double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
        uint64_t count = 0;
        std::vector<double> colSq;
        std::vector<float> row;
    };
    std::vector<Lane> lanes(workers);
    for (Lane &l : lanes) {
        l.colSq.assign(static_cast<size_t>(cols), 0.0);
        l.row.resize(static_cast<size_t>(cols));
    }
    out.rowNorms.assign(static_cast<size_t>(rows), 0.0);
    const bool first = runChunks(
        chunks, workers,
        [&](uint64_t chunk, unsigned worker) {
            Lane &l = lanes[worker];
            for (uint64_t r = chunk * step; r < std::min(rows, (chunk + 1) * step); ++r) {
                delta.row(r, l.row);
                double rowSq = 0;
                for (uint64_t j = 0; j < cols; ++j) {
                    const double v = l.row[j];
                    if (!std::isfinite(v))
                        continue;
                    l.sum += v;
                    l.sumSq += v * v;
                    rowSq += v * v;
                    l.colSq[j] += v * v;
                    l.min = std::min(l.min, v);
                    l.max = std::max(l.max, v);
                    ++l.count;
                }
                out.rowNorms[r] = std::sqrt(rowSq);
            }
        },
        passProgress(0));
    if (!first)
        return StatsStatus::Cancelled;
    out.columnNorms.assign(static_cast<size_t>(cols), 0.0);
    double sum = 0, sumSq = 0;
    out.min = std::numeric_limits<double>::infinity();
    out.max = -out.min;
    for (const Lane &l : lanes) {
        sum += l.sum;
        sumSq += l.sumSq;
        out.count += l.count;
        out.min = std::min(out.min, l.min);
        out.max = std::max(out.max, l.max);
        for (uint64_t j = 0; j < cols; ++j)
            out.columnNorms[j] += l.colSq[j];
    }
    for (double &c : out.columnNorms)
        c = std::sqrt(c);
    if (out.count == 0) {
        out.min = out.max = 0;
        return StatsStatus::NoData;
    }
    const double n = static_cast<double>(out.count);
    out.mean = sum / n;
    out.std = std::sqrt(std::max(0.0, sumSq / n - out.mean * out.mean));
    out.frobenius = std::sqrt(sumSq);

    // pass 2: the histogram over [min, max]
    out.histogram.lo = out.min;
    out.histogram.hi = out.max;
    out.histogram.counts.assign(std::max<uint32_t>(1, bins), 0);
    std::vector<std::vector<uint64_t>> laneCounts(workers, out.histogram.counts);
    const bool second = runChunks(
        chunks, workers,
        [&](uint64_t chunk, unsigned worker) {
            Lane &l = lanes[worker];
            std::vector<uint64_t> &counts = laneCounts[worker];
            for (uint64_t r = chunk * step; r < std::min(rows, (chunk + 1) * step); ++r) {
                delta.row(r, l.row);
                for (const float v : l.row)
                    if (std::isfinite(v))
                        ++counts[histogramBin(v, out.min, out.max, static_cast<uint32_t>(counts.size()))];
            }
        },
        passProgress(1));
    if (!second)
        return StatsStatus::Cancelled;
    for (const auto &counts : laneCounts)
        for (size_t i = 0; i < counts.size(); ++i)
            out.histogram.counts[i] += counts[i];
    return StatsStatus::Ok;
}

StatsStatus loraDeltaHeatmap(const LoraDelta &delta, uint64_t firstRow, uint64_t rows, uint64_t firstColumn,
                             uint64_t columns, const HeatmapOptions &options, Heatmap &out)
{
    if (!delta.ok() || firstRow >= delta.rows() || firstColumn >= delta.columns())
        return StatsStatus::NoData;
    rows = std::min(rows, delta.rows() - firstRow);
    columns = std::min(columns, delta.columns() - firstColumn);
    const StatsStatus status = reduceToHeatmap(
        rows, columns,
        [&delta, firstRow, firstColumn](uint64_t row, std::span<float> values) {
            delta.rowPart(firstRow + row, firstColumn, values);
            return true;
        },
        options, out);
    out.firstRow = firstRow;
    out.firstColumn = firstColumn;
    return status;
}

} // namespace gguf
