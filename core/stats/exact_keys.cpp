// SPDX-License-Identifier: GPL-3.0-or-later
// The exact figures of every type but F16 and BF16 (docs/FORMAT.md §9), in two passes over the
// decoded values. A value's float32 bit pattern is split into a high and a low 16-bit half (the
// high half is its "key"). A histogram bin is a monotone function of the value, so a key's values
// (within [min, max]) fall in one bin or, at an edge, split at one float: pass A counts every value
// in the half of its key below or above that split, which gives the histogram and the key holding
// each wanted rank. Pass B revisits only the values of those (at most 14) keys, counting their low
// halves, which pins each wanted value's pattern; and, with more than 512 bins, bins one by one the
// values of keys that span several bins.
#include "core/format/ggml_types.h"
#include "core/quant/dequantize.h"
#include "core/util/cpu_features.h"
#include "exact_common.h"
#include "stats_scan.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace gguf::detail::exact {
namespace {

using keys::kKeyCount;
using scan::kPiece; // decoded at a time

/// The low halves of one key's values in ascending order of value: descending for negative keys.
template <typename F> void forEachLowHalfInValueOrder(uint32_t key, F f)
{
    if (key & 0x8000u) {
        for (uint32_t l = 0x10000; l-- > 0;)
            f(l);
    } else {
        for (uint32_t l = 0; l < 0x10000; ++l)
            f(l);
    }
}

/// True for the keys of finite float32 values (the exponent field is not all ones).
bool finiteKey(uint32_t key)
{
    return (key & 0x7f80u) != 0x7f80u;
}

/// The ranks (0-based, among the sorted finite values) that the percentiles read: the two
/// neighbours of each virtual index, sorted, without repeats.
std::vector<uint64_t> wantedRanks(uint64_t finite)
{
    std::vector<uint64_t> ranks;
    for (const double level : kPercentileLevels) {
        const auto rank = static_cast<uint64_t>(std::floor(static_cast<double>(finite - 1) * (level / 100.0)));
        ranks.push_back(rank);
        ranks.push_back(std::min(rank + 1, finite - 1));
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

/// Each pass is half of the progress.
ProgressFn halfOfProgress(const StatsOptions &options, uint64_t before)
{
    if (!options.progress)
        return {};
    return [before, &options](uint64_t done, uint64_t total) {
        return options.progress(before * total + done, 2 * total);
    };
}

/// Runs `scan(worker, values)` over every decoded value of `data`, on every core, one buffer of
/// kPiece floats per worker; false when cancelled or a piece does not decode.
template <typename Scan>
bool forEachPiece(const TensorData &data, const StatsOptions &options, uint64_t chunk, const ProgressFn &progress,
                  std::vector<std::vector<float>> &buffers, const Scan &scan)
{
    const uint64_t chunks = (data.elements + chunk - 1) / chunk;
    buffers.resize(workerCount(options.threads, chunks));
    for (std::vector<float> &b : buffers)
        b.resize(static_cast<size_t>(std::min(kPiece, std::max<uint64_t>(data.elements, 1))));
    std::atomic<bool> failed{false};
    // an F32 tensor in this machine's byte order, aligned for floats, is scanned where it lies
    const bool inPlace = data.typeId == 0 && !data.swapBytes &&
                         reinterpret_cast<uintptr_t>(data.bytes.data()) % alignof(float) == 0 &&
                         data.bytes.size() >= data.elements * sizeof(float);
    const bool finished = runChunks(
        chunks, options.threads,
        [&](uint64_t c, unsigned worker) {
            std::vector<float> &buffer = buffers[worker];
            const uint64_t last = std::min(data.elements, (c + 1) * chunk);
            const ElementHold hold(data, c * chunk, last); // a remote chunk is fetched here
            if (!hold)
                return;
            for (uint64_t at = c * chunk; at < last && !failed; at += kPiece) {
                const size_t n = static_cast<size_t>(std::min(kPiece, last - at));
                if (inPlace) { // F32 as it lies: no copy
                    scan(worker, std::span<const float>(reinterpret_cast<const float *>(data.bytes.data()) + at, n));
                    continue;
                }
                const std::span<float> piece(buffer.data(), n);
                if (!dequantizeRange(data.typeId, data.bytes, data.elements, at, piece, data.swapBytes)) {
                    failed = true;
                    return;
                }
                scan(worker, piece);
            }
        },
        watchedProgress(data, progress));
    return finished && !failed && !readError(data);
}

/// Where a wanted rank lies: its key, and how many finite values lie in lower keys.
struct Wanted {
    uint64_t rank = 0;
    uint32_t key = 0;
    uint64_t before = 0;
};

/// The float values of `key` in ascending order: the value at `index` (0 … 65,535).
float keyValueAt(uint32_t key, uint32_t index)
{
    const uint32_t low = (key & 0x8000u) ? 0xffffu - index : index;
    return std::bit_cast<float>((key << 16) | low);
}

/// How pass A splits each key's count: the values below `threshold[key]` in one half, the others
/// in the other. A key whose values (within [min, max]) lie in one bin has threshold +∞; one that
/// spans two bins, the first value of the upper one; one that spans more is `general` and its
/// values are binned one by one in pass B.
struct Split {
    std::vector<float> threshold = std::vector<float>(kKeyCount, std::numeric_limits<float>::infinity());
    std::vector<uint32_t> lowBin = std::vector<uint32_t>(kKeyCount, 0);
    std::vector<uint8_t> general = std::vector<uint8_t>(kKeyCount, 0);
};

/// The first value (in value order) of `key` whose bin is at least `bin`: the bin is monotone in
/// the value, so a binary search over the key's 65,536 values finds it.
float firstValueInBin(uint32_t key, uint32_t bin, const BinRange &range)
{
    uint32_t a = 0, b = 0xffff;
    while (a < b) {
        const uint32_t mid = a + (b - a) / 2;
        if (range.of(keyValueAt(key, mid)) >= bin)
            b = mid;
        else
            a = mid + 1;
    }
    return keyValueAt(key, a);
}

Split splitKeys(const TensorStatistics &stats, const BinRange &range)
{
    Split split;
    if (!range.here)
        return split;
    keys::KeySpan span;
    span.coverValues(static_cast<float>(stats.min), static_cast<float>(stats.max));
    span.forEachKey([&](uint32_t key) {
        if (!finiteKey(key))
            return;
        const auto [first, last] = keys::keyRange(key);
        const uint32_t low = range.of(std::max(first, stats.min)), high = range.of(std::min(last, stats.max));
        split.lowBin[key] = low;
        if (high == low + 1)
            split.threshold[key] = firstValueInBin(key, high, range);
        else if (high > low + 1)
            split.general[key] = 1;
    });
    return split;
}

/// Pass A's entry of each value: 2·key + (x ≥ threshold[key]), the key being its upper 16 bits.
void entriesOf(std::span<const float> values, const float *threshold, uint32_t *out)
{
    for (size_t i = 0; i < values.size(); ++i) {
        const uint32_t key = std::bit_cast<uint32_t>(values[i]) >> 16;
        out[i] = 2 * key + static_cast<uint32_t>(values[i] >= threshold[key]);
    }
}

/// The bin rule in float32 arithmetic, for pass A's half without looking up the threshold: a
/// value's position t = (x - lo) * scale in bins, whose floor is the bin unless t lies within
/// `margin` of an integer. The float error is at most about 4 * 2^-24 * bins (x - lo rounded, the
/// scale rounded, the product rounded; the double rule's own error is smaller still), so the
/// margin, (bins + 2) * 2^-20, is 16 times that: a value outside it has the bin the double rule
/// gives, and one inside it is decided by the threshold as before. Usable when lo is a float, which
/// it is unless the tensor is constant (then no key spans two bins).
struct FloatBins {
    float lo = 0, scale = 0, min = 0, last = 0, margin = 0;
    bool usable = false;
    /// Exact zeros are common: the types whose code for zero is one of few (Q4_0's 8 of 16, Q5_0's
    /// 16 of 32, Q3_K's 4 of 8, Q6_K's 32 of 64: 1/16 to 1/64 of the values); elsewhere (one code
    /// in 256, a block minimum subtracted, floats) checking for them costs more than it saves.
    bool zeros = false;

    FloatBins(const BinRange &range, double lowest, uint32_t typeId)
    {
        for (const GgmlType t : {GgmlType::Q4_0, GgmlType::Q5_0, GgmlType::Q3_K, GgmlType::Q6_K})
            zeros = zeros || typeId == static_cast<uint32_t>(t);
        const auto l = static_cast<float>(range.lo);
        usable = range.here && static_cast<double>(l) == range.lo && range.hi > range.lo;
        lo = l;
        scale = static_cast<float>(range.bins / (range.hi - range.lo));
        min = static_cast<float>(lowest);
        last = static_cast<float>(range.bins - 1);
        margin = static_cast<float>((range.bins + 2.0) * 0x1p-20);
        usable = usable && margin < 0.25f && std::isfinite(scale);
    }
};

#if GGUF_X86_KERNELS
/// The same, 16 values at a time. The half is whether x lies in a higher bin than the first value
/// of its key (within [min, max]) — for a key over two bins, whether x reaches the upper one —
/// both bins found in float arithmetic (FloatBins); the few lanes within its margin of an edge
/// take the threshold. NaN compares false in both ways.
template <bool Zeros>
GGUF_AVX512_KERNEL void entriesOfAvx512(std::span<const float> values, const float *threshold, const FloatBins &fb,
                                        uint32_t *out)
{
    const __m512 lo = _mm512_set1_ps(fb.lo), scale = _mm512_set1_ps(fb.scale), min = _mm512_set1_ps(fb.min);
    const __m512 last = _mm512_set1_ps(fb.last), margin = _mm512_set1_ps(fb.margin);
    const __m512 upper = _mm512_set1_ps(1.0f - fb.margin);
    const __m512i high = _mm512_set1_epi32(static_cast<int>(0xffff0000u)), low = _mm512_set1_epi32(0xffff);
    // zeros (`Zeros`: the type has them often, see FloatBins::zeros) lie on an edge when the range
    // is symmetric: their halves are found once instead of in the branch for lanes near an edge
    std::array<uint32_t, 2> zeroEntries{};
    const std::array<float, 2> zeros{0.0f, -0.0f};
    entriesOf(zeros, threshold, zeroEntries.data());
    const auto halfOfPositiveZero = static_cast<__mmask16>((zeroEntries[0] & 1) ? 0xffff : 0);
    const auto halfOfNegativeZero = static_cast<__mmask16>((zeroEntries[1] & 1) ? 0xffff : 0);
    size_t i = 0;
    for (; i + 16 <= values.size(); i += 16) {
        const __m512 x = _mm512_loadu_ps(values.data() + i);
        const __m512i bits = _mm512_castps_si512(x);
        const __m512i key = _mm512_srli_epi32(bits, 16);
        // the key's first value in value order: the low half all zeros, or all ones when negative
        const __m512i firstBits =
            _mm512_or_si512(_mm512_and_si512(bits, high), _mm512_and_si512(_mm512_srai_epi32(bits, 31), low));
        const __m512 first = _mm512_max_ps(_mm512_castsi512_ps(firstBits), min);
        const __m512 t = _mm512_mul_ps(_mm512_sub_ps(x, lo), scale);
        const __m512 tFirst = _mm512_mul_ps(_mm512_sub_ps(first, lo), scale);
        const __m512 f = _mm512_roundscale_ps(t, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512 fFirst = _mm512_roundscale_ps(tFirst, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        const __m512 frac = _mm512_sub_ps(t, f), fracFirst = _mm512_sub_ps(tFirst, fFirst);
        // near an edge, or not a number (NaN, or infinity - infinity where x - lo overflowed)
        const __mmask16 zero = Zeros ? _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ) : __mmask16{0};
        const auto near = static_cast<uint32_t>(
            (_mm512_cmp_ps_mask(frac, margin, _CMP_NGE_UQ) | _mm512_cmp_ps_mask(frac, upper, _CMP_NLE_UQ) |
             _mm512_cmp_ps_mask(fracFirst, margin, _CMP_NGE_UQ) | _mm512_cmp_ps_mask(fracFirst, upper, _CMP_NLE_UQ)) &
            ~zero);
        const __m512 binX = _mm512_min_ps(_mm512_max_ps(f, _mm512_setzero_ps()), last);
        const __m512 binFirst = _mm512_min_ps(_mm512_max_ps(fFirst, _mm512_setzero_ps()), last);
        const __m512i twice = _mm512_add_epi32(key, key);
        const __mmask16 negative = _mm512_movepi32_mask(bits);
        auto upperHalf =
            static_cast<__mmask16>((_mm512_cmp_ps_mask(binX, binFirst, _CMP_GT_OQ) & ~zero) |
                                   (zero & ((negative & halfOfNegativeZero) | (~negative & halfOfPositiveZero))));
        if (near != 0) { // those lanes compare with their key's split, gathered for them alone
            const auto lanes = static_cast<__mmask16>(near);
            const __m512 split = _mm512_mask_i32gather_ps(x, lanes, key, threshold, 4);
            upperHalf =
                static_cast<__mmask16>((upperHalf & ~lanes) | _mm512_mask_cmp_ps_mask(lanes, x, split, _CMP_GE_OQ));
        }
        _mm512_storeu_si512(out + i, _mm512_mask_add_epi32(twice, upperHalf, twice, _mm512_set1_epi32(1)));
    }
    entriesOf(values.subspan(i), threshold, out + i);
}
#endif

/// One worker's pass A: the entries of a piece, then their counts (four copies, see Counter32).
struct EntryCounter {
    static constexpr size_t kCopies = 4, kEntries = 2 * kKeyCount;
    Counter32 counts{kEntries, kCopies};
    std::vector<uint32_t> entries = std::vector<uint32_t>(kPiece);

    void count(std::span<const float> values, const float *threshold, const FloatBins &fb)
    {
#if GGUF_X86_KERNELS
        if (fb.usable && detail::cpuHasAvx512())
            (fb.zeros ? entriesOfAvx512<true> : entriesOfAvx512<false>)(values, threshold, fb, entries.data());
        else
#endif
            entriesOf(values, threshold, entries.data());
        uint32_t *t = counts.room(values.size());
        const uint32_t *e = entries.data();
        const size_t n = values.size();
        size_t i = 0;
        for (; i + 4 <= n; i += 4) {
            ++t[size_t{e[i]} * kCopies];
            ++t[size_t{e[i + 1]} * kCopies + 1];
            ++t[size_t{e[i + 2]} * kCopies + 2];
            ++t[size_t{e[i + 3]} * kCopies + 3];
        }
        for (; i < n; ++i)
            ++t[size_t{e[i]} * kCopies];
    }
};

/// Pass A: every value's key, counted in two halves by the key's threshold (index 2·key + half).
std::optional<std::vector<uint64_t>> countKeys(const TensorData &data, const StatsOptions &options, uint64_t chunk,
                                               std::vector<std::vector<float>> &buffers, const Split &split,
                                               const BinRange &range, const TensorStatistics &stats)
{
    const unsigned workers = workerCount(options.threads, (data.elements + chunk - 1) / chunk);
    std::vector<EntryCounter> counters(workers);
    const float *threshold = split.threshold.data();
    const FloatBins fb(range, stats.min, data.typeId);
    if (!forEachPiece(data, options, chunk, halfOfProgress(options, 0), buffers,
                      [&](unsigned w, std::span<const float> values) { counters[w].count(values, threshold, fb); }))
        return std::nullopt;
    std::vector<Counter32> counts;
    counts.reserve(counters.size());
    for (EntryCounter &c : counters)
        counts.push_back(std::move(c.counts));
    return Counter32::sum(counts, EntryCounter::kEntries);
}

/// What pass B looks at, per key (`look`): bit 31 set when the key spans more than two bins (its
/// values are binned one by one), and in the low bits 1 + the slot of its low-half table when it
/// holds a wanted rank (0: none).
struct Plan {
    std::vector<Wanted> wanted;
    std::vector<uint32_t> slotKeys;
    std::vector<uint32_t> look = std::vector<uint32_t>(kKeyCount, 0);
    std::vector<uint64_t> bins; ///< the histogram of the keys that span at most two bins
    bool anyGeneral = false;    ///< a key spans more than two bins (only with more than 512 bins)
    bool slotsOften = false;    ///< the slot keys hold one finite value in 64 or more (zeros, often)
    static constexpr uint32_t kGeneral = 0x80000000u;
};

/// Places the wanted ranks in their keys and bins the keys that span at most two bins; nullopt
/// when the keys do not hold every rank (the tensor changed between the passes).
std::optional<Plan> planPassB(const std::vector<uint64_t> &halves, const Split &split, const TensorStatistics &stats,
                              const BinRange &range)
{
    Plan plan;
    const std::vector<uint64_t> ranks = wantedRanks(stats.finite);
    uint64_t before = 0;
    size_t next = 0;
    if (range.here)
        plan.bins.assign(range.bins, 0);
    forEachKeyInValueOrder([&](uint32_t key) {
        const uint64_t below = halves[2 * key], above = halves[2 * key + 1];
        const uint64_t n = finiteKey(key) ? below + above : 0;
        if (n == 0)
            return;
        while (next < ranks.size() && ranks[next] < before + n)
            plan.wanted.push_back({ranks[next++], key, before});
        before += n;
        if (!range.here)
            return;
        if (split.general[key]) {
            plan.look[key] = Plan::kGeneral;
            plan.anyGeneral = true;
        } else {
            plan.bins[split.lowBin[key]] += below;
            if (above)
                plan.bins[split.lowBin[key] + 1] += above;
        }
    });
    if (plan.wanted.size() != ranks.size())
        return std::nullopt;
    for (const Wanted &w : plan.wanted)
        if ((plan.look[w.key] & ~Plan::kGeneral) == 0) {
            plan.slotKeys.push_back(w.key);
            plan.look[w.key] |= static_cast<uint32_t>(plan.slotKeys.size()); // slot + 1
        }
    uint64_t inSlots = 0;
    for (const uint32_t key : plan.slotKeys)
        inSlots += halves[2 * key] + halves[2 * key + 1];
    plan.slotsOften = inSlots >= stats.finite / 64;
    return plan;
}

/// Pass B's counts, summed over the workers.
struct PassB {
    std::vector<uint64_t> low;  ///< per slot, the count of each low half
    std::vector<uint64_t> bins; ///< the values of keys that span more than two bins, binned one by one
};

#if GGUF_X86_KERNELS
/// The indices of the values whose key is one of `keys` (at most M; the list padded with its first
/// key), 16 values at a time: a fixed number of compares the compiler unrolls. `Often`: the keys are
/// common (in the types with exact zeros 0 holds the median, and most vectors hold a zero), so every
/// vector's indices are stored without a branch that would be mispredicted; else only those of a
/// vector with a hit.
template <size_t M, bool Often>
GGUF_AVX512_KERNEL size_t flaggedAvx512(std::span<const float> values, const std::vector<uint32_t> &keys, uint32_t *out)
{
    if (keys.empty())
        return 0;
    __m512i wanted[M];
    for (size_t j = 0; j < M; ++j)
        wanted[j] = _mm512_set1_epi32(static_cast<int>(keys[j < keys.size() ? j : 0]));
    const __m512i lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    size_t count = 0, i = 0;
    for (; i + 16 <= values.size(); i += 16) {
        const __m512i key = _mm512_srli_epi32(_mm512_castps_si512(_mm512_loadu_ps(values.data() + i)), 16);
        __mmask16 hit = 0;
        for (size_t j = 0; j < M; ++j)
            hit = static_cast<__mmask16>(hit | _mm512_cmpeq_epi32_mask(key, wanted[j]));
        if (!Often && hit == 0)
            continue;
        const __m512i at = _mm512_add_epi32(lanes, _mm512_set1_epi32(static_cast<int>(i)));
        // compressed in a register, then stored whole: the form that writes memory directly is
        // microcoded on AMD's Zen 4, dozens of cycles; count ≤ i, so the 16 lanes stay in the piece
        _mm512_storeu_si512(out + count, _mm512_maskz_compress_epi32(hit, at));
        count += static_cast<size_t>(std::popcount(static_cast<uint32_t>(hit)));
    }
    for (; i < values.size(); ++i)
        if (std::find(keys.begin(), keys.end(), std::bit_cast<uint32_t>(values[i]) >> 16) != keys.end())
            out[count++] = static_cast<uint32_t>(i);
    return count;
}
#endif

/// Pass B's work on one piece: the values whose key needs a look are found 16 at a time without a
/// branch per value, then handled one by one.
struct PassBScan {
    const Plan &plan;
    const BinRange &range;
    uint32_t *low;
    uint64_t *bins;
    std::vector<uint32_t> &indices; ///< room for a piece

#if GGUF_X86_KERNELS
    template <bool Often> size_t flaggedOf(std::span<const float> values, uint32_t *out) const
    {
        const size_t m = plan.slotKeys.size();
        if (m <= 4)
            return flaggedAvx512<4, Often>(values, plan.slotKeys, out);
        return m <= 8 ? flaggedAvx512<8, Often>(values, plan.slotKeys, out)
                      : flaggedAvx512<16, Often>(values, plan.slotKeys, out);
    }
    size_t flagged(std::span<const float> values, uint32_t *out) const
    {
        return plan.slotsOften ? flaggedOf<true>(values, out) : flaggedOf<false>(values, out);
    }
#endif

    void handle(float x, uint32_t what) const
    {
        if (what & Plan::kGeneral)
            ++bins[range.of(x)];
        if (const uint32_t slot = what & ~Plan::kGeneral)
            ++low[size_t{slot - 1} * 0x10000 + (std::bit_cast<uint32_t>(x) & 0xffffu)];
    }

    void operator()(std::span<const float> values) const
    {
#if GGUF_X86_KERNELS
        if (!plan.anyGeneral && detail::cpuHasAvx512()) {
            const size_t found = flagged(values, indices.data());
            for (size_t f = 0; f < found; ++f) {
                const float x = values[indices[f]];
                handle(x, plan.look[std::bit_cast<uint32_t>(x) >> 16]);
            }
            return;
        }
#endif
        const uint32_t *look = plan.look.data();
        const size_t n = values.size();
        size_t i = 0;
        for (; i + 16 <= n; i += 16) {
            std::array<uint32_t, 16> what{};
            uint32_t mask = 0;
            for (uint32_t j = 0; j < 16; ++j) {
                what[j] = look[std::bit_cast<uint32_t>(values[i + j]) >> 16];
                mask |= static_cast<uint32_t>(what[j] != 0) << j;
            }
            for (; mask != 0; mask &= mask - 1) {
                const auto j = static_cast<uint32_t>(std::countr_zero(mask));
                handle(values[i + j], what[j]);
            }
        }
        for (; i < n; ++i)
            if (const uint32_t what = look[std::bit_cast<uint32_t>(values[i]) >> 16])
                handle(values[i], what);
    }
};

std::optional<PassB> runPassB(const TensorData &data, const StatsOptions &options, uint64_t chunk,
                              std::vector<std::vector<float>> &buffers, const Plan &plan, const BinRange &range)
{
    const unsigned workers = workerCount(options.threads, (data.elements + chunk - 1) / chunk);
    const size_t lowEntries = plan.slotKeys.size() * 0x10000;
    std::vector<Counter32> low;
    std::vector<std::vector<uint64_t>> bins(workers, std::vector<uint64_t>(range.here ? range.bins : 0, 0));
    std::vector<std::vector<uint32_t>> indices(workers, std::vector<uint32_t>(kPiece));
    for (unsigned w = 0; w < workers; ++w)
        low.emplace_back(lowEntries, 1);
    if (!forEachPiece(data, options, chunk, halfOfProgress(options, 1), buffers,
                      [&](unsigned w, std::span<const float> values) {
                          PassBScan{plan, range, low[w].room(values.size()), bins[w].data(), indices[w]}(values);
                      }))
        return std::nullopt;
    PassB out;
    out.low = Counter32::sum(low, lowEntries);
    out.bins.assign(range.here ? range.bins : 0, 0);
    for (const std::vector<uint64_t> &b : bins)
        for (size_t i = 0; i < b.size(); ++i)
            out.bins[i] += b[i];
    return out;
}

/// The exact percentiles and histogram from pass B's counts.
void exactFromKeys(const Plan &plan, const PassB &b, const BinRange &range, TensorStatistics &stats)
{
    const auto valueAtRank = [&](uint64_t rank) {
        const auto w =
            std::find_if(plan.wanted.begin(), plan.wanted.end(), [rank](const Wanted &x) { return x.rank == rank; });
        const size_t slot = (plan.look[w->key] & ~Plan::kGeneral) - 1u;
        uint64_t seen = w->before;
        uint32_t found = 0;
        bool done = false;
        forEachLowHalfInValueOrder(w->key, [&](uint32_t l) {
            if (done)
                return;
            seen += b.low[slot * 0x10000 + l];
            if (seen > rank) {
                found = l;
                done = true;
            }
        });
        return static_cast<double>(std::bit_cast<float>((w->key << 16) | found));
    };
    for (size_t i = 0; i < kPercentileLevels.size(); ++i)
        stats.percentiles[i] = numpyPercentile(stats.finite, kPercentileLevels[i], valueAtRank);
    if (range.here) {
        stats.histogram.counts = plan.bins;
        for (uint32_t i = 0; i < range.bins; ++i)
            stats.histogram.counts[i] += b.bins[i];
    }
}

} // namespace

StatsStatus refineByKeys(const TensorData &data, const StatsOptions &options, uint64_t chunk, const BinRange &range,
                         TensorStatistics &stats)
{
    std::vector<std::vector<float>> buffers;
    const Split split = splitKeys(stats, range);
    const auto halves = countKeys(data, options, chunk, buffers, split, range, stats);
    if (!halves)
        return fetchStatus(data).value_or(StatsStatus::Cancelled);
    const auto plan = planPassB(*halves, split, stats, range);
    if (!plan)
        return StatsStatus::NoData;
    const auto passB = runPassB(data, options, chunk, buffers, *plan, range);
    if (!passB)
        return fetchStatus(data).value_or(StatsStatus::Cancelled);
    exactFromKeys(*plan, *passB, range, stats);
    return StatsStatus::Ok;
}

} // namespace gguf::detail::exact
