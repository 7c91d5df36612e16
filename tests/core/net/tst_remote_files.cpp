// SPDX-License-Identifier: GPL-3.0-or-later
// Remote files over a real HTTP server on 127.0.0.1 (tests/support/range_server.h): the parse and
// every tensor's bytes equal the local file's, the header costs its own bytes plus at most one
// block, the block cache stays within its cap, and every failure is a clear error.
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/net/http_transport.h"
#include "core/net/ranged_source.h"
#include "core/net/remote_files.h"
#include "core/net/remote_url.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/range_server/range_server.h"
#include "tests/support/test_paths.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

using namespace gguf;
using gguf::test::Fault;
using gguf::test::RangeServer;

namespace {

const std::string kSample = gguf::test::dataPath(u"real/tiny-llama-q4_k_m.gguf").toStdString();
const std::string kVocab = gguf::test::dataPath(u"real/ggml-vocab-deepseek-llm.gguf").toStdString();

net::RemoteOptions quickOptions(uint64_t blockBytes = uint64_t(64) << 10, uint64_t cacheBytes = uint64_t(64) << 20)
{
    net::RemoteOptions o;
    o.cache.blockBytes = blockBytes;
    o.cache.cacheBytes = cacheBytes;
    o.http.backoffMs = 20;
    o.http.retries = 2;
    o.http.stallTimeoutS = 2;
    o.http.connectTimeoutS = 5;
    return o;
}

std::shared_ptr<const GgufFile> openLocal(const std::string &path)
{
    OpenResult r = GgufFile::open(path);
    return r.file;
}

// Everything a parse produced, compared field by field with the local file's.
void compareParses(const GgufFile &remote, const GgufFile &local)
{
    QCOMPARE(remote.fileSize(), local.fileSize());
    QCOMPARE(remote.version(), local.version());
    QCOMPARE(remote.declaredKvCount(), local.declaredKvCount());
    QCOMPARE(remote.declaredTensorCount(), local.declaredTensorCount());
    QCOMPARE(remote.alignment(), local.alignment());
    QCOMPARE(remote.dataOffset(), local.dataOffset());
    QCOMPARE(remote.tensorInfoEnd(), local.tensorInfoEnd());
    QCOMPARE(remote.metadata().size(), local.metadata().size());
    for (size_t i = 0; i < local.metadata().size(); ++i) {
        const MetadataEntry &a = remote.metadata()[i], &b = local.metadata()[i];
        QCOMPARE(a.key, b.key);
        QCOMPARE(a.value.offset(), b.value.offset());
        QCOMPARE(a.value.size(), b.value.size());
        const auto x = remote.bytes(a.value.offset(), a.value.size()),
                   y = local.bytes(b.value.offset(), b.value.size());
        QVERIFY(std::equal(x.begin(), x.end(), y.begin(), y.end()));
    }
    QCOMPARE(remote.tensors().size(), local.tensors().size());
    for (size_t i = 0; i < local.tensors().size(); ++i) {
        const TensorInfo &a = remote.tensors()[i], &b = local.tensors()[i];
        QCOMPARE(a.name, b.name);
        QCOMPARE(a.typeId, b.typeId);
        QCOMPARE(a.fileOffset, b.fileOffset);
        QCOMPARE(a.byteSize, b.byteSize);
        QCOMPARE(a.dataInFile, b.dataInFile);
    }
    QCOMPARE(remote.findings().size(), local.findings().size());
    for (size_t i = 0; i < local.findings().size(); ++i) {
        QCOMPARE(remote.findings()[i].code, local.findings()[i].code);
        QCOMPARE(remote.findings()[i].offset, local.findings()[i].offset);
    }
    QCOMPARE(remote.error().kind, local.error().kind);
}

bool sameBytes(std::span<const uint8_t> a, std::span<const uint8_t> b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace

class TestRemoteFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void parseEqualsLocal_data();
    void parseEqualsLocal();
    void tensorBytesAndStatisticsEqualLocal();
    void cacheStaysWithinItsCap();
    void concurrentLeasesReadTheRightBytes();
    void cancelledFetchLeavesTheSourceUsable();
    void brokenAnswersAreRetried_data();
    void brokenAnswersAreRetried();
    void badAnswersAreRefused_data();
    void badAnswersAreRefused();
    void statusesGiveClearErrors_data();
    void statusesGiveClearErrors();
    void serverIgnoringRange();
    void wholeBodyAnswerToARangedRead();
    void noRetriesStillSaysWhy();
    void redirectsAreFollowedAndBounded();
    void tokenGoesToTheHubOnly();
    void fileChangedOnTheServer();
    void unreachableServer();
    void splitSetFindsItsShards();
    void readWithoutALeaseGetsZerosAndIsMarked();
    void namesAndUrls();
    void hubTokenFromEnvironmentAndFile();
    void damagedHeaderKeepsWhatWasRead();

private:
    RangeServer m_server;
    QTemporaryDir m_dir;
};

void TestRemoteFiles::initTestCase()
{
    // a proxy from the environment must not stand between the test and its own server
    qputenv("no_proxy", "127.0.0.1,localhost");
    qputenv("NO_PROXY", "127.0.0.1,localhost");
    QVERIFY(m_server.start());
    m_server.serve("/sample.gguf", kSample);
    m_server.serve("/vocab.gguf", kVocab);
    net::enableRemoteFiles(quickOptions());
}

void TestRemoteFiles::cleanup()
{
    for (const char *path : {"/sample.gguf", "/vocab.gguf"}) {
        m_server.clearFaults(path);
        m_server.clearStatus(path);
        m_server.requireBearer(path, {});
        m_server.resetValidators(path);
    }
    net::enableRemoteFiles(quickOptions());
}

void TestRemoteFiles::parseEqualsLocal_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("local");
    QTest::addColumn<qulonglong>("block");
    QTest::newRow("model, 64 KiB blocks") << "/sample.gguf" << QString::fromStdString(kSample) << qulonglong(64 << 10);
    QTest::newRow("model, 2 MiB blocks") << "/sample.gguf" << QString::fromStdString(kSample) << qulonglong(2 << 20);
    QTest::newRow("vocabulary (3.8 MB header), 64 KiB blocks")
        << "/vocab.gguf" << QString::fromStdString(kVocab) << qulonglong(64 << 10);
    QTest::newRow("vocabulary, 4 KiB blocks") << "/vocab.gguf" << QString::fromStdString(kVocab) << qulonglong(4096);
}

void TestRemoteFiles::parseEqualsLocal()
{
    QFETCH(QString, path);
    QFETCH(QString, local);
    QFETCH(qulonglong, block);
    net::enableRemoteFiles(quickOptions(block));
    m_server.resetCounters();
    const OpenResult r = GgufFile::open(m_server.url(path.toStdString()));
    QVERIFY2(r.file, r.error.message.c_str());
    QVERIFY(r.file->isRemote());
    const auto l = openLocal(local.toStdString());
    QVERIFY(l);
    compareParses(*r.file, *l);
    // the header's own bytes, rounded up to whole blocks, and nothing else: the parse grows its
    // prefix one block at a time
    const uint64_t header = l->tensorInfoEnd();
    const uint64_t blocks = (header + block - 1) / block;
    QVERIFY2(r.file->source().bytesFetched() <= std::min<uint64_t>(l->fileSize(), blocks * block),
             std::to_string(r.file->source().bytesFetched()).c_str());
    QCOMPARE(m_server.bodyBytesSent(), r.file->source().bytesFetched());
    QCOMPARE(r.file->source().requestCount(), m_server.requestCount());
}

void TestRemoteFiles::tensorBytesAndStatisticsEqualLocal()
{
    const OpenResult r = GgufFile::open(m_server.url("/sample.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    const auto l = openLocal(kSample);
    for (const TensorInfo &t : l->tensors()) {
        const TensorInfo *rt = r.file->findTensor(t.name);
        QVERIFY(rt);
        const TensorData a = tensorData(*r.file, *rt), b = tensorData(*l, t);
        {
            const ElementHold whole(a, 0, a.elements); // the passes fetch theirs chunk by chunk
            QVERIFY2(whole, readError(a) ? readError(a)->message.c_str() : "");
            QVERIFY(sameBytes(a.bytes, b.bytes));
        }
        TensorStatistics sa, sb;
        StatsOptions options;
        QCOMPARE(computeStatistics(a, options, sa), StatsStatus::Ok);
        QCOMPARE(computeStatistics(b, options, sb), StatsStatus::Ok);
        QCOMPARE(sa.min, sb.min);
        QCOMPARE(sa.max, sb.max);
        QCOMPARE(sa.mean, sb.mean);
        QCOMPARE(sa.histogram.counts, sb.histogram.counts);
    }
    // the whole file was fetched once: the header, then each tensor
    QVERIFY(r.file->source().bytesFetched() <= l->fileSize() + (64 << 10));
    QVERIFY(!r.file->source().unleasedRead());
}

void TestRemoteFiles::cacheStaysWithinItsCap()
{
    constexpr uint64_t block = 64 << 10, cap = 8 * block;
    net::RemoteOptions o = quickOptions(block, cap);
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), o, error);
    QVERIFY2(source, error.message.c_str());
    const auto local = openLocal(kSample);
    const uint64_t size = source->size();
    QCOMPARE(size, local->fileSize());
    // read the whole file twice in windows of three blocks: the cache never holds more than its cap
    // beyond what the current lease pins
    for (int pass = 0; pass < 2; ++pass)
        for (uint64_t at = 0; at < size; at += 3 * block) {
            const ByteLease lease = source->acquire(at, 3 * block);
            QVERIFY2(lease, lease.error().message.c_str());
            QVERIFY(sameBytes(lease.bytes(), local->bytes(at, 3 * block)));
            QVERIFY(source->cachedBytes() <= cap + 4 * block);
        }
    QVERIFY(source->cachedBytes() <= cap);
    // evicted blocks were fetched again on the second pass
    QVERIFY(source->bytesFetched() >= 2 * size - cap - block);
}

void TestRemoteFiles::concurrentLeasesReadTheRightBytes()
{
    constexpr uint64_t block = 16 << 10;
    net::RemoteOptions o = quickOptions(block, 32 * block);
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), o, error);
    QVERIFY2(source, error.message.c_str());
    const auto local = openLocal(kSample);
    std::atomic<int> wrong{0}, failed{0};
    std::vector<std::thread> threads;
    threads.reserve(4);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            std::mt19937_64 random(uint64_t(t) * 7919 + 1);
            for (int i = 0; i < 60; ++i) {
                const uint64_t at = random() % source->size();
                const uint64_t n = 1 + random() % (5 * block);
                const ByteLease lease = source->acquire(at, n);
                if (!lease) {
                    ++failed;
                    continue;
                }
                if (!sameBytes(lease.bytes(), local->bytes(at, n)))
                    ++wrong;
            }
        });
    for (std::thread &t : threads)
        t.join();
    QCOMPARE(failed.load(), 0);
    QCOMPARE(wrong.load(), 0);
    QVERIFY(!source->unleasedRead());
    QVERIFY(source->cachedBytes() <= 32 * block);
}

void TestRemoteFiles::cancelledFetchLeavesTheSourceUsable()
{
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), quickOptions(), error);
    QVERIFY(source);
    m_server.addFault("/sample.gguf", Fault::slow(300));
    const ByteLease cancelled = source->acquire(4 << 20, 1 << 20, [](uint64_t, uint64_t) { return false; });
    QVERIFY(!cancelled);
    QCOMPARE(cancelled.error().kind, ErrorKind::Cancelled);
    const ByteLease again = source->acquire(4 << 20, 1 << 20);
    QVERIFY2(again, again.error().message.c_str());
    QVERIFY(sameBytes(again.bytes(), openLocal(kSample)->bytes(4 << 20, 1 << 20)));
}

void TestRemoteFiles::brokenAnswersAreRetried_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("connection dropped mid-body") << int(Fault::Kind::DropMidBody);
    QTest::newRow("shorter range than asked (legal)") << int(Fault::Kind::ShortContentRange);
    QTest::newRow("503 once") << int(Fault::Kind::Status);
    QTest::newRow("body stalls past the timeout") << int(Fault::Kind::StallBody);
}

void TestRemoteFiles::brokenAnswersAreRetried()
{
    QFETCH(int, kind);
    net::RemoteOptions o = quickOptions();
    o.http.stallTimeoutS = 1;
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), o, error);
    QVERIFY(source);
    const auto k = static_cast<Fault::Kind>(kind);
    const Fault fault = k == Fault::Kind::DropMidBody         ? Fault::dropMidBody(1000)
                        : k == Fault::Kind::ShortContentRange ? Fault::shortContentRange(5000)
                        : k == Fault::Kind::Status            ? Fault::withStatus(503)
                                                              : Fault::stallBody(4000);
    m_server.resetCounters();
    m_server.addFault("/sample.gguf", fault);
    const ByteLease lease = source->acquire(1 << 20, 256 << 10);
    QVERIFY2(lease, lease.error().message.c_str());
    QVERIFY(sameBytes(lease.bytes(), openLocal(kSample)->bytes(1 << 20, 256 << 10)));
    QCOMPARE(m_server.requestCount(), uint64_t(2));
}

void TestRemoteFiles::badAnswersAreRefused_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("code");
    QTest::newRow("wrong Content-Range") << int(Fault::Kind::WrongContentRange) << "bad_content_range";
    QTest::newRow("416 on a file that was larger") << int(Fault::Kind::Status) << "changed_on_server";
}

void TestRemoteFiles::badAnswersAreRefused()
{
    QFETCH(int, kind);
    QFETCH(QString, code);
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), quickOptions(), error);
    QVERIFY(source);
    const auto k = static_cast<Fault::Kind>(kind);
    m_server.addFault("/sample.gguf", k == Fault::Kind::Status ? Fault::withStatus(416) : Fault::wrongContentRange(),
                      -1);
    const ByteLease lease = source->acquire(2 << 20, 100);
    QVERIFY(!lease);
    QCOMPARE(QString::fromStdString(lease.error().code), code);
    QVERIFY2(lease.error().message.find(m_server.url("/sample.gguf")) != std::string::npos,
             lease.error().message.c_str());
}

void TestRemoteFiles::statusesGiveClearErrors_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("404") << 404 << int(ErrorKind::NotFound) << "no such file on the server (HTTP 404)";
    QTest::newRow("410") << 410 << int(ErrorKind::NotFound) << "HTTP 410";
    QTest::newRow("401") << 401 << int(ErrorKind::Network) << "HTTP 401 (login required)";
    QTest::newRow("403") << 403 << int(ErrorKind::Network) << "HTTP 403 (forbidden)";
    QTest::newRow("500 after retries") << 500 << int(ErrorKind::Network) << "the server answered HTTP 500";
}

void TestRemoteFiles::statusesGiveClearErrors()
{
    QFETCH(int, status);
    QFETCH(int, kind);
    QFETCH(QString, says);
    m_server.setStatus("/sample.gguf", status);
    m_server.resetCounters();
    const std::string url = m_server.url("/sample.gguf");
    const OpenResult r = GgufFile::open(url);
    QVERIFY(!r.file);
    QCOMPARE(int(r.error.kind), kind);
    QVERIFY2(r.error.message.starts_with(url + ": "), r.error.message.c_str());
    QVERIFY2(r.error.message.find(says.toStdString()) != std::string::npos, r.error.message.c_str());
    // only server errors are tried again (2 retries here)
    QCOMPARE(m_server.requestCount(), uint64_t(status >= 500 ? 3 : 1));
}

void TestRemoteFiles::serverIgnoringRange()
{
    // a small file comes whole, once, and is read from the cache
    m_server.addFault("/vocab.gguf", Fault::ignoreRange(), -1);
    m_server.resetCounters();
    const OpenResult small = GgufFile::open(m_server.url("/vocab.gguf"));
    QVERIFY2(small.file, small.error.message.c_str());
    compareParses(*small.file, *openLocal(kVocab));
    QCOMPARE(m_server.requestCount(), uint64_t(1));
    // a larger one than the limit is refused, not downloaded
    net::RemoteOptions o = quickOptions();
    o.http.wholeFileLimit = 1 << 20;
    net::enableRemoteFiles(o);
    m_server.addFault("/sample.gguf", Fault::ignoreRange(), -1);
    m_server.resetCounters();
    const OpenResult big = GgufFile::open(m_server.url("/sample.gguf"));
    QVERIFY(!big.file);
    QCOMPARE(big.error.code, std::string("range_ignored"));
    QVERIFY2(big.error.message.find("ignores Range") != std::string::npos, big.error.message.c_str());
    QVERIFY(m_server.bodyBytesSent() < openLocal(kSample)->fileSize());
}

void TestRemoteFiles::wholeBodyAnswerToARangedRead()
{
    // opened with ranges, then one answer of the whole file: the bytes asked for are taken from it
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), quickOptions(), error);
    QVERIFY(source);
    m_server.addFault("/sample.gguf", Fault::ignoreRange());
    const uint64_t at = (5 << 20) + 77;
    const ByteLease lease = source->acquire(at, 100000);
    QVERIFY2(lease, lease.error().message.c_str());
    QVERIFY(sameBytes(lease.bytes(), openLocal(kSample)->bytes(at, 100000)));
}

void TestRemoteFiles::noRetriesStillSaysWhy()
{
    net::RemoteOptions o = quickOptions();
    o.http.retries = 0;
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), o, error);
    QVERIFY(source);
    m_server.addFault("/sample.gguf", Fault::withStatus(503));
    const ByteLease lease = source->acquire(3 << 20, 10);
    QVERIFY(!lease);
    QCOMPARE(lease.error().kind, ErrorKind::Network);
    QVERIFY2(lease.error().message.find("HTTP 503") != std::string::npos, lease.error().message.c_str());
    // the next read is not held against it
    QVERIFY(source->acquire(3 << 20, 10));
}

void TestRemoteFiles::redirectsAreFollowedAndBounded()
{
    m_server.redirect("/a.gguf", "/b.gguf", 301);
    m_server.redirect("/b.gguf", m_server.url("/c.gguf"), 307);
    m_server.redirect("/c.gguf", "/sample.gguf", 302);
    const OpenResult r = GgufFile::open(m_server.url("/a.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    compareParses(*r.file, *openLocal(kSample));
    // the next read goes straight to where the redirects led
    m_server.resetCounters();
    const ByteLease lease = r.file->acquire(5 << 20, 10);
    QVERIFY(lease);
    QCOMPARE(m_server.requestCount(), uint64_t(1));
    QCOMPARE(QString::fromStdString(m_server.requests()[0].target), QStringLiteral("/sample.gguf"));

    m_server.redirect("/loop1.gguf", "/loop2.gguf");
    m_server.redirect("/loop2.gguf", "/loop1.gguf");
    const OpenResult loop = GgufFile::open(m_server.url("/loop1.gguf"));
    QVERIFY(!loop.file);
    QCOMPARE(loop.error.code, std::string("too_many_redirects"));
}

void TestRemoteFiles::tokenGoesToTheHubOnly()
{
    // the test server stands in for the hub (HF_ENDPOINT); "localhost" is another host name
    net::RemoteOptions o = quickOptions();
    o.hubEndpoint = m_server.url("");
    o.http.token = "hf_secret";
    net::enableRemoteFiles(o);
    m_server.requireBearer("/owner/repo/resolve/main/model.gguf", "hf_secret");
    m_server.redirect("/owner/repo/resolve/main/model.gguf",
                      "http://localhost:" + std::to_string(m_server.port()) + "/sample.gguf");
    m_server.resetCounters();
    const OpenResult r = GgufFile::open("hf:owner/repo/model.gguf");
    QVERIFY2(r.file, r.error.message.c_str());
    const auto log = m_server.requests();
    QVERIFY(log.size() >= 2);
    QCOMPARE(QString::fromStdString(log[0].authorization), QStringLiteral("Bearer hf_secret"));
    for (size_t i = 1; i < log.size(); ++i)
        QVERIFY2(log[i].authorization.empty(), log[i].target.c_str());
    // a URL on another host, or on another port of the hub's host, gets no token either
    RangeServer other;
    QVERIFY(other.start());
    other.serve("/sample.gguf", kSample);
    for (const std::string &url :
         {"http://localhost:" + std::to_string(m_server.port()) + "/sample.gguf", other.url("/sample.gguf")}) {
        m_server.resetCounters();
        other.resetCounters();
        QVERIFY2(GgufFile::open(url).file, url.c_str());
        for (const auto &request : m_server.requests())
            QVERIFY(request.authorization.empty());
        for (const auto &request : other.requests())
            QVERIFY(request.authorization.empty());
    }
    // without a token, the gated file says how to give one
    o.http.token.clear();
    const auto saved = qgetenv("HF_TOKEN");
    qunsetenv("HF_TOKEN");
    qputenv("HF_TOKEN_PATH", QByteArray("/nonexistent/token"));
    net::enableRemoteFiles(o);
    const OpenResult gated = GgufFile::open("hf:owner/repo/model.gguf@main");
    qunsetenv("HF_TOKEN_PATH");
    if (!saved.isEmpty())
        qputenv("HF_TOKEN", saved);
    QVERIFY(!gated.file);
    QCOMPARE(gated.error.code, std::string("unauthorized"));
    QVERIFY2(gated.error.message.find("HF_TOKEN") != std::string::npos, gated.error.message.c_str());
    m_server.requireBearer("/owner/repo/resolve/main/model.gguf", {});
}

void TestRemoteFiles::fileChangedOnTheServer()
{
    const QString copy = m_dir.filePath(QStringLiteral("changing.gguf"));
    QFile::remove(copy);
    QVERIFY(QFile::copy(QString::fromStdString(kSample), copy));
    m_server.serve("/changing.gguf", copy.toStdString());
    const OpenResult r = GgufFile::open(m_server.url("/changing.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    QVERIFY(!r.file->source().changed());
    // same size, other bytes and another modification time: another ETag
    {
        QFile f(copy);
        QVERIFY(f.open(QIODevice::ReadWrite));
        f.seek(6 << 20);
        f.write(QByteArray(16, 'x'));
        f.flush();
        QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(60), QFileDevice::FileModificationTime));
    }
    const ByteLease lease = r.file->acquire(6 << 20, 16);
    QVERIFY(!lease);
    QCOMPARE(lease.error().code, std::string("changed_on_server"));
    QVERIFY(r.file->source().changed());
    // a server that sends only Last-Modified is watched through it
    m_server.setEtag("/changing.gguf", std::nullopt);
    const OpenResult r2 = GgufFile::open(m_server.url("/changing.gguf"));
    QVERIFY(r2.file);
    {
        QFile f(copy);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(3600), QFileDevice::FileModificationTime));
    }
    QVERIFY(!r2.file->acquire(7 << 20, 16));
    QVERIFY(r2.file->source().changed());
}

void TestRemoteFiles::unreachableServer()
{
    // a port nothing listens on: refused at once, tried again, then a clear message
    RangeServer closed;
    QVERIFY(closed.start());
    const std::string url = closed.url("/x.gguf");
    closed.stop();
    const OpenResult r = GgufFile::open(url);
    QVERIFY(!r.file);
    QCOMPARE(r.error.kind, ErrorKind::Network);
    QVERIFY2(r.error.message.find("cannot connect to 127.0.0.1") != std::string::npos, r.error.message.c_str());
}

void TestRemoteFiles::splitSetFindsItsShards()
{
    // the same file served as both shards of a two-file split: the set opens from either URL
    m_server.serve("/split/m-00001-of-00002.gguf", kSample);
    m_server.serve("/split/m-00002-of-00002.gguf", kSample);
    Error error;
    const auto model = SplitModel::open(m_server.url("/split/m-00002-of-00002.gguf"), error);
    QVERIFY2(model, error.message.c_str());
    QCOMPARE(model->shards().size(), size_t(2));
    QVERIFY(model->shards()[0].file);
    QVERIFY(model->shards()[0].file->isRemote());
    QCOMPARE(model->shards()[0].path, m_server.url("/split/m-00001-of-00002.gguf"));
    // a hub name keeps its revision for the other shards
    const auto shard = parseShardName("hf:o/r/dir/m-00002-of-00003.gguf@v1.2");
    QVERIFY(shard);
    QCOMPARE(shardPath(*shard, 1), std::string("hf:o/r/dir/m-00001-of-00003.gguf@v1.2"));
    QVERIFY(!parseShardName("/models/m-00001-of-00002.gguf@v1"));
}

void TestRemoteFiles::readWithoutALeaseGetsZerosAndIsMarked()
{
    Error error;
    const auto source = net::openRemote(m_server.url("/sample.gguf"), quickOptions(), error);
    QVERIFY(source);
    QVERIFY(!source->unleasedRead());
    // a reader that forgot its lease: zeros, not a crash, and the source remembers
    const auto local = openLocal(kSample);
    const uint64_t at = (8 << 20) + 123;
    QVERIFY(local->bytes(at, 1)[0] != 0 || local->bytes(at + 1, 1)[0] != 0);
    const volatile uint8_t *p = source->data() + at;
    QCOMPARE(int(p[0]) + int(p[1]), 0);
    QVERIFY(source->unleasedRead());
    // peek never fetches: nothing until the bytes are there, then a lease
    m_server.resetCounters();
    const ByteLease early = source->peek(at, 2);
    QVERIFY(!early);
    QCOMPARE(early.error().code, std::string("not_fetched"));
    QCOMPARE(m_server.requestCount(), uint64_t(0));
    // the bytes are right once leased
    const ByteLease lease = source->acquire(at, 2);
    QVERIFY(lease);
    QVERIFY(sameBytes(lease.bytes(), local->bytes(at, 2)));
    const ByteLease later = source->peek(at, 2);
    QVERIFY(later);
    QVERIFY(sameBytes(later.bytes(), local->bytes(at, 2)));
    QCOMPARE(m_server.requestCount(), uint64_t(1));
}

void TestRemoteFiles::namesAndUrls()
{
    Error error;
    auto u = net::parseRemoteUrl("hf:bartowski/Qwen2-7B-GGUF/sub/Qwen2-7B-Q4_K_M.gguf@v1.0", error);
    QVERIFY(u);
    QCOMPARE(u->url,
             std::string("https://huggingface.co/bartowski/Qwen2-7B-GGUF/resolve/v1.0/sub/Qwen2-7B-Q4_K_M.gguf"));
    QVERIFY(u->hub);
    u = net::parseRemoteUrl("hf:owner/repo/model.gguf", error);
    QVERIFY(u);
    QCOMPARE(u->url, std::string("https://huggingface.co/owner/repo/resolve/main/model.gguf"));
    u = net::parseRemoteUrl("https://example.com/m.gguf", error);
    QVERIFY(u);
    QVERIFY(!u->hub);
    for (const char *bad :
         {"hf:owner/model.gguf", "hf:own er/repo/m.gguf", "hf:o/r/../x.gguf", "ftp://h/m.gguf", "http://"}) {
        error = {};
        QVERIFY2(!net::parseRemoteUrl(bad, error), bad);
        QVERIFY(error.message.starts_with(bad));
    }
    QCOMPARE(net::siblingUrl("http://h:81/a/b/m-00001-of-00003.gguf?x=1", "m-00002-of-00003.gguf"),
             std::string("http://h:81/a/b/m-00002-of-00003.gguf"));
    QCOMPARE(net::redactUrl("https://user:pw@cdn.example/x.gguf?X-Amz-Signature=abc"),
             std::string("https://cdn.example/x.gguf"));
    QVERIFY(looksRemote("https://x/y.gguf"));
    QVERIFY(looksRemote("hf:a/b/c.gguf"));
    QVERIFY(!looksRemote("/models/hf:x.gguf"));
}

void TestRemoteFiles::hubTokenFromEnvironmentAndFile()
{
    const auto saved = qgetenv("HF_TOKEN"), home = qgetenv("HOME"), hfHome = qgetenv("HF_HOME");
    qunsetenv("HF_HOME");
    qputenv("HF_TOKEN", "from-env");
    QCOMPARE(net::hubToken(), std::string("from-env"));
    qunsetenv("HF_TOKEN");
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("home/.cache/huggingface"))));
    QFile f(m_dir.filePath(QStringLiteral("home/.cache/huggingface/token")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("  hf_fromfile \n");
    f.close();
    qputenv("HOME", m_dir.filePath(QStringLiteral("home")).toLocal8Bit());
    QCOMPARE(net::hubToken(), std::string("hf_fromfile"));
    qputenv("HOME", home);
    if (!saved.isEmpty())
        qputenv("HF_TOKEN", saved);
    if (!hfHome.isEmpty())
        qputenv("HF_HOME", hfHome);
}

void TestRemoteFiles::damagedHeaderKeepsWhatWasRead()
{
    // a 100 kB string (its text skipped, not read, by the parse), then a pair whose key length the
    // file ends inside: the break is found in the first 4 KiB block, and what was read before it —
    // the string — must stay readable (#21)
    using gguf::test::GgufBuilder;
    using V = gguf::test::BuildValue;
    const std::string text(100000, 'x');
    const auto built = GgufBuilder().kv("long", V::str(text)).kv("next", V::u32(7)).build();
    const uint64_t cut = built.layout().kvs[1].offset + 3;
    QFile out(m_dir.filePath(QStringLiteral("damaged.gguf")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(reinterpret_cast<const char *>(built.bytes().data()), qint64(cut));
    out.close();
    m_server.serve("/damaged.gguf", out.fileName().toStdString());
    net::enableRemoteFiles(quickOptions(4096));
    const OpenResult r = GgufFile::open(m_server.url("/damaged.gguf"));
    QVERIFY(r.file);
    QCOMPARE(r.error.code, std::string("truncated"));
    QVERIFY(r.file->breakage());
    QCOMPARE(r.file->breakage()->fieldOffset, built.layout().kvs[1].offset);
    QCOMPARE(r.file->metadata().size(), size_t(1));
    QCOMPARE(std::string(r.file->metadata()[0].value.toStringView()), text);
    QVERIFY(!r.file->source().unleasedRead());
}

QTEST_GUILESS_MAIN(TestRemoteFiles)
#include "tst_remote_files.moc"
