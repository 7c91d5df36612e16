// SPDX-License-Identifier: GPL-3.0-or-later
// ΔW = scale · B·A of a LoRA pair (#18), as llama.cpp applies it (src/llama-graph.cpp:
// build_lora_mm, build_lora_mm_id, build_inp_embd; docs/KINDS.md). Pairs are built in
// convert_lora_to_gguf.py's layout (lora_a ne = [n_in, r], lora_b ne = [r, n_out]; the token
// embedding's lora_a ne = [r, n_vocab]); the expected ΔW is worked out by hand in the comments, and
// for the larger pair by the plain triple loop `naiveDelta`.
#include "core/format/gguf_file.h"
#include "core/kind/lora_delta.h"
#include "tests/support/kind_samples.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace gguf;
using namespace gguf::test;

namespace {

std::vector<float> rowOf(const LoraDelta &d, uint64_t row)
{
    std::vector<float> out(d.columns());
    d.row(row, out);
    return out;
}

// ΔW[i][j] = scale · Σ_k b[i·r + k] · a[k·n_in + j], written out plainly.
std::vector<double> naiveDelta(const std::vector<float> &a, const std::vector<float> &b, size_t nIn, size_t nOut,
                               size_t r, double scale)
{
    std::vector<double> w(nIn * nOut, 0.0);
    for (size_t i = 0; i < nOut; ++i)
        for (size_t j = 0; j < nIn; ++j) {
            double s = 0;
            for (size_t k = 0; k < r; ++k)
                s += double(b[i * r + k]) * a[k * nIn + j];
            w[i * nIn + j] = scale * s;
        }
    return w;
}

} // namespace

class TestLoraDelta : public QObject {
    Q_OBJECT
private slots:
    void pairAndScale()
    {
        const OpenedBuilt built = buildAndOpen(loraSample());
        QVERIFY(built.file);
        const auto byA = loraPairFor(*built.file, "blk.0.attn_q.weight.lora_a");
        const auto byB = loraPairFor(*built.file, "blk.0.attn_q.weight.lora_b");
        QVERIFY(byA && byB);
        QCOMPARE(byA->pair.base, std::string("blk.0.attn_q.weight"));
        QCOMPARE(byB->pair.a, byA->pair.a);
        QCOMPARE(byA->pair.rank, uint64_t(2));
        QCOMPARE(byA->scale, 2.0); // alpha 4 / rank 2
        QCOMPARE(byA->pair.layer, 0);
        QVERIFY(!loraPairFor(*built.file, "blk.0.attn_v.weight.lora_a")); // its lora_b is missing
        QVERIFY(!loraPairFor(*built.file, "blk.0.attn_q.weight"));
    }

    void denseDelta()
    {
        const OpenedBuilt built = buildAndOpen(loraSample());
        const auto p = loraPairFor(*built.file, "blk.0.attn_q.weight.lora_b");
        const LoraDelta d(*built.file, p->pair, p->scale);
        QVERIFY2(d.ok(), d.error().c_str());
        QCOMPARE(d.rows(), uint64_t(2));
        QCOMPARE(d.columns(), uint64_t(3));
        QCOMPARE(d.rank(), uint64_t(2));
        QCOMPARE(rowOf(d, 0), (std::vector<float>{2, 4, 0}));
        QCOMPARE(rowOf(d, 1), (std::vector<float>{6, -2, 14}));
        std::vector<float> part(2);
        d.rowPart(1, 1, part);
        QCOMPARE(part, (std::vector<float>{-2, 14}));

        LoraDeltaStats s;
        QCOMPARE(computeLoraDeltaStats(d, 8, {}, s), StatsStatus::Ok);
        QCOMPARE(s.count, uint64_t(6));
        QCOMPARE(s.min, -2.0);
        QCOMPARE(s.max, 14.0);
        QCOMPARE(s.mean, 4.0);       // (2 + 4 + 0 + 6 − 2 + 14) / 6
        QCOMPARE(s.frobenius, 16.0); // √(4 + 16 + 36 + 4 + 196)
        QCOMPARE(s.rowNorms.size(), size_t(2));
        QVERIFY(std::abs(s.rowNorms[0] - std::sqrt(20.0)) < 1e-12);
        QVERIFY(std::abs(s.rowNorms[1] - std::sqrt(236.0)) < 1e-12);
        QCOMPARE(s.columnNorms.size(), size_t(3));
        QVERIFY(std::abs(s.columnNorms[0] - std::sqrt(40.0)) < 1e-12);
        QVERIFY(std::abs(s.columnNorms[1] - std::sqrt(20.0)) < 1e-12);
        QCOMPARE(s.columnNorms[2], 14.0);
        // 8 bins of width 2 over [−2, 14]: −2, 0, 2, 4, 6 open bins 0–4, 14 closes the last
        QCOMPARE(s.histogram.lo, -2.0);
        QCOMPARE(s.histogram.hi, 14.0);
        QCOMPARE(s.histogram.counts, (std::vector<uint64_t>{1, 1, 1, 1, 1, 0, 0, 1}));

        // a region: row 1, columns 1–2
        Heatmap map;
        QCOMPARE(loraDeltaHeatmap(d, 1, 1, 1, 2, {}, map), StatsStatus::Ok);
        QCOMPARE(map.gridRows, 1u);
        QCOMPARE(map.gridCols, 2u);
        QCOMPARE(map.firstRow, uint64_t(1));
        QCOMPARE(map.rowStart(0), uint64_t(1));
        QCOMPARE(map.colStart(1), uint64_t(2));
        QCOMPARE(map.mean, (std::vector<float>{-2, 14}));
        // the whole ΔW, one tile per value
        QCOMPARE(loraDeltaHeatmap(d, 0, d.rows(), 0, d.columns(), {}, map), StatsStatus::Ok);
        QCOMPARE(map.mean, (std::vector<float>{2, 4, 0, 6, -2, 14}));

        // the user's adapter scale multiplies everything
        const LoraDelta half(*built.file, p->pair, p->scale * -0.5);
        QCOMPARE(rowOf(half, 1), (std::vector<float>{-3, 1, -7}));
    }

    void embeddingAndExperts()
    {
        const OpenedBuilt built = buildAndOpen(loraSample());
        // token t's row: ΔW[t][e] = scale · Σ_k a[t][k] · b[e][k], with a's rows (1 0), (0 1), (2 3)
        // and b's rows (1 1), (0 2); alpha 4, rank 2 → scale 2
        const auto e = loraPairFor(*built.file, "token_embd.weight.lora_a");
        QVERIFY(e);
        const LoraDelta emb(*built.file, e->pair, e->scale);
        QVERIFY2(emb.ok(), emb.error().c_str());
        QCOMPARE(emb.rows(), uint64_t(3));
        QCOMPARE(emb.columns(), uint64_t(2));
        QCOMPARE(rowOf(emb, 0), (std::vector<float>{2, 0}));   // 2 · (1, 0)
        QCOMPARE(rowOf(emb, 1), (std::vector<float>{2, 4}));   // 2 · (1, 2)
        QCOMPARE(rowOf(emb, 2), (std::vector<float>{10, 12})); // 2 · (2 + 3, 0 + 6)

        // experts: A_0 = (1 2), B_0 = (1, −1) → rows (1 2), (−1 −2); A_1 = (3 4), B_1 = (2, 0) →
        // rows (6 8), (0 0); rank 1 → scale 4
        const auto x = loraPairFor(*built.file, "blk.0.ffn_up_exps.weight.lora_a");
        QVERIFY(x);
        QCOMPARE(x->scale, 4.0);
        const LoraDelta moe(*built.file, x->pair, 1.0);
        QVERIFY2(moe.ok(), moe.error().c_str());
        QCOMPARE(moe.experts(), uint64_t(2));
        QCOMPARE(moe.rows(), uint64_t(4));
        QCOMPARE(rowOf(moe, 0), (std::vector<float>{1, 2}));
        QCOMPARE(rowOf(moe, 1), (std::vector<float>{-1, -2}));
        QCOMPARE(rowOf(moe, 2), (std::vector<float>{6, 8}));
        QCOMPARE(rowOf(moe, 3), (std::vector<float>{0, 0}));
    }

    void refusals()
    {
        const OpenedBuilt built = buildAndOpen(loraSample());
        const auto k = loraPairFor(*built.file, "blk.0.attn_k.weight.lora_a");
        QVERIFY(k);
        const LoraDelta bad(*built.file, k->pair, k->scale);
        QVERIFY(!bad.ok());
        QVERIFY2(bad.error().find("rank") != std::string::npos, bad.error().c_str());
        LoraDeltaStats s;
        QCOMPARE(computeLoraDeltaStats(bad, 8, {}, s), StatsStatus::NoData);
        Heatmap map;
        QCOMPARE(loraDeltaHeatmap(bad, 0, 1, 0, 1, {}, map), StatsStatus::NoData);
        std::vector<float> row(3, 7.0f);
        bad.row(0, row); // reads nothing, writes zeros
        QCOMPARE(row, (std::vector<float>{0, 0, 0}));

        // small factors, a huge ΔW: 2²¹ columns at rank 1 is more than a row is allowed to be
        GgufBuilder wide;
        wide.kv("general.type", V::str("adapter"))
            .tensor("blk.0.ffn_down.weight.lora_a", {uint64_t(1) << 21, 1}, 0)
            .tensor("blk.0.ffn_down.weight.lora_b", {1, 2}, 0);
        const OpenedBuilt w = buildAndOpen(wide);
        const auto wp = loraPairFor(*w.file, "blk.0.ffn_down.weight.lora_b");
        QVERIFY(wp);
        const LoraDelta tooWide(*w.file, wp->pair, 1.0);
        QVERIFY(!tooWide.ok());
        QVERIFY2(tooWide.error().find("too large") != std::string::npos, tooWide.error().c_str());
    }

    void largerPairAgainstThePlainProduct()
    {
        // 256 outputs × 2048 inputs at rank 64: several work units on every worker thread
        const size_t nIn = 2048, nOut = 256, r = 64;
        std::mt19937 rng(7);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> a(nIn * r), b(r * nOut);
        for (float &v : a)
            v = normal(rng);
        for (float &v : b)
            v = normal(rng) * 0.01f;
        GgufBuilder builder;
        builder.kv("general.type", V::str("adapter"))
            .kv("adapter.lora.alpha", V::f32(128))
            .tensor("blk.3.ffn_down.weight.lora_a", {nIn, r}, 0, f32Data(a))
            .tensor("blk.3.ffn_down.weight.lora_b", {r, nOut}, 0, f32Data(b));
        const OpenedBuilt built = buildAndOpen(builder);
        const auto p = loraPairFor(*built.file, "blk.3.ffn_down.weight.lora_a");
        QVERIFY(p);
        QCOMPARE(p->scale, 2.0);
        const LoraDelta d(*built.file, p->pair, p->scale);
        QVERIFY(d.ok());
        const std::vector<double> w = naiveDelta(a, b, nIn, nOut, r, 2.0);
        double sum = 0, squares = 0, lo = w[0], hi = w[0];
        std::vector<double> colSq(nIn, 0.0);
        for (size_t i = 0; i < w.size(); ++i) {
            sum += w[i];
            squares += w[i] * w[i];
            lo = std::min(lo, w[i]);
            hi = std::max(hi, w[i]);
            colSq[i % nIn] += w[i] * w[i];
        }
        const std::vector<float> row7 = rowOf(d, 7);
        for (size_t j = 0; j < nIn; ++j)
            QVERIFY(std::abs(row7[j] - w[7 * nIn + j]) <= 1e-4 * (1 + std::abs(w[7 * nIn + j])));
        // progress runs over both passes, never backwards, never past its total
        uint64_t last = 0, reportedTotal = 0;
        bool ordered = true;
        const auto progress = [&](uint64_t done, uint64_t total) {
            ordered = ordered && done >= last && done <= total && (reportedTotal == 0 || total == reportedTotal);
            last = done;
            reportedTotal = total;
            return true;
        };
        LoraDeltaStats s;
        QCOMPARE(computeLoraDeltaStats(d, 100, progress, s), StatsStatus::Ok);
        QVERIFY(ordered);
        QVERIFY(reportedTotal >= 2 && last >= reportedTotal / 2); // the second pass ran
        QCOMPARE(s.count, uint64_t(nIn * nOut));
        QVERIFY(std::abs(s.frobenius - std::sqrt(squares)) < 1e-4 * std::sqrt(squares));
        QVERIFY(std::abs(s.mean - sum / double(w.size())) < 1e-6);
        QVERIFY(std::abs(s.min - lo) < 1e-5 && std::abs(s.max - hi) < 1e-5);
        for (size_t j = 0; j < nIn; j += 97)
            QVERIFY(std::abs(s.columnNorms[j] - std::sqrt(colSq[j])) < 1e-4 * std::sqrt(colSq[j]) + 1e-9);
        uint64_t binned = 0;
        for (const uint64_t c : s.histogram.counts)
            binned += c;
        QCOMPARE(binned, uint64_t(nIn * nOut));

        // cancelling stops the statistics
        LoraDeltaStats cancelled;
        QCOMPARE(computeLoraDeltaStats(
                     d, 100, [](uint64_t, uint64_t) { return false; }, cancelled),
                 StatsStatus::Cancelled);
    }
};

QTEST_GUILESS_MAIN(TestLoraDelta)
#include "tst_lora_delta.moc"
