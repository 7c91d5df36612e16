// SPDX-License-Identifier: GPL-3.0-or-later
// Document: opening on a worker thread, failures that keep the open model, stale results dropped
// by generation, cancellation.
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/pending_events.h"
#include "tests/support/test_paths.h"
#include "ui/shell/document.h"

#include <QFile>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>

namespace {

const QString kSample = gguf::test::sampleModel();
const QString kVocab = gguf::test::dataPath(u"real/ggml-vocab-llama-spm.gguf");

QString writeFile(const QTemporaryDir &dir, const QString &name, const QByteArray &bytes)
{
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        return {};
    return path;
}

// Shard `number` of a two-file split model with one F32 tensor of its own.
QByteArray shardBytes(uint16_t number)
{
    const auto bytes = gguf::test::twoFileSplitShard(number);
    return QByteArray(reinterpret_cast<const char *>(bytes.data()), static_cast<qsizetype>(bytes.size()));
}

QByteArray sampleBytes(qsizetype count)
{
    QFile file(kSample);
    return file.open(QIODevice::ReadOnly) ? file.read(count) : QByteArray();
}

} // namespace

class TestDocument : public QObject {
    Q_OBJECT

private slots:
    void opensOnAWorker()
    {
        Document document;
        QSignalSpy started(&document, &Document::loadStarted);
        QSignalSpy loaded(&document, &Document::loaded);
        document.open(kSample);
        QCOMPARE(started.count(), 1);
        QVERIFY(document.isLoading());
        QCOMPARE(document.loadingPath(), kSample);
        QVERIFY(!document.model()); // nothing is parsed on this thread
        QVERIFY(loaded.wait(10000));
        QVERIFY(!document.isLoading());
        QVERIFY(document.model());
        QCOMPARE(document.model()->tensors().size(), size_t(38));
        QCOMPARE(document.path(), kSample);
        QCOMPARE(loaded.first().at(0).toString(), kSample);
        QCOMPARE(loaded.first().at(1).toString(), QString()); // no warning
    }

    void failuresKeepTheModel_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::addColumn<quint64>("offset");
        QTest::newRow("png") << "image.png" << QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) << "PNG" << quint64(0);
        QTest::newRow("empty") << "empty.gguf" << QByteArray() << "empty" << quint64(0);
        // no byte was read: no offset to name (#40)
        QTest::newRow("directory") << "" << QByteArray() << "directory" << Document::kNoOffset;
        QTest::newRow("missing") << "-" << QByteArray() << "no such file" << Document::kNoOffset;
    }

    void failuresKeepTheModel()
    {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QFETCH(quint64, offset);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString path = dir.path();
        if (name == QLatin1String("-"))
            path = dir.filePath(QStringLiteral("does-not-exist.gguf"));
        else if (!name.isEmpty())
            path = writeFile(dir, name, bytes);
        QVERIFY(!path.isEmpty());

        Document document;
        QSignalSpy loaded(&document, &Document::loaded);
        QSignalSpy failed(&document, &Document::loadFailed);
        document.open(kSample);
        QVERIFY(loaded.wait(10000));
        const auto model = document.model();

        document.open(path);
        QVERIFY(failed.wait(10000));
        QCOMPARE(failed.count(), 1);
        QCOMPARE(failed.first().at(0).toString(), path);
        QVERIFY2(failed.first().at(1).toString().contains(message, Qt::CaseInsensitive),
                 qPrintable(failed.first().at(1).toString()));
        QCOMPARE(failed.first().at(2).toULongLong(), offset);
        // the message says what was wrong; the window names the path (once)
        QVERIFY2(!failed.first().at(1).toString().contains(path), qPrintable(failed.first().at(1).toString()));
        QCOMPARE(document.model(), model);
        QCOMPARE(document.path(), kSample);
        QCOMPARE(loaded.count(), 1);
        QVERIFY(!document.isLoading());
    }

    // A GGUF whose structure breaks off opens with what was read before the break (#21): the
    // model is replaced, SplitModel::firstBreak() names the shard, and the error keeps its offset.
    void damagedFilesOpen_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::addColumn<quint64>("offset");
        QTest::addColumn<int>("pairs");
        // the field and where the file ends (the code, "truncated", is not said again in the message)
        QTest::newRow("truncated header")
            << sampleBytes(10) << "u64 tensor count needs 8 bytes at offset 8 (0x8) but the file ends at 10"
            << quint64(8) << 0;
        QTest::newRow("truncated metadata") << sampleBytes(5000) << "tokenizer.ggml.tokens" << quint64(151) << 2;
    }

    void damagedFilesOpen()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QFETCH(quint64, offset);
        QFETCH(int, pairs);
        QTemporaryDir dir;
        const QString path = writeFile(dir, QStringLiteral("cut.gguf"), bytes);
        QVERIFY(!path.isEmpty());
        Document document;
        QSignalSpy loaded(&document, &Document::loaded);
        QSignalSpy failed(&document, &Document::loadFailed);
        document.open(kSample);
        QVERIFY(loaded.wait(10000));
        QVERIFY(!document.model()->firstBreak());
        document.open(path);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(document.path(), path);
        const auto broken = document.model()->firstBreak();
        QVERIFY(broken);
        QCOMPARE(broken->shard, size_t(0));
        QCOMPARE(broken->file, &document.model()->primary());
        QVERIFY(broken->file->breakage());
        const gguf::GgufFile &file = document.model()->primary();
        QVERIFY2(QString::fromStdString(file.error().message).contains(message), file.error().message.c_str());
        QCOMPARE(file.error().offset, offset);
        QCOMPARE(file.breakage()->fieldOffset, offset);
        QCOMPARE(int(file.metadata().size()), pairs);
        QCOMPARE(document.model()->tensors().size(), size_t(0));
    }

    void splitModels()
    {
        QTemporaryDir dir;
        const QString first = writeFile(dir, QStringLiteral("m-00001-of-00002.gguf"), shardBytes(1));
        QVERIFY(!first.isEmpty());
        Document document;
        QSignalSpy loaded(&document, &Document::loaded);
        // Shard 2 missing: the model opens with what there is, and says what is missing.
        document.open(first);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(document.model()->shards().size(), size_t(2));
        QCOMPARE(document.model()->tensors().size(), size_t(1));
        QVERIFY2(loaded.last().at(1).toString().contains(QStringLiteral("m-00002-of-00002.gguf")),
                 qPrintable(loaded.last().at(1).toString()));
        // Both shards: opening either finds the other.
        const QString second = writeFile(dir, QStringLiteral("m-00002-of-00002.gguf"), shardBytes(2));
        document.open(second);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(loaded.last().at(1).toString(), QString());
        QCOMPARE(document.model()->tensors().size(), size_t(2));
        QCOMPARE(document.model()->tensors()[1].shard, 1u);
        QCOMPARE(document.model()->primary().architecture(), std::string("llama"));
        // A damaged second shard, opened itself: the model opens with it marked (#21).
        const QByteArray whole = shardBytes(2);
        QVERIFY(writeFile(dir, QStringLiteral("m-00002-of-00002.gguf"), whole.left(30)) == second);
        document.open(second);
        QVERIFY(loaded.wait(10000));
        QCOMPARE(document.path(), second);
        const auto broken = document.model()->firstBreak();
        QVERIFY(broken);
        QCOMPARE(broken->shard, size_t(1));
        QCOMPARE(broken->file, document.model()->shards()[1].file.get());
        QCOMPARE(document.model()->shards().size(), size_t(2));
        QCOMPARE(document.model()->tensors().size(), size_t(1));
    }

    void newerOpenDropsTheOlderResult()
    {
        Document document;
        QSignalSpy loaded(&document, &Document::loaded);
        QSignalSpy progress(&document, &Document::progressChanged);
        const quint64 before = document.generation();
        document.open(kSample);
        document.open(kVocab);
        QCOMPARE(document.generation(), before + 2);
        QVERIFY(loaded.wait(10000));
        // Let the first open finish and deliver whatever it still can: it must be dropped.
        QVERIFY(gguf::test::settlePool(QThreadPool::globalInstance()));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(loaded.first().at(0).toString(), kVocab);
        QCOMPARE(document.path(), kVocab);
        QCOMPARE(document.model()->tensors().size(), size_t(0));
    }

    void cancelKeepsTheModel()
    {
        Document document;
        QSignalSpy loaded(&document, &Document::loaded);
        QSignalSpy cancelled(&document, &Document::loadCancelled);
        document.open(kVocab);
        QVERIFY(loaded.wait(10000));
        const auto model = document.model();
        document.open(kSample);
        document.cancel();
        QCOMPARE(cancelled.count(), 1);
        QCOMPARE(cancelled.first().at(0).toString(), kSample);
        QVERIFY(!document.isLoading());
        QVERIFY(gguf::test::settlePool(QThreadPool::globalInstance()));
        QCOMPARE(loaded.count(), 1);
        QCOMPARE(document.model(), model);
        document.cancel(); // nothing to cancel
        QCOMPARE(cancelled.count(), 1);
    }
};

QTEST_GUILESS_MAIN(TestDocument)
#include "tst_document.moc"
