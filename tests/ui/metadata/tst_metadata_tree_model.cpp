// SPDX-License-Identifier: GPL-3.0-or-later
// MetadataTreeModel: grouping by namespace, decoded values, token text, byte ranges, and array
// elements that arrive lazily in chunks — always under QAbstractItemModelTester.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_paths.h"
#include "ui/metadata/metadata_tree_model.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QtTest>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const GgufFile> openFile(const QString &path)
{
    OpenResult r = GgufFile::open(path.toStdString());
    return r.file;
}

std::shared_ptr<const GgufFile> openBuilt(const GgufBuilder &builder)
{
    OpenResult r = GgufFile::openBuffer(builder.build().bytes(), "built.gguf");
    return r.file;
}

QModelIndex child(const QAbstractItemModel &model, const QModelIndex &parent, int row, int column = 0)
{
    return model.index(row, column, parent);
}

} // namespace

class TestMetadataTreeModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        m_sample = openFile(gguf::test::sampleModel());
        QVERIFY(m_sample);
    }

    void groupsByNamespace()
    {
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(model.rowCount(), 0);
        model.setFile(m_sample);
        QStringList groups;
        for (int row = 0; row < model.rowCount(); ++row)
            groups << model.index(row, 0).data().toString();
        QCOMPARE(groups, (QStringList{"tokenizer.ggml", "general", "llama", "llama.attention", "llama.rope"}));
        const QModelIndex general = model.index(1, 0);
        QCOMPARE(model.rowCount(general), 5);
        QCOMPARE(general.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(), QStringLiteral("5 keys"));
        QCOMPARE(child(model, general, 0).data().toString(), QStringLiteral("general.architecture"));
        QCOMPARE(child(model, general, 0, MetadataTreeModel::ValueColumn).data().toString(),
                 QStringLiteral("\"llama\""));
        model.setFile(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    // The program's own padding key says what it is (#40), rather than showing a row of zeros.
    void paddingKeyIsTheProgramsOwn()
    {
        GgufBuilder b;
        b.kv("general.name", V::str("x"))
            .kv("gguf_explorer.padding", V::array(ValueType::Uint8, std::vector<BuildValue>(100, V::u8(0))));
        const auto file = openBuilt(b);
        QVERIFY(file);
        MetadataTreeModel model;
        model.setFile(file);
        QModelIndex padding;
        for (int row = 0; row < model.rowCount(); ++row)
            for (int k = 0; k < model.rowCount(model.index(row, 0)); ++k)
                if (child(model, model.index(row, 0), k).data().toString() == QStringLiteral("gguf_explorer.padding"))
                    padding = child(model, model.index(row, 0), k, MetadataTreeModel::ValueColumn);
        QVERIFY(padding.isValid());
        QVERIFY2(padding.data().toString().startsWith(QStringLiteral("GGUF Explorer's own padding: 100 zero bytes")),
                 qPrintable(padding.data().toString()));
        QVERIFY(padding.data(Qt::ToolTipRole).toString().contains(QStringLiteral("llama.cpp ignores this key")));
    }

    void decodedValues_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("type");
        QTest::addColumn<QString>("value");
        QTest::newRow("file_type") << "general.file_type"
                                   << "UINT32"
                                   << "15 (Q4_K_M)";
        QTest::newRow("bos_token_id") << "tokenizer.ggml.bos_token_id"
                                      << "UINT32"
                                      << "1 \"<s>\"";
        QTest::newRow("eos_token_id") << "tokenizer.ggml.eos_token_id"
                                      << "UINT32"
                                      << "2 \"</s>\"";
        QTest::newRow("unknown_token_id") << "tokenizer.ggml.unknown_token_id"
                                          << "UINT32"
                                          << "0 \"<unk>\"";
        QTest::newRow("bool") << "tokenizer.ggml.add_bos_token"
                              << "BOOL"
                              << "true";
        QTest::newRow("float") << "llama.rope.freq_base"
                               << "FLOAT32"
                               << "10000";
        QTest::newRow("string array") << "tokenizer.ggml.tokens"
                                      << "ARRAY[STRING]"
                                      << "[STRING × 32000] \"<unk>\", \"<s>\", \"</s>\", \"<0x00>\", …";
        QTest::newRow("int array") << "tokenizer.ggml.token_type"
                                   << "ARRAY[INT32]"
                                   << "[INT32 × 32000] 2, 3, 3, 6, …";
    }

    void decodedValues()
    {
        QFETCH(QString, key);
        QFETCH(QString, type);
        QFETCH(QString, value);
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(m_sample);
        const QModelIndex index = model.indexOfKey(key);
        QVERIFY(index.isValid());
        QCOMPARE(index.data().toString(), key);
        QCOMPARE(index.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(), type);
        QCOMPARE(index.siblingAtColumn(MetadataTreeModel::ValueColumn).data().toString(), value);
    }

    void enumValues_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<qint64>("number");
        QTest::addColumn<QString>("value");
        QTest::newRow("pooling mean") << "bert.pooling_type" << qint64(1) << "1 (MEAN)";
        QTest::newRow("pooling rank") << "bert.pooling_type" << qint64(4) << "4 (RANK)";
        QTest::newRow("rope scaling yarn") << "llama.rope.scaling.type" << qint64(2) << "2 (YARN)";
        QTest::newRow("gating sigmoid") << "deepseek2.expert_gating_func" << qint64(2) << "2 (SIGMOID)";
        QTest::newRow("file type bf16") << "general.file_type" << qint64(32) << "32 (BF16)";
        QTest::newRow("file type unknown") << "general.file_type" << qint64(99) << "99";
        QTest::newRow("not an enum") << "llama.block_count" << qint64(4) << "4";
    }

    void enumValues()
    {
        QFETCH(QString, key);
        QFETCH(qint64, number);
        QFETCH(QString, value);
        GgufBuilder builder;
        builder.kv(key.toStdString(), V::i32(static_cast<int32_t>(number)));
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(openBuilt(builder));
        QCOMPARE(model.indexOfKey(key).siblingAtColumn(MetadataTreeModel::ValueColumn).data().toString(), value);
    }

    void lazyArrayChildren()
    {
        // Nothing is made until asked for; then one chunk per fetchMore().
        MetadataTreeModel model;
        model.setFile(m_sample);
        const QModelIndex array = model.indexOfKey(QStringLiteral("tokenizer.ggml.tokens"));
        QVERIFY(model.hasChildren(array));
        QCOMPARE(model.rowCount(array), 0);
        QVERIFY(model.canFetchMore(array));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        model.fetchMore(array);
        QCOMPARE(model.rowCount(array), MetadataTreeModel::kFetchChunk);
        while (model.canFetchMore(array))
            model.fetchMore(array);
        QCOMPARE(model.rowCount(array), 32000);
        QCOMPARE(inserted.count(), 32000 / MetadataTreeModel::kFetchChunk);
        const QModelIndex second = model.index(1, MetadataTreeModel::ValueColumn, array);
        QCOMPARE(second.siblingAtColumn(0).data().toString(), QStringLiteral("[1]"));
        QCOMPARE(second.data().toString(), QStringLiteral("\"<s>\""));
        QCOMPARE(second.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(), QStringLiteral("STRING"));
        QCOMPARE(model.parent(second), array);
        QCOMPARE(second.data(MetadataTreeModel::KeyRole).toString(), QStringLiteral("tokenizer.ggml.tokens"));
        // The element's byte range is its string encoding: u64 length + 3 bytes.
        const Value value = m_sample->value("tokenizer.ggml.tokens").array().at(1);
        QCOMPARE(second.data(MetadataTreeModel::ByteOffsetRole).toULongLong(), value.offset());
        QCOMPARE(second.data(MetadataTreeModel::ByteSizeRole).toULongLong(), quint64(8 + 3));
    }

    void lazyChunksUnderTheTester()
    {
        // 2500 elements: two full chunks and a partial one, each checked by the tester as it arrives.
        std::vector<BuildValue> numbers;
        for (uint32_t i = 0; i < 2500; ++i)
            numbers.push_back(V::u32(i * 3));
        GgufBuilder builder;
        builder.kv("test.numbers", V::array(ValueType::Uint32, std::move(numbers)));
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(openBuilt(builder));
        const QModelIndex array = model.indexOfKey(QStringLiteral("test.numbers"));
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        while (model.canFetchMore(array))
            model.fetchMore(array);
        QCOMPARE(model.rowCount(array), 2500);
        QCOMPARE(inserted.count(), 3);
        QCOMPARE(inserted.last().at(1).toInt(), 2000);
        QCOMPARE(inserted.last().at(2).toInt(), 2499);
        QCOMPARE(model.index(2499, MetadataTreeModel::ValueColumn, array).data().toString(), QStringLiteral("7497"));
        QVERIFY(!model.canFetchMore(array));
        model.fetchMore(array); // nothing left: no change
        QCOMPARE(inserted.count(), 3);
    }

    void tokenTypeElementsDecoded_data()
    {
        QTest::addColumn<int>("row");
        QTest::addColumn<QString>("value");
        QTest::newRow("unknown") << 0 << "2 (unknown)";
        QTest::newRow("control") << 1 << "3 (control)";
        QTest::newRow("byte") << 3 << "6 (byte)";
        QTest::newRow("normal") << 999 << "1 (normal)";
    }

    void tokenTypeElementsDecoded()
    {
        QFETCH(int, row);
        QFETCH(QString, value);
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(m_sample);
        const QModelIndex types = model.indexOfKey(QStringLiteral("tokenizer.ggml.token_type"));
        if (model.rowCount(types) == 0)
            model.fetchMore(types);
        QCOMPARE(model.index(row, MetadataTreeModel::ValueColumn, types).data().toString(), value);
    }

    void hugeArrayStaysLazy()
    {
        // 262144 strings: only the chunks asked for become rows.
        std::vector<std::string> strings(262144);
        for (size_t i = 0; i < strings.size(); ++i)
            strings[i] = "token" + std::to_string(i);
        GgufBuilder builder;
        builder.kv("tokenizer.ggml.tokens", V::stringArray(std::move(strings)));
        const auto file = openBuilt(builder);
        QVERIFY(file);
        file->arrayIndex(file->value("tokenizer.ggml.tokens").array()); // the document's worker does this
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QElapsedTimer timer;
        timer.start();
        model.setFile(file);
        const QModelIndex array = model.indexOfKey(QStringLiteral("tokenizer.ggml.tokens"));
        if (model.rowCount(array) == 0)
            model.fetchMore(array);
        QCOMPARE(model.rowCount(array), MetadataTreeModel::kFetchChunk);
        QVERIFY(model.canFetchMore(array));
        QCOMPARE(model.index(999, MetadataTreeModel::ValueColumn, array).data().toString(),
                 QStringLiteral("\"token999\""));
        QVERIFY2(timer.elapsed() < 2000, "showing a huge array must not walk all of it");
    }

    void nestedArrays()
    {
        GgufBuilder builder;
        builder.kv("test.nested", V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(1), V::u8(2)}),
                                                              V::array(ValueType::String, {V::str("x")})}));
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(openBuilt(builder));
        const QModelIndex outer = model.indexOfKey(QStringLiteral("test.nested"));
        QCOMPARE(outer.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(),
                 QStringLiteral("ARRAY[ARRAY]"));
        model.fetchMore(outer);
        QCOMPARE(model.rowCount(outer), 2);
        const QModelIndex first = model.index(0, 0, outer);
        QCOMPARE(first.siblingAtColumn(MetadataTreeModel::TypeColumn).data().toString(),
                 QStringLiteral("ARRAY[UINT8]"));
        model.fetchMore(first);
        QCOMPARE(model.rowCount(first), 2);
        QCOMPARE(model.index(1, MetadataTreeModel::ValueColumn, first).data().toString(), QStringLiteral("2"));
        QCOMPARE(model.parent(model.index(1, 0, first)), first);
        const QModelIndex second = model.index(1, 0, outer);
        model.fetchMore(second);
        QCOMPARE(model.index(0, MetadataTreeModel::ValueColumn, second).data().toString(), QStringLiteral("\"x\""));
    }

    void byteRangeOfEntries()
    {
        MetadataTreeModel model;
        model.setFile(m_sample);
        for (const MetadataEntry &entry : m_sample->metadata()) {
            const QModelIndex index =
                model.indexOfKey(QString::fromUtf8(entry.key.data(), qsizetype(entry.key.size())));
            QVERIFY(index.isValid());
            QCOMPARE(index.data(MetadataTreeModel::ByteOffsetRole).toULongLong(), entry.offset);
            QCOMPARE(index.data(MetadataTreeModel::ByteSizeRole).toULongLong(), entry.end() - entry.offset);
        }
    }

    void longStringsInFull()
    {
        const auto phi3 = openFile(gguf::test::dataPath(u"real/ggml-vocab-phi-3.gguf"));
        QVERIFY(phi3);
        MetadataTreeModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setFile(phi3);
        const QModelIndex index = model.indexOfKey(QStringLiteral("tokenizer.chat_template"));
        QVERIFY(index.isValid());
        const std::string_view stored = phi3->value("tokenizer.chat_template").toStringView();
        const QString full = index.data(MetadataTreeModel::FullTextRole).toString();
        QCOMPARE(full, QString::fromUtf8(stored.data(), qsizetype(stored.size())));
        const QString shown = index.siblingAtColumn(MetadataTreeModel::ValueColumn).data().toString();
        QVERIFY(!shown.contains(u'\n'));
        if (full.size() > 200)
            QVERIFY(shown.endsWith(QStringLiteral("…\"")));
    }

private:
    std::shared_ptr<const GgufFile> m_sample;
};

QTEST_GUILESS_MAIN(TestMetadataTreeModel)
#include "tst_metadata_tree_model.moc"
