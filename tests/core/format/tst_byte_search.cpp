// SPDX-License-Identifier: GPL-3.0-or-later
// findBytes: forward and backward from any start, matches across chunk borders, single bytes,
// empty and oversized patterns, progress and cancellation.
#include "core/format/byte_search.h"
#include "core/format/mapped_file.h"

#include <QtTest>

#include <string>
#include <vector>

using namespace gguf;

Q_DECLARE_METATYPE(gguf::SearchDirection)

namespace {

std::span<const uint8_t> bytes(const std::string &s)
{
    return {reinterpret_cast<const uint8_t *>(s.data()), s.size()};
}

} // namespace

class TestByteSearch : public QObject {
    Q_OBJECT

private slots:
    void find_data()
    {
        QTest::addColumn<QString>("haystack");
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<quint64>("from");
        QTest::addColumn<SearchDirection>("direction");
        QTest::addColumn<quint64>("chunk");
        QTest::addColumn<qint64>("expected"); // -1: no match
        const auto F = SearchDirection::Forward, B = SearchDirection::Backward;
        const QString text = QStringLiteral("abcXYZabcXYZabc");
        QTest::newRow("forward from 0") << text << "XYZ" << quint64(0) << F << quint64(1024) << qint64(3);
        QTest::newRow("forward: a match at from counts")
            << text << "XYZ" << quint64(3) << F << quint64(1024) << qint64(3);
        QTest::newRow("forward: next one") << text << "XYZ" << quint64(4) << F << quint64(1024) << qint64(9);
        QTest::newRow("forward: none after") << text << "XYZ" << quint64(10) << F << quint64(1024) << qint64(-1);
        QTest::newRow("backward from the end") << text << "abc" << quint64(100) << B << quint64(1024) << qint64(12);
        QTest::newRow("backward: a match at from counts")
            << text << "abc" << quint64(6) << B << quint64(1024) << qint64(6);
        QTest::newRow("backward: previous one") << text << "abc" << quint64(5) << B << quint64(1024) << qint64(0);
        QTest::newRow("backward: none before") << text << "XYZ" << quint64(2) << B << quint64(1024) << qint64(-1);
        QTest::newRow("single byte forward (memchr)") << text << "Z" << quint64(6) << F << quint64(1024) << qint64(11);
        QTest::newRow("single byte backward") << text << "Z" << quint64(10) << B << quint64(1024) << qint64(5);
        // chunks of 4 bytes (raised to twice the pattern): every match straddles a border somewhere
        QTest::newRow("forward across chunk borders") << text << "cXYZa" << quint64(1) << F << quint64(4) << qint64(2);
        QTest::newRow("forward across borders, second")
            << text << "cXYZa" << quint64(3) << F << quint64(4) << qint64(8);
        QTest::newRow("backward across chunk borders")
            << text << "cXYZa" << quint64(100) << B << quint64(4) << qint64(8);
        QTest::newRow("backward across borders, first")
            << text << "cXYZa" << quint64(7) << B << quint64(4) << qint64(2);
        QTest::newRow("whole haystack") << text << text << quint64(0) << B << quint64(4) << qint64(0);
        QTest::newRow("pattern longer than the file") << "abc"
                                                      << "abcd" << quint64(0) << F << quint64(4) << qint64(-1);
        QTest::newRow("empty pattern") << text << "" << quint64(0) << F << quint64(4) << qint64(-1);
        QTest::newRow("from past the end, forward") << text << "abc" << quint64(99) << F << quint64(4) << qint64(-1);
    }

    void find()
    {
        QFETCH(QString, haystack);
        QFETCH(QString, pattern);
        QFETCH(quint64, from);
        QFETCH(SearchDirection, direction);
        QFETCH(quint64, chunk);
        QFETCH(qint64, expected);
        const std::string h = haystack.toStdString(), p = pattern.toStdString();
        const std::optional<uint64_t> hit = findBytes(bytes(h), bytes(p), from, direction, {}, chunk);
        QCOMPARE(hit ? qint64(*hit) : qint64(-1), expected);
    }

    void everyPositionAcrossSmallChunks()
    {
        // a needle at every position of a zero haystack is found from both sides with tiny chunks
        for (size_t at = 0; at + 3 <= 64; ++at) {
            std::vector<uint8_t> hay(64, 0);
            hay[at] = 1, hay[at + 1] = 2, hay[at + 2] = 3;
            const uint8_t needle[] = {1, 2, 3};
            QCOMPARE(findBytes(hay, needle, 0, SearchDirection::Forward, {}, 6).value_or(999), at);
            QCOMPARE(findBytes(hay, needle, 63, SearchDirection::Backward, {}, 6).value_or(999), at);
        }
    }

    void progressAndCancel()
    {
        std::vector<uint8_t> hay(1000, 0);
        const uint8_t needle[] = {7};
        std::vector<uint64_t> reports;
        const auto hit = findBytes(
            hay, needle, 0, SearchDirection::Forward,
            [&](uint64_t done, uint64_t total) {
                reports.push_back(done);
                return total == 1000;
            },
            100);
        QVERIFY(!hit);
        QCOMPARE(reports.size(), size_t(10));
        QCOMPARE(reports.back(), uint64_t(1000));
        // a match in the first chunk searched is found before any report
        int calls = 0;
        hay[990] = 7;
        const auto first = findBytes(
            hay, needle, 999, SearchDirection::Backward, [&](uint64_t, uint64_t) { return ++calls < 0; }, 50);
        QCOMPARE(first.value_or(0), uint64_t(990));
        QCOMPARE(calls, 0);
        // returning false stops after the first chunk
        hay[990] = 0;
        hay[10] = 7;
        QVERIFY(!findBytes(
            hay, needle, 999, SearchDirection::Backward, [&](uint64_t, uint64_t) { return ++calls < 0; }, 50));
        QCOMPARE(calls, 1);
    }

    void inAMappedFile()
    {
        std::vector<uint8_t> data(3 << 20, 0xAA);
        const std::string tail = "needle";
        std::copy(tail.begin(), tail.end(), data.end() - 10);
        const auto file = MappedFile::fromBuffer(std::move(data), "buffer");
        QCOMPARE(findInFile(*file, bytes(tail), 0, SearchDirection::Forward).value_or(0), uint64_t((3 << 20) - 10));
        QCOMPARE(findInFile(*file, bytes(tail), 100, SearchDirection::Backward), std::optional<uint64_t>());
    }
};

QTEST_GUILESS_MAIN(TestByteSearch)
#include "tst_byte_search.moc"
