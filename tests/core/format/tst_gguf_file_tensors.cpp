// SPDX-License-Identifier: GPL-3.0-or-later
// GgufFile tensors: peeking, tensor data, the tensor types ggml cannot size, opening from disk, cancelling.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/gguf_file_checks.h"
#include "tests/support/test_printers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>
#include <vector>

using namespace gguf;
using namespace gguf::test;
using namespace gguf_file_checks;

class TestGgufFileTensors : public QObject {
    Q_OBJECT

private slots:
    void metadataOnly_data();
    void metadataOnly();
    void tensorBytes_data();
    void tensorBytes();
    void everySizedType_data();
    void everySizedType();
    void unknownTensorType_data();
    void unknownTensorType();
    void bitnetI2S();
    void removedTypes_data();
    void removedTypes();
    void openFromDisk();
    void openFailures_data();
    void openFailures();
    void cancel();
};

void TestGgufFileTensors::metadataOnly_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("valid") << sampleModel({}).build();
    // a peek never looks at the tensor infos, so damage there goes unnoticed
    BuiltFile damaged = sampleModel({}).build();
    damaged.setTensorNameLength(0, UINT64_MAX).setTensorType(1, 77);
    QTest::newRow("damaged_tensor_infos") << damaged;
    BuiltFile cut = sampleModel({}).build();
    cut.truncate(cut.layout().metadataEnd);
    QTest::newRow("cut_after_metadata") << cut;
}

void TestGgufFileTensors::metadataOnly()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    OpenOptions options;
    options.metadataOnly = true;
    const auto file = openOk(built, options);
    QVERIFY(file);
    QVERIFY(file->metadataOnly());
    QVERIFY(!file->complete());
    QVERIFY(!file->error());
    QVERIFY(file->tensors().empty());
    QCOMPARE(file->declaredTensorCount(), uint64_t(L.tensors.size()));
    QCOMPARE(file->metadata().size(), L.kvs.size());
    QCOMPARE(file->metadataEnd(), L.metadataEnd);
    QVERIFY(file->findings().empty());
    QCOMPARE(file->architecture(), std::string("llama"));
}

void TestGgufFileTensors::tensorBytes_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<QList<quint64>>("dims");
    QTest::newRow("F32") << id(GgmlType::F32) << QList<quint64>{5, 3};
    QTest::newRow("F16") << id(GgmlType::F16) << QList<quint64>{7};
    QTest::newRow("BF16") << id(GgmlType::BF16) << QList<quint64>{3, 3, 3};
    QTest::newRow("Q4_0") << id(GgmlType::Q4_0) << QList<quint64>{64, 3};
    QTest::newRow("Q8_0") << id(GgmlType::Q8_0) << QList<quint64>{32};
    QTest::newRow("Q4_K") << id(GgmlType::Q4_K) << QList<quint64>{512, 2};
    QTest::newRow("I8") << id(GgmlType::I8) << QList<quint64>{9, 1, 1, 2};
    QTest::newRow("I2_S") << id(GgmlType::I2_S) << QList<quint64>{128, 2};
}

void TestGgufFileTensors::tensorBytes()
{
    QFETCH(uint32_t, type);
    QFETCH(QList<quint64>, dims);
    const std::vector<uint64_t> shape(dims.begin(), dims.end());
    const auto size = GgufBuilder::tensorSize(type, shape);
    QVERIFY(size);
    const std::vector<uint8_t> before = patternBytes(40, 11), data = patternBytes(static_cast<size_t>(*size), type);
    const BuiltFile built = GgufBuilder()
                                .tensor("before", {10}, id(GgmlType::F32), before)
                                .tensor("subject", shape, type, data)
                                .tensor("after", {1}, id(GgmlType::F32), {1, 2, 3, 4})
                                .build();
    const auto file = openOk(built);
    QVERIFY(file);
    const TensorInfo *t = file->findTensor("subject");
    QVERIFY(t);
    const auto span = file->tensorBytes(*t);
    QCOMPARE(span.size(), data.size());
    QVERIFY(std::equal(span.begin(), span.end(), data.begin()));
    QCOMPARE(span.data(), file->source().data() + built.layout().tensor("subject")->dataOffset);
    const auto last = file->tensorBytes(*file->findTensor("after"));
    QCOMPARE(std::vector<uint8_t>(last.begin(), last.end()), (std::vector<uint8_t>{1, 2, 3, 4}));
}

void TestGgufFileTensors::everySizedType_data()
{
    QTest::addColumn<uint32_t>("type");
    for (uint32_t t = 0; t < kGgmlTypeCount; ++t)
        if (GgufBuilder::blockSize(t) != 0)
            QTest::addRow("%s", typeName(t).c_str()) << t;
}

void TestGgufFileTensors::everySizedType()
{
    QFETCH(uint32_t, type);
    const uint64_t block = GgufBuilder::blockSize(type);
    const BuiltFile built = GgufBuilder().tensor("a", {block * 2, 3}, type).tensor("b", {block}, type).build();
    const auto file = openOk(built);
    QVERIFY(file);
    verifyTensors(*file, built.layout());
    QVERIFY(typeName(type).find("unknown") == std::string::npos);
    COMPARE_REFUSALS(*file, std::vector<Refusal>{});
    QVERIFY(file->llamaCppAccepts());
}

void TestGgufFileTensors::unknownTensorType_data()
{
    QTest::addColumn<uint32_t>("type");
    QTest::addColumn<int>("position");
    for (uint32_t t : {77u, 43u, 133u}) {
        QTest::addRow("type_%u_first", t) << t << 0;
        QTest::addRow("type_%u_middle", t) << t << 1;
        QTest::addRow("type_%u_last", t) << t << 2;
    }
}

void TestGgufFileTensors::unknownTensorType()
{
    QFETCH(uint32_t, type);
    QFETCH(int, position);
    GgufBuilder b;
    b.kv("general.architecture", V::str("fork"));
    for (int i = 0; i < 3; ++i) {
        if (i == position)
            b.tensor("mystery", {16, 3}, type, patternBytes(48, 7));
        else
            b.tensor("known_" + std::to_string(i), {8, 2}, id(GgmlType::F32), patternBytes(64, i));
    }
    const BuiltFile built = b.build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    const TensorInfo &m = file->tensors()[position];
    QCOMPARE(typeName(m.typeId), "unknown type " + std::to_string(type));
    QVERIFY(m.sizeInferred);
    QVERIFY(!m.sizeFromType);
    const uint64_t next = position + 1 < 3 ? L.tensors[position + 1].dataOffset : built.size();
    QCOMPARE(m.byteSize, next - L.tensors[position].dataOffset);
    QCOMPARE(m.fileOffset, L.tensors[position].dataOffset);
    QVERIFY(m.dataInFile);
    for (int i = 0; i < 3; ++i) {
        if (i == position)
            continue;
        const TensorInfo &t = file->tensors()[i];
        QCOMPARE(t.fileOffset, L.tensors[i].dataOffset);
        QCOMPARE(t.byteSize, L.tensors[i].dataSize);
        QVERIFY(t.sizeFromType);
    }
    // the unknown type is the only thing llama.cpp would object to
    COMPARE_REFUSALS(*file, (std::vector<Refusal>{{"unknown_tensor_type", L.tensors[position].typeOffset}}));
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFileTensors::bitnetI2S()
{
    const std::vector<uint64_t> shape{256, 3};
    const auto size = GgufBuilder::tensorSize(id(GgmlType::I2_S), shape);
    QVERIFY(size);
    QCOMPARE(*size, uint64_t(256 * 3 / 4 + 32));
    const BuiltFile built = GgufBuilder()
                                .kv("general.architecture", V::str("bitnet"))
                                .tensor("blk.0.ffn_up.weight", shape, id(GgmlType::I2_S), patternBytes(*size, 3))
                                .tensor("blk.0.ffn_norm.weight", {256}, id(GgmlType::F32))
                                .build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    verifyTensors(*file, L);
    QCOMPARE(typeName(file->tensors()[0].typeId), std::string("I2_S"));
    COMPARE_REFUSALS(*file, (std::vector<Refusal>{{"fork_tensor_type", L.tensors[0].typeOffset}}));
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFileTensors::removedTypes_data()
{
    QTest::addColumn<uint32_t>("type");
    for (uint32_t t : {4u, 5u, 31u, 32u, 33u, 37u, 38u})
        QTest::addRow("type_%u", t) << t;
}

void TestGgufFileTensors::removedTypes()
{
    QFETCH(uint32_t, type);
    const BuiltFile built =
        GgufBuilder().tensor("old", {32, 2}, type, patternBytes(40, 1)).tensor("new", {32}, id(GgmlType::Q8_0)).build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    const TensorInfo &t = file->tensors()[0];
    QVERIFY(typeName(type).find("(removed)") != std::string::npos);
    QVERIFY(t.sizeInferred);
    QCOMPARE(t.byteSize, L.tensors[1].dataOffset - L.tensors[0].dataOffset);
    QCOMPARE(file->tensors()[1].byteSize, L.tensors[1].dataSize);
    COMPARE_REFUSALS(*file, (std::vector<Refusal>{{"removed_tensor_type", L.tensors[0].typeOffset}}));
}

void TestGgufFileTensors::openFromDisk()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const BuiltFile built = sampleModel({}).build();
    const std::string path = dir.filePath(QStringLiteral("model.gguf")).toStdString();
    {
        std::ofstream out(path, std::ios::binary);
        out.write(reinterpret_cast<const char *>(built.bytes().data()), static_cast<std::streamsize>(built.size()));
    }
    const OpenResult r = GgufFile::open(path);
    QVERIFY(!r.error);
    QVERIFY(r.file);
    QVERIFY(r.file->source().isMapped());
    QCOMPARE(r.file->path(), path);
    QCOMPARE(r.file->fileSize(), built.size());
    verifyTensors(*r.file, built.layout());
    QCOMPARE(r.file->metadata().size(), built.layout().kvs.size());
}

void TestGgufFileTensors::openFailures_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("kind");
    QTest::newRow("missing") << QStringLiteral("does-not-exist.gguf") << int(ErrorKind::NotFound);
    QTest::newRow("directory") << QStringLiteral("subdir") << int(ErrorKind::Unreadable);
    QTest::newRow("empty_file") << QStringLiteral("empty.gguf") << int(ErrorKind::InvalidMagic);
}

void TestGgufFileTensors::openFailures()
{
    QFETCH(QString, name);
    QFETCH(int, kind);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("subdir")));
    QFile empty(dir.filePath(QStringLiteral("empty.gguf")));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    const OpenResult r = GgufFile::open(dir.filePath(name).toStdString());
    QVERIFY(!r.file);
    QCOMPARE(int(r.error.kind), kind);
    QCOMPARE(r.error.offset, uint64_t(0));
    QVERIFY(!r.error.message.empty());
}

void TestGgufFileTensors::cancel()
{
    GgufBuilder b;
    for (int i = 0; i < 3000; ++i)
        b.kv("key." + std::to_string(i), V::u32(static_cast<uint32_t>(i)));
    const BuiltFile built = b.build();
    uint64_t calls = 0, lastTotal = 0;
    OpenOptions options;
    options.progress = [&](uint64_t, uint64_t total) {
        ++calls;
        lastTotal = total;
        return calls < 2;
    };
    const OpenResult r = GgufFile::openBuffer(built.bytes(), "<built>", options);
    QVERIFY(!r.file);
    QCOMPARE(r.error.kind, ErrorKind::Cancelled);
    QCOMPARE(calls, uint64_t(2));
    QCOMPARE(lastTotal, uint64_t(3000));

    // a progress callback that never cancels sees the whole walk
    calls = 0;
    options.progress = [&](uint64_t done, uint64_t total) {
        ++calls;
        return done <= total;
    };
    const OpenResult ok = GgufFile::openBuffer(built.bytes(), "<built>", options);
    QVERIFY(ok.file);
    QVERIFY(!ok.error);
    QVERIFY(calls >= 2);
}

QTEST_GUILESS_MAIN(TestGgufFileTensors)
#include "tst_gguf_file_tensors.moc"
