// SPDX-License-Identifier: GPL-3.0-or-later
// The histogram view fed by tensors of known values: exact bin counts over a chosen range, the
// statistics beside them, clipping at percentiles, the hover read-out; a result for a tensor the
// user has left is dropped; Cancel stops the computation and Restart runs it again.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/pending_events.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/plots/histogram_plot.h"
#include "ui/weights/histogram_panel.h"
#include "ui/weights/stats_table.h"

#include <QComboBox>
#include <QPushButton>
#include <QThreadPool>
#include <QtTest>

#include <cstring>
#include <numeric>

using namespace gguf;
using namespace gguf::test;

namespace {

std::vector<uint8_t> f32Bytes(const std::vector<float> &values)
{
    std::vector<uint8_t> bytes(values.size() * 4);
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

// Bin b of [0, 16) holds b + 1 values, all equal to b + 0.5.
std::vector<float> staircase()
{
    std::vector<float> values;
    for (int b = 0; b < 16; ++b)
        values.insert(values.end(), static_cast<size_t>(b + 1), static_cast<float>(b) + 0.5f);
    return values;
}

// 1000 values spread over [0, 1) and two far outliers.
std::vector<float> withOutliers()
{
    std::vector<float> values;
    values.reserve(1002);
    for (int i = 0; i < 1000; ++i)
        values.push_back(static_cast<float>(i) / 1000.0f);
    values.push_back(1000.0f);
    values.push_back(-1000.0f);
    return values;
}

// 100,000 values spread over [0, 1) and ten far outliers, five on each side: a [min, max] histogram
// is one spike.
std::vector<float> spike()
{
    std::vector<float> values;
    values.reserve(100010);
    for (int i = 0; i < 100000; ++i)
        values.push_back(static_cast<float>(i) / 100000.0f);
    for (int i = 0; i < 5; ++i) {
        values.push_back(1000.0f + static_cast<float>(i));
        values.push_back(-1000.0f - static_cast<float>(i));
    }
    return values;
}

constexpr uint64_t kBigElements = uint64_t(1) << 25; // 32 M values: long enough to interrupt

std::shared_ptr<const SplitModel> makeModel()
{
    GgufBuilder builder;
    builder.tensor("staircase", {136}, 0, f32Bytes(staircase()));
    builder.tensor("outliers", {1002}, 0, f32Bytes(withOutliers()));
    builder.tensor("big", {4096, kBigElements / 4096}, 2); // Q4_0, zero-filled
    builder.tensor("spike", {100010}, 0, f32Bytes(spike()));
    builder.tensor("constant", {64}, 0, f32Bytes(std::vector<float>(64, 1.0f))); // a norm weight as initialized
    OpenResult opened = GgufFile::openBuffer(builder.build().bytes());
    return opened.file ? SplitModel::single(opened.file) : nullptr;
}

QVector<double> counts(std::initializer_list<int> values)
{
    QVector<double> v;
    for (int x : values)
        v << x;
    return v;
}

} // namespace

class TestHistogramPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_model = makeModel();
        QVERIFY(m_model);
        QCOMPARE(m_model->tensors().size(), size_t(5));
    }

    void cleanup()
    {
        // No job of one test may run into the next.
        QVERIFY(JobTracker::pool()->waitForDone(20000));
    }

    void expectedBinCounts()
    {
        HistogramPanel panel;
        panel.resize(900, 500);
        panel.show();
        QSignalSpy finished(panel.tracker(), &JobTracker::finished);
        panel.setBins(16);
        WeightJobs::RangeChoice range;
        range.mode = WeightJobs::RangeMode::Custom;
        range.lo = 0;
        range.hi = 16;
        panel.setRangeChoice(range);
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("staircase")));
        QVERIFY(finished.wait(10000));
        QVERIFY(panel.histogram());
        const Histogram &h = *panel.histogram();
        QVERIFY(h.exact);
        QCOMPARE(h.lo, 0.0);
        QCOMPARE(h.hi, 16.0);
        const std::vector<uint64_t> expected{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        QCOMPARE(h.counts, expected);
        // What is drawn is what was counted.
        QCOMPARE(panel.plot()->series().size(), 1);
        QCOMPARE(panel.plot()->series().first().values,
                 counts({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
        QVERIFY(panel.plot()->hasPlot());
        // The statistics beside it.
        StatsTable *table = panel.statsTable();
        QCOMPARE(table->valueText(StatsTable::Row::Count), QStringLiteral("136"));
        QCOMPARE(table->valueText(StatsTable::Row::Min), QStringLiteral("0.5"));
        QCOMPARE(table->valueText(StatsTable::Row::Max), QStringLiteral("15.5"));
        QCOMPARE(table->valueText(StatsTable::Row::Zeros), QStringLiteral("0"));
        QCOMPARE(table->valueText(StatsTable::Row::NaN), QStringLiteral("0"));
        QCOMPARE(table->valueText(StatsTable::Row::Range), QStringLiteral("[0, 16]"));
        QVERIFY(table->valueText(StatsTable::Row::Bins).contains(QStringLiteral("exact")));
        for (int row = int(StatsTable::Row::FirstPercentile); row <= int(StatsTable::Row::LastPercentile); ++row) {
            const QString text = table->valueText(StatsTable::Row(row));
            QVERIFY(!text.isEmpty());
            // An estimate says so, and its tooltip gives the bound.
            if (text.startsWith(QStringLiteral("≈")))
                QVERIFY(table->toolTip(StatsTable::Row(row)).contains(QStringLiteral("±")));
        }
        // The read-out names the bin under the mouse and its count.
        const QString readout = panel.plot()->readoutAt(3.2);
        QVERIFY2(readout.contains(QStringLiteral("Bin 4 of 16")), qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("[3, 4)")), qPrintable(readout));
        QVERIFY2(readout.contains(QStringLiteral("4 values")), qPrintable(readout));
        QVERIFY(panel.plot()->readoutAt(-1).isEmpty());
        panel.setLogarithmic(true);
        QVERIFY(panel.plot()->isLogarithmic());
    }

    void automaticRangeAndChangedBinsReuseTheStatistics()
    {
        HistogramPanel panel;
        panel.show();
        QSignalSpy finished(panel.tracker(), &JobTracker::finished);
        QSignalSpy started(panel.tracker(), &JobTracker::started);
        panel.setBins(16);
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("staircase")));
        QVERIFY(finished.wait(10000));
        QVERIFY(panel.histogram());
        QCOMPARE(panel.histogram()->lo, 0.5);
        QCOMPARE(panel.histogram()->hi, 15.5);
        const uint64_t total =
            std::accumulate(panel.histogram()->counts.begin(), panel.histogram()->counts.end(), uint64_t(0));
        QCOMPARE(total, uint64_t(136));
        // More bins: only the binning pass runs again.
        started.clear();
        panel.setBins(32);
        QVERIFY(finished.wait(10000));
        QCOMPARE(started.count(), 1);
        QVERIFY(started.first().first().toString().startsWith(QStringLiteral("Histogram")));
        QCOMPARE(panel.histogram()->counts.size(), size_t(32));
        QVERIFY(panel.histogram()->exact);
    }

    void clipsOutliersAtPercentiles()
    {
        HistogramPanel panel;
        panel.show();
        QSignalSpy finished(panel.tracker(), &JobTracker::finished);
        WeightJobs::RangeChoice range;
        range.mode = WeightJobs::RangeMode::Percentiles; // p1 – p99
        panel.setRangeChoice(range);
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("outliers")));
        QVERIFY(finished.wait(10000));
        QVERIFY(panel.histogram());
        const Histogram &h = *panel.histogram();
        QVERIFY2(h.lo > -0.1 && h.lo < 0.1 && h.hi > 0.9 && h.hi < 1.1,
                 qPrintable(QStringLiteral("[%1, %2]").arg(h.lo).arg(h.hi)));
        QVERIFY(h.below >= 1 && h.above >= 1);
        QVERIFY(panel.statsTable()->valueText(StatsTable::Row::Outside).contains(QStringLiteral("below")));
    }

    // A few outliers would squeeze the rest into one bin: Automatic shows the central 99.9 % and says
    // so; Whole range shows min – max (#40).
    void centralRangeWhenOutliersDominate()
    {
        HistogramPanel panel;
        panel.resize(900, 500);
        panel.show();
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("spike")));
        QTRY_VERIFY_WITH_TIMEOUT(panel.rangeNote().contains(QStringLiteral("central 99.9 %")), 20000);
        const Histogram &h = *panel.histogram();
        QVERIFY2(h.lo >= -0.05 && h.hi <= 1.05, qPrintable(QStringLiteral("[%1, %2]").arg(h.lo).arg(h.hi)));
        QCOMPARE(h.below + h.above, uint64_t(10)); // the outliers, and only they
        QVERIFY(panel.rangeNote().contains(QStringLiteral("chosen because a few outliers")));
        QVERIFY(panel.rangeNote().contains(QStringLiteral("10 values lie outside it")));
        QComboBox *range = nullptr;
        for (QComboBox *box : panel.findChildren<QComboBox *>())
            if (box->findText(QStringLiteral("Whole range: min – max")) >= 0)
                range = box;
        QVERIFY(range);
        range->setCurrentIndex(range->findText(QStringLiteral("Whole range: min – max")));
        QTRY_VERIFY_WITH_TIMEOUT(panel.histogram() && panel.histogram()->lo == -1004.0, 20000);
        QVERIFY2(panel.rangeNote().startsWith(QStringLiteral("Range shown: min – max")), qPrintable(panel.rangeNote()));
        // the staircase has no outliers: Automatic keeps min – max
        range->setCurrentIndex(0);
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("staircase")));
        QTRY_VERIFY_WITH_TIMEOUT(panel.histogram() && panel.histogram()->lo == 0.5, 20000);
        QVERIFY(JobTracker::pool()->waitForDone(20000));
        QTRY_VERIFY(panel.rangeNote().startsWith(QStringLiteral("Range shown: min – max")));
    }

    // Every value the same (a norm weight of ones): one spike is the truth, not outliers squeezing the
    // rest; Automatic shows the unit around the value that NumPy gives a constant array, and says so.
    void constantTensorIsNotOutliers()
    {
        HistogramPanel panel;
        panel.resize(900, 500);
        panel.show();
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("constant")));
        QTRY_VERIFY_WITH_TIMEOUT(panel.histogram() && !panel.rangeNote().isEmpty(), 20000);
        QVERIFY(JobTracker::pool()->waitForDone(20000));
        QTRY_VERIFY(!panel.rangeNote().isEmpty());
        const QString note = panel.rangeNote();
        QVERIFY2(!note.contains(QStringLiteral("outliers")) && !note.contains(QStringLiteral("central")),
                 qPrintable(note));
        QVERIFY2(note.contains(QStringLiteral("every value is 1")), qPrintable(note));
        const Histogram &h = *panel.histogram();
        QCOMPARE(h.lo, 0.5);
        QCOMPARE(h.hi, 1.5);
        QCOMPARE(std::accumulate(h.counts.begin(), h.counts.end(), uint64_t(0)), uint64_t(64));
        QCOMPARE(h.below + h.above, uint64_t(0));
    }

    void staleResultIsDropped()
    {
        HistogramPanel panel;
        panel.show();
        QSignalSpy finished(panel.tracker(), &JobTracker::finished);
        QSignalSpy progress(panel.tracker(), &JobTracker::progressChanged);
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("big")));
        QVERIFY(progress.wait(10000)); // the big tensor is being computed
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("staircase")));
        QVERIFY(finished.wait(10000));
        QVERIFY(gguf::test::settlePool(JobTracker::pool(), 20000)); // anything the big job could deliver has arrived
        QCOMPARE(finished.count(), 1);
        QVERIFY(panel.statistics());
        QCOMPARE(panel.statistics()->count, uint64_t(136));
        QCOMPARE(panel.plot()->series().first().name.contains(QStringLiteral("staircase")), true);
    }

    void cancelStopsTheJob()
    {
        HistogramPanel panel;
        panel.show();
        QSignalSpy cancelled(panel.tracker(), &JobTracker::cancelled);
        QSignalSpy finished(panel.tracker(), &JobTracker::finished);
        QSignalSpy progress(panel.tracker(), &JobTracker::progressChanged);
        panel.setTensor(TensorHandle::named(m_model, QStringLiteral("big")));
        QVERIFY(panel.progress()->isVisible());
        QVERIFY(panel.progress()->text().contains(QStringLiteral("big")));
        QVERIFY(progress.wait(10000));
        QElapsedTimer sinceCancel;
        sinceCancel.start();
        panel.tracker()->cancel();
        QCOMPARE(cancelled.count(), 1);
        QVERIFY(!panel.tracker()->isRunning());
        QVERIFY(panel.progress()->text().startsWith(QStringLiteral("Cancelled")));
        // The worker stops at its next progress check instead of running to the end.
        QVERIFY(gguf::test::settlePool(JobTracker::pool(), 20000));
        qInfo() << "worker stopped" << sinceCancel.elapsed() << "ms after cancel";
        QCOMPARE(finished.count(), 0);
        QVERIFY(!panel.statistics());
        QVERIFY(!panel.histogram());
        // Restart computes it after all.
        QPushButton *restart = nullptr;
        for (QPushButton *button : panel.progress()->findChildren<QPushButton *>())
            if (button->text() == QStringLiteral("Restart"))
                restart = button;
        QVERIFY(restart && restart->isVisible());
        restart->click();
        QVERIFY(panel.tracker()->isRunning());
        QVERIFY(finished.wait(60000));
        QVERIFY(panel.statistics());
        QCOMPARE(panel.statistics()->count, kBigElements);
        QCOMPARE(panel.statistics()->zeros, kBigElements);
    }

private:
    std::shared_ptr<const SplitModel> m_model;
};

QTEST_MAIN(TestHistogramPanel)
#include "tst_histogram_panel.moc"
