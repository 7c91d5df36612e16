// SPDX-License-Identifier: GPL-3.0-or-later
// `split`, `merge` and `set` on a Hugging Face checkpoint (#43): every file written read back here
// with QJsonDocument and plain byte reads (not the explorer's reader) — the safetensors layout (an
// 8-byte little-endian length, a JSON header padded with spaces to a multiple of 8, offsets back to
// back from 0, nothing after the last tensor), each tensor's dtype, shape and bytes equal to the
// original's, transformers' index (weight_map, total_size), `__metadata__`; and what is refused.
#include "tests/support/inspect_run.h"
#include "tests/support/test_paths.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using gguf::test::inspect;

namespace {

const QString kMoe = gguf::test::dataPath(u"hf-oracle/qwen3moe-bf16"); // 3 shards and an index

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A safetensors file read plainly: its header and each tensor's entry and bytes.
struct Read {
    QJsonObject header;
    QMap<QString, QByteArray> bytes;
    QString problem; ///< empty when the layout is right
};

Read readSafetensors(const QString &path)
{
    Read r;
    const QByteArray file = readAll(path);
    if (file.size() < 8)
        return Read{{}, {}, "short"};
    quint64 n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | static_cast<uchar>(file[i]);
    if (n % 8 != 0 || 8 + n > quint64(file.size()))
        return Read{{}, {}, "header length " + QString::number(n)};
    const QByteArray json = file.mid(8, qsizetype(n));
    r.header = QJsonDocument::fromJson(json.trimmed()).object();
    if (r.header.isEmpty() || json.size() - json.trimmed().size() > 7 || !json.startsWith('{'))
        return Read{{}, {}, "header not JSON padded with at most 7 spaces"};
    QList<QPair<qint64, QString>> starts;
    for (auto it = r.header.begin(); it != r.header.end(); ++it)
        if (it.key() != "__metadata__")
            starts.append({it.value().toObject()["data_offsets"].toArray()[0].toInteger(), it.key()});
    std::sort(starts.begin(), starts.end());
    qint64 at = 0;
    for (const auto &[start, name] : starts) {
        const QJsonArray o = r.header[name].toObject()["data_offsets"].toArray();
        if (o[0].toInteger() != at)
            return Read{{}, {}, name + " does not start where the one before ends"};
        at = o[1].toInteger();
        r.bytes[name] = file.mid(qsizetype(8 + n + quint64(o[0].toInteger())), qsizetype(at - o[0].toInteger()));
    }
    if (8 + n + quint64(at) != quint64(file.size()))
        return Read{{}, {}, "bytes after the last tensor"};
    return r;
}

// Every tensor of the original checkpoint (its index's shards): entry and bytes.
Read original()
{
    Read all;
    const QJsonObject map =
        QJsonDocument::fromJson(readAll(kMoe + "/model.safetensors.index.json")).object()["weight_map"].toObject();
    QSet<QString> shards;
    for (const QJsonValue &v : map)
        shards.insert(v.toString());
    for (const QString &shard : shards) {
        const Read r = readSafetensors(kMoe + "/" + shard);
        for (auto it = r.header.begin(); it != r.header.end(); ++it)
            all.header[it.key()] = it.value();
        for (auto it = r.bytes.begin(); it != r.bytes.end(); ++it)
            all.bytes[it.key()] = it.value();
    }
    return all;
}

// Each tensor of `got` has the original's dtype, shape and bytes.
void compareTensors(const Read &got, const Read &want, QStringList names)
{
    for (const QString &name : names) {
        QVERIFY2(got.bytes.contains(name), qPrintable(name));
        QCOMPARE(got.header[name].toObject()["dtype"], want.header[name].toObject()["dtype"]);
        QCOMPARE(got.header[name].toObject()["shape"], want.header[name].toObject()["shape"]);
        QCOMPARE(got.bytes[name], want.bytes[name]);
    }
}

} // namespace

class TestInspectCheckpointWrite : public QObject {
    Q_OBJECT

private slots:
    // split: shards of at most 10 tensors, in the checkpoint's order, and their index
    void split()
    {
        QTemporaryDir dir;
        const QString prefix = dir.filePath("model");
        const auto run = inspect({"split", kMoe, "-o", prefix, "--split-max-tensors", "10"});
        QCOMPARE(run.exitCode, 0);
        const Read want = original();
        QCOMPARE(want.bytes.size(), 45);
        const QJsonObject index = QJsonDocument::fromJson(readAll(prefix + ".safetensors.index.json")).object();
        const QJsonObject map = index["weight_map"].toObject();
        QCOMPARE(map.size(), 45);
        qint64 total = 0;
        int tensors = 0;
        for (int k = 1; k <= 5; ++k) {
            const QString name = QString("model-%1-of-00005.safetensors").arg(k, 5, 10, QChar('0'));
            const Read shard = readSafetensors(dir.filePath(name));
            QVERIFY2(shard.problem.isEmpty(), qPrintable(name + ": " + shard.problem));
            QCOMPARE(shard.bytes.size(), k < 5 ? 10 : 5);
            compareTensors(shard, want, shard.bytes.keys());
            for (auto it = shard.bytes.begin(); it != shard.bytes.end(); ++it) {
                QCOMPARE(map[it.key()].toString(), name);
                total += it.value().size();
            }
            tensors += int(shard.bytes.size());
            // each shard keeps the first original shard's __metadata__
            QCOMPARE(shard.header["__metadata__"].toObject(),
                     readSafetensors(kMoe + "/model-00001-of-00003.safetensors").header["__metadata__"].toObject());
        }
        QCOMPARE(tensors, 45);
        QCOMPARE(index["metadata"].toObject()["total_size"].toInteger(), total);
        QVERIFY(!QFile::exists(dir.filePath("model-00006-of-00005.safetensors")));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 6); // no temporary left
        // the explorer reads them back as the same checkpoint
        const auto check = inspect({"validate", prefix + ".safetensors.index.json"});
        QCOMPARE(check.exitCode, 0);
    }

    // split by size: no shard over the limit unless one tensor alone is
    void splitBySize()
    {
        QTemporaryDir dir;
        const auto run = inspect({"split", kMoe, "-o", dir.filePath("m"), "--split-max-size", "20000"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject map = QJsonDocument::fromJson(readAll(dir.filePath("m.safetensors.index.json")))
                                    .object()["weight_map"]
                                    .toObject();
        QSet<QString> shards;
        for (const QJsonValue &v : map)
            shards.insert(v.toString());
        QVERIFY(shards.size() >= 3);
        for (const QString &shard : shards) {
            const Read r = readSafetensors(dir.filePath(shard));
            QVERIFY(r.problem.isEmpty());
            qint64 bytes = 0;
            for (const QByteArray &b : r.bytes)
                bytes += b.size();
            QVERIFY2(bytes <= 20000 || r.bytes.size() == 1, qPrintable(shard));
        }
    }

    // merge: the three shards as one file, every tensor as it was
    void merge()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath("merged.safetensors");
        auto run = inspect({"merge", kMoe + "/model.safetensors.index.json", "-o", out, "--dry-run"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(!QFile::exists(out));
        run = inspect({"merge", kMoe, "-o", out});
        QCOMPARE(run.exitCode, 0);
        const Read merged = readSafetensors(out);
        QVERIFY2(merged.problem.isEmpty(), qPrintable(merged.problem));
        const Read want = original();
        QCOMPARE(merged.bytes.size(), want.bytes.size());
        compareTensors(merged, want, want.bytes.keys());
        // never over an existing file; one file is not merged
        const QByteArray before = readAll(out);
        run = inspect({"merge", kMoe, "-o", out});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("exists"), run.err.constData());
        QCOMPARE(readAll(out), before);
        run = inspect({"merge", out, "-o", dir.filePath("again.safetensors")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("one file already"), run.err.constData());
    }

    // set: __metadata__ changed, added and removed; the tensors' bytes as they were; in place the
    // file keeps its permissions, with -o the original is untouched
    void setMetadata()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("one.safetensors");
        QVERIFY(QFile::copy(gguf::test::dataPath(u"hf-oracle/llama-bf16/model.safetensors"), file));
        QVERIFY(QFile::setPermissions(file, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup));
        const Read want = readSafetensors(file);
        QVERIFY(want.problem.isEmpty());
        auto run = inspect({"set", file, "format=mlx", "note=a \"quoted\"\nline", "--in-place"});
        QCOMPARE(run.exitCode, 0);
        Read got = readSafetensors(file);
        QVERIFY2(got.problem.isEmpty(), qPrintable(got.problem));
        QJsonObject meta = want.header["__metadata__"].toObject();
        meta["format"] = "mlx";
        meta["note"] = "a \"quoted\"\nline";
        QCOMPARE(got.header["__metadata__"].toObject(), meta);
        compareTensors(got, want, want.bytes.keys());
        QCOMPARE(QFile::permissions(file), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup |
                                               QFileDevice::ReadUser | QFileDevice::WriteUser);
        const QByteArray edited = readAll(file);
        const QString copy = dir.filePath("copy.safetensors");
        run = inspect({"set", file, "--remove", "note", "-o", copy, "--json"});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject report = QJsonDocument::fromJson(run.out).object();
        QCOMPARE(report["in_place"].toBool(), false);
        QCOMPARE(report["removed"].toInt(), 1);
        QCOMPARE(readAll(file), edited);
        meta.remove("note");
        QCOMPARE(readSafetensors(copy).header["__metadata__"].toObject(), meta);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2); // no temporary left
        // through a symbolic link: the file it names is edited, the link stays a link
        const QString link = dir.filePath("link.safetensors");
        QVERIFY(QFile::link(copy, link));
        run = inspect({"set", link, "via=link", "--in-place"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(QFileInfo(link).isSymLink());
        QCOMPARE(readSafetensors(copy).header["__metadata__"].toObject()["via"].toString(), QStringLiteral("link"));
    }

    // What is refused leaves everything as it was.
    void refusals()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("one.safetensors");
        QVERIFY(QFile::copy(gguf::test::dataPath(u"hf-oracle/llama-bf16/model.safetensors"), file));
        QVERIFY(QFile::setPermissions(file, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
        const QByteArray before = readAll(file);
        auto run = inspect({"set", file, "--remove", "nothing-like-it", "--in-place"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("no such key"), run.err.constData());
        run = inspect({"set", file, "a=b", "--type", "a=STRING", "--in-place"});
        QCOMPARE(run.exitCode, 2);
        run = inspect({"set", kMoe, "a=b", "-o", dir.filePath("x.safetensors")});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("name the shard"), run.err.constData());
        // a cut shard: the checkpoint is damaged, nothing is split
        const QString cut = dir.filePath("cut.safetensors");
        QFile c(cut);
        QVERIFY(c.open(QIODevice::WriteOnly));
        c.write(before.left(before.size() - 100));
        c.close();
        run = inspect({"split", cut, "-o", dir.filePath("s"), "--split-max-tensors", "4"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("damaged"), run.err.constData());
        QCOMPARE(readAll(file), before);
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 2);
    }
};

QTEST_GUILESS_MAIN(TestInspectCheckpointWrite)
#include "tst_inspect_checkpoint_write.moc"
