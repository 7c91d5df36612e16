// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics of an importance matrix, defined as llama.cpp's `llama-imatrix --show-statistics`
// defines them (tools/imatrix/imatrix.cpp: compute_statistics, compute_cossim), plus skewness and
// kurtosis; docs/KINDS.md §imatrix. Sums run in double (llama.cpp's in float).
#include "core/kind/importance.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"
#include "core/util/byte_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace gguf {
namespace {

constexpr double kActiveThreshold = 1e-5; // llama.cpp's threshold for "% Active"

/// The entry's in_sum2 and counts bytes when both are F32 of the shapes llama.cpp's loader reads.
struct EntryData {
    ByteLease sum2Lease, countsLease; ///< keep a remote file's bytes readable
    std::string fetchError;           ///< why a remote file's bytes could not be fetched
    std::span<const uint8_t> sum2, counts;
    uint64_t channels = 0, matrices = 0;
    bool swap = false;

    bool ok() const { return !sum2.empty() && !counts.empty(); }
    float raw(uint64_t matrix, uint64_t channel) const
    {
        return loadAs<float>(sum2.data() + 4 * (matrix * channels + channel), swap);
    }
    /// The count as the loader keeps it (rounded to an integer).
    double count(uint64_t matrix) const
    {
        return static_cast<double>(std::llround(loadAs<float>(counts.data() + 4 * matrix, swap)));
    }
};

EntryData entryData(const GgufFile &f, const ImatrixEntry &e)
{
    EntryData d;
    if (!e.sum2 || !e.counts || e.sum2->typeId != ggmlTypeId(GgmlType::F32) ||
        e.counts->typeId != ggmlTypeId(GgmlType::F32))
        return d;
    const uint64_t channels = e.sum2->ne[0], matrices = e.sum2->ne[1];
    uint64_t product = 0;
    if (channels == 0 || matrices == 0 || e.counts->elements != matrices ||
        __builtin_mul_overflow(channels, matrices, &product) || e.sum2->elements != product)
        return d;
    d.sum2Lease = f.tensorLease(*e.sum2);
    d.countsLease = f.tensorLease(*e.counts);
    for (const ByteLease *l : {&d.sum2Lease, &d.countsLease})
        if (!*l && d.fetchError.empty())
            d.fetchError = l->error().message;
    const auto sum2 = d.sum2Lease.bytes();
    const auto counts = d.countsLease.bytes();
    if (sum2.size() / 4 < e.sum2->elements || counts.size() / 4 < matrices)
        return d;
    d.sum2 = sum2;
    d.counts = counts;
    d.channels = channels;
    d.matrices = matrices;
    d.swap = f.byteSwapped();
    return d;
}

/// Calls fn(importance) for every channel of every used matrix, in file order.
template <typename Fn> void forEachImportance(const EntryData &d, Fn fn)
{
    for (uint64_t m = 0; m < d.matrices; ++m)
        if (const double count = d.count(m); count != 0)
            for (uint64_t c = 0; c < d.channels; ++c)
                fn(d.raw(m, c) / count);
}

// Two passes over the mapped sums, nothing kept: the sum, extremes and mean, then the central
// moments, the entropy and the share above one standard deviation.
void describe(const EntryData &d, ImportanceStats &s)
{
    for (uint64_t m = 0; m < d.matrices; ++m) {
        if (d.count(m) == 0) // llama.cpp: "skipping tensor … due to zero count"
            s.unusedMatrices.push_back(m);
        else
            ++s.usedMatrices;
    }
    if (s.usedMatrices == 0) {
        s.problem = "every count is zero: no activation reached this tensor";
        return;
    }
    s.elements = s.usedMatrices * d.channels;
    const double n = static_cast<double>(s.elements);
    s.min = std::numeric_limits<double>::infinity();
    s.max = -s.min;
    forEachImportance(d, [&s](double v) {
        s.sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    });
    s.mean = s.sum / n;
    double m2 = 0, m3 = 0, m4 = 0;
    uint64_t active = 0;
    forEachImportance(d, [&](double v) {
        const double d1 = v - s.mean, d2 = d1 * d1;
        m2 += d2;
        m3 += d2 * d1;
        m4 += d2 * d2;
        active += std::fabs(v) > kActiveThreshold;
        if (s.sum > 0)
            if (const double p = v / s.sum; p > 0)
                s.entropy -= p * std::log2(p);
    });
    m2 /= n;
    m3 /= n;
    m4 /= n;
    s.stddev = std::sqrt(m2);
    s.active = static_cast<double>(active) / n;
    if (s.elements > 1)
        s.entropyNorm = s.entropy / std::log2(n);
    if (s.stddev > 0) {
        s.skewness = m3 / (m2 * s.stddev);
        s.kurtosis = m4 / (m2 * m2) - 3;
        uint64_t above = 0;
        forEachImportance(d, [&s, &above](double v) { above += (v - s.mean) / s.stddev > 1; });
        s.zd = static_cast<double>(above) / n;
    }
}

/// Cosine of the raw in_sum2 of two entries of the same shape (llama.cpp's compute_cossim).
std::optional<double> cosine(const EntryData &a, const EntryData &b)
{
    if (a.channels != b.channels || a.matrices != b.matrices)
        return std::nullopt;
    double dot = 0, na = 0, nb = 0;
    for (uint64_t m = 0; m < a.matrices; ++m)
        for (uint64_t c = 0; c < a.channels; ++c) {
            const double x = a.raw(m, c), y = b.raw(m, c);
            dot += x * y;
            na += x * x;
            nb += y * y;
        }
    if (na == 0 || nb == 0)
        return std::nullopt;
    return dot / (std::sqrt(na) * std::sqrt(nb));
}

} // namespace

std::optional<ImportanceReport> computeImportance(const GgufFile &file, const ImatrixFacts &facts,
                                                  const ProgressFn &progress)
{
    ImportanceReport report;
    const uint64_t n = facts.entries.size();
    report.tensors.resize(static_cast<size_t>(n));
    std::map<std::string, size_t> byWeight;
    for (size_t i = 0; i < n; ++i) {
        ImportanceStats &s = report.tensors[i];
        s.weight = facts.entries[i].weight;
        layerAndRole(s.weight, s.layer, s.role);
        byWeight.emplace(s.weight, i);
    }
    // the weights are independent: one per work unit, on every core; progress over both passes
    const auto pass = [&progress, n](uint64_t first) -> ProgressFn {
        if (!progress)
            return {};
        return [&progress, first, n](uint64_t done, uint64_t) { return progress(first + done, 2 * n); };
    };
    const bool described = runChunks(
        n, 0,
        [&](uint64_t i, unsigned) {
            ImportanceStats &s = report.tensors[static_cast<size_t>(i)];
            const EntryData d = entryData(file, facts.entries[static_cast<size_t>(i)]);
            if (!d.ok()) {
                s.problem = d.fetchError.empty()
                                ? "in_sum2 and counts are not both F32 of matching shapes inside the file"
                                : d.fetchError;
                return;
            }
            s.channels = d.channels;
            s.matrices = d.matrices;
            describe(d, s);
        },
        pass(0));
    if (!described)
        return std::nullopt;
    for (const ImportanceStats &s : report.tensors)
        report.total += s.sum;
    const bool compared = runChunks(
        n, 0,
        [&](uint64_t i, unsigned) {
            ImportanceStats &s = report.tensors[static_cast<size_t>(i)];
            if (report.total > 0)
                s.share = s.sum / report.total;
            if (s.layer <= 0 || !s.problem.empty())
                return;
            const auto previous = byWeight.find("blk." + std::to_string(s.layer - 1) + "." + s.role);
            if (previous == byWeight.end())
                return;
            const EntryData a = entryData(file, facts.entries[static_cast<size_t>(i)]);
            const EntryData b = entryData(file, facts.entries[previous->second]);
            if (a.ok() && b.ok())
                s.cosinePrevious = cosine(a, b);
        },
        pass(n));
    if (!compared)
        return std::nullopt;
    return report;
}

std::vector<float> channelImportance(const GgufFile &file, const ImatrixEntry &entry, uint64_t matrix)
{
    const EntryData d = entryData(file, entry);
    if (!d.ok() || matrix >= d.matrices)
        return {};
    const double count = d.count(matrix);
    if (count == 0)
        return {};
    std::vector<float> out(d.channels);
    for (uint64_t c = 0; c < d.channels; ++c)
        out[c] = static_cast<float>(d.raw(matrix, c) / count);
    return out;
}

std::vector<float> meanChannelImportance(const GgufFile &file, const ImatrixEntry &entry)
{
    const EntryData d = entryData(file, entry);
    if (!d.ok())
        return {};
    std::vector<double> sum(d.channels, 0.0);
    uint64_t used = 0;
    for (uint64_t m = 0; m < d.matrices; ++m) {
        const double count = d.count(m);
        if (count == 0)
            continue;
        ++used;
        for (uint64_t c = 0; c < d.channels; ++c)
            sum[c] += d.raw(m, c) / count;
    }
    if (used == 0)
        return {};
    std::vector<float> out(d.channels);
    for (uint64_t c = 0; c < d.channels; ++c)
        out[c] = static_cast<float>(sum[c] / static_cast<double>(used));
    return out;
}

StatsStatus importanceHeatmap(const GgufFile &file, const ImatrixEntry &entry, const HeatmapOptions &options,
                              Heatmap &out)
{
    const EntryData d = entryData(file, entry);
    if (!d.ok())
        return StatsStatus::NoData;
    const auto source = [&d](uint64_t row, std::span<float> values) {
        const double count = d.count(row);
        for (uint64_t c = 0; c < d.channels; ++c)
            values[c] =
                count == 0 ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(d.raw(row, c) / count);
        return true;
    };
    return reduceToHeatmap(d.matrices, d.channels, source, options, out);
}

} // namespace gguf
