// SPDX-License-Identifier: GPL-3.0-or-later
// computeStatistics on F32 values and on a quantized reference tensor, and computeHeatmap.
#include "core/format/gguf_file.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QTest>

#include <algorithm>
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
    void automaticChunksHoldFourMebibytes();
    void percentilesWithinStatedBound();
    void sampledPercentilesWithinStatedBound_data();
    void sampledPercentilesWithinStatedBound();
    void percentileInTheZeroBucketIsZero();
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

// The default work unit: 4 MiB of data in whole pieces of 16,384 elements, fewer elements for at least four chunks
// per worker, but at least 2^20 elements; a chosen size stays.
void TestTensorStats::automaticChunksHoldFourMebibytes()
{
    TensorData data;
    data.elements = uint64_t(1) << 34; // large: 4 MiB chunks
    StatsOptions options;
    options.threads = 2;
    data.typeId = 12;                                                   // Q4_K: 144 bytes per 256
    QCOMPARE(statsChunkElements(data, options), uint64_t(455 * 16384)); // 29,127 blocks of 256 hold 455 pieces
    data.typeId = 8;                                                    // Q8_0: 34 bytes per 32
    QCOMPARE(statsChunkElements(data, options), uint64_t(240 * 16384)); // 123,361 blocks of 32 hold 240 pieces
    data.typeId = 1;                                                    // F16: 2 MiB elements
    QCOMPARE(statsChunkElements(data, options), uint64_t(2097152));
    data.typeId = 0; // F32: 4 MiB is 2^20 elements
    QCOMPARE(statsChunkElements(data, options), uint64_t(1) << 20);
    // a 4096 x 4096 Q4_K tensor on 2 workers: 8 chunks of 2^21; on 64 workers, chunks of 2^20 (the least)
    data.typeId = 12;
    data.elements = uint64_t(1) << 24;
    QCOMPARE(statsChunkElements(data, options), uint64_t(1) << 21);
    options.threads = 64;
    QCOMPARE(statsChunkElements(data, options), uint64_t(1) << 20);
    options.chunkElements = 5000;
    QCOMPARE(statsChunkElements(data, options), uint64_t(5000));
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
    const QString dir = gguf::test::dataPath(u"ggml-reference/");
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
