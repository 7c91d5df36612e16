// SPDX-License-Identifier: GPL-3.0-or-later
#include "tests/support/corruption_cases.h"

#include "core/format/byte_map.h"
#include "tests/support/test_printers.h"

#include <QStringList>

namespace corruption_cases {
namespace {

QString describeFindings(const GgufFile &file)
{
    QStringList parts;
    for (const Finding &f : file.findings())
        parts << QStringLiteral("%1:%2@%3")
                     .arg(QString::fromUtf8(severityName(f.severity).data()), QString::fromStdString(f.code))
                     .arg(f.offset);
    return parts.join(QLatin1String(", "));
}

bool hasCode(const GgufFile &file, const std::string &code)
{
    for (const Finding &f : file.findings())
        if (f.code == code)
            return true;
    return false;
}

} // namespace

Case fatal(const BuiltFile &f, ErrorKind kind, std::string code, uint64_t offset, std::vector<Refusal> also)
{
    Case c{f.bytes(), {}};
    c.expect.errorKind = kind;
    c.expect.errorCode = code;
    c.expect.errorOffset = offset;
    c.expect.fileNull = kind == ErrorKind::InvalidMagic;
    // a fatal problem is also the first refusal of the validation report
    c.expect.findings = std::move(also);
    c.expect.findings.emplace_back(std::move(code), offset);
    return c;
}

Case refused(const BuiltFile &f, std::vector<Refusal> findings, std::vector<std::string> absent)
{
    Case c{f.bytes(), {}};
    c.expect.findings = std::move(findings);
    c.expect.absentCodes = std::move(absent);
    return c;
}

Case accepted(const BuiltFile &f, std::vector<Refusal> infos)
{
    Case c{f.bytes(), {}};
    c.expect.findings = std::move(infos);
    c.expect.accepts = true;
    return c;
}

BuiltFile cut(BuiltFile f, uint64_t size)
{
    f.truncate(size);
    return f;
}

BuiltFile padded(BuiltFile f, uint64_t size)
{
    f.padTo(size);
    return f;
}

GgufBuilder &addBaseKvs(GgufBuilder &b)
{
    return b.kv("my_key_0", V::u8(7))
        .kv("my_key_1", V::i16(-2))
        .kv("my_key_2", V::str("some text"))
        .kv("my_key_3", V::array(ValueType::Float32, {V::f32(1), V::f32(2), V::f32(3)}))
        .kv("my_key_4", V::stringArray({"ab", "", "cde"}))
        .kv("my_key_5", V::f64(0.25))
        .kv("my_key_6", V::boolean(true))
        .kv("my_key_7", V::u64(1234567890123ull));
}

GgufBuilder &addBaseTensors(GgufBuilder &b)
{
    return b.tensor("my_tensor_0", {3, 5}, id(GgmlType::F32))
        .tensor("my_tensor_1", {64, 2}, id(GgmlType::Q4_0))
        .tensor("my_tensor_2", {256}, id(GgmlType::Q4_K))
        .tensor("my_tensor_3", {7}, id(GgmlType::F16));
}

GgufBuilder base()
{
    GgufBuilder b;
    addBaseKvs(b);
    addBaseTensors(b);
    return b;
}

std::vector<Refusal> dataPastEnd(const Layout &L, uint64_t fileSize)
{
    std::vector<Refusal> out;
    for (const TensorLayout &t : L.tensors)
        if (t.dataOffset + t.dataSize > fileSize || (t.dataOffset > fileSize))
            out.emplace_back("tensor_data_past_end", t.offsetFieldOffset);
    return out;
}

bool hasFinding(const GgufFile &file, const std::string &code, uint64_t offset)
{
    for (const Finding &f : file.findings())
        if (f.code == code && f.offset == offset)
            return true;
    return false;
}

void checkCase(const Case &c)
{
    const Expect &e = c.expect;
    const OpenResult r = GgufFile::openBuffer(c.bytes, "<corrupt>");
    QCOMPARE(errorKindName(r.error.kind), errorKindName(e.errorKind));
    if (e.errorKind != ErrorKind::None) {
        QCOMPARE(r.error.code, e.errorCode);
        QCOMPARE(r.error.offset, e.errorOffset);
        QVERIFY(!r.error.message.empty());
    }
    QCOMPARE(r.file == nullptr, e.fileNull);
    if (!r.file) {
        QVERIFY(!e.accepts);
        return;
    }
    const GgufFile &file = *r.file;
    for (const auto &[code, offset] : e.findings)
        QVERIFY2(hasFinding(file, code, offset), qPrintable(QStringLiteral("expected %1@%2 among [%3]")
                                                                .arg(QString::fromStdString(code))
                                                                .arg(offset)
                                                                .arg(describeFindings(file))));
    for (const std::string &code : e.absentCodes)
        QVERIFY2(
            !hasCode(file, code),
            qPrintable(
                QStringLiteral("unexpected %1 among [%2]").arg(QString::fromStdString(code), describeFindings(file))));
    QVERIFY2(file.llamaCppAccepts() == e.accepts, qPrintable(describeFindings(file)));
    if (!e.accepts)
        QVERIFY(file.firstRefusal() != nullptr);
    for (const Finding &f : file.findings())
        QVERIFY(f.offset <= c.bytes.size());

    const ByteMap map(file);
    uint64_t covered = 0;
    for (const Region &region : map.regions()) {
        QCOMPARE(region.offset, covered);
        QVERIFY(region.size > 0);
        covered = region.end();
    }
    QCOMPARE(covered, uint64_t(c.bytes.size()));

    // A structural error names the item and the field where reading stopped, and the byte map
    // marks that field (when the file still has a byte of it).
    const bool structural = e.errorKind == ErrorKind::Malformed || e.errorKind == ErrorKind::UnsupportedType ||
                            e.errorKind == ErrorKind::UnsupportedVersion;
    QCOMPARE(file.breakage() != nullptr, structural);
    if (!structural)
        return;
    const Breakage &broken = *file.breakage();
    QCOMPARE(broken.fieldOffset, e.errorOffset);
    QVERIFY(!broken.field.empty() && !broken.expected.empty());
    QVERIFY(broken.offset <= broken.fieldOffset);
    if (e.errorOffset < c.bytes.size()) {
        const Region *at = map.regionAt(e.errorOffset);
        QVERIFY(at && at->kind == RegionKind::Broken && at->offset == e.errorOffset);
    }
}

} // namespace corruption_cases
