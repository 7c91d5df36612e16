// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect split` and `merge` (#45) against gguf-split's layout (llama.cpp
// tools/gguf-split/gguf-split.cpp, docs/EDITING.md §6): names PREFIX-%05d-of-%05d.gguf; split.no
// (UINT16, from 0), split.count (UINT16), split.tensors.count (INT32) in every shard; the model's
// metadata in the first only; the tensors' bytes unchanged and in order. Split then merge gives the
// original metadata (less the split keys) and tensor bytes, compared here key by key and byte by byte.
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace gguf;
using namespace gguf::test;

namespace {

GgufBuilder model()
{
    GgufBuilder b;
    b.kv("general.architecture", V::str("llama"))
        .kv("general.name", V::str("split me"))
        .kv("llama.block_count", V::u32(2))
        .kv("tokenizer.ggml.tokens", V::stringArray({"a", "b", "c"}))
        .kv("llama.rope.freq_base", V::f32(10000.0f));
    std::vector<uint8_t> bytes;
    for (int t = 0; t < 5; ++t) {
        // F32 tensors of 8, 16, … values with distinct contents, and one Q8_0 block
        std::vector<float> values(size_t(8 * (t + 1)));
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = float(t) * 100 + float(i);
        b.tensor("blk." + std::to_string(t / 3) + ".w" + std::to_string(t), {uint64_t(values.size())}, 0,
                 f32Data(values));
    }
    std::vector<uint8_t> q8(34, 7);
    b.tensor("output.weight", {32}, 8, q8);
    return b;
}

std::shared_ptr<const GgufFile> openPath(const QString &path)
{
    return GgufFile::open(path.toStdString()).file;
}

// The bytes of a pair's value, as written.
std::string valueBytes(const GgufFile &f, const MetadataEntry &e)
{
    const auto b = f.bytes(e.typeOffset, e.end() - e.typeOffset);
    return std::string(reinterpret_cast<const char *>(b.data()), b.size());
}

} // namespace

class TestInspectSplit : public QObject {
    Q_OBJECT
private slots:
    void splitThenMerge()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString source = dir.filePath(QStringLiteral("m.gguf"));
        QVERIFY(writeBytes(source, model().build().bytes()));
        const auto original = openPath(source);
        QVERIFY(original);

        // a dry run writes nothing
        InspectRun run = inspect({"split", source, "-o", dir.filePath("s"), "--split-max-tensors", "2", "--dry-run"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);

        run = inspect({"split", source, "-o", dir.filePath("s"), "--split-max-tensors", "2"});
        QCOMPARE(run.exitCode, 0);
        QStringList shards;
        for (int k = 1; k <= 3; ++k)
            shards << dir.filePath(QStringLiteral("s-%1-of-00003.gguf").arg(k, 5, 10, QLatin1Char('0')));
        size_t tensorsSeen = 0;
        for (int k = 0; k < 3; ++k) {
            const auto shard = openPath(shards[k]);
            QVERIFY2(shard, qPrintable(shards[k]));
            QVERIFY(shard->complete());
            QCOMPARE(shard->version(), 3u);
            // the split keys, their types and values
            const auto expectKey = [&](const char *key, ValueType type, uint64_t value) {
                const MetadataEntry *e = shard->findMetadata(key);
                QVERIFY2(e, key);
                QCOMPARE(e->value.type(), type);
                QCOMPARE(e->value.toUInt().value_or(~uint64_t(0)), value);
            };
            expectKey("split.no", ValueType::Uint16, uint64_t(k));
            expectKey("split.count", ValueType::Uint16, 3);
            expectKey("split.tensors.count", ValueType::Int32, 6);
            // the model's metadata in the first shard only, byte for byte
            QCOMPARE(shard->metadata().size(), k == 0 ? original->metadata().size() + 3 : size_t(3));
            if (k == 0)
                for (const MetadataEntry &e : original->metadata()) {
                    const MetadataEntry *copy = shard->findMetadata(e.key);
                    QVERIFY(copy);
                    QCOMPARE(valueBytes(*shard, *copy), valueBytes(*original, e));
                }
            // its tensors: the next ones of the original, bytes unchanged, aligned
            QCOMPARE(shard->tensors().size(), size_t(2)); // 6 tensors, 2 a shard
            for (const TensorInfo &t : shard->tensors()) {
                const TensorInfo &o = original->tensors()[tensorsSeen++];
                QCOMPARE(t.name, o.name);
                QCOMPARE(t.typeId, o.typeId);
                QCOMPARE(t.ne, o.ne);
                QVERIFY(std::ranges::equal(shard->tensorBytes(t), original->tensorBytes(o)));
                QCOMPARE(t.fileOffset % 32, uint64_t(0));
            }
        }
        QCOMPARE(tensorsSeen, original->tensors().size());
        QCOMPARE(inspect({"validate", shards[0]}).exitCode, 0);

        // merge (from any shard): the original's metadata and tensors, no split keys
        const QString merged = dir.filePath(QStringLiteral("merged.gguf"));
        run = inspect({"merge", shards[1], "-o", merged});
        QCOMPARE(run.exitCode, 0);
        const auto back = openPath(merged);
        QVERIFY(back && back->complete());
        QCOMPARE(back->metadata().size(), original->metadata().size());
        for (const MetadataEntry &e : original->metadata()) {
            const MetadataEntry *copy = back->findMetadata(e.key);
            QVERIFY(copy);
            QCOMPARE(valueBytes(*back, *copy), valueBytes(*original, e));
        }
        QVERIFY(!back->findMetadata("split.no"));
        QCOMPARE(back->tensors().size(), original->tensors().size());
        for (size_t i = 0; i < back->tensors().size(); ++i) {
            QCOMPARE(back->tensors()[i].name, original->tensors()[i].name);
            QVERIFY(std::ranges::equal(back->tensorBytes(back->tensors()[i]),
                                       original->tensorBytes(original->tensors()[i])));
        }
        // the same hashes as the original (tensor data only)
        QCOMPARE(inspect({"hash", merged, "--sha256", "--no-layer"}).out.split(' ').value(4),
                 inspect({"hash", source, "--sha256", "--no-layer"}).out.split(' ').value(4));

        // an existing file is never replaced; nothing else is written then
        const QByteArray before = inspect({"hash", merged, "--sha256"}).out;
        run = inspect({"merge", shards[0], "-o", merged});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("exists"), run.err.constData());
        QCOMPARE(inspect({"hash", merged, "--sha256"}).out, before);
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("*.gguf-explorer.tmp")}, QDir::Files | QDir::Hidden).size(),
                 0);
    }

    // --split-max-size: tensors (each padded to 32) up to the size per shard; a larger one alone.
    void bySize()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(QStringLiteral("m.gguf"));
        QVERIFY(writeBytes(source, model().build().bytes()));
        // padded sizes: 32, 64, 96, 128, 160, 64 (the Q8_0 block: 34 → 64)
        const InspectRun run = inspect({"split", source, "-o", dir.filePath("z"), "--split-max-size", "200"});
        QCOMPARE(run.exitCode, 0);
        // 32 + 64 + 96 = 192 | 128 (+ 160 > 200) | 160 (+ 64 > 200) | 64
        QVERIFY2(run.out.contains("z-00001-of-00004.gguf: 3 tensors"), run.out.constData());
        QVERIFY2(run.out.contains("z-00004-of-00004.gguf: 1 tensor"), run.out.constData());
        QCOMPARE(QDir(dir.path()).entryList({QStringLiteral("z-*.gguf")}, QDir::Files).size(), 4);
    }

    void usageAndRefusals()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(QStringLiteral("m.gguf"));
        QVERIFY(writeBytes(source, model().build().bytes()));
        QCOMPARE(inspect({"split", source, "--split-max-tensors", "2"}).exitCode, 2); // no -o
        QCOMPARE(inspect({"split", source, "-o", dir.filePath("a")}).exitCode, 2);    // no limit
        QCOMPARE(inspect({"split", source, "-o", dir.filePath("a"), "--split-max-size", "12X"}).exitCode, 2);
        QCOMPARE(inspect({"merge", source, "-o", dir.filePath("b.gguf")}).exitCode, 1); // not a shard
        // a set with a shard missing is not merged
        QVERIFY(writeBytes(dir.filePath(QStringLiteral("t-00001-of-00002.gguf")), twoFileSplitShard(1)));
        const InspectRun run =
            inspect({"merge", dir.filePath(QStringLiteral("t-00001-of-00002.gguf")), "-o", dir.filePath("c.gguf")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("missing"), run.err.constData());
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("c.gguf"))));
    }
};

QTEST_GUILESS_MAIN(TestInspectSplit)
#include "tst_inspect_split.moc"
