// SPDX-License-Identifier: GPL-3.0-or-later
// A file that shrinks, is replaced or is deleted while mapped must never crash a reader.
#include "core/format/gguf_file.h"
#include "core/format/mapped_file.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace gguf;

class TestMappedFile : public QObject {
    Q_OBJECT

private slots:
    void truncatedWhileMappedReadsZeros();
    void statisticsSurviveTruncation();
    void replacedAndDeletedAreNoticed();
    void refusesWhatIsNotARegularFile_data();
    void refusesWhatIsNotARegularFile();
};

void TestMappedFile::truncatedWhileMappedReadsZeros()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("shrinking.bin"));
    const long page = ::sysconf(_SC_PAGESIZE);
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(static_cast<int>(16 * page), char(0xAB)));
    }
    Error error;
    const auto mapped = MappedFile::open(path.toStdString(), error);
    QVERIFY(mapped);
    QCOMPARE(mapped->data()[10 * page], uint8_t(0xAB));
    QVERIFY(!mapped->changedOnDisk());
    QVERIFY(::truncate(path.toLocal8Bit().constData(), page) == 0);
    // page 12 no longer exists in the file: without the guard this read is SIGBUS
    volatile const uint8_t *p = mapped->data();
    QCOMPARE(p[12 * page + 5], uint8_t(0));
    QCOMPARE(p[page - 1], uint8_t(0xAB)); // what is still in the file is still there
    QVERIFY(mapped->changedOnDisk());
}

void TestMappedFile::statisticsSurviveTruncation()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("q8_0.gguf"));
    QVERIFY(QFile::copy(gguf::test::dataPath(u"ggml-reference/q8_0.gguf"), path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    const OpenResult r = GgufFile::open(path.toStdString());
    QVERIFY(r.file && r.file->complete());
    const TensorInfo &t = r.file->tensors()[0];
    // cut the file inside the tensor's data, after it was opened
    QVERIFY(::truncate(path.toLocal8Bit().constData(), static_cast<off_t>(t.fileOffset + 100)) == 0);
    TensorStatistics s;
    QCOMPARE(computeStatistics(tensorData(*r.file, t), {}, s), StatsStatus::Ok);
    QCOMPARE(s.count, t.elements);
    QVERIFY(r.file->source().changed());
}

void TestMappedFile::replacedAndDeletedAreNoticed()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("model.gguf"));
    QVERIFY(QFile::copy(gguf::test::dataPath(u"ggml-reference/q4_0.gguf"), path));
    Error error;
    const auto mapped = MappedFile::open(path.toStdString(), error);
    QVERIFY(mapped);
    QVERIFY(!mapped->changedOnDisk());
    const uint8_t first = mapped->data()[0];
    QVERIFY(QFile::remove(path));
    QVERIFY(mapped->changedOnDisk());
    QCOMPARE(mapped->data()[0], first); // a deleted file's pages stay readable
    QVERIFY(QFile::copy(gguf::test::dataPath(u"ggml-reference/q4_1.gguf"), path));
    QVERIFY(mapped->changedOnDisk());
}

void TestMappedFile::refusesWhatIsNotARegularFile_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("kind");
    QTest::newRow("directory") << gguf::test::dataDir() << int(ErrorKind::Unreadable);
    QTest::newRow("character device") << QStringLiteral("/dev/null") << int(ErrorKind::Unreadable);
    QTest::newRow("missing") << gguf::test::dataPath(u"no-such-file.gguf") << int(ErrorKind::NotFound);
}

void TestMappedFile::refusesWhatIsNotARegularFile()
{
    QFETCH(QString, path);
    QFETCH(int, kind);
    Error error;
    QVERIFY(!MappedFile::open(path.toStdString(), error));
    QCOMPARE(int(error.kind), kind);
    QVERIFY(error.message.find(path.toStdString()) != std::string::npos);
}

QTEST_GUILESS_MAIN(TestMappedFile)
#include "tst_mapped_file.moc"
