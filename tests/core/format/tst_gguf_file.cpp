// SPDX-License-Identifier: GPL-3.0-or-later
// GgufFile on well-formed files: every value type, versions, byte orders, header layouts and alignments.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/gguf_file_checks.h"
#include "tests/support/temp_files.h"
#include "tests/support/test_printers.h"

#include <QtTest>

#include <utility>
#include <vector>

using namespace gguf;
using namespace gguf::test;
using namespace gguf_file_checks;

Q_DECLARE_METATYPE(gguf::test::BuildValue)

namespace {

// Every value type, including edge values and each array element type.
std::vector<std::pair<const char *, BuildValue>> valueCases()
{
    std::vector<std::pair<const char *, BuildValue>> c = {
        {"uint8", V::u8(200)},
        {"int8", V::i8(-100)},
        {"uint16", V::u16(65535)},
        {"int16", V::i16(-32768)},
        {"uint32", V::u32(4294967295u)},
        {"int32", V::i32(INT32_MIN)},
        {"float32", V::f32(3.14159274f)},
        {"float32_negative_zero", V::f32Bits(0x80000000u)},
        {"float32_subnormal", V::f32Bits(0x00000001u)},
        {"float32_inf", V::f32Bits(0x7f800000u)},
        {"float32_nan", V::f32Bits(0x7fc00000u)},
        {"bool_true", V::boolean(true)},
        {"bool_false", V::boolean(false)},
        {"string", V::str("hello GGUF")},
        {"string_empty", V::str("")},
        {"string_utf8", V::str("h\xc3\xa9llo \xe2\x9c\x93 \xf0\x9f\xa6\x99")},
        {"string_control", V::str(std::string("nul\0inside\n", 11))},
        {"uint64", V::u64(UINT64_MAX)},
        {"int64", V::i64(INT64_MIN)},
        {"float64", V::f64(2.7182818284590451)},
        {"float64_negative_zero", V::f64Bits(0x8000000000000000ull)},
        {"float64_nan", V::f64Bits(0x7ff8000000000000ull)},
        {"array_uint8", V::array(ValueType::Uint8, {V::u8(0), V::u8(1), V::u8(255)})},
        {"array_int8", V::array(ValueType::Int8, {V::i8(-128), V::i8(127)})},
        {"array_uint16", V::array(ValueType::Uint16, {V::u16(0), V::u16(32768), V::u16(65535)})},
        {"array_int16", V::array(ValueType::Int16, {V::i16(-32768), V::i16(-1), V::i16(32767)})},
        {"array_uint32", V::array(ValueType::Uint32, {V::u32(0), V::u32(2147483648u), V::u32(4294967295u)})},
        {"array_int32", V::array(ValueType::Int32, {V::i32(INT32_MIN), V::i32(-1), V::i32(INT32_MAX)})},
        {"array_float32",
         V::array(ValueType::Float32, {V::f32(0.5f), V::f32Bits(0x80000000u), V::f32Bits(0xff800000u)})},
        {"array_bool", V::array(ValueType::Bool, {V::boolean(true), V::boolean(false), V::boolean(true)})},
        {"array_string", V::stringArray({"", "a", "\xe2\x96\x81with space", "<|endoftext|>", "line\nbreak"})},
        {"array_uint64", V::array(ValueType::Uint64, {V::u64(0), V::u64(9007199254740993ull), V::u64(UINT64_MAX)})},
        {"array_int64", V::array(ValueType::Int64, {V::i64(INT64_MIN), V::i64(-1), V::i64(INT64_MAX)})},
        {"array_float64", V::array(ValueType::Float64, {V::f64(0.1), V::f64(-2.5), V::f64(1e308)})},
        {"array_empty_int32", V::array(ValueType::Int32, {})},
        {"array_empty_string", V::stringArray({})},
    };
    return c;
}

} // namespace

class TestGgufFile : public QObject {
    Q_OBJECT

private slots:
    void displayStringCutsOnCharacterBoundary();
    void valueRoundTrip_data();
    void valueRoundTrip();
    void versionsAndByteOrders_data();
    void versionsAndByteOrders();
    void swappedMagic_data();
    void swappedMagic();
    void extendedHeader_data();
    void extendedHeader();
    void alignment_data();
    void alignment();
    void emptySections_data();
    void emptySections();
    void zeroSizeDimension();
    void splitSetBreaks();
    void splitSetChecks_data();
    void splitSetChecks();
};

void TestGgufFile::valueRoundTrip_data()
{
    QTest::addColumn<BuildValue>("value");
    QTest::addColumn<Encoding>("encoding");
    const std::pair<const char *, Encoding> encodings[] = {
        {"v3-little", {3, Endian::Little}}, {"v3-big", {3, Endian::Big}}, {"v2-little", {2, Endian::Little}},
        {"v1-little", {1, Endian::Little}}, {"v1-big", {1, Endian::Big}},
    };
    for (const auto &[name, value] : valueCases())
        for (const auto &[encName, enc] : encodings)
            QTest::addRow("%s/%s", name, encName) << value << enc;
}

void TestGgufFile::valueRoundTrip()
{
    QFETCH(BuildValue, value);
    QFETCH(Encoding, encoding);
    // A value between two others, followed by a tensor, so a wrong size would show downstream.
    GgufBuilder b;
    b.version(encoding.version).byteOrder(encoding.order);
    b.kv("general.architecture", V::str("test")).kv("test.value", value).kv("test.after", V::u32(0xDEADBEEF));
    b.tensor("t", {4}, id(GgmlType::F32), patternBytes(16, 9));
    const BuiltFile built = b.build();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->metadata().size(), size_t(3));
    for (size_t i = 0; i < 3; ++i) {
        const BuildValue expected = i == 0 ? V::str("test") : i == 1 ? value : V::u32(0xDEADBEEF);
        const std::string diff = compareEntry(*file, built.layout(), i, expected);
        QVERIFY2(diff.empty(), diff.c_str());
    }
    QCOMPARE(file->findMetadata("test.value"), &file->metadata()[1]);
    QCOMPARE(file->metadataEnd(), built.layout().metadataEnd);
    verifyTensors(*file, built.layout());
    QVERIFY(!file->value("test.value").toDisplayString().empty());
}

void TestGgufFile::displayStringCutsOnCharacterBoundary()
{
    GgufBuilder b;
    b.kv("general.name", V::str("\xC3\xA9\xC3\xA9\xC3\xA9")); // "ééé": 2 bytes per character
    const auto file = openOk(b.build());
    QVERIFY(file);
    // 3 bytes would end inside the second "é": the cut falls back to the first character
    QCOMPARE(file->value("general.name").toDisplayString(3), std::string("\"\xC3\xA9\xE2\x80\xA6\""));
    QCOMPARE(file->value("general.name").toDisplayString(6), std::string("\"\xC3\xA9\xC3\xA9\xC3\xA9\""));
}

void TestGgufFile::versionsAndByteOrders_data()
{
    QTest::addColumn<Encoding>("encoding");
    for (uint32_t v : {1u, 2u, 3u}) {
        QTest::addRow("v%u-little", v) << Encoding{v, Endian::Little};
        QTest::addRow("v%u-big", v) << Encoding{v, Endian::Big};
    }
}

void TestGgufFile::versionsAndByteOrders()
{
    QFETCH(Encoding, encoding);
    const BuiltFile built = sampleModel(encoding).build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->version(), encoding.version);
    QCOMPARE(file->byteOrder(), encoding.order == Endian::Big ? ByteOrder::Big : ByteOrder::Little);
    QCOMPARE(file->headerLayout(), HeaderLayout::Plain);
    QVERIFY(!file->swappedMagic());
    QCOMPARE(file->tensorCountOffset(), L.tensorCountOffset);
    QCOMPARE(file->kvCountOffset(), L.kvCountOffset);
    QCOMPARE(file->headerEnd(), L.headerEnd);
    QCOMPARE(file->declaredKvCount(), uint64_t(L.kvs.size()));
    QCOMPARE(file->declaredTensorCount(), uint64_t(L.tensors.size()));
    QCOMPARE(file->metadataEnd(), L.metadataEnd);
    QCOMPARE(file->tensorInfoEnd(), L.tensorInfoEnd);
    QCOMPARE(file->alignment(), uint64_t(32));
    QCOMPARE(file->dataOffset(), L.dataOffset);
    for (size_t i = 0; i < L.kvs.size(); ++i) {
        QCOMPARE(std::string(file->metadata()[i].key), L.kvs[i].key);
        QCOMPARE(file->metadata()[i].offset, L.kvs[i].offset);
        QCOMPARE(file->metadata()[i].end(), L.kvs[i].end);
    }
    QCOMPARE(file->value("llama.rope.freq_base").toDouble(), std::optional<double>(10000.0));
    QCOMPARE(file->value("tokenizer.ggml.tokens").array().stringAt(3), std::string_view("hello"));
    verifyTensors(*file, L);

    std::vector<Refusal> expected;
    if (encoding.version == 1)
        expected.emplace_back("version_1", L.versionOffset);
    if (encoding.order == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
    QCOMPARE(file->llamaCppAccepts(), expected.empty());
}

void TestGgufFile::swappedMagic_data()
{
    QTest::addColumn<Encoding>("encoding");
    QTest::newRow("little") << Encoding{3, Endian::Little};
    QTest::newRow("big") << Encoding{3, Endian::Big};
}

void TestGgufFile::swappedMagic()
{
    QFETCH(Encoding, encoding);
    const BuiltFile built = sampleModel(encoding).swappedMagic().build();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QVERIFY(file->swappedMagic());
    QCOMPARE(file->byteOrder(), encoding.order == Endian::Big ? ByteOrder::Big : ByteOrder::Little);
    verifyTensors(*file, built.layout());
    std::vector<Refusal> expected{{"swapped_magic", 0}};
    if (encoding.order == Endian::Big)
        expected.emplace_back("byte_swapped", built.layout().versionOffset);
    COMPARE_REFUSALS(*file, expected);
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFile::extendedHeader_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("alignment_32") << sampleModel({}).extendedHeader().build();
    QTest::newRow("alignment_64") << sampleModel({}).layoutAlignment(64).extendedHeader().build();
    QTest::newRow("alignment_8") << sampleModel({}).layoutAlignment(8).extendedHeader().build();
    QTest::newRow("data_offset_1024") << sampleModel({}).extendedHeader(1024).build();
    QTest::newRow("big_endian") << sampleModel({3, Endian::Big}).extendedHeader().build();
}

void TestGgufFile::extendedHeader()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    QVERIFY(L.extendedHeader);
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->headerLayout(), HeaderLayout::Extended);
    QCOMPARE(file->headerEnd(), L.headerEnd);
    QCOMPARE(file->alignment(), L.alignment);
    QCOMPARE(file->dataOffset(), L.dataOffset);
    QCOMPARE(file->metadata().front().offset, L.kvs.front().offset);
    QCOMPARE(file->metadata().size(), L.kvs.size());
    verifyTensors(*file, L);
    std::vector<Refusal> expected{{"extended_header", L.headerAlignmentOffset}};
    if (L.byteOrder == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
}

void TestGgufFile::alignment_data()
{
    QTest::addColumn<uint32_t>("alignment");
    for (uint32_t a : {1u, 2u, 8u, 32u, 64u, 4096u})
        QTest::addRow("alignment_%u", a) << a;
}

void TestGgufFile::alignment()
{
    QFETCH(uint32_t, alignment);
    GgufBuilder b = sampleModel({});
    b.alignment(alignment);
    const BuiltFile built = b.build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QCOMPARE(file->alignment(), uint64_t(alignment));
    QCOMPARE(file->dataOffset(), L.dataOffset);
    QCOMPARE(file->dataOffset() % alignment, uint64_t(0));
    for (const TensorInfo &t : file->tensors())
        QCOMPARE(t.relativeOffset % alignment, uint64_t(0));
    verifyTensors(*file, L);
    COMPARE_REFUSALS(*file, std::vector<Refusal>{});
    QVERIFY(file->llamaCppAccepts());
}

void TestGgufFile::emptySections_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("no_tensors_no_kvs") << GgufBuilder().build();
    QTest::newRow("no_tensors") << GgufBuilder().kv("general.architecture", V::str("llama")).build();
    QTest::newRow("no_kvs") << GgufBuilder().tensor("weight", {8}, id(GgmlType::F32)).build();
    QTest::newRow("no_kvs_big_endian")
        << GgufBuilder().byteOrder(Endian::Big).tensor("weight", {8}, id(GgmlType::F32)).build();
}

void TestGgufFile::emptySections()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    QCOMPARE(file->metadata().size(), L.kvs.size());
    QCOMPARE(file->declaredKvCount(), uint64_t(L.kvs.size()));
    QCOMPARE(file->headerLayout(), HeaderLayout::Plain);
    QCOMPARE(file->dataOffset(), L.dataOffset);
    verifyTensors(*file, L);
    std::vector<Refusal> expected;
    if (L.byteOrder == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
}

void TestGgufFile::zeroSizeDimension()
{
    const BuiltFile built = GgufBuilder()
                                .kv("general.architecture", V::str("llama"))
                                .tensor("empty", {0, 4}, id(GgmlType::F32))
                                .tensor("empty_q", {32, 0}, id(GgmlType::Q4_0))
                                .tensor("after", {8}, id(GgmlType::F32), patternBytes(32, 5))
                                .tensor("scalar", {}, id(GgmlType::F32), patternBytes(4, 6))
                                .build();
    const auto file = openOk(built);
    QVERIFY(file);
    verifyTensors(*file, built.layout());
    QCOMPARE(file->tensors()[0].elements, uint64_t(0));
    QCOMPARE(file->tensors()[0].byteSize, uint64_t(0));
    QCOMPARE(file->tensors()[1].byteSize, uint64_t(0));
    QVERIFY(file->tensorBytes(file->tensors()[0]).empty());
    QCOMPARE(file->tensors()[3].nDims, uint32_t(0));
    QCOMPARE(file->tensors()[3].elements, uint64_t(1));
    QCOMPARE(file->parameterCount(), uint64_t(8 + 1));
    COMPARE_REFUSALS(*file, std::vector<Refusal>{});
    QVERIFY(file->llamaCppAccepts());
}

// SplitModel::outcome() and firstBreak() on a two-file set: whole, with its second shard cut short

namespace {

// Shard `no` (0-based) of a three-file set in gguf-split's layout: split.no, split.count,
// split.tensors.count (u16, u16, i32) and tensor "blk.<no>.w"; the keys and the tensor's name as asked.
std::vector<uint8_t> setShard(uint16_t no, uint16_t count = 3, int32_t tensors = 3, const std::string &tensor = {})
{
    GgufBuilder b;
    if (no == 0)
        b.kv("general.architecture", V::str("llama"));
    b.kv("split.no", V::u16(no)).kv("split.count", V::u16(count)).kv("split.tensors.count", V::i32(tensors));
    b.tensor(tensor.empty() ? "blk." + std::to_string(no) + ".w" : tensor, {32}, 0);
    return b.build().bytes();
}

} // namespace

void TestGgufFile::splitSetChecks_data()
{
    QTest::addColumn<int>("damaged"); // the shard replaced (0-based)
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("says");
    const auto bytes = [](const std::vector<uint8_t> &v) {
        return QByteArray(reinterpret_cast<const char *>(v.data()), qsizetype(v.size()));
    };
    QTest::newRow("empty") << 1 << QByteArray() << "shard_empty"
                           << "is empty (0 bytes)";
    QTest::newRow("lfs pointer") << 2
                                 << QByteArray("version https://git-lfs.github.com/spec/v1\noid sha256:"
                                               "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                                               "size 12345\n")
                                 << "shard_lfs_pointer"
                                 << "is a Git LFS pointer, not the shard: fetch it with git lfs pull";
    QTest::newRow("html page") << 1 << QByteArray("\n<!DOCTYPE html>\n<html><body>Access denied</body></html>")
                               << "shard_html"
                               << "is an HTML page";
    QTest::newRow("another set") << 1 << bytes(setShard(1, 3, 7)) << "shard_other_set"
                                 << "shards of different sets";
    QTest::newRow("split.no") << 2 << bytes(setShard(1)) << "split_no_mismatch"
                              << "split.no is 1, not 2";
    QTest::newRow("split.count") << 1 << bytes(setShard(1, 4)) << "split_count_mismatch"
                                 << "split.count says 4 shards, the set has 3";
    QTest::newRow("duplicated tensor") << 2 << bytes(setShard(2, 3, 3, "blk.0.w")) << "tensor_duplicated"
                                       << "tensor blk.0.w is in shard 1 of 3";
}

// A set checked as a whole (#45): each kind of broken shard is named, with its shard, and the set
// is refused; the whole set is accepted.
void TestGgufFile::splitSetChecks()
{
    QFETCH(int, damaged);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, code);
    QFETCH(QString, says);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto path = [&](int k) {
        return dir.filePath(QStringLiteral("m-%1-of-00003.gguf").arg(k + 1, 5, 10, QLatin1Char('0')));
    };
    for (uint16_t k = 0; k < 3; ++k)
        QVERIFY(writeBytes(path(k), setShard(k)));
    Error error;
    auto model = SplitModel::open(path(0).toStdString(), error);
    QVERIFY(model);
    QVERIFY(model->setFindings().empty());
    QVERIFY(model->llamaCppAccepts());

    QFile f(path(damaged));
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(bytes);
    f.close();
    model = SplitModel::open(path(0).toStdString(), error);
    QVERIFY(model);
    const std::vector<Finding> findings = model->setFindings();
    QVERIFY(!findings.empty());
    const auto it = std::find_if(findings.begin(), findings.end(),
                                 [&](const Finding &x) { return QString::fromStdString(x.code) == code; });
    QVERIFY2(it != findings.end(), qPrintable(QString::fromStdString(findings.front().code)));
    const QString message = QString::fromStdString(it->message);
    QVERIFY2(message.contains(says), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("shard %1 of 3").arg(damaged + 1)) ||
                 message.contains(QStringLiteral("blk.0.w")),
             qPrintable(message));
    QVERIFY(!model->llamaCppAccepts());
    QVERIFY(model->firstRefusal());
}

// (opened from either shard), and not a GGUF at all.
void TestGgufFile::splitSetBreaks()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString first = dir.filePath(QStringLiteral("m-00001-of-00002.gguf"));
    const QString second = dir.filePath(QStringLiteral("m-00002-of-00002.gguf"));
    QVERIFY(writeBytes(first, twoFileSplitShard(1)));
    QVERIFY(writeBytes(second, twoFileSplitShard(2)));
    Error error;
    auto model = SplitModel::open(first.toStdString(), error);
    QVERIFY(model && !error);
    QCOMPARE(SplitModel::outcome(model.get(), error), SplitModel::Outcome::Opened);
    QVERIFY(!model->firstBreak());
    QVERIFY(model->llamaCppAccepts());
    QVERIFY(!model->firstRefusal());
    // an error that is no shard's break refuses the model, though it was returned
    const Error elsewhere{ErrorKind::Malformed, "remote_header_too_large", 12, "the header runs on"};
    QCOMPARE(SplitModel::outcome(model.get(), elsewhere), SplitModel::Outcome::Refused);

    // shard 2 broken in its first pair: magic, version and the two u64 counts take 24 bytes, then
    // the first key's u64 length, made to say 2^40 bytes
    std::vector<uint8_t> broken2 = twoFileSplitShard(2);
    QVERIFY(broken2.size() > 32);
    for (int i = 0; i < 8; ++i)
        broken2[24 + size_t(i)] = i == 5 ? 1 : 0;
    QVERIFY(writeBytes(second, broken2));
    for (const QString &path : {first, second}) {
        model = SplitModel::open(path.toStdString(), error);
        QVERIFY(model);
        // opened from shard 1, the error is shard 1's (none); from shard 2, its break
        QCOMPARE(bool(error), path == second);
        QCOMPARE(SplitModel::outcome(model.get(), error), SplitModel::Outcome::OpenedDamaged);
        const auto broken = model->firstBreak();
        QVERIFY(broken);
        QCOMPARE(broken->shard, size_t(1));
        QCOMPARE(broken->file, model->shards()[1].file.get());
        QVERIFY(broken->file->breakage());
        QCOMPARE(broken->file->breakage()->section, Breakage::Section::Metadata);
        QCOMPARE(model->tensors().size(), size_t(1)); // shard 1's tensor
        // refused for shard 2's break, found inside shard 2
        QVERIFY(!model->llamaCppAccepts());
        const auto refusal = model->firstRefusal();
        QVERIFY(refusal);
        QCOMPARE(refusal->shard, std::optional<size_t>(1));
    }
    // shard 2 gone: refused for the set, not for a file of it
    QVERIFY(QFile::remove(second));
    model = SplitModel::open(first.toStdString(), error);
    QVERIFY(model && !model->llamaCppAccepts());
    const auto missing = model->firstRefusal();
    QVERIFY(missing && !missing->shard);
    QCOMPARE(missing->finding.code, std::string("shard_missing"));

    QVERIFY(writeBytes(first, {'n', 'o', 't', ' ', 'G', 'G', 'U', 'F'}));
    model = SplitModel::open(first.toStdString(), error);
    QVERIFY(!model);
    QCOMPARE(SplitModel::outcome(model.get(), error), SplitModel::Outcome::Refused);
}

QTEST_GUILESS_MAIN(TestGgufFile)
#include "tst_gguf_file.moc"
