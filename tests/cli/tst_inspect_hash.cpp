// SPDX-License-Identifier: GPL-3.0-or-later
// `gguf-inspect hash` (#45) against llama-gguf-hash's format (llama.cpp examples/gguf-hash: lines
// "%-8s  %s  %s", per tensor in header order xxh64, sha1, sha256, then the model's xxh64, sha1,
// sha256, uuid; docs/HASH.md). Expected digests: SHA-1, SHA-256 and the UUIDv5 from Qt
// (QCryptographicHash, QUuid::createUuidV5) over the bytes the test wrote; XXH64 values from
// `xxhsum -H64` (xxhash 0.8.1, Debian) on the same bytes, written down here.
#include "tests/support/gguf_builder.h"
#include "tests/support/inspect_run.h"
#include "tests/support/kind_samples.h"
#include "tests/support/temp_files.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <QtEndian>

using namespace gguf::test;

namespace {

// token_embd [1, 2, 3, 4] and output [0.5, -1], F32
const QByteArray kEmbd = QByteArray::fromHex("0000803f000000400000404000008040");
const QByteArray kOutput = QByteArray::fromHex("0000003f000080bf");

GgufBuilder sample(const char *name)
{
    GgufBuilder b;
    b.kv("general.architecture", V::str("llama")).kv("general.name", V::str(name));
    b.tensor("token_embd.weight", {4}, 0, f32Data({1, 2, 3, 4})).tensor("output.weight", {2}, 0, f32Data({0.5f, -1}));
    return b;
}

QString hexOf(const QByteArray &bytes, QCryptographicHash::Algorithm a)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, a).toHex());
}

QString line(const char *kind, const QString &digest, const QString &name)
{
    return QStringLiteral("%1  %2  %3").arg(QLatin1String(kind), -8).arg(digest, name);
}

} // namespace

class TestInspectHash : public QObject {
    Q_OBJECT
private slots:
    void linesAsLlamaGgufHash()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("model.gguf"));
        QVERIFY(writeBytes(file, sample("a").build().bytes()));
        const InspectRun run = inspect({"hash", file, "--all", "--uuid"});
        QCOMPARE(run.exitCode, 0);
        const QByteArray both = kEmbd + kOutput;
        const QUuid ns(QStringLiteral("ef001206-dadc-5f6d-a15f-3359e577d4e5"));
        const QStringList expected{
            line("xxh64", "646eb9ab3acb69dd", file + ":token_embd.weight"),
            line("sha1", hexOf(kEmbd, QCryptographicHash::Sha1), file + ":token_embd.weight"),
            line("sha256", hexOf(kEmbd, QCryptographicHash::Sha256), file + ":token_embd.weight"),
            line("xxh64", "83b9d4e891c60132", file + ":output.weight"),
            line("sha1", hexOf(kOutput, QCryptographicHash::Sha1), file + ":output.weight"),
            line("sha256", hexOf(kOutput, QCryptographicHash::Sha256), file + ":output.weight"),
            line("xxh64", "8e1fe96f3e139e2d", file),
            line("sha1", hexOf(both, QCryptographicHash::Sha1), file),
            line("sha256", hexOf(both, QCryptographicHash::Sha256), file),
            line("uuid", QUuid::createUuidV5(ns, both).toString(QUuid::WithoutBraces), file)};
        QCOMPARE(QString::fromUtf8(run.out).split(u'\n', Qt::SkipEmptyParts), expected);
        // the default is xxh64; --no-layer keeps the model's lines only
        QCOMPARE(QString::fromUtf8(inspect({"hash", file}).out).split(u'\n', Qt::SkipEmptyParts),
                 (QStringList{expected[0], expected[3], expected[6]}));
        QCOMPARE(QString::fromUtf8(inspect({"hash", file, "--sha256", "--no-layer"}).out).trimmed(), expected[8]);
    }

    // The metadata is not hashed: another general.name gives the same lines.
    void metadataLeavesThem()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("m.gguf")), b = dir.filePath(QStringLiteral("n/m.gguf"));
        QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("n"))));
        QVERIFY(writeBytes(a, sample("first").build().bytes()));
        QVERIFY(writeBytes(b, sample("a much longer name, moving the data").build().bytes()));
        const InspectRun ra = inspect({"hash", "m.gguf", "--all"}, dir.path());
        const InspectRun rb = inspect({"hash", "m.gguf", "--all"}, dir.filePath(QStringLiteral("n")));
        QCOMPARE(ra.exitCode, 0);
        QCOMPARE(ra.out, rb.out);
    }

    // --check: a manifest of sha256 lines; one flipped bit in output.weight is named, exit 1.
    void checkFindsAFlippedBit()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("model.gguf"));
        const BuiltFile built = sample("a").build();
        QVERIFY(writeBytes(file, built.bytes()));
        const QString manifest = dir.filePath(QStringLiteral("model.manifest"));
        QFile out(manifest);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(inspect({"hash", file, "--sha256", "--xxh64"}).out);
        out.close();
        InspectRun ok = inspect({"hash", file, "--check", manifest});
        QCOMPARE(ok.exitCode, 0);
        // the strongest kind of the manifest, as llama-gguf-hash picks it
        QVERIFY(ok.out.contains("sha256"));
        QVERIFY(!ok.out.contains("xxh64"));
        QCOMPARE(ok.out.count("  -  Ok"), 3);
        QVERIFY(ok.out.contains("Verification results for " + manifest.toUtf8() + " - Success"));

        std::vector<uint8_t> bytes = built.bytes();
        bytes[built.layout().tensor("output.weight")->dataOffset + 3] ^= 0x01;
        QVERIFY(writeBytes(file, bytes));
        const InspectRun bad = inspect({"hash", file, "--check", manifest});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY(bad.out.contains(":token_embd.weight  -  Ok"));
        QVERIFY(bad.out.contains(":output.weight  -  Mismatch"));
        QVERIFY(bad.out.contains(file.toUtf8() + "  -  Mismatch"));
        QVERIFY(bad.err.contains("differs from the manifest: output.weight"));
        QVERIFY(!bad.err.contains("token_embd"));
        // the same manifest checks a copy under another name (tensors matched by name)
        const QString copy = dir.filePath(QStringLiteral("copy.gguf"));
        QVERIFY(writeBytes(copy, built.bytes()));
        QCOMPARE(inspect({"hash", copy, "--check", manifest}).exitCode, 0);
        // a manifest that cannot be read
        QCOMPARE(inspect({"hash", file, "--check", dir.filePath(QStringLiteral("none"))}).exitCode, 1);
    }

    // A tensor of several MiB (each chunk's hashers then run on two threads): the same digests.
    void largeTensor()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("big.gguf"));
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"));
        std::vector<float> values(size_t(3) << 20); // 12 MiB of F32
        for (size_t i = 0; i < values.size(); ++i)
            values[i] = float(i % 977) * 0.25f;
        b.tensor("token_embd.weight", {uint64_t(values.size())}, 0, f32Data(values));
        QVERIFY(writeBytes(file, b.build().bytes()));
        const QByteArray data(reinterpret_cast<const char *>(values.data()), qsizetype(values.size() * sizeof(float)));
        const InspectRun run = inspect({"hash", file, "--all", "--uuid"});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = QString::fromUtf8(run.out).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 7);
        const QUuid ns(QStringLiteral("ef001206-dadc-5f6d-a15f-3359e577d4e5"));
        QCOMPARE(lines[1], line("sha1", hexOf(data, QCryptographicHash::Sha1), file + ":token_embd.weight"));
        QCOMPARE(lines[2], line("sha256", hexOf(data, QCryptographicHash::Sha256), file + ":token_embd.weight"));
        QCOMPARE(lines[4], line("sha1", hexOf(data, QCryptographicHash::Sha1), file));
        QCOMPARE(lines[5], line("sha256", hexOf(data, QCryptographicHash::Sha256), file));
        QCOMPARE(lines[6], line("uuid", QUuid::createUuidV5(ns, data).toString(QUuid::WithoutBraces), file));
        QCOMPARE(lines[0].split(u' ', Qt::SkipEmptyParts).value(1), lines[3].split(u' ', Qt::SkipEmptyParts).value(1));
    }

    // A split set hashes as one model: the model's lines are those of the shards' tensors in order.
    void splitSetAsOne()
    {
        QTemporaryDir dir;
        const QString first = dir.filePath(QStringLiteral("m-00001-of-00002.gguf"));
        QVERIFY(writeBytes(first, twoFileSplitShard(1)));
        QVERIFY(writeBytes(dir.filePath(QStringLiteral("m-00002-of-00002.gguf")), twoFileSplitShard(2)));
        const InspectRun run = inspect({"hash", first, "--sha256"});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = QString::fromUtf8(run.out).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 3);
        QVERIFY(lines[0].endsWith(QStringLiteral(":blk.1.w")));
        QVERIFY(lines[1].endsWith(QStringLiteral(":blk.2.w")));
        const auto digestOf = [](const QString &l) { return l.split(u' ', Qt::SkipEmptyParts).value(1); };
        // both tensors are zero-filled F32 of 32 values
        const QByteArray zeros(128, '\0');
        QCOMPARE(digestOf(lines[0]), hexOf(zeros, QCryptographicHash::Sha256));
        QCOMPARE(digestOf(lines[2]), hexOf(zeros + zeros, QCryptographicHash::Sha256));
    }

    // A Hugging Face checkpoint (#43): each tensor's bytes as its shard holds them (located here
    // from the shard's own JSON header), then all of them as one model; --check names a flipped
    // byte's tensor.
    void checkpoint()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString source = dataPath(u"hf-oracle/llama-f32");
        for (const char *f : {"config.json", "model.safetensors"})
            QVERIFY(QFile::copy(source + u'/' + QLatin1String(f), dir.filePath(QLatin1String(f))));
        const QString shard = dir.filePath(QStringLiteral("model.safetensors"));
        QByteArray bytes = readFile(shard);
        const quint64 length = qFromLittleEndian<quint64>(bytes.constData());
        const QJsonObject header = QJsonDocument::fromJson(bytes.mid(8, qsizetype(length))).object();
        const auto tensorBytes = [&](const QByteArray &file, const QString &name) {
            const QJsonArray at = header[name].toObject()["data_offsets"].toArray();
            return file.mid(qsizetype(8 + length + at[0].toInteger()),
                            qsizetype(at[1].toInteger() - at[0].toInteger()));
        };
        const InspectRun run = inspect({"hash", dir.path(), "--sha256"});
        QCOMPARE(run.exitCode, 0);
        const QStringList lines = QString::fromUtf8(run.out).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), header.size()); // every tensor (the header less __metadata__) and the model
        QByteArray all;
        for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
            const QString name = lines[i].section(QStringLiteral(":"), -1);
            QVERIFY2(header.contains(name), qPrintable(name));
            const QByteArray data = tensorBytes(bytes, name);
            all += data;
            QCOMPARE(lines[i], line("sha256", hexOf(data, QCryptographicHash::Sha256), dir.path() + u':' + name));
        }
        QCOMPARE(lines.back(), line("sha256", hexOf(all, QCryptographicHash::Sha256), dir.path()));

        const QString manifest = dir.filePath(QStringLiteral("m.manifest"));
        QVERIFY(writeBytes(manifest, run.out));
        const QString flipped = QStringLiteral("model.layers.1.mlp.down_proj.weight");
        const QJsonArray at = header[flipped].toObject()["data_offsets"].toArray();
        bytes[qsizetype(8 + length + at[0].toInteger() + 5)] ^= 0x01;
        QVERIFY(writeBytes(shard, bytes));
        const InspectRun check = inspect({"hash", dir.path(), "--check", manifest});
        QCOMPARE(check.exitCode, 1);
        QVERIFY2(check.err.contains(flipped.toUtf8()), check.err.constData());
        QCOMPARE(check.out.count("Mismatch"), 2); // the tensor and the model
    }
};

QTEST_GUILESS_MAIN(TestInspectHash)
#include "tst_inspect_hash.moc"
