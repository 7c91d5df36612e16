// SPDX-License-Identifier: GPL-3.0-or-later
// The passes over a remote tensor (statistics, the exact passes, heatmap, export, comparison) over
// a real HTTP server on 127.0.0.1: they fetch and hold one chunk at a time, so a tensor several
// times the block cache's cap is read within it, with the same results as the local file's; a
// network failure in the middle of a pass says what failed, and a cancel stops the fetches.
#include "core/compare/tensor_diff.h"
#include "core/compare/value_diff.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/net/ranged_source.h"
#include "core/net/remote_files.h"
#include "core/quant/dequantize.h"
#include "core/stats/heatmap.h"
#include "core/stats/tensor_export.h"
#include "core/stats/tensor_stats.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/range_server/range_server.h"
#include "tests/support/test_paths.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

using namespace gguf;
using gguf::test::Fault;
using gguf::test::RangeServer;

namespace {

const std::string kSample = gguf::test::dataPath(u"real/tiny-llama-q4_k_m.gguf").toStdString();
constexpr uint64_t kBlock = uint64_t(64) << 10;
constexpr uint64_t kCap = 4 * kBlock; // the sample's two large tensors are 70 and 103 blocks

net::RemoteOptions smallCache()
{
    net::RemoteOptions o;
    o.cache.blockBytes = kBlock;
    o.cache.cacheBytes = kCap;
    o.http.backoffMs = 20;
    o.http.retries = 1;
    o.http.stallTimeoutS = 2;
    o.http.connectTimeoutS = 5;
    return o;
}

// Chunks of about one block, on two workers: each pins at most two blocks at a time.
StatsOptions chunkedOptions()
{
    StatsOptions o;
    o.chunkElements = 65536;
    o.threads = 2;
    return o;
}

std::vector<char> readAll(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

class TestRemotePasses : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void passesReadWithinTheCache_data();
    void passesReadWithinTheCache();
    void failureInThePassSaysWhy();
    void cancelStopsThePass();
    void sampledStatisticsFetchOnlyTheirBlocks();
    void sampledHalvesStayInTheirBlocks();
    void changedTensorsAreCompared();
    void unresolvableHostIsOneClearError();

private:
    RangeServer m_server;
    QTemporaryDir m_dir;
    std::shared_ptr<const GgufFile> m_local;
};

void TestRemotePasses::initTestCase()
{
    qputenv("no_proxy", "127.0.0.1,localhost");
    qputenv("NO_PROXY", "127.0.0.1,localhost");
    QVERIFY(m_server.start());
    m_server.serve("/sample.gguf", kSample);
    net::enableRemoteFiles(smallCache());
    const OpenResult local = GgufFile::open(kSample);
    QVERIFY(local.file);
    m_local = local.file;
}

void TestRemotePasses::cleanup()
{
    m_server.clearFaults("/sample.gguf");
    m_server.clearStatus("/sample.gguf");
}

void TestRemotePasses::passesReadWithinTheCache_data()
{
    QTest::addColumn<QString>("tensor");
    QTest::newRow("Q6_K, 6.7 MB") << "output.weight";
    QTest::newRow("Q4_K, 4.6 MB") << "token_embd.weight";
}

void TestRemotePasses::passesReadWithinTheCache()
{
    QFETCH(QString, tensor);
    const OpenResult r = GgufFile::open(m_server.url("/sample.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    const auto *source = dynamic_cast<const net::RangedSource *>(&r.file->source());
    QVERIFY(source);
    const uint64_t afterOpen = source->cachedBytes(); // the header, held while the file is open
    const TensorInfo *rt = r.file->findTensor(tensor.toStdString());
    const TensorInfo *lt = m_local->findTensor(tensor.toStdString());
    QVERIFY(rt && lt);
    QVERIFY(rt->byteSize > 10 * kCap);
    const TensorData remote = tensorData(*r.file, *rt), local = tensorData(*m_local, *lt);

    // statistics and their exact passes
    TensorStatistics rs, ls;
    const StatsOptions options = chunkedOptions();
    QCOMPARE(computeStatistics(remote, options, rs), StatsStatus::Ok);
    QCOMPARE(refineStatistics(remote, options, rs), StatsStatus::Ok);
    QCOMPARE(computeStatistics(local, options, ls), StatsStatus::Ok);
    QCOMPARE(refineStatistics(local, options, ls), StatsStatus::Ok);
    QCOMPARE(rs.count, ls.count);
    QCOMPARE(rs.min, ls.min);
    QCOMPARE(rs.max, ls.max);
    QCOMPARE(rs.mean, ls.mean);
    QCOMPARE(rs.std, ls.std);
    QCOMPARE(rs.percentiles, ls.percentiles);
    QCOMPARE(rs.histogram.counts, ls.histogram.counts);
    // three passes, and the cache could keep none of the tensor between them
    QVERIFY(source->bytesFetched() >= 3 * rt->byteSize);

    // heatmap
    Heatmap rh, lh;
    HeatmapOptions h;
    h.rows = 64;
    h.cols = 16;
    h.threads = 2;
    QCOMPARE(computeHeatmap(remote, rt->ne[0], h, rh), StatsStatus::Ok);
    QCOMPARE(computeHeatmap(local, lt->ne[0], h, lh), StatsStatus::Ok);
    QCOMPARE(rh.mean, lh.mean);
    QCOMPARE(rh.maxAbs, lh.maxAbs);
    // so far the cache held the header, its cap and what two workers had pinned (a chunk or a band
    // of rows: at most three blocks each), never the whole tensor
    QVERIFY2(source->peakCachedBytes() <= afterOpen + kCap + 6 * kBlock,
             QByteArray::number(qulonglong(source->peakCachedBytes())).constData());

    // export: the same float32 file
    const QString rPath = m_dir.filePath(tensor + ".remote.f32"), lPath = m_dir.filePath(tensor + ".local.f32");
    for (const auto &[data, path] : {std::pair{&remote, rPath}, std::pair{&local, lPath}}) {
        std::FILE *out = std::fopen(path.toLocal8Bit().constData(), "wb");
        QVERIFY(out);
        const std::span<const uint64_t> dims(rt->ne.data(), 2);
        QCOMPARE(exportFloat32(*data, dims, ExportFormat::RawFloat32, out, {}), StatsStatus::Ok);
        QCOMPARE(std::fclose(out), 0);
    }
    QCOMPARE(readAll(rPath).size(), size_t(rt->elements * 4));
    QVERIFY(readAll(rPath) == readAll(lPath));

    // comparison with the local file: values and bytes
    ValueDiffOptions d;
    d.threads = 2;
    ValueDiff diff;
    QCOMPARE(compareValues(remote, local, d, diff), StatsStatus::Ok);
    QCOMPARE(diff.elements, rt->elements);
    QCOMPARE(diff.differing, uint64_t(0));
    QCOMPARE(sameBytes(remote, local, d), std::optional<bool>(true));

    // nothing stays pinned
    QVERIFY(source->cachedBytes() <= std::max(afterOpen, kCap));
    QVERIFY(!readError(remote));
    QVERIFY(!source->unleasedRead());
}

void TestRemotePasses::failureInThePassSaysWhy()
{
    const std::string url = m_server.url("/sample.gguf");
    const OpenResult r = GgufFile::open(url);
    QVERIFY2(r.file, r.error.message.c_str());
    const TensorInfo *t = r.file->findTensor("output.weight");
    QVERIFY(t);
    // the file goes away after it was opened: every pass stops and says so
    m_server.setStatus("/sample.gguf", 404);
    const auto check = [&](const TensorData &data, StatsStatus status) {
        QCOMPARE(status, StatsStatus::NoData);
        const std::optional<Error> e = readError(data);
        QVERIFY(e);
        QCOMPARE(e->kind, ErrorKind::NotFound);
        QVERIFY2(e->message.starts_with(url + ": "), e->message.c_str());
        QVERIFY2(e->message.find("404") != std::string::npos, e->message.c_str());
    };
    {
        const TensorData data = tensorData(*r.file, *t);
        TensorStatistics s;
        check(data, computeStatistics(data, chunkedOptions(), s));
    }
    {
        const TensorData data = tensorData(*r.file, *t);
        Heatmap h;
        check(data, computeHeatmap(data, t->ne[0], {}, h));
    }
    {
        const TensorData data = tensorData(*r.file, *t);
        std::FILE *out = std::fopen(m_dir.filePath("gone.f32").toLocal8Bit().constData(), "wb");
        QVERIFY(out);
        const std::span<const uint64_t> dims(t->ne.data(), 2);
        const StatsStatus status = exportFloat32(data, dims, ExportFormat::RawFloat32, out, {});
        std::fclose(out);
        check(data, status);
    }
    {
        const TensorData data = tensorData(*r.file, *t), local = tensorData(*m_local, *m_local->findTensor(t->name));
        ValueDiff diff;
        check(data, compareValues(local, data, {}, diff));
        QVERIFY(!readError(local));
    }
    {
        // the Compare page's pair: its problem is the message
        const auto a = SplitModel::single(m_local), b = SplitModel::single(r.file);
        std::vector<TensorPair> pairs = matchTensors(*a, *b);
        const auto pair =
            std::find_if(pairs.begin(), pairs.end(), [](const TensorPair &p) { return p.name == "output.weight"; });
        QVERIFY(pair != pairs.end());
        QCOMPARE(compareTensorData(*a, *b, *pair), StatsStatus::NoData);
        QVERIFY2(pair->problem.starts_with(url + ": "), pair->problem.c_str());
        QVERIFY(!pair->valuesCompared);
    }
    QVERIFY(!r.file->source().unleasedRead());
}

void TestRemotePasses::cancelStopsThePass()
{
    const OpenResult r = GgufFile::open(m_server.url("/sample.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    const TensorInfo *t = r.file->findTensor("output.weight");
    QVERIFY(t);
    m_server.addFault("/sample.gguf", Fault::slow(200), -1);
    m_server.resetCounters();
    const TensorData data = tensorData(*r.file, *t);
    StatsOptions options = chunkedOptions();
    int reports = 0;
    options.progress = [&reports](uint64_t, uint64_t) { return ++reports < 2; };
    TensorStatistics s;
    QCOMPARE(computeStatistics(data, options, s), StatsStatus::Cancelled);
    // far fewer requests than the tensor's 103 blocks: the pass stopped
    QVERIFY2(m_server.requestCount() < 20, QByteArray::number(qulonglong(m_server.requestCount())).constData());
    m_server.clearFaults("/sample.gguf");
    // the file is still usable: a new pass over the same tensor completes
    const TensorData again = tensorData(*r.file, *t);
    QCOMPARE(computeStatistics(again, chunkedOptions(), s), StatsStatus::Ok);
    QCOMPARE(s.count, t->elements);
    QVERIFY(!r.file->source().unleasedRead());
}

void TestRemotePasses::sampledStatisticsFetchOnlyTheirBlocks()
{
    const OpenResult r = GgufFile::open(m_server.url("/sample.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    const TensorInfo *t = r.file->findTensor("output.weight"); // Q6_K: 256 values in 210 bytes
    QVERIFY(t);
    const TensorData data = tensorData(*r.file, *t);
    constexpr uint64_t kSampleBytes = 8 * kBlock;
    const std::vector<ElementRange> runs = sampleRuns(data, kSampleBytes);
    QCOMPARE(runs.size(), size_t(8));
    // each run is whole Q6_K blocks inside one block of the cache, and they are spread out
    uint64_t read = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        const uint64_t begin = t->fileOffset + runs[i].first / 256 * 210,
                       end = t->fileOffset + runs[i].last / 256 * 210;
        QCOMPARE(runs[i].first % 256, uint64_t(0));
        QCOMPARE(runs[i].last % 256, uint64_t(0));
        QVERIFY(end > begin);
        QCOMPARE(begin / kBlock, (end - 1) / kBlock);
        if (i > 0)
            QVERIFY(runs[i].first >= runs[i - 1].last + 8 * 65536 / 210 * 256); // ≥ 8 blocks apart
        read += runs[i].last - runs[i].first;
    }
    QVERIFY(runs.back().last > t->elements * 3 / 4);

    const uint64_t bytesBefore = r.file->source().bytesFetched();
    m_server.resetCounters();
    StatsOptions options;
    options.sampleBytes = kSampleBytes;
    TensorStatistics s;
    QCOMPARE(computeStatistics(data, options, s), StatsStatus::Ok);
    QCOMPARE(s.count, t->elements);
    QCOMPARE(s.sampledElements, read);
    QVERIFY(m_server.requestCount() <= runs.size());
    QVERIFY(r.file->source().bytesFetched() - bytesBefore <= runs.size() * kBlock);
    QCOMPARE(refineStatistics(data, options, s), StatsStatus::Unsupported);

    // the figures are those of the values in the runs, decoded here from the local file
    const TensorData local = tensorData(*m_local, *m_local->findTensor(t->name));
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    uint64_t zeros = 0;
    std::vector<float> values;
    for (const ElementRange &run : runs) {
        values.resize(run.last - run.first);
        QVERIFY(dequantizeRange(local.typeId, local.bytes, local.elements, run.first, values));
        for (const float v : values) {
            sum += v;
            lo = std::min<double>(lo, v);
            hi = std::max<double>(hi, v);
            zeros += v == 0.0f;
        }
    }
    QCOMPARE(s.finite, read);
    QCOMPARE(s.min, lo);
    QCOMPARE(s.max, hi);
    QCOMPARE(s.zeros, zeros);
    QVERIFY(std::abs(s.mean - sum / double(read)) <= 1e-12 * std::max(1.0, std::abs(s.mean)));
    QVERIFY(!r.file->source().unleasedRead());

    // a tensor no larger than the sample is read whole
    const TensorInfo *small = r.file->findTensor("blk.0.attn_k.weight");
    QVERIFY(small);
    const TensorData smallData = tensorData(*r.file, *small);
    QVERIFY(sampleRuns(smallData, kSampleBytes).empty());
    QCOMPARE(computeStatistics(smallData, options, s), StatsStatus::Ok);
    QCOMPARE(s.sampledElements, uint64_t(0));
}

void TestRemotePasses::sampledHalvesStayInTheirBlocks()
{
    // F16 values read in place with sampled keys: the runs end on block boundaries, and the
    // scan must not read past them (a read outside a hold is marked by unleasedRead)
    constexpr uint64_t kValues = uint64_t(1) << 20;
    std::vector<uint8_t> halves(kValues * 2);
    std::mt19937 random(11);
    for (uint64_t i = 0; i < kValues; ++i) {
        const uint16_t h = static_cast<uint16_t>(0x3000 + random() % 0x1000); // finite, 2^-3 … 2^-1
        std::memcpy(halves.data() + 2 * i, &h, 2);
    }
    const gguf::test::BuiltFile built =
        gguf::test::GgufBuilder().tensor("halves", {1024, kValues / 1024}, 1 /* F16 */, halves).build();
    const QString path = m_dir.filePath(QStringLiteral("halves.gguf"));
    {
        std::ofstream out(path.toStdString(), std::ios::binary);
        out.write(reinterpret_cast<const char *>(built.bytes().data()), std::streamsize(built.size()));
    }
    m_server.serve("/halves.gguf", path.toStdString());
    const OpenResult r = GgufFile::open(m_server.url("/halves.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    const OpenResult l = GgufFile::open(path.toStdString());
    QVERIFY(l.file);
    const TensorData remote = tensorData(*r.file, r.file->tensors().front());
    StatsOptions options;
    options.sampleBytes = 12 * kBlock;         // 12 runs of 32,768 values
    options.exactKeyElements = 12 * 32768 / 2; // every second key sampled: the in-place scan
    TensorStatistics s;
    QCOMPARE(computeStatistics(remote, options, s), StatsStatus::Ok);
    QVERIFY(s.sampledElements > 0);
    QCOMPARE(s.keySampleStride, uint32_t(2));
    QVERIFY(!r.file->source().unleasedRead());
    // the whole tensor the same way: the figures equal the local file's
    options.sampleBytes = 0;
    TensorStatistics whole, local;
    QCOMPARE(computeStatistics(remote, options, whole), StatsStatus::Ok);
    QCOMPARE(computeStatistics(tensorData(*l.file, l.file->tensors().front()), options, local), StatsStatus::Ok);
    QCOMPARE(whole.mean, local.mean);
    QCOMPARE(whole.percentiles, local.percentiles);
    QVERIFY(!r.file->source().unleasedRead());
}

void TestRemotePasses::changedTensorsAreCompared()
{
    // two layers' tensors of one type and shape, whose bytes differ: the byte comparison finds it,
    // then the values are measured on the same data
    const OpenResult r = GgufFile::open(m_server.url("/sample.gguf"));
    QVERIFY2(r.file, r.error.message.c_str());
    const TensorInfo *a = r.file->findTensor("blk.0.ffn_down.weight");
    const TensorInfo *b = r.file->findTensor("blk.1.ffn_down.weight");
    QVERIFY(a && b);
    QCOMPARE(a->typeId, b->typeId);
    const TensorData da = tensorData(*r.file, *a), db = tensorData(*r.file, *b);
    ValueDiffOptions d;
    d.threads = 2;
    QCOMPARE(sameBytes(da, db, d), std::optional<bool>(false));
    ValueDiff remote;
    QCOMPARE(compareValues(da, db, d, remote), StatsStatus::Ok);
    ValueDiff local;
    QCOMPARE(compareValues(tensorData(*m_local, *m_local->findTensor(a->name)),
                           tensorData(*m_local, *m_local->findTensor(b->name)), d, local),
             StatsStatus::Ok);
    QVERIFY(remote.differing > 0);
    QCOMPARE(remote.differing, local.differing);
    QCOMPARE(remote.sumSqDiff, local.sumSqDiff);
    // and through the Compare page's function, model against model
    const auto ma = SplitModel::single(r.file), mb = SplitModel::single(m_local);
    std::vector<TensorPair> pairs = matchTensors(*ma, *mb);
    TensorPair pair = pairs.front();
    pair.positionB = static_cast<int>(
        std::distance(mb->tensors().begin(),
                      std::find_if(mb->tensors().begin(), mb->tensors().end(), [](const SplitModel::TensorRef &t) {
                          return t.info->name == "blk.1.ffn_down.weight";
                      })));
    pair.positionA = static_cast<int>(
        std::distance(ma->tensors().begin(),
                      std::find_if(ma->tensors().begin(), ma->tensors().end(), [](const SplitModel::TensorRef &t) {
                          return t.info->name == "blk.0.ffn_down.weight";
                      })));
    pair.a = a;
    pair.b = m_local->findTensor("blk.1.ffn_down.weight");
    pair.status = TensorDiffStatus::NotCompared;
    QCOMPARE(compareTensorData(*ma, *mb, pair), StatsStatus::Ok);
    QCOMPARE(pair.status, TensorDiffStatus::Changed);
    QVERIFY(pair.valuesCompared);
    QCOMPARE(pair.values.differing, local.differing);
    QVERIFY(!r.file->source().unleasedRead());
}

void TestRemotePasses::unresolvableHostIsOneClearError()
{
    // ".invalid" never resolves (RFC 6761 §6.4): a DNS failure is not tried again (and no proxy
    // from the environment stands in the way)
    for (const char *proxy : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"})
        qunsetenv(proxy);
    const std::string url = "http://gguf-explorer-test.invalid/model.gguf";
    const OpenResult r = GgufFile::open(url);
    QVERIFY(!r.file);
    QCOMPARE(r.error.kind, ErrorKind::Network);
    QCOMPARE(r.error.code, std::string("dns"));
    QVERIFY2(r.error.message.starts_with(url + ": "), r.error.message.c_str());
    QVERIFY2(r.error.message.find("cannot resolve the host name gguf-explorer-test.invalid") != std::string::npos,
             r.error.message.c_str());
}

QTEST_GUILESS_MAIN(TestRemotePasses)
#include "tst_remote_passes.moc"
