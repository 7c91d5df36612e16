// SPDX-License-Identifier: GPL-3.0-or-later
// ComposedValues (#43): a tensor made of source rows, regrouped and shifted, as the checkpoint side
// of `diff MODEL.gguf CHECKPOINT` reads it. Expected values are built in the test from the
// converter's own description of the regrouping (reshape(heads, 2, D/2, cols).swapaxes(1, 2)).
#include "core/compare/composed_values.h"

#include <QTest>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <vector>

namespace {

gguf::TensorData f32Data(const std::vector<float> &values)
{
    gguf::TensorData d;
    d.typeId = 0; // F32
    d.bytes = std::span(reinterpret_cast<const uint8_t *>(values.data()), values.size() * sizeof(float));
    d.elements = values.size();
    return d;
}

// The converter's regrouping of `rows` rows over `heads` heads, as an index map: out row → in row.
// out[h][i][j] = in[h][j][i] for a view of the rows as [heads, 2, D/2], out viewed as [heads, D/2, 2].
std::vector<uint64_t> swapaxesMap(uint64_t rows, uint64_t heads)
{
    const uint64_t d = rows / heads, half = d / 2;
    std::vector<uint64_t> out(rows);
    for (uint64_t h = 0; h < heads; ++h)
        for (uint64_t j = 0; j < 2; ++j)
            for (uint64_t i = 0; i < half; ++i)
                out[h * d + i * 2 + j] = h * d + j * half + i;
    return out;
}

} // namespace

class TestComposedValues : public QObject {
    Q_OBJECT

private slots:
    void ropeRowsAreTheConvertersRegrouping()
    {
        for (const auto &[rows, heads] :
             {std::pair{8u, 1u}, std::pair{32u, 4u}, std::pair{64u, 2u}, std::pair{4096u, 32u}}) {
            const std::vector<uint64_t> expected = swapaxesMap(rows, heads);
            for (uint64_t r = 0; r < rows; ++r)
                QCOMPARE(gguf::ropeSourceRow(r, rows, heads), expected[r]);
        }
    }

    // Two pieces (rows 1–2 of a 4×3 source regrouped over one head, then all of a second source),
    // shifted by 1, decoded from every start and length.
    void decodeEveryRange()
    {
        std::vector<float> a(12), b(6);
        std::iota(a.begin(), a.end(), 0.0f);
        std::iota(b.begin(), b.end(), 100.0f);
        gguf::ComposedValues c;
        c.cols = 3;
        c.shift = 1.0f;
        c.pieces.push_back({f32Data(a), 0, 4, 1}); // 4 rows, one head: order 0, 2, 1, 3
        c.pieces.push_back({f32Data(b), 0, 2, 0});
        std::vector<float> expected;
        for (uint64_t r : swapaxesMap(4, 1))
            for (uint64_t col = 0; col < 3; ++col)
                expected.push_back(a[r * 3 + col] + 1.0f);
        for (float v : b)
            expected.push_back(v + 1.0f);
        QCOMPARE(c.elements(), uint64_t(expected.size()));
        for (size_t at = 0; at < expected.size(); ++at)
            for (size_t n = 1; at + n <= expected.size(); ++n) {
                std::vector<float> out(n, -1.0f);
                QVERIFY(c.decode(at, out));
                QVERIFY(std::equal(out.begin(), out.end(), expected.begin() + static_cast<std::ptrdiff_t>(at)));
            }
        std::vector<float> past(2);
        QVERIFY(!c.decode(expected.size() - 1, past)); // past the end
    }

    // A piece of a stacked tensor's rows (firstRow) reads those rows only.
    void firstRowOffsets()
    {
        std::vector<float> src(4 * 2);
        std::iota(src.begin(), src.end(), 0.0f);
        gguf::ComposedValues c;
        c.cols = 2;
        c.pieces.push_back({f32Data(src), 3, 1, 0});
        c.pieces.push_back({f32Data(src), 1, 1, 0});
        std::vector<float> out(4);
        QVERIFY(c.decode(0, out));
        QCOMPARE(out, (std::vector<float>{6, 7, 2, 3}));
    }

    // The ranges a chunk holds cover exactly the source rows its elements read: nothing read is
    // outside them (it would not be fetched for a remote file) and nothing else is held.
    void sourceRangesAreExact()
    {
        const uint64_t rows = 64, heads = 4, cols = 5;
        std::vector<float> src(rows * cols);
        gguf::ComposedValues c;
        c.cols = cols;
        c.pieces.push_back({f32Data(src), 0, rows, static_cast<uint32_t>(heads)});
        for (uint64_t at = 0; at < rows * cols; at += 7)
            for (uint64_t end = at + 1; end <= rows * cols; end += 13) {
                std::set<uint64_t> read; // source rows
                for (uint64_t e = at; e < end; ++e)
                    read.insert(gguf::ropeSourceRow(e / cols, rows, heads));
                std::set<uint64_t> held;
                for (const auto &[lo, hi] : c.sourceRanges(0, at, end)) {
                    QCOMPARE(lo % cols, uint64_t(0));
                    for (uint64_t r = lo / cols; r < hi / cols; ++r)
                        held.insert(r);
                }
                QCOMPARE(held, read);
            }
        QVERIFY(c.sourceRanges(0, rows * cols, rows * cols + 5).empty());
    }

    // Both sides composed: the sums are those of the values as decoded.
    void compareComposed()
    {
        std::vector<float> a(16), b(16);
        std::iota(a.begin(), a.end(), 0.0f);
        for (size_t i = 0; i < b.size(); ++i)
            b[i] = a[gguf::ropeSourceRow(i / 2, 8, 2) * 2 + i % 2] + 0.5f;
        gguf::ComposedValues original;
        original.cols = 2;
        original.shift = -0.5f;
        original.pieces.push_back({f32Data(b), 0, 8, 0});
        gguf::ComposedValues regrouped;
        regrouped.cols = 2;
        regrouped.pieces.push_back({f32Data(a), 0, 8, 2});
        gguf::ValueDiff v;
        QCOMPARE(gguf::compareValues(regrouped, original, {}, v), gguf::StatsStatus::Ok);
        QCOMPARE(v.elements, uint64_t(16));
        QCOMPARE(v.differing, uint64_t(0));
        gguf::ComposedValues plain = gguf::ComposedValues::of(f32Data(a));
        QCOMPARE(gguf::compareValues(plain, original, {}, v), gguf::StatsStatus::Ok);
        QVERIFY(v.differing > 0);
        gguf::ComposedValues shorter = original;
        shorter.pieces[0].rows = 7;
        QCOMPARE(gguf::compareValues(plain, shorter, {}, v), gguf::StatsStatus::NoData);
    }

    // The detail of a pair (#43: the checkpoint Compare panel): both sides' histograms over one
    // range, the histogram of a − b and its heatmap, on composed tensors (a regrouped over 2 heads
    // against b stacked from two sources and shifted). Expected counts are made here from the values
    // the test composes itself, binned by NumPy's rule (bin = floor((x − lo) / (hi − lo) · n), the
    // last bin closed).
    void pairDetailComposed()
    {
        constexpr uint64_t kRows = 8, kCols = 4;
        std::vector<float> a(kRows * kCols), b1(4 * kCols), b2(4 * kCols);
        for (size_t i = 0; i < a.size(); ++i)
            a[i] = static_cast<float>((i * 37) % 23) - 9.0f;
        for (size_t i = 0; i < b1.size(); ++i) {
            b1[i] = static_cast<float>((i * 11) % 7) - 2.0f;
            b2[i] = static_cast<float>((i * 5) % 9) - 6.0f;
        }
        gguf::ComposedValues ca;
        ca.cols = kCols;
        ca.pieces.push_back({f32Data(a), 0, kRows, 2});
        gguf::ComposedValues cb;
        cb.cols = kCols;
        cb.shift = 0.5f;
        cb.pieces.push_back({f32Data(b1), 0, 4, 0});
        cb.pieces.push_back({f32Data(b2), 0, 4, 0});
        // the composed values, by the converter's rule
        std::vector<float> va, vb;
        for (uint64_t r = 0; r < kRows; ++r)
            for (uint64_t c = 0; c < kCols; ++c)
                va.push_back(a[swapaxesMap(kRows, 2)[r] * kCols + c]);
        for (float v : b1)
            vb.push_back(v + 0.5f);
        for (float v : b2)
            vb.push_back(v + 0.5f);
        const auto bin = [](double x, double lo, double hi, uint32_t n) {
            const auto i = static_cast<uint32_t>((x - lo) / (hi - lo) * n);
            return std::min(i, n - 1);
        };
        constexpr uint32_t kBins = 7;
        gguf::Histogram ha, hb;
        QCOMPARE(gguf::commonRangeHistograms(ca, cb, kBins, {}, ha, hb), gguf::StatsStatus::Ok);
        const double lo = std::min(*std::min_element(va.begin(), va.end()), *std::min_element(vb.begin(), vb.end()));
        const double hi = std::max(*std::max_element(va.begin(), va.end()), *std::max_element(vb.begin(), vb.end()));
        QCOMPARE(ha.lo, lo);
        QCOMPARE(ha.hi, hi);
        std::vector<uint64_t> ea(kBins, 0), eb(kBins, 0), ed(kBins, 0);
        for (size_t i = 0; i < va.size(); ++i) {
            ++ea[bin(va[i], lo, hi, kBins)];
            ++eb[bin(vb[i], lo, hi, kBins)];
            ++ed[bin(double(va[i]) - double(vb[i]), -20.0, 20.0, kBins)];
        }
        QCOMPARE(ha.counts, ea);
        QCOMPARE(hb.counts, eb);
        gguf::Histogram hd;
        QCOMPARE(gguf::computeDiffHistogram(ca, cb, -20.0, 20.0, kBins, {}, hd), gguf::StatsStatus::Ok);
        QCOMPARE(hd.counts, ed);
        // one tile per value: each tile's max |a − b| is that pair's
        gguf::HeatmapOptions heat;
        heat.rows = kRows;
        heat.cols = kCols;
        gguf::Heatmap map;
        QCOMPARE(gguf::computeDiffHeatmap(ca, cb, kCols, heat, map), gguf::StatsStatus::Ok);
        QCOMPARE(map.gridRows, uint32_t(kRows));
        QCOMPARE(map.gridCols, uint32_t(kCols));
        for (uint64_t r = 0; r < kRows; ++r)
            for (uint64_t c = 0; c < kCols; ++c)
                QCOMPARE(map.maxAbs[r * kCols + c],
                         std::abs(static_cast<float>(double(va[r * kCols + c]) - vb[r * kCols + c])));
        // different element counts: nothing
        cb.pieces.pop_back();
        QCOMPARE(gguf::commonRangeHistograms(ca, cb, kBins, {}, ha, hb), gguf::StatsStatus::NoData);
        QCOMPARE(gguf::computeDiffHeatmap(ca, cb, kCols, heat, map), gguf::StatsStatus::NoData);
    }
};

QTEST_GUILESS_MAIN(TestComposedValues)
#include "tst_composed_values.moc"
