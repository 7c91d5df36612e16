// SPDX-License-Identifier: GPL-3.0-or-later
// Safetensors headers against the rules of the reference implementation (huggingface/safetensors:
// read_metadata and Metadata::validate; docs/SAFETENSORS.md): files written here byte by byte, with
// every expected offset found in the bytes by the test itself.
#include "core/safetensors/safetensors_file.h"

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cstring>
#include <fstream>

using namespace gguf;
using namespace gguf::st;

namespace {

// A file: the 8-byte little-endian length, the header text, then `data` (or `dataBytes` zero bytes).
std::vector<uint8_t> fileOf(const std::string &header, const std::vector<uint8_t> &data)
{
    std::vector<uint8_t> out(8);
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i, n >>= 8)
        out[static_cast<size_t>(i)] = static_cast<uint8_t>(n & 0xff);
    out.insert(out.end(), header.begin(), header.end());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

std::vector<uint8_t> zeros(size_t n)
{
    return std::vector<uint8_t>(n, 0);
}

// The file offset of the first `needle` in the header (which starts at byte 8).
uint64_t at(const std::string &header, const std::string &needle, size_t from = 0)
{
    const size_t i = header.find(needle, from);
    return i == std::string::npos ? UINT64_MAX : 8 + i;
}

const Finding *findingOf(const SafetensorsFile &f, const std::string &code)
{
    const auto it =
        std::find_if(f.findings().begin(), f.findings().end(), [&](const Finding &x) { return x.code == code; });
    return it == f.findings().end() ? nullptr : &*it;
}

} // namespace

class TestSafetensorsFile : public QObject {
    Q_OBJECT

private slots:
    void everyDtype()
    {
        // the dtypes and element sizes the format defines
        const std::vector<std::pair<std::string, uint32_t>> expected = {
            {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E5M2", 1}, {"F8_E4M3", 1}, {"I16", 2}, {"U16", 2}, {"F16", 2},
            {"BF16", 2}, {"I32", 4}, {"U32", 4}, {"F32", 4},     {"F64", 8},     {"I64", 8}, {"U64", 8}};
        for (const auto &[name, size] : expected) {
            const auto d = dtypeFromName(name);
            QVERIFY2(d, name.c_str());
            QCOMPARE(std::string(dtypeName(*d)), name);
            QCOMPARE(dtypeSize(*d), size);
        }
        QVERIFY(!dtypeFromName("F4"));
        QVERIFY(!dtypeFromName("f32"));
    }

    void referenceSerializerLayout()
    {
        // what the reference implementation's own serializer writes for one F32 tensor [1, 2, 3]
        // holding 0 … 5: the header padded with spaces to a multiple of 8, then the data
        std::string header = R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
        header.append((8 - header.size() % 8) % 8, ' ');
        std::vector<uint8_t> data;
        for (int i = 0; i < 6; ++i) {
            const float v = static_cast<float>(i);
            uint8_t b[4];
            std::memcpy(b, &v, 4);
            data.insert(data.end(), b, b + 4);
        }
        const auto r = SafetensorsFile::openBuffer(fileOf(header, data), "attn.safetensors");
        QVERIFY(r.file && !r.error);
        const SafetensorsFile &f = *r.file;
        QCOMPARE(f.headerLength(), 64u);
        QCOMPARE(f.dataOffset(), 72u);
        QVERIFY(f.referenceAccepts());
        QVERIFY(f.findings().empty());
        QCOMPARE(f.tensors().size(), 1u);
        const TensorEntry &t = f.tensors()[0];
        QCOMPARE(t.name, std::string("attn.0"));
        QCOMPARE(t.dtype, Dtype::F32);
        QCOMPARE(t.shape, (std::vector<uint64_t>{1, 2, 3}));
        QCOMPARE(t.elements, 6u);
        QCOMPARE(t.begin, 0u);
        QCOMPARE(t.end, 24u);
        QCOMPARE(t.fileBegin, 72u);
        QVERIFY(t.dataInFile);
        QCOMPARE(t.nameOffset, at(header, "\"attn.0\""));
        QCOMPARE(t.entryOffset, at(header, "{\"dtype\""));
        QCOMPARE(f.parameterCount(), 6u);
        float third;
        std::memcpy(&third, f.source().data() + t.fileBegin + 8, 4);
        QCOMPARE(third, 2.0f);
    }

    void metadataAndSeveralTensors()
    {
        const std::string header = R"({"__metadata__":{"format":"pt","note":"é"},)"
                                   R"("b":{"dtype":"BF16","shape":[4],"data_offsets":[8,16]},)"
                                   R"("a":{"dtype":"I64","shape":[],"data_offsets":[0,8]},)"
                                   R"("c":{"dtype":"BOOL","shape":[0,5],"data_offsets":[16,16]}})";
        const auto r = SafetensorsFile::openBuffer(fileOf(header, zeros(16)), "m");
        QVERIFY(r.file && !r.error);
        const SafetensorsFile &f = *r.file;
        QVERIFY2(f.findings().empty(), f.findings().empty() ? "" : f.findings()[0].message.c_str());
        QCOMPARE(f.metadata().size(), 2u);
        QCOMPARE(f.metadata()[0].key, std::string("format"));
        QCOMPARE(f.metadata()[0].value, std::string("pt"));
        QCOMPARE(f.metadata()[1].value, std::string("\xc3\xa9"));
        QCOMPARE(f.metadata()[0].offset, at(header, "\"format\""));
        QCOMPARE(f.tensors().size(), 3u); // in the header's order, not the data's
        QCOMPARE(f.tensors()[0].name, std::string("b"));
        QCOMPARE(f.tensors()[1].elements, 1u); // a scalar: the empty product
        QCOMPARE(f.tensors()[2].elements, 0u);
        QCOMPARE(f.tensor("b")->fileBegin, f.dataOffset() + 8);
        QVERIFY(!f.tensor("d"));
    }

    void headerRules_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("code");
        QTest::addColumn<qulonglong>("offset");
        QTest::newRow("7 bytes") << QByteArray(7, '\0') << "header_too_small" << 0ull;
        const auto lengthOnly = [](uint64_t n, size_t extra) {
            QByteArray b(8 + static_cast<int>(extra), ' ');
            for (int i = 0; i < 8; ++i, n >>= 8)
                b[i] = static_cast<char>(n & 0xff);
            return b;
        };
        QTest::newRow("over 100 MB") << lengthOnly(100'000'001, 2) << "header_too_large" << 0ull;
        QTest::newRow("past the end") << lengthOnly(10, 9) << "header_past_end" << 0ull;
        QTest::newRow("2^64 - 1") << lengthOnly(UINT64_MAX, 2) << "header_too_large" << 0ull;
        const auto file = [](const std::string &h) {
            const auto v = fileOf(h, {});
            return QByteArray(reinterpret_cast<const char *>(v.data()), static_cast<int>(v.size()));
        };
        QTest::newRow("not JSON") << file(R"({"a":{"dtype":"F32",}})") << "bad_header_json"
                                  << 8ull + 20; // the '}' where a key should be
        QTest::newRow("invalid UTF-8") << file("{\"\xff\":1}") << "bad_header_json" << 8ull + 2;
        QTest::newRow("a list") << file("[]") << "header_not_object" << 8ull;
    }

    void headerRules()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, code);
        QFETCH(qulonglong, offset);
        const auto r = SafetensorsFile::openBuffer(std::vector<uint8_t>(bytes.begin(), bytes.end()), "bad");
        QVERIFY(r.file); // opened as far as it parses
        QVERIFY(r.error);
        QCOMPARE(QString::fromStdString(r.error.code), code);
        QCOMPARE(r.error.offset, offset);
        QVERIFY(!r.file->headerComplete());
        QVERIFY(!r.file->referenceAccepts());
        QVERIFY(r.file->tensors().empty());
    }

    void tensorRules_data()
    {
        QTest::addColumn<QString>("header");
        QTest::addColumn<int>("dataBytes");
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("where"); // the text whose first occurrence the finding points at
        QTest::addColumn<int>("kept");      // tensors read
        QTest::newRow("unknown dtype") << R"({"a":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}})" << 1
                                       << "unknown_dtype"
                                       << R"("F4")" << 0;
        QTest::newRow("missing shape") << R"({"a":{"dtype":"F32","data_offsets":[0,4]}})" << 4 << "missing_field"
                                       << "{\"dtype\"" << 0;
        QTest::newRow("negative dimension")
            << R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})" << 4 << "bad_shape"
            << "-1" << 0;
        QTest::newRow("fractional offset")
            << R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1.0]}})" << 1 << "bad_offsets"
            << "[0,1.0]" << 0;
        QTest::newRow("reversed offsets")
            << R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}})" << 4 << "offsets_reversed"
            << "[4,0]" << 1;
        QTest::newRow("overlap") << R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                    R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})"
                                 << 8 << "tensors_overlap"
                                 << "[4,8]" << 2;
        QTest::newRow("gap") << R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})" << 8 << "gap_before_tensor"
                             << "[4,8]" << 1;
        QTest::newRow("size mismatch") << R"({"a":{"dtype":"F16","shape":[3],"data_offsets":[0,8]}})" << 8
                                       << "size_mismatch"
                                       << "[0,8]" << 1;
        QTest::newRow("truncated") << R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                                      R"("b":{"dtype":"F32","shape":[4],"data_offsets":[4,20]}})"
                                   << 10 << "tensor_data_past_end"
                                   << "[4,20]" << 2;
        QTest::newRow("bytes after the last tensor")
            << R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})" << 5 << "data_past_last_tensor"
            << "" << 1;
        QTest::newRow("metadata value not a string")
            << R"({"__metadata__":{"n":3}})" << 0 << "metadata_value_not_string"
            << "3}" << 0;
        QTest::newRow("shape overflow")
            << R"({"a":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}})" << 0 << "shape_overflow"
            << "[4294967296" << 0;
    }

    void tensorRules()
    {
        QFETCH(QString, header);
        QFETCH(int, dataBytes);
        QFETCH(QString, code);
        QFETCH(QString, where);
        QFETCH(int, kept);
        const std::string h = header.toStdString();
        const auto r = SafetensorsFile::openBuffer(fileOf(h, zeros(static_cast<size_t>(dataBytes))), "rule");
        QVERIFY(r.file);
        QVERIFY(!r.error); // the header itself was read whole
        const SafetensorsFile &f = *r.file;
        QVERIFY(!f.referenceAccepts());
        const Finding *found = findingOf(f, code.toStdString());
        QVERIFY2(found, qPrintable(code));
        QCOMPARE(found->severity, Severity::Error);
        const uint64_t expected = where.isEmpty() ? f.dataOffset() + (f.tensors().empty() ? 0 : f.tensors().back().end)
                                                  : at(h, where.toStdString());
        QCOMPARE(found->offset, expected);
        QCOMPARE(static_cast<int>(f.tensors().size()), kept);
    }

    void truncatedShardKeepsWhatIsThere()
    {
        // the second tensor runs past the end: the first is still whole and readable
        const std::string h = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                              R"("b":{"dtype":"F32","shape":[4],"data_offsets":[4,20]}})";
        const auto r = SafetensorsFile::openBuffer(fileOf(h, zeros(10)), "cut");
        QVERIFY(r.file->tensor("a")->dataInFile);
        QVERIFY(!r.file->tensor("b")->dataInFile);
    }

    void duplicateNameAndLeadingSpaceAreNoted()
    {
        const std::string h = R"( {"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                              R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
        const auto r = SafetensorsFile::openBuffer(fileOf(h, zeros(2)), "dup");
        const Finding *dup = findingOf(*r.file, "duplicate_tensor_name");
        QVERIFY(dup);
        QCOMPARE(dup->severity, Severity::Warning);
        QCOMPARE(dup->offset, at(h, "\"a\"", 10));
        const Finding *start = findingOf(*r.file, "header_start");
        QVERIFY(start);
        QCOMPARE(start->offset, 8u);
        QCOMPARE(start->severity, Severity::Warning);
        QVERIFY(r.file->referenceAccepts()); // neither refuses the file
    }

    void byteMapCoversEveryByte()
    {
        std::string h = R"({"__metadata__":{"format":"pt"},"b":{"dtype":"U8","shape":[2],"data_offsets":[4,6]},)"
                        R"("a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
        h.append(3, ' ');
        const auto r = SafetensorsFile::openBuffer(fileOf(h, zeros(9)), "map");
        const std::vector<Region> regions = byteRegions(*r.file);
        uint64_t covered = 0;
        for (const Region &g : regions) {
            QCOMPARE(g.offset, covered); // in order, no gap, no overlap
            QVERIFY(g.size > 0);
            covered += g.size;
        }
        QCOMPARE(covered, r.file->fileSize());
        const auto kindAt = [&](uint64_t offset) {
            for (const Region &g : regions)
                if (offset >= g.offset && offset < g.offset + g.size)
                    return g.kind;
            return RegionKind::Unparsed;
        };
        QCOMPARE(kindAt(0), RegionKind::HeaderLength);
        QCOMPARE(kindAt(8), RegionKind::Header); // the opening brace
        QCOMPARE(kindAt(at(h, "\"__metadata__\"")), RegionKind::Metadata);
        QCOMPARE(kindAt(at(h, "\"b\"")), RegionKind::TensorEntry);
        QCOMPARE(kindAt(8 + h.size() - 1), RegionKind::HeaderPadding);
        const uint64_t data = r.file->dataOffset();
        QCOMPARE(kindAt(data), RegionKind::TensorData);     // a
        QCOMPARE(kindAt(data + 5), RegionKind::TensorData); // b
        QCOMPARE(kindAt(data + 6), RegionKind::Unused);     // 3 bytes nobody claims
        QCOMPARE(regions.back().offset + regions.back().size, r.file->fileSize());

        // a header that broke: the length, then the rest unread
        const auto bad = SafetensorsFile::openBuffer(fileOf("{\"a\":", zeros(4)), "bad");
        const std::vector<Region> two = byteRegions(*bad.file);
        QCOMPARE(two.size(), 2u);
        QCOMPARE(two[1].kind, RegionKind::Unparsed);
        QCOMPARE(two[1].offset + two[1].size, bad.file->fileSize());
    }

    void sniffing()
    {
        const auto st = fileOf(R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", zeros(1));
        QVERIFY(looksLikeSafetensors(st.data(), st.size(), st.size()));
        const auto spaced = fileOf("  {}", {});
        QVERIFY(looksLikeSafetensors(spaced.data(), spaced.size(), spaced.size()));
        const uint8_t gguf[16] = {'G', 'G', 'U', 'F', 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        QVERIFY(!looksLikeSafetensors(gguf, sizeof gguf, 1 << 20));
        QVERIFY(!looksLikeSafetensors(st.data(), 9, st.size()));  // too short to tell
        QVERIFY(!looksLikeSafetensors(st.data(), st.size(), 20)); // the length runs past the end
        const auto list = fileOf("[1,2]", {});
        QVERIFY(!looksLikeSafetensors(list.data(), list.size(), list.size()));
    }

    void fromDiskAndNotAFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("model.safetensors")).toStdString();
        const std::string h = R"({"w":{"dtype":"F16","shape":[2,2],"data_offsets":[0,8]}})";
        const auto bytes = fileOf(h, zeros(8));
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        const auto r = SafetensorsFile::open(path);
        QVERIFY(r.file && !r.error);
        QCOMPARE(r.file->fileSize(), bytes.size());
        QCOMPARE(r.file->tensors()[0].shape, (std::vector<uint64_t>{2, 2}));
        QVERIFY(r.file->referenceAccepts());

        const auto d = SafetensorsFile::open(dir.path().toStdString());
        QVERIFY(!d.file);
        QVERIFY(d.error);
        const auto missing = SafetensorsFile::open(path + ".missing");
        QVERIFY(!missing.file);
        QCOMPARE(missing.error.kind, ErrorKind::NotFound);
    }
};

QTEST_GUILESS_MAIN(TestSafetensorsFile)
#include "tst_safetensors_file.moc"
