// SPDX-License-Identifier: GPL-3.0-or-later
// Damaged files, continued: a cut at every byte, and claims of impossible sizes, which may not
// make the reader allocate for them (a replaced global allocator measures the largest allocation).
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/corruption_cases.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_printers.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>
#include <set>
#include <string>
#include <vector>

using namespace gguf;
using namespace gguf::test;
using namespace corruption_cases;

// --- the largest single allocation while a probe is active (replaces the global allocator)

namespace {
std::atomic<bool> g_tracking{false};
std::atomic<size_t> g_largest{0};
} // namespace

namespace {
void *trackedAllocate(std::size_t size) noexcept
{
    if (g_tracking.load(std::memory_order_relaxed)) {
        size_t seen = g_largest.load(std::memory_order_relaxed);
        while (size > seen && !g_largest.compare_exchange_weak(seen, size, std::memory_order_relaxed)) {
        }
    }
    return std::malloc(size == 0 ? 1 : size);
}
} // namespace

// Every non-aligned form, so nothing allocated here is released by another allocator.
void *operator new(std::size_t size)
{
    if (void *p = trackedAllocate(size))
        return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t size)
{
    return ::operator new(size);
}
void *operator new(std::size_t size, const std::nothrow_t &) noexcept
{
    return trackedAllocate(size);
}
void *operator new[](std::size_t size, const std::nothrow_t &) noexcept
{
    return trackedAllocate(size);
}
void operator delete(void *p) noexcept
{
    std::free(p);
}
void operator delete[](void *p) noexcept
{
    std::free(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void *p, const std::nothrow_t &) noexcept
{
    std::free(p);
}
void operator delete[](void *p, const std::nothrow_t &) noexcept
{
    std::free(p);
}

namespace {

// No single allocation while opening a damaged file may exceed this.
constexpr size_t kAllocationLimit = size_t(1) << 20;

class AllocationProbe {
public:
    AllocationProbe()
    {
        g_largest = 0;
        g_tracking = true;
    }
    ~AllocationProbe() { g_tracking = false; }
    size_t largest() const { return g_largest.load(); }
};

const std::set<std::string> &truncatedFamily()
{
    static const std::set<std::string> codes{"truncated",           "tensor_count_too_large", "kv_count_too_large",
                                             "key_past_end",        "string_past_end",        "array_count_too_large",
                                             "tensor_name_past_end"};
    return codes;
}

} // namespace

class TestCorruptionSizes : public QObject {
    Q_OBJECT

private slots:
    void truncateEveryByte_data();
    void truncateEveryByte();
    void hugeCounts_data();
    void hugeCounts();
    void hugeCountsInLargeFile_data();
    void hugeCountsInLargeFile();
};

void TestCorruptionSizes::truncateEveryByte_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::addColumn<bool>("acceptedWhole"); // llama.cpp's verdict on the uncut file
    const auto small = [](GgufBuilder b) {
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.block_count", V::u32(2))
            .kv("ids", V::array(ValueType::Int32, {V::i32(1), V::i32(2), V::i32(3)}))
            .kv("tokens", V::stringArray({"a", "bc"}))
            .kv("scale", V::f64(0.5));
        b.tensor("blk.0.w", {4}, id(GgmlType::F32))
            .tensor("blk.1.w", {32}, id(GgmlType::Q8_0))
            .tensor("output", {5}, id(GgmlType::F16));
        return b.build();
    };
    QTest::newRow("v3_little") << small(GgufBuilder()) << true;
    QTest::newRow("v3_big") << small(GgufBuilder().byteOrder(Endian::Big)) << false;
    QTest::newRow("v2_big") << small(GgufBuilder().version(2).byteOrder(Endian::Big)) << false;
    QTest::newRow("v1_little") << small(GgufBuilder().version(1)) << false;
    QTest::newRow("extended_header") << small(GgufBuilder().extendedHeader()) << false;
    QTest::newRow("alignment_1") << small(GgufBuilder().layoutAlignment(1).kv("general.alignment", V::u32(1))) << true;
}

void TestCorruptionSizes::truncateEveryByte()
{
    QFETCH(BuiltFile, built);
    QFETCH(bool, acceptedWhole);
    const Layout &L = built.layout();
    {
        const OpenResult whole = GgufFile::openBuffer(built.bytes(), "<whole>");
        QVERIFY(whole.file && !whole.error && whole.file->complete());
        QCOMPARE(whole.file->llamaCppAccepts(), acceptedWhole);
    }
    for (uint64_t size = 0; size < built.size(); ++size) {
        const std::vector<uint8_t> bytes(built.bytes().begin(),
                                         built.bytes().begin() + static_cast<std::ptrdiff_t>(size));
        const OpenResult r = GgufFile::openBuffer(bytes, "<cut>");
        const QByteArray at = "cut at " + QByteArray::number(qulonglong(size)) + ": " +
                              QByteArray::fromStdString(r.error.code + " @" + std::to_string(r.error.offset));
        if (size < 4) {
            QVERIFY2(!r.file && r.error.kind == ErrorKind::InvalidMagic && r.error.offset == 0, at.constData());
            continue;
        }
        QVERIFY2(r.file, at.constData());
        const GgufFile &file = *r.file;
        // an extended header whose data offset lies past the end is not recognised as one
        const bool headerPart = size < L.tensorInfoEnd || (L.extendedHeader && size < L.dataOffset);
        if (headerPart) {
            QVERIFY2(r.error.kind == ErrorKind::Malformed, at.constData());
            QVERIFY2(truncatedFamily().count(r.error.code) == 1, at.constData());
            QVERIFY2(r.error.offset <= size, at.constData());
            QVERIFY2(!file.complete() && !file.llamaCppAccepts(), at.constData());
            continue;
        }
        // the structure is whole: only tensor data is missing
        QVERIFY2(!r.error && file.complete(), at.constData());
        const std::vector<Refusal> past = dataPastEnd(L, size);
        for (const auto &[code, offset] : past)
            QVERIFY2(hasFinding(file, code, offset), at.constData());
        size_t reported = 0;
        for (const Finding &f : file.findings())
            reported += f.code == "tensor_data_past_end";
        QVERIFY2(reported == past.size(), at.constData());
        if (size < L.dataOffset)
            QVERIFY2(hasFinding(file, "data_offset_past_end", L.tensorInfoEnd), at.constData());
        QVERIFY2(file.llamaCppAccepts() == (acceptedWhole && past.empty() && size >= L.dataOffset), at.constData());
    }
}

void TestCorruptionSizes::hugeCounts_data()
{
    QTest::addColumn<Case>("testCase");
    constexpr uint64_t kFileSize = 1024;
    const BuiltFile full = padded(base().build(), kFileSize);
    const Layout &F = full.layout();
    QVERIFY(F.fileSize <= kFileSize);

    QTest::newRow("tensor_count_2^63") << fatal(BuiltFile(full).setTensorCount(uint64_t(1) << 63), ErrorKind::Malformed,
                                                "tensor_count_too_large", F.tensorCountOffset);
    QTest::newRow("tensor_count_2^40") << fatal(BuiltFile(full).setTensorCount(uint64_t(1) << 40), ErrorKind::Malformed,
                                                "tensor_count_too_large", F.tensorCountOffset);
    QTest::newRow("kv_count_2^63") << fatal(BuiltFile(full).setKvCount(uint64_t(1) << 63), ErrorKind::Malformed,
                                            "kv_count_too_large", F.kvCountOffset);
    QTest::newRow("string_length_2^62") << fatal(BuiltFile(full).setStringLength(2, uint64_t(1) << 62),
                                                 ErrorKind::Malformed, "string_past_end", F.kvs[2].valueOffset);
    QTest::newRow("key_length_2^62") << fatal(BuiltFile(full).setKeyLength(3, uint64_t(1) << 62), ErrorKind::Malformed,
                                              "key_past_end", F.kvs[3].offset);
    QTest::newRow("tensor_name_length_2^62")
        << fatal(BuiltFile(full).setTensorNameLength(0, uint64_t(1) << 62), ErrorKind::Malformed,
                 "tensor_name_past_end", F.tensors[0].infoOffset);
    for (const auto &[name, type] : {std::pair{"uint8", ValueType::Uint8}, std::pair{"float64", ValueType::Float64},
                                     std::pair{"string", ValueType::String}, std::pair{"array", ValueType::Array}}) {
        BuiltFile f(full);
        f.setArrayElementType(3, static_cast<uint32_t>(type)).setArrayCount(3, uint64_t(1) << 40);
        const std::vector<Refusal> nested = type == ValueType::Array
                                                ? std::vector<Refusal>{{"nested_array", F.kvs[3].valueOffset}}
                                                : std::vector<Refusal>{};
        QTest::addRow("array_count_2^40_%s", name)
            << fatal(f, ErrorKind::Malformed, "array_count_too_large", F.kvs[3].countOffset, nested);
    }
    QTest::newRow("n_dims_2^31") << fatal(BuiltFile(full).setTensorNDims(1, 1u << 31), ErrorKind::Malformed,
                                          "truncated", F.tensors[1].dimsOffset,
                                          {{"too_many_dims", F.tensors[1].nDimsOffset}});
    QTest::newRow("dims_2^62") << refused(BuiltFile(full).setTensorDim(1, 0, uint64_t(1) << 62).setTensorDim(1, 1, 4),
                                          {{"dims_overflow", F.tensors[1].dimsOffset}});
}

void TestCorruptionSizes::hugeCounts()
{
    QFETCH(Case, testCase);
    QVERIFY(testCase.bytes.size() <= 1024);
    size_t largest = 0;
    try {
        const AllocationProbe probe;
        const OpenResult r = GgufFile::openBuffer(testCase.bytes, "<huge>");
        largest = probe.largest();
        QVERIFY(r.file || r.error);
    } catch (const std::bad_alloc &) {
        QFAIL(qPrintable(QStringLiteral("an allocation of %1 bytes failed").arg(g_largest.load())));
    }
    QVERIFY2(largest < kAllocationLimit, qPrintable(QStringLiteral("largest allocation %1 bytes").arg(largest)));
    checkCase(testCase);
}

void TestCorruptionSizes::hugeCountsInLargeFile_data()
{
    QTest::addColumn<bool>("tensors");
    QTest::newRow("tensor_count_2^29") << true;
    QTest::newRow("kv_count_2^29") << false;
}

void TestCorruptionSizes::hugeCountsInLargeFile()
{
    // A 16 GiB sparse file can back a claim of 2^29 items, but the first item is broken: nothing
    // may be reserved for the claim before the items are read.
    QFETCH(bool, tensors);
    constexpr uint64_t kSparseSize = uint64_t(16) << 30;
    constexpr uint64_t kClaim = uint64_t(1) << 29;
    GgufBuilder b;
    if (tensors)
        b.tensor("broken", {4}, id(GgmlType::F32)).writtenTensorCount(kClaim);
    else
        b.kv("broken", V::u32(1)).writtenKvCount(kClaim);
    BuiltFile f = b.build();
    const Layout &L = f.layout();
    if (tensors)
        f.setTensorNameLength(0, UINT64_MAX);
    else
        f.setKeyLength(0, UINT64_MAX);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("sparse.gguf"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    QCOMPARE(out.write(reinterpret_cast<const char *>(f.bytes().data()), qint64(f.size())), qint64(f.size()));
    QVERIFY(out.resize(qint64(kSparseSize)));
    out.close();

    size_t largest = 0;
    OpenResult r;
    try {
        const AllocationProbe probe;
        r = GgufFile::open(path.toStdString());
        largest = probe.largest();
    } catch (const std::bad_alloc &) {
        QFAIL(qPrintable(QStringLiteral("an allocation of %1 bytes failed").arg(g_largest.load())));
    }
    QVERIFY2(largest < kAllocationLimit, qPrintable(QStringLiteral("largest allocation %1 bytes").arg(largest)));
    QVERIFY(r.file);
    QCOMPARE(r.error.kind, ErrorKind::Malformed);
    QCOMPARE(r.error.code, std::string(tensors ? "tensor_name_past_end" : "key_past_end"));
    QCOMPARE(r.error.offset, tensors ? L.tensors[0].infoOffset : L.kvs[0].offset);
}

QTEST_GUILESS_MAIN(TestCorruptionSizes)
#include "tst_corruption_sizes.moc"
