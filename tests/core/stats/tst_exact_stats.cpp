// SPDX-License-Identifier: GPL-3.0-or-later
// refineStatistics against plain computations in this test: the histogram of every value over
// [min, max] with bin floor((x - min) / (max - min) * bins), and the percentiles by NumPy's default
// definition from a full sort, for every type of tests/data/ggml-reference (whose values are ggml's
// own), for sampled first passes, chosen ranges, constant tensors, NaN/Inf and signed zeros.
#include "core/stats/tensor_stats.h"
#include "tests/support/ggml_reference.h"

#include <QTest>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

using namespace gguf;
using namespace gguf::test;

namespace {

TensorData f32Data(const std::vector<float> &values)
{
    TensorData d;
    d.typeId = 0;
    d.bytes = {reinterpret_cast<const uint8_t *>(values.data()), values.size() * sizeof(float)};
    d.elements = values.size();
    return d;
}

// np.percentile(a, level) for the default method: virtual index (n - 1) * level / 100 between the
// two closest ranks; numpy's _lerp goes from the upper neighbour when the fraction is ≥ 0.5
double numpyPercentile(const std::vector<double> &sorted, double level)
{
    const double h = static_cast<double>(sorted.size() - 1) * (level / 100.0);
    const auto i = static_cast<size_t>(std::floor(h));
    if (i + 1 >= sorted.size())
        return sorted[i];
    const double a = sorted[i], b = sorted[i + 1], t = h - std::floor(h);
    return t >= 0.5 ? b - (b - a) * (1.0 - t) : a + (b - a) * t;
}

// The expected statistics of `values`: finite ones sorted, histogram by the definition.
struct Expected {
    std::vector<double> sorted;
    std::vector<uint64_t> counts;
    double lo = 0, hi = 0;
};

Expected expectedOf(const std::vector<float> &values, uint32_t bins)
{
    Expected e;
    for (const float v : values)
        if (std::isfinite(v))
            e.sorted.push_back(v);
    std::sort(e.sorted.begin(), e.sorted.end());
    if (e.sorted.empty())
        return e;
    e.lo = e.sorted.front();
    e.hi = e.sorted.back();
    if (e.lo == e.hi) {
        e.lo -= 0.5;
        e.hi += 0.5;
    }
    e.counts.assign(bins, 0);
    for (const double x : e.sorted) {
        const double t = std::floor((x - e.lo) / (e.hi - e.lo) * bins);
        ++e.counts[static_cast<size_t>(std::min(t, static_cast<double>(bins - 1)))];
    }
    return e;
}

// Two passes as the CLI and the window run them; a small exactKeyElements forces the first pass to
// sample, so the refinement cannot lean on exact first-pass counts.
TensorStatistics refined(const TensorData &data, StatsOptions options)
{
    TensorStatistics s;
    if (computeStatistics(data, options, s) != StatsStatus::Ok || refineStatistics(data, options, s) != StatsStatus::Ok)
        return {};
    return s;
}

void checkAgainst(const TensorStatistics &s, const Expected &e, bool checkHistogram)
{
    QVERIFY(s.percentilesExact);
    QCOMPARE(s.finite, static_cast<uint64_t>(e.sorted.size()));
    for (size_t i = 0; i < kPercentileLevels.size(); ++i) {
        const double want = numpyPercentile(e.sorted, kPercentileLevels[i]);
        if (s.percentiles[i] != want)
            QFAIL(qPrintable(QStringLiteral("p%1: got %2, want %3")
                                 .arg(kPercentileLevels[i])
                                 .arg(s.percentiles[i], 0, 'g', 17)
                                 .arg(want, 0, 'g', 17)));
        QCOMPARE(s.percentileError[i], 0.0);
    }
    if (!checkHistogram)
        return;
    QVERIFY(s.histogram.exact);
    QCOMPARE(s.histogram.lo, e.lo);
    QCOMPARE(s.histogram.hi, e.hi);
    QCOMPARE(s.histogram.counts, e.counts);
}

} // namespace

class TestExactStats : public QObject {
    Q_OBJECT

private slots:
    void everyReferenceType_data();
    void everyReferenceType();
    void sampledFirstPass();
    void chosenRange();
    void constantTensor();
    void nonFiniteAndSignedZeros();
    void tiesAcrossRanks();
    void valuesAtBinEdges_data();
    void valuesAtBinEdges();
    void everyHalfPattern_data();
    void everyHalfPattern();
};

void TestExactStats::everyReferenceType_data()
{
    QTest::addColumn<int>("index");
    const std::vector<ReferenceTensor> tensors = ggmlReferenceTensors();
    QVERIFY(tensors.size() >= 30);
    for (size_t i = 0; i < tensors.size(); ++i)
        QTest::newRow(qPrintable(tensors[i].typeName)) << static_cast<int>(i);
}

void TestExactStats::everyReferenceType()
{
    // the tensor decoded by our decoder, the expectation computed from ggml's own values
    QFETCH(int, index);
    const ReferenceTensor r = ggmlReferenceTensors().at(static_cast<size_t>(index));
    const QByteArray file = readWholeFile(kGgmlReferenceDir + r.file + QStringLiteral(".gguf"));
    QVERIFY(file.size() >= r.dataOffset + r.dataBytes);
    const std::vector<float> values = ggmlReferenceValues(r);
    QCOMPARE(values.size(), static_cast<size_t>(r.elements));
    TensorData data;
    data.typeId = r.typeId;
    data.bytes = bytesOf(file, r.dataOffset, r.dataBytes);
    data.elements = static_cast<uint64_t>(r.elements);
    for (const uint32_t bins : {1u, 7u, 64u, 1000u}) {
        StatsOptions options;
        options.bins = bins;
        checkAgainst(refined(data, options), expectedOf(values, bins), true);
    }
}

void TestExactStats::sampledFirstPass()
{
    // 300,000 values with many ties, some far out; the first pass samples one key in 32
    std::vector<float> values(300000);
    uint32_t state = 12345;
    for (float &v : values) {
        state = state * 1664525u + 1013904223u;
        v = static_cast<float>(static_cast<int>(state >> 20) - 2048) / 256.0f;
        if ((state & 0xff) == 7)
            v *= 1e6f;
    }
    StatsOptions options;
    options.bins = 97;
    options.exactKeyElements = 10000;
    options.chunkElements = 1 << 16;
    TensorStatistics first;
    QCOMPARE(computeStatistics(f32Data(values), options, first), StatsStatus::Ok);
    QVERIFY(first.keySampleStride > 1);
    QVERIFY(!first.percentilesExact);
    const TensorStatistics s = refined(f32Data(values), options);
    checkAgainst(s, expectedOf(values, 97), true);
    // one thread gives the same
    options.threads = 1;
    const TensorStatistics single = refined(f32Data(values), options);
    QCOMPARE(single.percentiles, s.percentiles);
    QCOMPARE(single.histogram.counts, s.histogram.counts);
}

void TestExactStats::chosenRange()
{
    // with a chosen range the first pass's histogram is already exact, by the same definition;
    // the refinement leaves it and makes the percentiles exact
    std::vector<float> values;
    for (int i = -500; i <= 1500; ++i)
        values.push_back(static_cast<float>(i) * 0.01f);
    StatsOptions options;
    options.bins = 10;
    options.range = std::pair{-2.0, 8.0};
    const TensorStatistics s = refined(f32Data(values), options);
    const Expected e = expectedOf(values, 10);
    checkAgainst(s, e, false);
    std::vector<uint64_t> counts(10, 0);
    uint64_t below = 0, above = 0;
    for (const float v : values) {
        if (v < -2.0f)
            ++below;
        else if (v > 8.0f)
            ++above;
        else
            ++counts[static_cast<size_t>(std::min(std::floor((v + 2.0) / 10.0 * 10), 9.0))];
    }
    QCOMPARE(s.histogram.counts, counts);
    QCOMPARE(s.histogram.below, below);
    QCOMPARE(s.histogram.above, above);
    QCOMPARE(s.histogram.lo, -2.0);
    QCOMPARE(s.histogram.hi, 8.0);
}

void TestExactStats::constantTensor()
{
    // NumPy bins a constant over [v - 0.5, v + 0.5]: every value in the middle bin
    const std::vector<float> values(1000, 0.25f);
    StatsOptions options;
    options.bins = 5;
    const TensorStatistics s = refined(f32Data(values), options);
    checkAgainst(s, expectedOf(values, 5), true);
    QCOMPARE(s.histogram.counts, (std::vector<uint64_t>{0, 0, 1000, 0, 0}));
    for (const double p : s.percentiles)
        QCOMPARE(p, 0.25);
}

void TestExactStats::nonFiniteAndSignedZeros()
{
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> values = {nan, -0.0f, 0.0f, -inf, 3.0f, -0.0f, inf, -7.5f, 0.0f, nan, 1e-40f, -1e-40f, 2.0f};
    for (int i = 0; i < 50; ++i)
        values.push_back(static_cast<float>(i % 7) - 3.0f);
    StatsOptions options;
    options.bins = 8;
    const TensorStatistics s = refined(f32Data(values), options);
    checkAgainst(s, expectedOf(values, 8), true);
    QCOMPARE(s.nan, 2u);
    QCOMPARE(s.posInf, 1u);
    QCOMPARE(s.negInf, 1u);

    // nothing finite: no percentiles to find, nothing to bin
    const std::vector<float> none = {nan, inf, -inf};
    TensorStatistics empty;
    QCOMPARE(computeStatistics(f32Data(none), {}, empty), StatsStatus::Ok);
    QCOMPARE(refineStatistics(f32Data(none), {}, empty), StatsStatus::Ok);
    QCOMPARE(empty.finite, 0u);
}

void TestExactStats::tiesAcrossRanks()
{
    // two values only: every percentile interpolates between equal neighbours or across the gap
    std::vector<float> values(999, -1.0f);
    values.insert(values.end(), 1, 4.0f);
    const TensorStatistics s = refined(f32Data(values), {});
    checkAgainst(s, expectedOf(values, 64), true);
    QCOMPARE(s.percentiles.back(), -1.0);

    // where a + (b - a) * t and b - (b - a) * (1 - t) round differently, NumPy takes the second for
    // t ≥ 0.5: p95 of these two values is 4.76678659915924, not 4.766786599159241
    const std::vector<float> pair = {-4.8986197f, 5.275492f};
    const TensorStatistics p = refined(f32Data(pair), {});
    checkAgainst(p, expectedOf(pair, 64), true);
    QCOMPARE(p.percentiles[5], 4.76678659915924);
}

void TestExactStats::valuesAtBinEdges_data()
{
    QTest::addColumn<uint32_t>("bins");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    for (const uint32_t bins : {7u, 256u, 1000u, 65536u}) {
        QTest::addRow("%u bins, [-1, 3]", bins) << bins << -1.0 << 3.0;
        QTest::addRow("%u bins, [-0.0123, 0.0456]", bins) << bins << -0.0123 << 0.0456;
        QTest::addRow("%u bins, [1000.5, 1001.75]", bins) << bins << 1000.5 << 1001.75;
    }
}

// The float that is each bin edge of [lo, hi] (by double arithmetic, rounded to float; both zeros
// where an edge is 0), the three floats either side, amid random ones: the values whose bin the
// refinement must not get wrong by rounding. Expected counts from the definition in double.
void TestExactStats::valuesAtBinEdges()
{
    QFETCH(uint32_t, bins);
    QFETCH(double, lo);
    QFETCH(double, hi);
    const auto low = static_cast<float>(lo), high = static_cast<float>(hi);
    std::vector<float> values{low, high};
    uint32_t state = 12345;
    const auto next = [&state] {
        state = state * 1664525u + 1013904223u;
        return static_cast<double>(state >> 8) / 16777216.0;
    };
    const uint32_t step = std::max(1u, bins / 512);
    for (uint32_t j = 1; j < bins; j += step) {
        const auto edge = static_cast<float>(low + (static_cast<double>(high) - low) * j / bins);
        float below = edge, above = edge;
        for (int k = 0; k < 3; ++k) {
            below = std::nextafter(below, -std::numeric_limits<float>::infinity());
            above = std::nextafter(above, std::numeric_limits<float>::infinity());
            values.push_back(std::clamp(below, low, high));
            values.push_back(std::clamp(above, low, high));
        }
        values.push_back(edge);
        if (edge == 0.0f) // an edge at zero: the other zero too
            values.push_back(-0.0f);
    }
    while (values.size() % 16 != 5)
        values.push_back(static_cast<float>(low + (static_cast<double>(high) - low) * next()));
    for (int i = 0; i < 4000; ++i)
        values.push_back(static_cast<float>(low + (static_cast<double>(high) - low) * next()));
    StatsOptions options;
    options.bins = bins;
    checkAgainst(refined(f32Data(values), options), expectedOf(values, bins), true);
}

void TestExactStats::everyHalfPattern_data()
{
    QTest::addColumn<bool>("brain");
    QTest::addColumn<bool>("bigEndian");
    QTest::newRow("F16") << false << false;
    QTest::newRow("F16 big-endian") << false << true;
    QTest::newRow("BF16") << true << false;
    QTest::newRow("BF16 big-endian") << true << true;
}

// F16 and BF16 are counted by bit pattern, without decoding: every one of the 65,536 patterns
// (NaNs, infinities, signed zeros and subnormals among them), some repeated, each value converted
// here by its definition.
void TestExactStats::everyHalfPattern()
{
    QFETCH(bool, brain);
    QFETCH(bool, bigEndian);
    const auto valueOf = [brain](uint32_t p) {
        if (brain)
            return std::bit_cast<float>(p << 16);
        const int exponent = static_cast<int>((p >> 10) & 31);
        const auto mantissa = static_cast<double>(p & 1023);
        const double sign = (p & 0x8000) ? -1.0 : 1.0;
        if (exponent == 31)
            return static_cast<float>(mantissa == 0 ? sign * std::numeric_limits<double>::infinity()
                                                    : std::numeric_limits<double>::quiet_NaN());
        return static_cast<float>(
            sign * (exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024.0 + mantissa, exponent - 25)));
    };
    std::vector<uint8_t> bytes;
    std::vector<float> values;
    for (uint32_t round = 0; round < 3; ++round)
        for (uint32_t p = 0; p < 0x10000; ++p) {
            if (round > 0 && (p * 2654435761u >> (29 + round)) != 0)
                continue; // a few patterns again, more of the first ones in the third round
            const auto hi = static_cast<uint8_t>(p >> 8), lo = static_cast<uint8_t>(p);
            bytes.push_back(bigEndian ? hi : lo);
            bytes.push_back(bigEndian ? lo : hi);
            values.push_back(valueOf(p));
        }
    TensorData data;
    data.typeId = brain ? 30 : 1;
    data.bytes = bytes;
    data.elements = values.size();
    data.swapBytes = bigEndian;
    for (const uint32_t bins : {64u, 1000u}) {
        StatsOptions options;
        options.bins = bins;
        options.exactKeyElements = 4096;
        options.chunkElements = 16384;
        const TensorStatistics s = refined(data, options);
        checkAgainst(s, expectedOf(values, bins), true);
        QCOMPARE(s.nan, static_cast<uint64_t>(
                            std::count_if(values.begin(), values.end(), [](float v) { return std::isnan(v); })));
        QCOMPARE(s.posInf, static_cast<uint64_t>(
                               std::count(values.begin(), values.end(), std::numeric_limits<float>::infinity())));
    }
}

QTEST_GUILESS_MAIN(TestExactStats)
#include "tst_exact_stats.moc"
