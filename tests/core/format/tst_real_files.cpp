// SPDX-License-Identifier: GPL-3.0-or-later
// Files written by real tools, checked against what ggml's own reader saw in them: the vocabulary
// files of llama.cpp (data/real/) and the ggml reference set (data/ggml-reference/).
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/exact_json.h"
#include "tests/support/test_paths.h"
#include "tests/support/test_printers.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QtTest>

#include <bit>
#include <cctype>
#include <cmath>
#include <set>

using namespace gguf;
using namespace gguf::test;

Q_DECLARE_METATYPE(gguf::test::ExactJson)

namespace {

QString dataDir(const char *sub)
{
    return gguf::test::dataPath(QString::fromLatin1(sub));
}

std::optional<ExactJson> readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray text = f.readAll();
    return ExactJson::parse(std::string_view(text.constData(), static_cast<size_t>(text.size())));
}

std::string lower(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string sha256(std::span<const uint8_t> bytes)
{
    return QCryptographicHash::hash(
               QByteArrayView(reinterpret_cast<const char *>(bytes.data()), qsizetype(bytes.size())),
               QCryptographicHash::Sha256)
        .toHex()
        .toStdString();
}

std::optional<uint64_t> hexBits(const ExactJson &j)
{
    if (!j.isString() || j.text().size() < 3)
        return std::nullopt;
    return std::stoull(j.text().substr(2), nullptr, 16);
}

std::string compareArray(const GgufFile &file, const ArrayRef &a, const ExactJson &expected, const std::string &where);

// A scalar, string or (for arrays of arrays) nested array value against its JSON spelling.
std::string compareScalar(const GgufFile &file, const Value &v, const ExactJson &expected, const std::string &where)
{
    if (!v.isValid())
        return where + ": no value";
    switch (v.type()) {
    case ValueType::String:
        return expected.isString() && expected.text() == v.toStringView() ? "" : where + ": string differs";
    case ValueType::Bool:
        return expected.kind() == ExactJson::Kind::Bool && v.toBool() == expected.toBool() ? ""
                                                                                           : where + ": bool differs";
    case ValueType::Float32:
    case ValueType::Float64: {
        const double actual = v.toDouble().value_or(0);
        if (expected.isString()) {
            const std::string &s = expected.text();
            const bool ok = s == "nan"   ? std::isnan(actual)
                            : s == "inf" ? actual == INFINITY
                                         : s == "-inf" && actual == -INFINITY;
            return ok ? "" : where + ": expected " + s;
        }
        const auto d = expected.toDouble();
        if (!d)
            return where + ": not a number in the JSON";
        const bool same =
            v.type() == ValueType::Float32
                ? std::bit_cast<uint32_t>(static_cast<float>(*d)) == std::bit_cast<uint32_t>(static_cast<float>(actual))
                : std::bit_cast<uint64_t>(*d) == std::bit_cast<uint64_t>(actual);
        return same ? "" : where + ": float differs from " + expected.text();
    }
    case ValueType::Array: return compareArray(file, v.array(), expected, where);
    case ValueType::Int8:
    case ValueType::Int16:
    case ValueType::Int32:
    case ValueType::Int64:
        return expected.toInt64() && v.toInt() == expected.toInt64() ? "" : where + ": differs from " + expected.text();
    default:
        return expected.toUInt64() && v.toUInt() == expected.toUInt64() ? ""
                                                                        : where + ": differs from " + expected.text();
    }
}

// An array against {array_type, count, value} or {array_type, count, elements_sha256, head, tail}.
std::string compareArray(const GgufFile &file, const ArrayRef &a, const ExactJson &expected, const std::string &where)
{
    if (!a.isValid())
        return where + ": not an array";
    if (lower(valueTypeName(a.elementType())) != expected["array_type"].text())
        return where + ": element type " + valueTypeName(a.elementType());
    if (expected["count"].toUInt64() != std::optional<uint64_t>(a.size()))
        return where + ": " + std::to_string(a.size()) + " elements";
    if (const ExactJson *values = expected.find("value")) {
        if (values->size() != a.size())
            return where + ": value list length";
        for (uint64_t i = 0; i < a.size(); ++i)
            if (auto d = compareScalar(file, a.at(i), values->items()[i], where + "[" + std::to_string(i) + "]");
                !d.empty())
                return d;
    }
    if (const ExactJson *head = expected.find("head"))
        for (uint64_t i = 0; i < head->size(); ++i)
            if (auto d = compareScalar(file, a.at(i), head->items()[i], where + "[" + std::to_string(i) + "]");
                !d.empty())
                return d;
    if (const ExactJson *tail = expected.find("tail"))
        for (uint64_t i = 0; i < tail->size(); ++i) {
            const uint64_t at = a.size() - tail->size() + i;
            if (auto d = compareScalar(file, a.at(at), tail->items()[i], where + "[" + std::to_string(at) + "]");
                !d.empty())
                return d;
        }
    if (const ExactJson *hash = expected.find("elements_sha256"))
        if (sha256(file.bytes(a.elementsOffset(), a.end() - a.elementsOffset())) != hash->text())
            return where + ": element bytes sha256 differs";
    return {};
}

// One manifest key/value entry: key, type, value (exact float bits when given).
std::string compareEntry(const GgufFile &file, const MetadataEntry &e, const ExactJson &kv)
{
    const std::string where = "key " + std::to_string(e.index) + " '" + kv["key"].text() + "'";
    if (e.key != kv["key"].text())
        return where + ": found '" + std::string(e.key) + "'";
    if (lower(valueTypeName(e.value.type())) != kv["type"].text())
        return where + ": type " + valueTypeName(e.value.type());
    if (e.value.type() == ValueType::Array)
        return compareArray(file, e.value.array(), kv, where);
    if (const auto bits = hexBits(kv["bits"])) {
        const double d = e.value.toDouble().value_or(0);
        const uint64_t actual = e.value.type() == ValueType::Float32 ? std::bit_cast<uint32_t>(static_cast<float>(d))
                                                                     : std::bit_cast<uint64_t>(d);
        if (actual != *bits)
            return where + ": bits differ from " + kv["bits"].text();
    }
    return compareScalar(file, e.value, kv["value"], where);
}

// The header facts and every key of a manifest file entry.
void verifyAgainstManifest(const GgufFile &file, const ExactJson &entry)
{
    QCOMPARE(std::optional<uint64_t>(file.fileSize()), entry["size"].toUInt64());
    QCOMPARE(sha256(file.source().bytes()), entry["sha256"].text());
    QCOMPARE(std::optional<uint64_t>(file.version()), entry["gguf_version"].toUInt64());
    QCOMPARE(std::optional<uint64_t>(file.alignment()), entry["alignment"].toUInt64());
    if (!entry["data_section_offset"].isNull())
        QCOMPARE(std::optional<uint64_t>(file.dataOffset()), entry["data_section_offset"].toUInt64());
    QCOMPARE(std::optional<uint64_t>(file.declaredKvCount()), entry["n_kv"].toUInt64());
    QCOMPARE(std::optional<uint64_t>(file.declaredTensorCount()), entry["n_tensors"].toUInt64());
    const ExactJson &kvs = entry["kv"];
    QCOMPARE(file.metadata().size(), kvs.size());
    for (size_t i = 0; i < kvs.size(); ++i) {
        const std::string diff = compareEntry(file, file.metadata()[i], kvs.items()[i]);
        QVERIFY2(diff.empty(), diff.c_str());
        QCOMPARE(file.findMetadata(kvs.items()[i]["key"].text()), &file.metadata()[i]);
    }
}

// A manifest tensor entry: name, type, dims, size and where its data starts.
void verifyTensor(const GgufFile &file, const ExactJson &expected)
{
    const TensorInfo *t =
        file.findTensor(expected.find("tensor") ? expected["tensor"].text() : expected["name"].text());
    QVERIFY(t);
    QCOMPARE(std::optional<uint64_t>(t->typeId), expected["ggml_type"].toUInt64());
    QCOMPARE(lower(typeName(t->typeId)), lower(expected["ggml_type_name"].text()));
    const ExactJson &dims = expected["dims"];
    QCOMPARE(uint64_t(t->nDims), uint64_t(dims.size()));
    for (size_t d = 0; d < dims.size(); ++d)
        QCOMPARE(std::optional<uint64_t>(t->ne[d]), dims.items()[d].toUInt64());
    QCOMPARE(std::optional<uint64_t>(t->byteSize), expected["n_bytes"].toUInt64());
    QCOMPARE(std::optional<uint64_t>(t->fileOffset), expected["data_offset"].toUInt64());
    QVERIFY(t->dataInFile);
    if (const ExactJson *n = expected.find("n_elements"))
        QCOMPARE(std::optional<uint64_t>(t->elements), n->toUInt64());
    if (const ExactJson *rel = expected.find("data_offset_relative"))
        QCOMPARE(std::optional<uint64_t>(t->relativeOffset), rel->toUInt64());
    if (const ExactJson *raw = expected.find("raw_sha256"))
        QCOMPARE(sha256(file.tensorBytes(*t)), raw->text());
}

std::shared_ptr<const GgufFile> openComplete(const QString &path)
{
    const OpenResult r = GgufFile::open(path.toStdString());
    if (r.error)
        qWarning("%s: %s at %llu: %s", qPrintable(path), r.error.code.c_str(),
                 static_cast<unsigned long long>(r.error.offset), r.error.message.c_str());
    return r.file && r.file->complete() ? r.file : nullptr;
}

} // namespace

class TestRealFiles : public QObject {
    Q_OBJECT

private slots:
    void vocabularies_data();
    void vocabularies();
    void everyVocabularyPresent();
    void referenceFiles_data();
    void referenceFiles();
    void referenceTensors_data();
    void referenceTensors();
    void metadataGgmlTypes();
    void metadataAllTypes();
};

void TestRealFiles::vocabularies_data()
{
    QTest::addColumn<ExactJson>("entry");
    const auto manifest = readJson(dataDir("real/manifest.json"));
    QVERIFY(manifest);
    for (const ExactJson &entry : (*manifest)["files"].items()) {
        const std::string &name = entry["file"].text();
        // the shared set's tiny models are described but not copied; check them when present
        if (QFile::exists(dataDir("real/") + QString::fromStdString(name)))
            QTest::newRow(name.c_str()) << entry;
    }
}

void TestRealFiles::vocabularies()
{
    QFETCH(ExactJson, entry);
    const auto file = openComplete(dataDir("real/") + QString::fromStdString(entry["file"].text()));
    QVERIFY(file);
    QCOMPARE(file->llamaCppAccepts(), entry["ggml_accepts"].toBool());
    verifyAgainstManifest(*file, entry);
    for (const ExactJson &t : entry["tensors"].items())
        verifyTensor(*file, t);
    // no tensors: the data section starts where the metadata ends
    if (file->tensors().empty())
        QCOMPARE(file->dataOffset(), file->metadataEnd());
}

void TestRealFiles::everyVocabularyPresent()
{
    const auto manifest = readJson(dataDir("real/manifest.json"));
    QVERIFY(manifest);
    int vocabularies = 0;
    for (const ExactJson &entry : (*manifest)["files"].items()) {
        const QString name = QString::fromStdString(entry["file"].text());
        if (!name.startsWith(QLatin1String("ggml-vocab-")))
            continue;
        ++vocabularies;
        QVERIFY2(QFile::exists(dataDir("real/") + name), qPrintable(name));
    }
    QVERIFY(vocabularies > 0);
}

void TestRealFiles::referenceFiles_data()
{
    QTest::addColumn<ExactJson>("entry");
    const auto manifest = readJson(dataDir("ggml-reference/manifest.json"));
    QVERIFY(manifest);
    for (const ExactJson &entry : (*manifest)["files"].items())
        QTest::newRow(entry["file"].text().c_str()) << entry;
}

void TestRealFiles::referenceFiles()
{
    QFETCH(ExactJson, entry);
    const auto file = openComplete(dataDir("ggml-reference/") + QString::fromStdString(entry["file"].text()));
    QVERIFY(file);
    QVERIFY(QString::fromStdString(entry["ggml_gguf_init_from_file"].text()).startsWith(QLatin1String("accepted")));
    QVERIFY(file->llamaCppAccepts());
    verifyAgainstManifest(*file, entry);
}

void TestRealFiles::referenceTensors_data()
{
    QTest::addColumn<ExactJson>("tensor");
    const auto manifest = readJson(dataDir("ggml-reference/manifest.json"));
    QVERIFY(manifest);
    for (const ExactJson &t : (*manifest)["tensors"].items())
        QTest::newRow(t["file"].text().c_str()) << t;
}

void TestRealFiles::referenceTensors()
{
    QFETCH(ExactJson, tensor);
    const auto file = openComplete(dataDir("ggml-reference/") + QString::fromStdString(tensor["file"].text()));
    QVERIFY(file);
    QCOMPARE(std::optional<uint64_t>(file->tensors().size()), std::optional<uint64_t>(1));
    QCOMPARE(std::optional<uint64_t>(file->tensors()[0].index), tensor["tensor_index"].toUInt64());
    verifyTensor(*file, tensor);
    QVERIFY(file->tensors()[0].sizeFromType);
}

void TestRealFiles::metadataGgmlTypes()
{
    const auto expected = readJson(dataDir("ggml-reference/metadata_ggml_types.json"));
    QVERIFY(expected);
    const auto file = openComplete(dataDir("ggml-reference/metadata_ggml_types.gguf"));
    QVERIFY(file);
    QVERIFY((*expected)["ggml_gguf_init_from_file"].text() == "accepted");
    QVERIFY(file->llamaCppAccepts());
    QVERIFY(file->findings().empty());
    verifyAgainstManifest(*file, *expected);
    // every value type occurs, as a value and as an array element type
    std::set<ValueType> values, elements;
    for (const MetadataEntry &e : file->metadata()) {
        values.insert(e.value.type());
        if (e.value.type() == ValueType::Array)
            elements.insert(e.value.array().elementType());
    }
    QCOMPARE(values.size(), size_t(kValueTypeCount));
    QCOMPARE(elements.size(), size_t(kValueTypeCount - 1));
}

void TestRealFiles::metadataAllTypes()
{
    const auto expected = readJson(dataDir("ggml-reference/metadata_all_types.json"));
    QVERIFY(expected);
    const OpenResult r = GgufFile::open(dataDir("ggml-reference/metadata_all_types.gguf").toStdString());
    QVERIFY(r.file);
    QVERIFY(!r.error);
    const GgufFile &file = *r.file;
    QVERIFY(file.complete());
    QVERIFY(
        QString::fromStdString((*expected)["ggml_gguf_init_from_file"].text()).startsWith(QLatin1String("rejected")));
    QVERIFY(!file.llamaCppAccepts());
    verifyAgainstManifest(file, *expected);
    const MetadataEntry *nested = file.findMetadata("test.arr.nested");
    QVERIFY(nested);
    QCOMPARE(nested->value.array().elementType(), ValueType::Array);
    const Finding *refusal = file.firstRefusal();
    QVERIFY(refusal);
    QCOMPARE(refusal->code, std::string("nested_array"));
    QCOMPARE(refusal->offset, nested->value.offset());
    // the pair after the nested array is read from the right place
    QCOMPARE(file.metadata().back().key, std::string_view("test.after_nested"));
    QCOMPARE(file.value("test.after_nested").toUInt(), (*expected)["kv"].items().back()["value"].toUInt64());
}

QTEST_GUILESS_MAIN(TestRealFiles)
#include "tst_real_files.moc"
