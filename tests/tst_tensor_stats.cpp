// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/quant/dequantize.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_stats.h"
#include "core/util/cpu_features.h"

#include <QFile>
#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace gguf;

namespace {

std::vector<uint8_t> asBytes(const std::vector<float> &values)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

TensorData f32Data(const std::vector<uint8_t> &bytes)
{
    TensorData d;
    d.typeId = 0;
    d.bytes = bytes;
    d.elements = bytes.size() / 4;
    return d;
}

// Exact nearest-rank-interpolated percentile of sorted finite values (the estimator's target).
double exactPercentile(const std::vector<float> &sorted, double level)
{
    const double pos = level / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

} // namespace

class TestTensorStats : public QObject {
    Q_OBJECT

private slots:
    void knownValues();
    void chosenRangeHistogramIsExact();
    void automaticHistogramExactForRepresentableValues();
    void nonFiniteValuesAreCountedAndExcluded();
    void resultDoesNotDependOnThreadsOrChunks_data();
    void resultDoesNotDependOnThreadsOrChunks();
    void percentilesWithinStatedBound();
    void sampledPercentilesWithinStatedBound_data();
    void sampledPercentilesWithinStatedBound();
    void percentileInTheZeroBucketIsZero();
    void codeReductionEqualsTheFloatPath_data();
    void codeReductionEqualsTheFloatPath();
    void inPlaceScanEqualsTheFloatPath_data();
    void inPlaceScanEqualsTheFloatPath();
    void everyKernelLevelGivesTheSameBits_data();
    void everyKernelLevelGivesTheSameBits();
    void largeMeanSmallSpreadStaysAccurate_data();
    void largeMeanSmallSpreadStaysAccurate();
    void cancelStopsTheJob();
    void quantizedTensorMatchesReferenceValues();
    void unsupportedTypeIsRefused();
    void heatmapTiles();
};

void TestTensorStats::knownValues()
{
    std::vector<float> v(1000);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>(i);
    const auto bytes = asBytes(v);
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), {}, s), StatsStatus::Ok);
    QCOMPARE(s.count, uint64_t(1000));
    QCOMPARE(s.finite, uint64_t(1000));
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.max, 999.0);
    QCOMPARE(s.mean, 499.5);
    QVERIFY(std::fabs(s.std - std::sqrt((1000.0 * 1000.0 - 1.0) / 12.0)) < 1e-9);
    QCOMPARE(s.zeros, uint64_t(1));
    QCOMPARE(s.nan + s.posInf + s.negInf, uint64_t(0));
}

void TestTensorStats::chosenRangeHistogramIsExact()
{
    std::vector<float> v(1000);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<float>(i) + 0.25f;
    v.push_back(-5.0f);   // below
    v.push_back(2000.0f); // above
    const auto bytes = asBytes(v);
    StatsOptions opt;
    opt.bins = 10;
    opt.range = std::make_pair(0.0, 1000.0);
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), opt, s), StatsStatus::Ok);
    QVERIFY(s.histogram.exact);
    QCOMPARE(s.histogram.counts.size(), size_t(10));
    for (uint64_t c : s.histogram.counts)
        QCOMPARE(c, uint64_t(100));
    QCOMPARE(s.histogram.below, uint64_t(1));
    QCOMPARE(s.histogram.above, uint64_t(1));
}

void TestTensorStats::automaticHistogramExactForRepresentableValues()
{
    // halves from -8 to +7.5 are exact in bfloat16, so binning by the 16-bit key is exact
    std::vector<float> v;
    for (int rep = 0; rep < 3; ++rep)
        for (int i = -16; i < 16; ++i)
            v.push_back(static_cast<float>(i) * 0.5f);
    const auto bytes = asBytes(v);
    StatsOptions opt;
    opt.bins = 4;
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), opt, s), StatsStatus::Ok);
    QCOMPARE(s.histogram.lo, -8.0);
    QCOMPARE(s.histogram.hi, 7.5);
    // the expected counts come from binning the values directly
    uint64_t total = 0;
    std::vector<uint64_t> manual(4, 0);
    for (float x : v)
        ++manual[std::min<size_t>(3, static_cast<size_t>((x + 8.0) / 15.5 * 4))];
    for (size_t b = 0; b < 4; ++b) {
        QCOMPARE(s.histogram.counts[b], manual[b]);
        total += s.histogram.counts[b];
    }
    QCOMPARE(total, uint64_t(v.size()));
}

void TestTensorStats::nonFiniteValuesAreCountedAndExcluded()
{
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> v = {1.0f, std::nanf(""), -inf, inf, inf, 3.0f, 0.0f, -0.0f};
    const auto bytes = asBytes(v);
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), {}, s), StatsStatus::Ok);
    QCOMPARE(s.nan, uint64_t(1));
    QCOMPARE(s.negInf, uint64_t(1));
    QCOMPARE(s.posInf, uint64_t(2));
    QCOMPARE(s.finite, uint64_t(4));
    QCOMPARE(s.zeros, uint64_t(2));
    QCOMPARE(s.min, 0.0);
    QCOMPARE(s.max, 3.0);
    QCOMPARE(s.mean, 1.0);
    uint64_t inHistogram = 0;
    for (uint64_t c : s.histogram.counts)
        inHistogram += c;
    QCOMPARE(inHistogram, uint64_t(4));
}

void TestTensorStats::resultDoesNotDependOnThreadsOrChunks_data()
{
    QTest::addColumn<unsigned>("threads");
    QTest::addColumn<quint64>("chunk");
    QTest::addColumn<quint64>("exactKeys");
    const quint64 all = StatsOptions{}.exactKeyElements;
    QTest::newRow("1 thread, 256") << 1u << quint64(256) << all;
    QTest::newRow("2 threads, 256") << 2u << quint64(256) << all;
    QTest::newRow("4 threads, 4096") << 4u << quint64(4096) << all;
    QTest::newRow("all, default") << 0u << quint64(1u << 20) << all;
    // keys sampled one in 16: the sample is chosen per element index, not per chunk or thread
    QTest::newRow("sampled, 1 thread, 256") << 1u << quint64(256) << quint64(4096);
    QTest::newRow("sampled, 3 threads, 4096") << 3u << quint64(4096) << quint64(4096);
}

void TestTensorStats::resultDoesNotDependOnThreadsOrChunks()
{
    QFETCH(unsigned, threads);
    QFETCH(quint64, chunk);
    QFETCH(quint64, exactKeys);
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.0f, 0.02f);
    std::vector<float> v(100000);
    for (float &x : v)
        x = dist(rng);
    const auto bytes = asBytes(v);
    StatsOptions base;
    base.threads = 1;
    base.chunkElements = 100352;
    base.exactKeyElements = exactKeys;
    TensorStatistics ref, s;
    QCOMPARE(computeStatistics(f32Data(bytes), base, ref), StatsStatus::Ok);
    StatsOptions opt;
    opt.threads = threads;
    opt.chunkElements = chunk;
    opt.exactKeyElements = exactKeys;
    QCOMPARE(computeStatistics(f32Data(bytes), opt, s), StatsStatus::Ok);
    QCOMPARE(s.keySampleStride, ref.keySampleStride);
    QCOMPARE(s.keysCounted, ref.keysCounted);
    QCOMPARE(s.min, ref.min);
    QCOMPARE(s.max, ref.max);
    QCOMPARE(s.histogram.counts, ref.histogram.counts);
    QCOMPARE(s.percentiles, ref.percentiles);
    // chunking changes the summation order only: agreement to ~1e-12 relative
    QVERIFY(std::fabs(s.mean - ref.mean) <= 1e-12 * std::max(1.0, std::fabs(ref.mean)) + 1e-15);
    QVERIFY(std::fabs(s.std - ref.std) <= 1e-10 * ref.std);
}

void TestTensorStats::percentilesWithinStatedBound()
{
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.1f, 1.0f);
    std::vector<float> v(200000);
    for (float &x : v)
        x = dist(rng);
    const auto bytes = asBytes(v);
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), {}, s), StatsStatus::Ok);
    std::vector<float> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (size_t q = 0; q < kPercentileLevels.size(); ++q) {
        const double exact = exactPercentile(sorted, kPercentileLevels[q]);
        QVERIFY2(s.percentileError[q] > 0, "a bound is reported");
        QVERIFY2(std::fabs(s.percentiles[q] - exact) <= s.percentileError[q],
                 qPrintable(QString("p%1: %2 vs exact %3 (bound %4)")
                                .arg(kPercentileLevels[q])
                                .arg(s.percentiles[q])
                                .arg(exact)
                                .arg(s.percentileError[q])));
        // the bound is the bucket width: at most 2^-7 of the value's magnitude
        QVERIFY(s.percentileError[q] <= std::fabs(exact) / 64.0 + 1e-30);
    }
}

void TestTensorStats::sampledPercentilesWithinStatedBound_data()
{
    QTest::addColumn<int>("shape");
    QTest::newRow("normal") << 0;
    // a pattern with the period of the sampling stride: a sample at a fixed place in every group
    // would see one value only
    QTest::newRow("period 16") << 1;
    QTest::newRow("sorted") << 2;
}

void TestTensorStats::sampledPercentilesWithinStatedBound()
{
    QFETCH(int, shape);
    std::mt19937 rng(11);
    std::normal_distribution<float> dist(-0.3f, 2.0f);
    std::vector<float> v(1 << 20);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = shape == 1 ? static_cast<float>(i % 16) - 4.5f + 0.001f * dist(rng) : dist(rng);
    if (shape == 2)
        std::sort(v.begin(), v.end());
    const auto bytes = asBytes(v);
    StatsOptions opt;
    opt.exactKeyElements = 1 << 16;
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), opt, s), StatsStatus::Ok);
    QCOMPARE(s.keySampleStride, 16u);
    QCOMPARE(s.keysCounted, quint64(v.size() / 16));
    QVERIFY(s.percentileRankError > 0 && s.percentileRankError < 1.5); // 65,536 samples: about 1.08 points
    std::vector<float> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (size_t q = 0; q < kPercentileLevels.size(); ++q) {
        const double e = s.percentileRankError;
        const double low = exactPercentile(sorted, std::max(0.0, kPercentileLevels[q] - e)) - s.percentileError[q];
        const double high = exactPercentile(sorted, std::min(100.0, kPercentileLevels[q] + e)) + s.percentileError[q];
        QVERIFY2(s.percentiles[q] >= low && s.percentiles[q] <= high, qPrintable(QString("p%1: %2 outside [%3, %4]")
                                                                                     .arg(kPercentileLevels[q])
                                                                                     .arg(s.percentiles[q])
                                                                                     .arg(low)
                                                                                     .arg(high)));
    }
    // exact parts stay exact
    QCOMPARE(s.min, static_cast<double>(sorted.front()));
    QCOMPARE(s.max, static_cast<double>(sorted.back()));
    // the estimated histogram is scaled to the number of values
    uint64_t total = 0;
    for (uint64_t c : s.histogram.counts)
        total += c;
    QCOMPARE(total, s.finite);
    QVERIFY(!s.histogram.exact);
}

void TestTensorStats::percentileInTheZeroBucketIsZero()
{
    std::vector<float> v(1000, 0.0f);
    for (size_t i = 0; i < 400; ++i)
        v[i * 2 + 1] = i % 2 ? 1.0f : -0.0f;
    const auto bytes = asBytes(v);
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), {}, s), StatsStatus::Ok);
    QCOMPARE(s.zeros, quint64(800));
    for (size_t q = 0; q < 5; ++q) // p1 … p75 fall among the zeros
        QCOMPARE(s.percentiles[q], 0.0);
    QCOMPARE(s.percentiles[6], 1.0);
}

// f16 bits with the given sign, biased exponent (0–30) and mantissa.
uint16_t half(uint32_t sign, uint32_t exponent, uint32_t mantissa)
{
    return static_cast<uint16_t>((sign << 15) | (exponent << 10) | (mantissa & 0x3ff));
}

void putHalf(std::vector<uint8_t> &bytes, size_t at, uint16_t h)
{
    bytes[at] = static_cast<uint8_t>(h & 0xff);
    bytes[at + 1] = static_cast<uint8_t>(h >> 8);
}

// The double sum and the count of the finite decoded values of `data`.
std::pair<double, uint64_t> decodedSum(const TensorData &data)
{
    std::vector<float> values(data.elements);
    if (!dequantizeRange(data.typeId, data.bytes, data.elements, 0, values))
        return {std::nan(""), 0};
    double sum = 0;
    uint64_t finite = 0;
    for (const float v : values)
        if (std::isfinite(v)) {
            sum += v;
            ++finite;
        }
    return {sum, finite};
}

void TestTensorStats::codeReductionEqualsTheFloatPath_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<int>("variant");
    // 0: weight-like scales; 1: edge cases (zero, negative and subnormal scales, zero codes);
    // 2: Q4_K scales binades apart, so that the decoder rounds; 3: a NaN scale in one piece
    for (const uint32_t type : {8u, 12u})
        for (int variant = 0; variant < 4; ++variant)
            QTest::addRow("%s, variant %d", type == 8 ? "Q8_0" : "Q4_K", variant) << type << variant;
}

// Large tensors of Q8_0 and Q4_K are reduced from their integer codes; every figure must equal
// the float path's (mean and std to rounding).
void TestTensorStats::codeReductionEqualsTheFloatPath()
{
    QFETCH(uint32_t, type);
    QFETCH(int, variant);
    const TypeTraits &t = typeTraits(type);
    const uint64_t elements = 3 * 16384 + 1024; // three whole pieces and a part
    const uint64_t blocks = elements / t.blockSize;
    std::vector<uint8_t> bytes(blocks * t.typeSize);
    std::mt19937 rng(1234 + variant);
    for (uint8_t &b : bytes)
        b = static_cast<uint8_t>(rng());
    const auto scale = [&](size_t block, bool isMin) -> uint16_t {
        switch (variant) {
        case 0: return half(isMin ? 0 : rng() % 2, 8 + rng() % 3, rng()); // about 2^-7 … 2^-5
        case 1: {
            switch (rng() % 6) {
            case 0: return half(0, 0, 0);                  // zero
            case 1: return half(1, 0, 0);                  // negative zero
            case 2: return half(0, 0, rng());              // subnormal
            case 3: return half(1, 10 + rng() % 4, rng()); // negative
            default: return half(0, 10, rng());
            }
        }
        case 2: return isMin ? half(0, 20 + rng() % 4, rng()) : half(0, 1 + rng() % 3, rng());
        default: return block == blocks / 2 ? half(0, 31, 1) : half(0, 9, rng()); // one NaN
        }
    };
    for (size_t i = 0; i < blocks; ++i) {
        const size_t at = i * t.typeSize;
        putHalf(bytes, at, scale(i, false));
        if (type == 12)
            putHalf(bytes, at + 2, scale(i, true));
        if (variant == 1 && i % 5 == 0) // runs of zero codes
            std::fill_n(bytes.begin() + static_cast<ptrdiff_t>(at + (type == 12 ? 16 : 2)), 16, uint8_t{0});
    }
    TensorData data;
    data.typeId = type;
    data.bytes = bytes;
    data.elements = elements;
    StatsOptions opt;
    opt.exactKeyElements = 1024; // sampled: one in 64
    TensorStatistics fused, plain;
    QCOMPARE(computeStatistics(data, opt, fused), StatsStatus::Ok);
    opt.fused = false;
    QCOMPARE(computeStatistics(data, opt, plain), StatsStatus::Ok);
    QCOMPARE(fused.keySampleStride, 64u);
    QCOMPARE(fused.count, plain.count);
    QCOMPARE(fused.finite, plain.finite);
    QCOMPARE(fused.zeros, plain.zeros);
    QCOMPARE(fused.nan, plain.nan);
    QCOMPARE(fused.posInf + fused.negInf, plain.posInf + plain.negInf);
    QCOMPARE(fused.min, plain.min);
    QCOMPARE(fused.max, plain.max);
    QCOMPARE(fused.keysCounted, plain.keysCounted);
    QCOMPARE(fused.percentiles, plain.percentiles);
    QCOMPARE(fused.histogram.counts, plain.histogram.counts);
    const double tolerance = 1e-12 * std::max(plain.std, std::fabs(plain.mean)) + 1e-300;
    QVERIFY2(std::fabs(fused.mean - plain.mean) <= tolerance,
             qPrintable(QString("mean %1 vs %2").arg(fused.mean, 0, 'g', 17).arg(plain.mean, 0, 'g', 17)));
    QVERIFY2(std::fabs(fused.std - plain.std) <= 1e-12 * plain.std + 1e-300,
             qPrintable(QString("std %1 vs %2").arg(fused.std, 0, 'g', 17).arg(plain.std, 0, 'g', 17)));
    // and both against a plain double sum of the decoded values
    const auto [sum, finite] = decodedSum(data);
    QCOMPARE(plain.finite, finite);
    QVERIFY(std::fabs(fused.mean - sum / static_cast<double>(finite)) <= 1e-9 * std::max(1.0, plain.std));
}

void TestTensorStats::inPlaceScanEqualsTheFloatPath_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<int>("variant");
    // 0: weight-like values; 1: ±0, subnormals, extremes and runs of zeros; 2: as 0 plus a NaN in
    // one piece and infinities in another; 3: values far from the first of each piece
    for (const uint32_t type : {0u, 1u, 30u})
        for (int variant = 0; variant < 4; ++variant)
            QTest::addRow("%s, variant %d", type == 0 ? "F32" : type == 1 ? "F16" : "BF16", variant) << type << variant;
}

// Large F32, F16 and BF16 tensors are scanned where they lie, without a decode buffer; every
// figure must be the float path's, bit for bit (same lanes, same operations).
void TestTensorStats::inPlaceScanEqualsTheFloatPath()
{
    QFETCH(uint32_t, type);
    QFETCH(int, variant);
    const size_t width = type == 0 ? 4 : 2;
    const uint64_t elements = 5 * 16384 + 2048 + 777; // pieces, a whole batch and a ragged end
    std::vector<uint8_t> bytes(elements * width);
    std::mt19937 rng(77 + variant + 10 * type);
    const auto put = [&](size_t i, uint32_t bits) {
        if (width == 4)
            std::memcpy(bytes.data() + 4 * i, &bits, 4);
        else
            putHalf(bytes, 2 * i, static_cast<uint16_t>(bits));
    };
    // a random pattern of the type: sign, exponent (biased, of the type's width) and mantissa
    const auto pattern = [&](uint32_t sign, uint32_t exponent, uint32_t mantissa) -> uint32_t {
        switch (type) {
        case 0: return sign << 31 | exponent << 23 | (mantissa & 0x7fffff);
        case 1: return half(sign, exponent, mantissa);
        default: return sign << 15 | exponent << 7 | (mantissa & 0x7f);
        }
    };
    const uint32_t bias = type == 1 ? 15 : 127, maxExponent = type == 1 ? 30 : 254;
    for (size_t i = 0; i < elements; ++i) {
        const uint32_t r = static_cast<uint32_t>(rng());
        uint32_t exponent = bias - 8 + r % 4; // about 2^-8 … 2^-5
        if (variant == 1) {
            switch (r % 7) {
            case 0: exponent = 0; break;                      // zero or subnormal
            case 1: put(i, pattern(r >> 31, 0, 0)); continue; // ±0
            case 2: exponent = maxExponent; break;            // the largest
            case 3: exponent = 1; break;                      // the smallest normal
            default: break;
            }
            if (i % 4096 < 64) {
                put(i, 0); // runs of zeros
                continue;
            }
        }
        if (variant == 3)
            exponent = (i % 16384 == 0) ? bias + 10 : bias - 2; // each piece starts with an outlier
        put(i, pattern(r >> 31, exponent, static_cast<uint32_t>(rng())));
    }
    if (variant == 2) {
        const uint32_t nanExponent = type == 1 ? 31 : 255;
        put(3 * 16384 + 5, pattern(0, nanExponent, 1)); // NaN
        put(16384 + 100, pattern(0, nanExponent, 0));   // +Inf
        put(16384 + 2000, pattern(1, nanExponent, 0));  // -Inf
    }
    TensorData data;
    data.typeId = type;
    data.bytes = bytes;
    data.elements = elements;
    StatsOptions opt;
    opt.exactKeyElements = 4096; // sampled: one in 32
    opt.threads = 2;
    TensorStatistics inPlace, plain;
    QCOMPARE(computeStatistics(data, opt, inPlace), StatsStatus::Ok);
    opt.fused = false;
    QCOMPARE(computeStatistics(data, opt, plain), StatsStatus::Ok);
    QCOMPARE(inPlace.keySampleStride, 32u);
    const auto sameBits = [](double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; };
    QCOMPARE(inPlace.count, plain.count);
    QCOMPARE(inPlace.finite, plain.finite);
    QCOMPARE(inPlace.zeros, plain.zeros);
    QCOMPARE(inPlace.nan, plain.nan);
    QCOMPARE(inPlace.posInf, plain.posInf);
    QCOMPARE(inPlace.negInf, plain.negInf);
    QVERIFY(sameBits(inPlace.min, plain.min));
    QVERIFY(sameBits(inPlace.max, plain.max));
    QVERIFY2(sameBits(inPlace.mean, plain.mean),
             qPrintable(QString("mean %1 vs %2").arg(inPlace.mean, 0, 'g', 17).arg(plain.mean, 0, 'g', 17)));
    QVERIFY2(sameBits(inPlace.std, plain.std),
             qPrintable(QString("std %1 vs %2").arg(inPlace.std, 0, 'g', 17).arg(plain.std, 0, 'g', 17)));
    QCOMPARE(inPlace.keysCounted, plain.keysCounted);
    for (size_t q = 0; q < inPlace.percentiles.size(); ++q)
        QVERIFY(sameBits(inPlace.percentiles[q], plain.percentiles[q]));
    QCOMPARE(inPlace.histogram.counts, plain.histogram.counts);
    // and the moments against a plain double sum of the decoded values
    const auto [sum, finite] = decodedSum(data);
    QCOMPARE(inPlace.finite, finite);
    QCOMPARE(inPlace.nan + inPlace.posInf + inPlace.negInf, variant == 2 ? uint64_t(3) : uint64_t(0));
    QVERIFY(std::fabs(inPlace.mean - sum / static_cast<double>(finite)) <= 1e-9 * std::max(1.0, inPlace.std));
}

void TestTensorStats::everyKernelLevelGivesTheSameBits_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<bool>("sampled");
    // in place (F32, F16, BF16), from the codes (Q8_0, Q4_K) and decoded (Q6_K)
    for (const uint32_t type : {0u, 1u, 30u, 8u, 12u, 14u})
        for (const bool sampled : {false, true})
            QTest::addRow("%s, %s", typeName(type).c_str(), sampled ? "sampled" : "every key") << type << sampled;
}

// The AVX-512, AVX2 and portable kernels (on this machine, whichever it has) give the same bits.
void TestTensorStats::everyKernelLevelGivesTheSameBits()
{
    QFETCH(uint32_t, type);
    QFETCH(bool, sampled);
    const TypeTraits &t = typeTraits(type);
    const uint64_t elements = 4 * 16384 + 2048 + (t.blockSize == 1 ? 333 : 0);
    std::vector<uint8_t> bytes(elements / t.blockSize * t.typeSize);
    std::mt19937 rng(4321 + type);
    for (uint8_t &b : bytes)
        b = static_cast<uint8_t>(rng());
    const auto r = [&] { return static_cast<uint32_t>(rng()); };
    for (uint64_t i = 0; i < elements / t.blockSize; ++i) {
        const size_t at = i * t.typeSize;
        switch (type) {
        case 0: { // sign, exponent about 2^-10 … 2^-3 (and some zeros), random mantissa
            const uint32_t bits = i % 97 == 0 ? 0u : (r() & 0x807fffffu) | (117u + r() % 8) << 23;
            std::memcpy(bytes.data() + at, &bits, 4);
            break;
        }
        case 1: putHalf(bytes, at, i % 97 == 0 ? 0 : half(r() % 2, 5 + r() % 8, r())); break;
        case 30:
            putHalf(bytes, at, i % 97 == 0 ? 0 : static_cast<uint16_t>((r() & 0x807f) | (117u + r() % 8) << 7));
            break;
        case 8: putHalf(bytes, at, i % 50 == 0 ? 0 : half(r() % 2, 8 + r() % 3, r())); break;
        case 12: // d and dmin, some blocks with them far apart (the decoder rounds: the float path)
            putHalf(bytes, at, half(r() % 2, 8 + r() % 3, r()));
            putHalf(bytes, at + 2, i % 7 == 3 ? half(0, 24, r()) : half(0, 8 + r() % 3, r()));
            break;
        default: putHalf(bytes, at + 208, half(r() % 2, 8 + r() % 3, r())); break; // Q6_K's d
        }
    }
    TensorData data;
    data.typeId = type;
    data.bytes = bytes;
    data.elements = elements;
    StatsOptions opt;
    opt.threads = 2;
    if (sampled)
        opt.exactKeyElements = 4096;
    const int ceiling = detail::simdCeiling();
    std::vector<TensorStatistics> results;
    for (int level = 2; level >= 0; --level) {
        detail::setSimdCeiling(level);
        results.emplace_back();
        QCOMPARE(computeStatistics(data, opt, results.back()), StatsStatus::Ok);
    }
    detail::setSimdCeiling(ceiling);
    const auto bits = [](double x) { return std::bit_cast<uint64_t>(x); };
    const TensorStatistics &best = results[0];
    QCOMPARE(best.keySampleStride, sampled ? 32u : 1u);
    QVERIFY(best.zeros > 0);
    for (size_t i = 1; i < results.size(); ++i) {
        const TensorStatistics &s = results[i];
        QCOMPARE(s.finite, best.finite);
        QCOMPARE(s.zeros, best.zeros);
        QCOMPARE(bits(s.min), bits(best.min));
        QCOMPARE(bits(s.max), bits(best.max));
        QCOMPARE(bits(s.mean), bits(best.mean));
        QCOMPARE(bits(s.std), bits(best.std));
        QCOMPARE(s.keysCounted, best.keysCounted);
        for (size_t q = 0; q < s.percentiles.size(); ++q)
            QCOMPARE(bits(s.percentiles[q]), bits(best.percentiles[q]));
        QCOMPARE(s.histogram.counts, best.histogram.counts);
    }
}

void TestTensorStats::largeMeanSmallSpreadStaysAccurate_data()
{
    QTest::addColumn<double>("center");
    QTest::addColumn<double>("spread");
    QTest::addColumn<bool>("sampled");
    // a mean 0, 10 and 10^6 standard deviations from zero, and spread-free runs
    for (const bool sampled : {false, true}) {
        QTest::addRow("around 0%s", sampled ? ", in place" : "") << 0.0 << 1.0 << sampled;
        QTest::addRow("around 10 sigma%s", sampled ? ", in place" : "") << 10.0 << 1.0 << sampled;
        QTest::addRow("around 1e6 sigma%s", sampled ? ", in place" : "") << 1000.0 << 0.001 << sampled;
    }
}

// Mean and std against a long double two-pass computation: Σx² − (Σx)²/n alone would cancel when
// the mean is far from 0 against the spread, so such pieces are summed around a value of theirs.
void TestTensorStats::largeMeanSmallSpreadStaysAccurate()
{
    QFETCH(double, center);
    QFETCH(double, spread);
    QFETCH(bool, sampled);
    std::mt19937 rng(99);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<float> v(3 * 16384 + 555);
    for (float &x : v)
        x = static_cast<float>(center + spread * normal(rng));
    const auto bytes = asBytes(v);
    StatsOptions opt;
    if (sampled)
        opt.exactKeyElements = 4096; // F32 in place
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), opt, s), StatsStatus::Ok);
    long double sum = 0;
    for (const float x : v)
        sum += x;
    const long double mean = sum / static_cast<long double>(v.size());
    long double m2 = 0;
    for (const float x : v)
        m2 += (x - mean) * (x - mean);
    const double std = static_cast<double>(std::sqrt(m2 / static_cast<long double>(v.size())));
    QVERIFY2(std::fabs(s.mean - static_cast<double>(mean)) <=
                 1e-12 * std::max(std::fabs(static_cast<double>(mean)), std),
             qPrintable(QString("mean %1 vs %2").arg(s.mean, 0, 'g', 17).arg(static_cast<double>(mean), 0, 'g', 17)));
    QVERIFY2(std::fabs(s.std - std) <= 1e-10 * std,
             qPrintable(QString("std %1 vs %2").arg(s.std, 0, 'g', 17).arg(std, 0, 'g', 17)));
}

void TestTensorStats::cancelStopsTheJob()
{
    std::vector<float> v(1 << 16, 1.0f);
    const auto bytes = asBytes(v);
    StatsOptions opt;
    opt.chunkElements = 256;
    opt.threads = 1;
    uint64_t calls = 0;
    opt.progress = [&](uint64_t, uint64_t) { return ++calls < 3; };
    TensorStatistics s;
    QCOMPARE(computeStatistics(f32Data(bytes), opt, s), StatsStatus::Cancelled);
    QCOMPARE(calls, uint64_t(3)); // no chunk starts after the callback said stop
}

void TestTensorStats::quantizedTensorMatchesReferenceValues()
{
    const QString dir = QStringLiteral(GGUF_TEST_DATA_DIR "/ggml-reference/");
    const OpenResult r = GgufFile::open((dir + "q4_K.gguf").toStdString());
    QVERIFY(r.file);
    QFile ref(dir + "q4_K.f32");
    QVERIFY(ref.open(QIODevice::ReadOnly));
    const QByteArray raw = ref.readAll();
    std::vector<float> values(static_cast<size_t>(raw.size()) / 4);
    std::memcpy(values.data(), raw.constData(), values.size() * 4);
    const TensorInfo &t = r.file->tensors()[0];
    TensorStatistics s;
    StatsOptions opt;
    opt.chunkElements = 512;
    QCOMPARE(computeStatistics(tensorData(*r.file, t), opt, s), StatsStatus::Ok);
    QCOMPARE(s.count, uint64_t(values.size()));
    QCOMPARE(s.min, static_cast<double>(*std::min_element(values.begin(), values.end())));
    QCOMPARE(s.max, static_cast<double>(*std::max_element(values.begin(), values.end())));
    double sum = 0;
    for (float x : values)
        sum += x;
    QVERIFY(std::fabs(s.mean - sum / static_cast<double>(values.size())) < 1e-9);
    QCOMPARE(s.zeros, uint64_t(std::count(values.begin(), values.end(), 0.0f)));
}

void TestTensorStats::unsupportedTypeIsRefused()
{
    std::vector<uint8_t> bytes(64);
    TensorData d;
    d.typeId = 4; // Q4_2, removed
    d.bytes = bytes;
    d.elements = 32;
    TensorStatistics s;
    QCOMPARE(computeStatistics(d, {}, s), StatsStatus::Unsupported);
    Heatmap h;
    QCOMPARE(computeHeatmap(d, 32, {}, h), StatsStatus::Unsupported);
}

void TestTensorStats::heatmapTiles()
{
    // 100 rows × 60 columns, value = row − column
    const uint64_t rows = 100, cols = 60;
    std::vector<float> v(rows * cols);
    for (uint64_t y = 0; y < rows; ++y)
        for (uint64_t x = 0; x < cols; ++x)
            v[y * cols + x] = static_cast<float>(y) - static_cast<float>(x);
    const auto bytes = asBytes(v);
    HeatmapOptions opt;
    opt.rows = 10;
    opt.cols = 6;
    Heatmap h;
    QCOMPARE(computeHeatmap(f32Data(bytes), cols, opt, h), StatsStatus::Ok);
    QCOMPARE(h.gridRows, 10u);
    QCOMPARE(h.gridCols, 6u);
    for (uint32_t r = 0; r < h.gridRows; ++r)
        for (uint32_t c = 0; c < h.gridCols; ++c) {
            double sum = 0, sumAbs = 0, sumSq = 0, maxAbs = 0;
            uint64_t n = 0;
            for (uint64_t y = h.rowStart(r); y < h.rowStart(r + 1); ++y)
                for (uint64_t x = h.colStart(c); x < h.colStart(c + 1); ++x) {
                    const double val = v[y * cols + x];
                    sum += val;
                    sumAbs += std::fabs(val);
                    sumSq += val * val;
                    maxAbs = std::max(maxAbs, std::fabs(val));
                    ++n;
                }
            const size_t i = size_t(r) * h.gridCols + c;
            const double mean = sum / static_cast<double>(n);
            QCOMPARE(h.mean[i], static_cast<float>(mean));
            QCOMPARE(h.meanAbs[i], static_cast<float>(sumAbs / static_cast<double>(n)));
            QCOMPARE(h.maxAbs[i], static_cast<float>(maxAbs));
            QVERIFY(std::fabs(h.std[i] - std::sqrt(sumSq / static_cast<double>(n) - mean * mean)) < 1e-4);
        }
    // a grid larger than the tensor is clipped to it
    opt.rows = 1000;
    opt.cols = 1000;
    QCOMPARE(computeHeatmap(f32Data(bytes), cols, opt, h), StatsStatus::Ok);
    QCOMPARE(h.gridRows, 100u);
    QCOMPARE(h.gridCols, 60u);
}

QTEST_GUILESS_MAIN(TestTensorStats)
#include "tst_tensor_stats.moc"
