// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics of an importance matrix (#18), as llama-imatrix --show-statistics defines them
// (tools/imatrix/imatrix.cpp: compute_statistics, compute_cossim; docs/KINDS.md). The file is built
// in llama-imatrix's layout (tests/support/kind_samples.h) from sums chosen so that the importances
// are small integers; the expected figures are worked out by hand in the comments.
#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"
#include "core/kind/importance.h"
#include "tests/support/kind_samples.h"

#include <QtTest>

#include <cmath>

using namespace gguf;
using namespace gguf::test;

namespace {

const ImportanceStats *find(const ImportanceReport &r, const std::string &weight)
{
    for (const ImportanceStats &s : r.tensors)
        if (s.weight == weight)
            return &s;
    return nullptr;
}

} // namespace

class TestImportance : public QObject {
    Q_OBJECT
private slots:
    void denseWeight()
    {
        const OpenedBuilt built = buildAndOpen(imatrixSample());
        QVERIFY(built.file);
        const KindReport kind = describeKind(*built.file);
        QVERIFY(kind.imatrix);
        const auto report = computeImportance(*built.file, *kind.imatrix);
        QVERIFY(report);
        QCOMPARE(report->tensors.size(), size_t(5));
        const ImportanceStats *q0 = find(*report, "blk.0.attn_q.weight");
        QVERIFY(q0);
        QCOMPARE(q0->layer, 0);
        QCOMPARE(q0->role, std::string("attn_q.weight"));
        QCOMPARE(q0->channels, uint64_t(4));
        QCOMPARE(q0->matrices, uint64_t(1));
        QCOMPARE(q0->usedMatrices, uint64_t(1));
        QCOMPARE(q0->elements, uint64_t(4));
        // importances 1 2 3 4
        QCOMPARE(q0->sum, 10.0);
        QCOMPARE(q0->min, 1.0);
        QCOMPARE(q0->max, 4.0);
        QCOMPARE(q0->mean, 2.5);
        QVERIFY(std::abs(q0->stddev - std::sqrt(1.25)) < 1e-12);
        QVERIFY(std::abs(q0->skewness) < 1e-12);                         // symmetric
        QVERIFY(std::abs(q0->kurtosis - (2.5625 / 1.5625 - 3)) < 1e-12); // m4 = 2.5625, m2 = 1.25
        // p = .1 .2 .3 .4: H = 1.846439… bits, over log2(4) = 2
        const double h = -(0.1 * std::log2(0.1) + 0.2 * std::log2(0.2) + 0.3 * std::log2(0.3) + 0.4 * std::log2(0.4));
        QVERIFY(std::abs(q0->entropy - h) < 1e-12);
        QVERIFY(std::abs(q0->entropyNorm - h / 2) < 1e-12);
        QCOMPARE(q0->active, 1.0);
        QCOMPARE(q0->zd, 0.25);       // only 4 is more than one std (1.118) above 2.5
        QVERIFY(!q0->cosinePrevious); // layer 0 has no block before it
        // the whole file's Σ: 10 + 20 (8 6 4 2) + 7 (1 2 1 3)
        QCOMPARE(report->total, 37.0);
        QVERIFY(std::abs(q0->share - 10.0 / 37.0) < 1e-12);

        const ImportanceStats *q1 = find(*report, "blk.1.attn_q.weight");
        QVERIFY(q1);
        QCOMPARE(q1->sum, 20.0);
        QCOMPARE(q1->mean, 5.0);
        // CosSim of the raw sums: (10·40 + 20·30 + 30·20 + 40·10) / (√3000 · √3000) = 2000 / 3000
        QVERIFY(q1->cosinePrevious);
        QVERIFY(std::abs(*q1->cosinePrevious - 2.0 / 3.0) < 1e-12);
    }

    void expertsAndUnused()
    {
        const OpenedBuilt built = buildAndOpen(imatrixSample());
        const KindReport kind = describeKind(*built.file);
        const auto report = computeImportance(*built.file, *kind.imatrix);
        QVERIFY(report);
        const ImportanceStats *e = find(*report, "blk.0.ffn_up_exps.weight");
        QVERIFY(e);
        QCOMPARE(e->matrices, uint64_t(3));
        QCOMPARE(e->usedMatrices, uint64_t(2));
        QCOMPARE(e->unusedMatrices, (std::vector<uint64_t>{1}));
        QCOMPARE(e->elements, uint64_t(4)); // the unused expert's channels are left out
        // importances 1 2 1 3: Σ 7, mean 1.75, deviations −.75 .25 −.75 1.25, so
        // μ2 = 2.75 / 4, μ3 = 1.125 / 4, μ4 = 3.078125 / 4; p = 1/7 2/7 1/7 3/7
        const double m2 = 2.75 / 4, m3 = 1.125 / 4, m4 = 3.078125 / 4;
        const double h = -(2.0 / 7 * std::log2(1.0 / 7) + 2.0 / 7 * std::log2(2.0 / 7) + 3.0 / 7 * std::log2(3.0 / 7));
        QCOMPARE(e->sum, 7.0);
        QCOMPARE(e->mean, 1.75);
        QVERIFY(std::abs(e->stddev - std::sqrt(m2)) < 1e-12);
        QVERIFY(std::abs(e->skewness - m3 / std::pow(m2, 1.5)) < 1e-12); // 0.4934…
        QVERIFY(std::abs(e->kurtosis - (m4 / (m2 * m2) - 3)) < 1e-12);   // −1.3719…
        QVERIFY(std::abs(e->entropyNorm - h / 2) < 1e-12);
        QCOMPARE(e->zd, 0.25); // 3 is 1.51 std above the mean
        QCOMPARE(e->min, 1.0);
        QCOMPARE(e->max, 3.0);

        // channel importances of one expert, of their mean, and of the experts × channels heatmap
        const ImatrixEntry &entry = kind.imatrix->entries[2];
        QCOMPARE(entry.weight, std::string("blk.0.ffn_up_exps.weight"));
        QCOMPARE(channelImportance(*built.file, entry, 0), (std::vector<float>{1, 2}));
        QCOMPARE(channelImportance(*built.file, entry, 2), (std::vector<float>{1, 3}));
        QVERIFY(channelImportance(*built.file, entry, 1).empty()); // never activated
        QVERIFY(channelImportance(*built.file, entry, 3).empty()); // no such expert
        QCOMPARE(meanChannelImportance(*built.file, entry), (std::vector<float>{1, 2.5f}));
        Heatmap map;
        QCOMPARE(importanceHeatmap(*built.file, entry, {}, map), StatsStatus::Ok);
        QCOMPARE(map.gridRows, 3u);
        QCOMPARE(map.gridCols, 2u);
        QCOMPARE(map.mean[0], 1.0f);
        QCOMPARE(map.mean[1], 2.0f);
        QCOMPARE(map.mean[2], 0.0f); // the unused expert has no values: a tile without values reads 0
        QCOMPARE(map.maxAbs[3], 0.0f);
        QCOMPARE(map.mean[4], 1.0f);
        QCOMPARE(map.mean[5], 3.0f);
    }

    void weightsWithoutFigures()
    {
        const OpenedBuilt built = buildAndOpen(imatrixSample());
        const KindReport kind = describeKind(*built.file);
        const auto report = computeImportance(*built.file, *kind.imatrix);
        QVERIFY(report);
        const ImportanceStats *k = find(*report, "blk.0.attn_k.weight");
        QVERIFY(k);
        QVERIFY(!k->problem.empty()); // every count zero
        QCOMPARE(k->unusedMatrices, (std::vector<uint64_t>{0}));
        QCOMPARE(k->sum, 0.0);
        QCOMPARE(k->share, 0.0);
        const ImportanceStats *v = find(*report, "blk.0.attn_v.weight");
        QVERIFY(v);
        QVERIFY(!v->problem.empty()); // F16 in_sum2: llama.cpp's loader reads F32 only
        QCOMPARE(v->elements, uint64_t(0));
        QVERIFY(meanChannelImportance(*built.file, kind.imatrix->entries[4]).empty());
    }

    void progressAndCancel()
    {
        const OpenedBuilt built = buildAndOpen(imatrixSample());
        const KindReport kind = describeKind(*built.file);
        // progress runs over both passes (5 weights each) and ends at its total
        uint64_t last = 0, lastTotal = 0;
        QVERIFY(computeImportance(*built.file, *kind.imatrix, [&](uint64_t done, uint64_t total) {
            last = done;
            lastTotal = total;
            return true;
        }));
        QCOMPARE(lastTotal, uint64_t(10));
        QCOMPARE(last, uint64_t(10));
        // a cancel at the first report stops it: no figures, and no report after the refusal
        int calls = 0;
        const auto report = computeImportance(*built.file, *kind.imatrix, [&calls](uint64_t, uint64_t) {
            ++calls;
            return false;
        });
        QVERIFY(!report);
        QCOMPARE(calls, 1);
    }

    void entriesOfTheWrongShape()
    {
        // counts of three values beside two matrices, and an in_sum2 without counts: no figures
        GgufBuilder b;
        b.kv("general.type", V::str("imatrix"))
            .tensor("a.weight.in_sum2", {2, 2}, 0, f32Data({1, 2, 3, 4}))
            .tensor("a.weight.counts", {1, 3}, 0, f32Data({1, 1, 1}))
            .tensor("b.weight.in_sum2", {2, 1}, 0, f32Data({1, 2}));
        const OpenedBuilt built = buildAndOpen(b);
        const KindReport kind = describeKind(*built.file);
        const auto report = computeImportance(*built.file, *kind.imatrix);
        QVERIFY(report);
        QCOMPARE(report->tensors.size(), size_t(2));
        for (const ImportanceStats &s : report->tensors) {
            QVERIFY2(!s.problem.empty(), s.weight.c_str());
            QCOMPARE(s.layer, -1);
        }
        QCOMPARE(report->total, 0.0);
    }
};

QTEST_GUILESS_MAIN(TestImportance)
#include "tst_importance.moc"
