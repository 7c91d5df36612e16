// SPDX-License-Identifier: GPL-3.0-or-later
// ByteMap: the regions of built files cover every byte in order, and every field the builder
// recorded is found under the right kind; a file cut short ends in an `unparsed` region.
#include "core/format/byte_map.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/built_file_metatype.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/test_printers.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace gguf;
using namespace gguf::test;

namespace {

uint32_t id(GgmlType t)
{
    return static_cast<uint32_t>(t);
}

// Keys of every value type, arrays of every element type and a nested array.
GgufBuilder &addEveryValueType(GgufBuilder &b)
{
    return b.kv("general.architecture", V::str("llama"))
        .kv("u8", V::u8(1))
        .kv("i8", V::i8(-1))
        .kv("u16", V::u16(2))
        .kv("i16", V::i16(-2))
        .kv("u32", V::u32(3))
        .kv("i32", V::i32(-3))
        .kv("f32", V::f32(0.5f))
        .kv("bool", V::boolean(true))
        .kv("string", V::str("text"))
        .kv("empty_string", V::str(""))
        .kv("u64", V::u64(4))
        .kv("i64", V::i64(-4))
        .kv("f64", V::f64(0.25))
        .kv("arr_u8", V::array(ValueType::Uint8, {V::u8(1), V::u8(2)}))
        .kv("arr_i16", V::array(ValueType::Int16, {V::i16(1)}))
        .kv("arr_f32", V::array(ValueType::Float32, {V::f32(1), V::f32(2)}))
        .kv("arr_bool", V::array(ValueType::Bool, {V::boolean(false)}))
        .kv("arr_string", V::stringArray({"a", "", "bcd"}))
        .kv("arr_u64", V::array(ValueType::Uint64, {V::u64(1)}))
        .kv("arr_f64", V::array(ValueType::Float64, {V::f64(1)}))
        .kv("arr_empty", V::array(ValueType::Int32, {}))
        .kv("arr_nested", V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(9)}), V::stringArray({"x"})}));
}

GgufBuilder &addTensors(GgufBuilder &b)
{
    return b.tensor("token_embd.weight", {64, 3}, id(GgmlType::Q8_0))
        .tensor("blk.0.attn_norm.weight", {5}, id(GgmlType::F32))
        .tensor("blk.0.ffn.weight", {256, 2}, id(GgmlType::Q4_K))
        .tensor("empty", {0, 3}, id(GgmlType::F32))
        .tensor("output.weight", {7}, id(GgmlType::F16));
}

GgufBuilder model()
{
    GgufBuilder b;
    addEveryValueType(b);
    addTensors(b);
    return b;
}

// The regions start at 0, follow each other without gaps or overlaps and end at the file size.
void verifyCoverage(const ByteMap &map, uint64_t fileSize)
{
    uint64_t covered = 0;
    for (const Region &r : map.regions()) {
        QCOMPARE(r.offset, covered);
        QVERIFY(r.size > 0);
        QVERIFY(!map.label(r).empty());
        covered = r.end();
    }
    QCOMPARE(covered, fileSize);
    QVERIFY(map.regionAt(fileSize) == nullptr);
}

void expectRegion(const ByteMap &map, uint64_t offset, RegionKind kind, uint32_t item, const char *what)
{
    const Region *r = map.regionAt(offset);
    QVERIFY2(r, what);
    QVERIFY2(r->offset <= offset && offset < r->end(), what);
    QVERIFY2(r->kind == kind, qPrintable(QStringLiteral("%1 at %2: %3, expected %4")
                                             .arg(QLatin1String(what))
                                             .arg(offset)
                                             .arg(QString::fromUtf8(regionKindName(r->kind).data()),
                                                  QString::fromUtf8(regionKindName(kind).data()))));
    QVERIFY2(r->item == item, what);
}

} // namespace

class TestByteMap : public QObject {
    Q_OBJECT

private slots:
    void fields_data();
    void fields();
    void metadataOnly();
    void truncated_data();
    void truncated();
};

void TestByteMap::fields_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("every_value_type_and_tensors") << model().build();
    QTest::newRow("big_endian") << model().byteOrder(Endian::Big).build();
    QTest::newRow("v1") << model().version(1).build();
    QTest::newRow("extended_header") << model().extendedHeader().build();
    QTest::newRow("extended_header_data_offset_4096") << model().extendedHeader(4096).build();
    QTest::newRow("alignment_1") << model().alignment(1).build();
    QTest::newRow("alignment_256") << model().alignment(256).build();
    {
        GgufBuilder b;
        addEveryValueType(b);
        QTest::newRow("no_tensors") << b.build();
    }
    {
        GgufBuilder b;
        addTensors(b);
        QTest::newRow("no_keys") << b.build();
    }
    {
        GgufBuilder b = model();
        b.tensor("mystery", {16}, 77, std::vector<uint8_t>(40, 0xAB)).tensor("last", {8}, id(GgmlType::F32));
        QTest::newRow("unknown_type_tensor") << b.build();
    }
    QTest::newRow("trailing_bytes") << model().trailingBytes(77).build();
}

void TestByteMap::fields()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    const OpenResult r = GgufFile::openBuffer(built.bytes(), "<built>");
    QVERIFY(r.file);
    QVERIFY(!r.error);
    const GgufFile &file = *r.file;
    const ByteMap map(file);
    verifyCoverage(map, built.size());

    expectRegion(map, 0, RegionKind::Magic, 0, "magic");
    expectRegion(map, L.versionOffset, RegionKind::Version, 0, "version");
    expectRegion(map, L.tensorCountOffset, RegionKind::TensorCount, 0, "tensor count");
    expectRegion(map, L.kvCountOffset + L.lenSize - 1, RegionKind::KvCount, 0, "kv count");
    if (L.extendedHeader) {
        expectRegion(map, L.headerAlignmentOffset, RegionKind::HeaderAlignment, 0, "header alignment");
        expectRegion(map, L.headerDataOffsetOffset, RegionKind::HeaderDataOffset, 0, "header data offset");
    }
    for (uint32_t i = 0; i < L.kvs.size(); ++i) {
        const KvLayout &k = L.kvs[i];
        expectRegion(map, k.offset, RegionKind::KeyLength, i, "key length");
        expectRegion(map, k.keyOffset, RegionKind::Key, i, "key");
        expectRegion(map, k.typeOffset, RegionKind::ValueType, i, "value type");
        if (k.type == static_cast<uint32_t>(ValueType::Array)) {
            expectRegion(map, k.valueOffset, RegionKind::ArrayType, i, "array type");
            expectRegion(map, k.countOffset, RegionKind::ArrayCount, i, "array count");
            if (k.end > k.elementsOffset) {
                expectRegion(map, k.elementsOffset, RegionKind::ArrayElements, i, "array elements");
                expectRegion(map, k.end - 1, RegionKind::ArrayElements, i, "array elements end");
            }
        } else {
            expectRegion(map, k.valueOffset, RegionKind::Value, i, "value");
            expectRegion(map, k.end - 1, RegionKind::Value, i, "value end");
        }
    }
    for (uint32_t i = 0; i < L.tensors.size(); ++i) {
        const TensorLayout &t = L.tensors[i];
        expectRegion(map, t.infoOffset, RegionKind::TensorNameLength, i, "tensor name length");
        expectRegion(map, t.nameOffset, RegionKind::TensorName, i, "tensor name");
        expectRegion(map, t.nDimsOffset, RegionKind::TensorNDims, i, "n_dims");
        expectRegion(map, t.dimsOffset, RegionKind::TensorDims, i, "dims");
        expectRegion(map, t.typeOffset, RegionKind::TensorType, i, "tensor type");
        expectRegion(map, t.offsetFieldOffset, RegionKind::TensorOffset, i, "tensor offset");
        expectRegion(map, t.infoEnd - 1, RegionKind::TensorOffset, i, "tensor offset end");
        const uint64_t size = file.tensors()[i].byteSize;
        if (size > 0) {
            expectRegion(map, t.dataOffset, RegionKind::TensorData, i, "tensor data");
            expectRegion(map, t.dataOffset + size - 1, RegionKind::TensorData, i, "tensor data end");
        }
    }
    if (!L.tensors.empty() && L.dataOffset > L.tensorInfoEnd) {
        expectRegion(map, L.tensorInfoEnd, RegionKind::Padding, 0, "padding before the data");
        expectRegion(map, L.dataOffset - 1, RegionKind::Padding, 0, "padding before the data (end)");
    }
    // everything between and after the tensors is padding or unclaimed
    for (const Region &region : map.regions())
        if (region.offset >= L.dataOffset && !L.tensors.empty())
            QVERIFY(region.kind == RegionKind::TensorData || region.kind == RegionKind::Padding ||
                    region.kind == RegionKind::Unused);
}

void TestByteMap::metadataOnly()
{
    const BuiltFile built = model().build();
    const Layout &L = built.layout();
    OpenOptions options;
    options.metadataOnly = true;
    const OpenResult r = GgufFile::openBuffer(built.bytes(), "<peek>", options);
    QVERIFY(r.file);
    const ByteMap map(*r.file);
    verifyCoverage(map, built.size());
    const KvLayout &last = L.kvs.back();
    const bool array = last.type == static_cast<uint32_t>(ValueType::Array);
    expectRegion(map, last.end - 1, array ? RegionKind::ArrayElements : RegionKind::Value, uint32_t(L.kvs.size() - 1),
                 "last value");
    const Region &tail = map.regions().back();
    QCOMPARE(tail.kind, RegionKind::Unparsed);
    QCOMPARE(tail.offset, L.metadataEnd);
}

void TestByteMap::truncated_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::newRow("v3_little") << model().build();
    QTest::newRow("v3_big") << model().byteOrder(Endian::Big).build();
    QTest::newRow("v1") << model().version(1).build();
    QTest::newRow("extended_header") << model().extendedHeader().build();
}

void TestByteMap::truncated()
{
    QFETCH(BuiltFile, built);
    const Layout &L = built.layout();
    // where a field starts: reading can only stop at one of these
    // (a cut extended header, whose data offset then lies past the end, reads as a plain one: its
    // first key would start right after the counts)
    std::set<uint64_t> fields{L.versionOffset, L.tensorCountOffset, L.kvCountOffset, L.kvCountOffset + L.lenSize};
    for (const KvLayout &k : L.kvs) {
        fields.insert({k.offset, k.keyOffset, k.typeOffset, k.valueOffset});
        if (k.type == static_cast<uint32_t>(ValueType::Array))
            fields.insert({k.countOffset, k.elementsOffset});
        fields.insert(k.elementOffsets.begin(), k.elementOffsets.end());
    }
    for (const TensorLayout &t : L.tensors)
        fields.insert({t.infoOffset, t.nameOffset, t.nDimsOffset, t.dimsOffset, t.typeOffset});
    for (uint64_t size = 4; size < built.size(); ++size) {
        const std::vector<uint8_t> bytes(built.bytes().begin(),
                                         built.bytes().begin() + static_cast<std::ptrdiff_t>(size));
        const OpenResult r = GgufFile::openBuffer(bytes, "<cut>");
        QVERIFY(r.file);
        const ByteMap map(*r.file);
        const QByteArray at = "cut at " + QByteArray::number(qulonglong(size));
        verifyCoverage(map, size);
        const auto &regions = map.regions();
        const Region &tail = regions.back();
        if (r.error) {
            // the structure stops early at a field: from there on, the field that broke (as far as
            // the file has it), then at most one unparsed tail
            const Breakage *broken = r.file->breakage();
            QVERIFY2(broken && broken->fieldOffset == r.error.offset, at.constData());
            // (inside an array of arrays, the builder records only the outer elements)
            const bool nested = std::any_of(L.kvs.begin(), L.kvs.end(), [&](const KvLayout &k) {
                return k.type == static_cast<uint32_t>(ValueType::Array) && k.elementsOffset <= r.error.offset &&
                       r.error.offset < k.end;
            });
            QVERIFY2((fields.count(r.error.offset) == 1 || nested) && r.error.offset <= size,
                     (at + " " + QByteArray::fromStdString(r.error.message)).constData());
            size_t k = 0;
            while (k < regions.size() && regions[k].offset < r.error.offset) {
                QVERIFY2(regions[k].kind != RegionKind::Unparsed && regions[k].kind != RegionKind::Broken,
                         at.constData());
                ++k;
            }
            if (r.error.offset < size) {
                QVERIFY2(k < regions.size() && regions[k].kind == RegionKind::Broken &&
                             regions[k].offset == r.error.offset,
                         at.constData());
                // after it: the header fields read together with it (a count too large is only
                // found once both counts are read), then at most one unparsed tail
                for (size_t j = k + 1; j < regions.size(); ++j) {
                    const RegionKind kind = regions[j].kind;
                    const bool headerField = kind == RegionKind::KvCount || kind == RegionKind::HeaderAlignment ||
                                             kind == RegionKind::HeaderDataOffset;
                    QVERIFY2((headerField && broken->section == Breakage::Section::Header) ||
                                 (kind == RegionKind::Unparsed && j + 1 == regions.size()),
                             at.constData());
                }
            } else {
                QVERIFY2(k == regions.size(), at.constData());
            }
            // what parsed is exactly what the prefix holds: the pairs and tensor infos that end
            // inside it, each where the builder wrote it (the item being read is the next one)
            const auto md = r.file->metadata();
            QVERIFY2(md.size() <= L.kvs.size(), at.constData());
            for (size_t i = 0; i < md.size(); ++i) {
                QVERIFY2(md[i].offset == L.kvs[i].offset && md[i].key == L.kvs[i].key && L.kvs[i].end <= size,
                         at.constData());
                QVERIFY2(md[i].end() == L.kvs[i].end, at.constData());
            }
            const auto ts = r.file->tensors();
            for (size_t i = 0; i < ts.size(); ++i)
                QVERIFY2(ts[i].infoOffset == L.tensors[i].infoOffset && ts[i].name == L.tensors[i].name &&
                             ts[i].infoEnd == L.tensors[i].infoEnd && L.tensors[i].infoEnd <= size,
                         at.constData());
            const bool sameLayout = (r.file->headerLayout() == HeaderLayout::Extended) == L.extendedHeader;
            if (!sameLayout) {
                QVERIFY2(md.empty() && ts.empty(), at.constData());
            } else if (broken->section == Breakage::Section::Metadata) {
                QVERIFY2(broken->index == md.size() && broken->offset == L.kvs[md.size()].offset &&
                             L.kvs[md.size()].end > size,
                         at.constData());
                if (broken->nameRead())
                    QVERIFY2(broken->entry.key == L.kvs[md.size()].key, at.constData());
            } else if (broken->section == Breakage::Section::TensorInfos) {
                QVERIFY2(md.size() == L.kvs.size() && broken->index == ts.size() &&
                             broken->offset == L.tensors[ts.size()].infoOffset && L.tensors[ts.size()].infoEnd > size,
                         at.constData());
                if (broken->nameRead()) {
                    QVERIFY2(broken->tensor.name == L.tensors[ts.size()].name, at.constData());
                    // a name read before the break names no tensor
                    QVERIFY2(r.file->findTensor(broken->tensor.name) == nullptr, at.constData());
                }
            }
        } else {
            // only tensor data is missing: the tail is cut tensor data or padding
            QVERIFY2(size >= L.tensorInfoEnd, at.constData());
            QVERIFY2(tail.kind != RegionKind::Unparsed, at.constData());
        }
        if (size < L.tensorInfoEnd)
            QVERIFY2(r.error, at.constData());
    }
}

QTEST_GUILESS_MAIN(TestByteMap)
#include "tst_byte_map.moc"
