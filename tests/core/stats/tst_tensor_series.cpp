// SPDX-License-Identifier: GPL-3.0-or-later
// The core's passes over several tensors (core/stats/tensor_series.h): histograms over one common
// range and statistics per tensor, checked against plain loops over the values the test wrote.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/stats/tensor_series.h"
#include "tests/support/gguf_builder.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

using namespace gguf;
using gguf::test::GgufBuilder;

namespace {

std::vector<uint8_t> f32Bytes(const std::vector<float> &values)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// Counts of `values` in `bins` equal bins over [lo, hi] (the last one closed), by the definition.
std::vector<uint64_t> plainCounts(const std::vector<float> &values, double lo, double hi, uint32_t bins)
{
    std::vector<uint64_t> counts(bins, 0);
    for (const float v : values) {
        if (v < lo || v > hi)
            continue;
        auto bin = static_cast<size_t>(std::floor((v - lo) / (hi - lo) * bins));
        counts[std::min<size_t>(bin, bins - 1)]++;
    }
    return counts;
}

struct TwoTensors {
    std::shared_ptr<const GgufFile> file;
    std::vector<float> a, b;

    std::vector<TensorSource> sources() const
    {
        return {TensorSource{file.get(), &file->tensors()[0]}, TensorSource{file.get(), &file->tensors()[1]}};
    }
};

// "a": 64 values from -1 in steps of 1/32; "b": 64 values from 0 to 3 (both exact in binary).
TwoTensors twoTensors()
{
    TwoTensors t;
    for (int i = 0; i < 64; ++i) {
        t.a.push_back(static_cast<float>(i) / 32.0f - 1.0f);
        t.b.push_back(static_cast<float>(i) * 3.0f / 63.0f);
    }
    OpenResult r = GgufFile::openBuffer(
        GgufBuilder().tensor("a", {64}, 0, f32Bytes(t.a)).tensor("b", {64}, 0, f32Bytes(t.b)).build().bytes());
    t.file = r.file;
    return t;
}

} // namespace

class TestTensorSeries : public QObject {
    Q_OBJECT

private slots:
    void commonRangeIsTheUnionOfBoth()
    {
        const TwoTensors t = twoTensors();
        QVERIFY(t.file);
        const std::vector<TensorSource> sources = t.sources();
        const CommonRangeHistograms h = commonRangeHistograms(sources, 16, {}, {});
        QVERIFY(h.complete);
        QCOMPARE(h.lo, -1.0);
        QCOMPARE(h.hi, 3.0);
        QCOMPARE(h.series.size(), size_t(2));
        QCOMPARE(h.series[0].status, StatsStatus::Ok);
        QCOMPARE(h.series[0].finite, uint64_t(64));
        QCOMPARE(h.series[0].histogram.counts, plainCounts(t.a, -1.0, 3.0, 16));
        QCOMPARE(h.series[1].histogram.counts, plainCounts(t.b, -1.0, 3.0, 16));
    }

    void customRangeCountsWhatFallsOutside()
    {
        const TwoTensors t = twoTensors();
        RangeChoice choice;
        choice.mode = RangeMode::Custom;
        choice.lo = 0.5; // given in either order
        choice.hi = -0.5;
        const std::vector<TensorSource> sources = t.sources();
        const CommonRangeHistograms h = commonRangeHistograms(sources, 8, choice, {});
        QVERIFY(h.complete);
        QCOMPARE(h.lo, -0.5);
        QCOMPARE(h.hi, 0.5);
        const auto outside = [](const std::vector<float> &v, bool below) {
            return static_cast<uint64_t>(
                std::count_if(v.begin(), v.end(), [below](float x) { return below ? x < -0.5f : x > 0.5f; }));
        };
        QCOMPARE(h.series[0].histogram.counts, plainCounts(t.a, -0.5, 0.5, 8));
        QCOMPARE(h.series[0].histogram.below, outside(t.a, true));
        QCOMPARE(h.series[0].histogram.above, outside(t.a, false));
        QCOMPARE(h.series[1].histogram.counts, plainCounts(t.b, -0.5, 0.5, 8));
        QCOMPARE(h.series[1].histogram.above, outside(t.b, false));
    }

    void constantTensorsGetARangeAroundTheirValue()
    {
        const std::vector<float> v(32, 2.0f);
        OpenResult r = GgufFile::openBuffer(GgufBuilder().tensor("c", {32}, 0, f32Bytes(v)).build().bytes());
        QVERIFY(r.file);
        const TensorSource only[] = {{r.file.get(), &r.file->tensors()[0]}};
        const CommonRangeHistograms h = commonRangeHistograms(only, 5, {}, {});
        QCOMPARE(h.lo, 1.5);
        QCOMPARE(h.hi, 2.5);
        QCOMPARE(h.series[0].histogram.counts, (std::vector<uint64_t>{0, 0, 32, 0, 0}));
    }

    void cancelledPassIsIncomplete()
    {
        const TwoTensors t = twoTensors();
        const std::vector<TensorSource> sources = t.sources();
        const CommonRangeHistograms h =
            commonRangeHistograms(sources, 16, {}, [](uint64_t, uint64_t) { return false; });
        QVERIFY(!h.complete);
        const SeriesStatistics s = seriesStatistics(sources, [](uint64_t, uint64_t) { return false; });
        QVERIFY(!s.complete);
    }

    void seriesStatisticsArePerTensor()
    {
        const TwoTensors t = twoTensors();
        const std::vector<TensorSource> sources = t.sources();
        const SeriesStatistics s = seriesStatistics(sources, {});
        QVERIFY(s.complete);
        QCOMPARE(s.points.size(), size_t(2));
        const std::vector<float> *values[] = {&t.a, &t.b};
        for (size_t i = 0; i < 2; ++i) {
            const std::vector<float> &v = *values[i];
            QCOMPARE(s.points[i].status, StatsStatus::Ok);
            QCOMPARE(s.points[i].stats.min, double(*std::min_element(v.begin(), v.end())));
            QCOMPARE(s.points[i].stats.max, double(*std::max_element(v.begin(), v.end())));
            const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
            QVERIFY(std::abs(s.points[i].stats.mean - mean) < 1e-12);
        }
    }

    void missingTensorIsNoData()
    {
        const StatisticsResult r = statisticsOf(TensorSource{}, 8, std::nullopt, {});
        QCOMPARE(r.status, StatsStatus::NoData);
    }

    // The central 99.9 % of a million values and 50 far outliers: found by passes of plain binning
    // here, it holds the central share (at most 500 values cut on each side, counted here) and is
    // barely wider than the exact one (from the sorted values).
    void centralRangeLeavesTheOutliersOut()
    {
        std::vector<double> values;
        uint64_t state = 12345;
        for (int i = 0; i < 1000000; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            values.push_back(double(state >> 11) / double(uint64_t(1) << 53) * 2.0 - 1.0); // [-1, 1)
        }
        for (int i = 0; i < 50; ++i)
            values.push_back(i % 2 ? 1000.0 + i : -1000.0 - i);
        const uint64_t n = values.size();
        const uint64_t tail = static_cast<uint64_t>(std::floor(0.0005 * double(n)));
        const auto [min, max] = std::minmax_element(values.begin(), values.end());
        int passes = 0;
        const gguf::HistogramPass pass = [&](double lo, double hi) {
            ++passes;
            gguf::Histogram h;
            h.lo = lo;
            h.hi = hi;
            h.counts.assign(256, 0);
            for (double v : values) {
                if (v < lo)
                    ++h.below;
                else if (v > hi)
                    ++h.above;
                else
                    ++h.counts[gguf::histogramBin(v, lo, hi, 256)];
            }
            return std::optional(h);
        };
        const auto range = gguf::centralRange(*min, *max, n, 0.999, 256, pass);
        QVERIFY(range);
        const double lo = range->first, hi = range->second;
        QVERIFY(uint64_t(std::count_if(values.begin(), values.end(), [&](double v) { return v < lo; })) <= tail);
        QVERIFY(uint64_t(std::count_if(values.begin(), values.end(), [&](double v) { return v > hi; })) <= tail);
        std::vector<double> sorted = values;
        std::sort(sorted.begin(), sorted.end());
        const double exactWidth = sorted[n - 1 - tail] - sorted[tail];
        QVERIFY2(hi - lo <= exactWidth * 1.05, qPrintable(QStringLiteral("%1 – %2").arg(lo).arg(hi)));
        QVERIFY(passes >= 2 && passes <= 6);
        // nothing to cut: the whole range
        QCOMPARE(gguf::centralRange(2.0, 2.0, 10, 0.999, 256, pass), std::optional(std::pair{2.0, 2.0}));
        // a pass that did not finish
        QVERIFY(!gguf::centralRange(-1, 1, 10, 0.999, 256,
                                    [](double, double) { return std::optional<gguf::Histogram>(); }));
    }

    void progressPartMapsIntoTheWhole()
    {
        std::vector<std::pair<uint64_t, uint64_t>> seen;
        const ProgressFn outer = [&seen](uint64_t done, uint64_t total) {
            seen.emplace_back(done, total);
            return true;
        };
        const ProgressFn part = progressPart(outer, 100, 50, 400);
        QVERIFY(part(0, 10));
        QVERIFY(part(5, 10));
        QVERIFY(part(10, 10));
        QVERIFY(part(0, 0)); // a part with nothing to do is done
        QCOMPARE(seen, (std::vector<std::pair<uint64_t, uint64_t>>{{100, 400}, {125, 400}, {150, 400}, {150, 400}}));
        QVERIFY(!progressPart([](uint64_t, uint64_t) { return false; }, 0, 1, 1)(0, 1));
        QVERIFY(progressPart({}, 0, 1, 1)(0, 1));
    }
};

QTEST_GUILESS_MAIN(TestTensorSeries)
#include "tst_tensor_series.moc"
