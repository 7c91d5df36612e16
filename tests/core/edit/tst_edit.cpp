// SPDX-License-Identifier: GPL-3.0-or-later
// The metadata editor's core: values from text, the change set, and the header it serializes —
// byte for byte the original for every fixture when nothing changed, and exactly the changed
// values (with their types) when something did.
#include "core/edit/header_writer.h"
#include "core/edit/metadata_changes.h"
#include "core/edit/owned_value.h"
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/gguf_file_checks.h"
#include "tests/support/test_paths.h"

#include <QDirIterator>
#include <QtTest>

#include <bit>
#include <cmath>

using namespace gguf;
using namespace gguf::test;

namespace {

std::shared_ptr<const GgufFile> openBytes(const std::vector<uint8_t> &bytes)
{
    OpenResult r = GgufFile::openBuffer(bytes, "<edited>");
    return r.error ? nullptr : r.file;
}

// The header with `changes`, followed by the original data region: the file a save would write.
std::vector<uint8_t> edited(const GgufFile &file, const MetadataChanges &changes, const HeaderOptions &options = {})
{
    std::string error;
    const auto plan = planHeader(file, changes, options, error);
    if (!plan) {
        qWarning("planHeader: %s", error.c_str());
        return {};
    }
    std::vector<uint8_t> out = plan->bytes;
    const auto data = file.bytes(file.dataOffset(), file.fileSize() - file.dataOffset());
    out.insert(out.end(), data.begin(), data.end());
    return out;
}

// The bytes of one pair (key, type and value) as stored.
std::vector<uint8_t> pairBytes(const GgufFile &file, const MetadataEntry &e)
{
    const auto b = file.bytes(e.offset, e.end() - e.offset);
    return {b.begin(), b.end()};
}

std::vector<uint8_t> tensorData(const GgufFile &file, const TensorInfo &t)
{
    const auto b = file.tensorBytes(t);
    return {b.begin(), b.end()};
}

// Every pair of `before` not named in `touched` is in `after`, in the same order, with the same
// bytes; every tensor's data is the same.
void checkUntouched(const GgufFile &before, const GgufFile &after, const QStringList &touched)
{
    std::vector<const MetadataEntry *> kept;
    for (const MetadataEntry &e : before.metadata())
        if (!touched.contains(QString::fromUtf8(e.key.data(), static_cast<qsizetype>(e.key.size()))))
            kept.push_back(&e);
    size_t k = 0;
    for (const MetadataEntry &e : after.metadata()) {
        if (k < kept.size() && e.key == kept[k]->key) {
            QCOMPARE(pairBytes(after, e), pairBytes(before, *kept[k]));
            ++k;
        }
    }
    QCOMPARE(k, kept.size());
    QCOMPARE(after.tensors().size(), before.tensors().size());
    for (size_t i = 0; i < before.tensors().size(); ++i) {
        QCOMPARE(after.tensors()[i].name, before.tensors()[i].name);
        QCOMPARE(after.tensors()[i].relativeOffset, before.tensors()[i].relativeOffset);
        QVERIFY(tensorData(after, after.tensors()[i]) == tensorData(before, before.tensors()[i]));
    }
}

QStringList fixtureFiles()
{
    QStringList out;
    for (const QString &root : {gguf::test::dataDir(), gguf::test::sampleModelDir()}) {
        QDirIterator it(root, {QStringLiteral("*.gguf")}, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext())
            out << it.next();
    }
    out.sort();
    return out;
}

} // namespace

class TestEdit : public QObject {
    Q_OBJECT
private slots:
    void parsesScalarsByType();
    void parsesLists();
    void parsesTypeNames();
    void editTextRoundTrips();
    void roundTripsEveryFixture();
    void roundTripsBuiltVariants_data();
    void roundTripsBuiltVariants();
    void changesValuesKeepingTypes_data();
    void changesValuesKeepingTypes();
    void editsOneElementOfALargeArray();
    void removesAndAddsKeys();
    void fitsInPlaceWithThePaddingKey();
    void growsByACopyWhenTheHeaderOutgrowsItsSpace();
    void extendedHeaderKeepsOrMovesItsDataOffset();
    void refusesStructuralAndBadChanges();
};

void TestEdit::parsesScalarsByType()
{
    std::string error;
    QCOMPARE(parseValue(ValueType::Uint8, "255", error)->bits, 255u);
    QVERIFY(!parseValue(ValueType::Uint8, "256", error));
    QVERIFY(QString::fromStdString(error).contains("0 to 255"));
    QVERIFY(!parseValue(ValueType::Uint32, "-1", error));
    QCOMPARE(parseValue(ValueType::Int8, "-128", error)->asInt(), -128);
    QVERIFY(!parseValue(ValueType::Int8, "-129", error));
    QVERIFY(!parseValue(ValueType::Int8, "128", error));
    QCOMPARE(parseValue(ValueType::Int16, " -2 ", error)->bits, 0xFFFEu);
    QCOMPARE(parseValue(ValueType::Int64, "-9223372036854775808", error)->asInt(), INT64_MIN);
    QCOMPARE(parseValue(ValueType::Uint64, "18446744073709551615", error)->bits, UINT64_MAX);
    QVERIFY(!parseValue(ValueType::Uint64, "18446744073709551616", error));
    QCOMPARE(parseValue(ValueType::Uint32, "0x10", error)->bits, 16u);
    QVERIFY(!parseValue(ValueType::Int32, "12abc", error));
    QVERIFY(!parseValue(ValueType::Int32, "", error));
    // floats: the nearest float32 itself, not a double rounded twice
    QCOMPARE(parseValue(ValueType::Float32, "0.1", error)->bits, uint64_t(std::bit_cast<uint32_t>(0.1f)));
    QCOMPARE(parseValue(ValueType::Float64, "1e-300", error)->bits, std::bit_cast<uint64_t>(1e-300));
    QCOMPARE(parseValue(ValueType::Float32, "-0", error)->bits, 0x80000000u);
    QVERIFY(std::isinf(parseValue(ValueType::Float32, "inf", error)->asDouble()));
    QVERIFY(std::isnan(parseValue(ValueType::Float64, "nan", error)->asDouble()));
    QVERIFY(!parseValue(ValueType::Float32, "1e39", error));
    QVERIFY(!parseValue(ValueType::Float32, "one", error));
    QCOMPARE(parseValue(ValueType::Bool, "TRUE", error)->bits, 1u);
    QCOMPARE(parseValue(ValueType::Bool, "0", error)->bits, 0u);
    QVERIFY(!parseValue(ValueType::Bool, "yes", error));
    // a string is taken as it is, spaces and all
    QCOMPARE(parseValue(ValueType::String, "  a b ", error)->text, std::string("  a b "));
}

void TestEdit::parsesLists()
{
    std::string error;
    const auto ints = parseValue(ValueType::Array, "[1, -2, 3]", error, ValueType::Int16);
    QVERIFY2(ints, error.c_str());
    QCOMPARE(ints->elementType, ValueType::Int16);
    QCOMPARE(ints->elements.size(), size_t(3));
    QCOMPARE(ints->elements[1].asInt(), -2);
    QCOMPARE(ints->elements[1].type, ValueType::Int16);
    QVERIFY(parseValue(ValueType::Array, "[]", error, ValueType::Uint8)->elements.empty());
    QVERIFY(!parseValue(ValueType::Array, "[1, 300]", error, ValueType::Uint8));
    QVERIFY(QString::fromStdString(error).startsWith("element 1"));
    QVERIFY(!parseValue(ValueType::Array, "1, 2", error, ValueType::Uint8));
    QVERIFY(!parseValue(ValueType::Array, "[1 2]", error, ValueType::Uint8));
    QVERIFY(!parseValue(ValueType::Array, "[1] x", error, ValueType::Uint8));
    const auto strs =
        parseValue(ValueType::Array, R"(["a,b", "q\"\\", "\n\u00e9\ud83d\ude00", "x]"])", error, ValueType::String);
    QVERIFY2(strs, error.c_str());
    QCOMPARE(strs->elements.size(), size_t(4));
    QCOMPARE(strs->elements[0].text, std::string("a,b"));
    QCOMPARE(strs->elements[1].text, std::string("q\"\\"));
    QCOMPARE(strs->elements[2].text, std::string("\n\xC3\xA9\xF0\x9F\x98\x80"));
    QCOMPARE(strs->elements[3].text, std::string("x]"));
    QVERIFY(!parseValue(ValueType::Array, R"(["open)", error, ValueType::String));
    QVERIFY(!parseValue(ValueType::Array, R"([unquoted])", error, ValueType::String));
}

void TestEdit::parsesTypeNames()
{
    ValueType t{}, e{};
    QVERIFY(parseTypeName("uint32", t, e));
    QCOMPARE(t, ValueType::Uint32);
    QVERIFY(parseTypeName("F32", t, e));
    QCOMPARE(t, ValueType::Float32);
    QVERIFY(parseTypeName("String", t, e));
    QCOMPARE(t, ValueType::String);
    QVERIFY(parseTypeName("ARRAY[INT16]", t, e));
    QCOMPARE(t, ValueType::Array);
    QCOMPARE(e, ValueType::Int16);
    QVERIFY(parseTypeName("[str]", t, e));
    QCOMPARE(e, ValueType::String);
    QVERIFY(!parseTypeName("array", t, e));
    QVERIFY(!parseTypeName("int", t, e));
    QCOMPARE(typeDisplayName(ValueType::Array, ValueType::Uint64), std::string("ARRAY[UINT64]"));
}

void TestEdit::editTextRoundTrips()
{
    // what an editor shows parses back to the same bits
    std::string error;
    for (const OwnedValue &v : {OwnedValue::float32(0.1f), OwnedValue::float32(-0.0f), OwnedValue::float64(1.0 / 3.0),
                                OwnedValue::float32(3.4028235e38f), OwnedValue::signedInt(ValueType::Int32, -5),
                                OwnedValue::unsignedInt(ValueType::Uint64, UINT64_MAX), OwnedValue::boolean(true)}) {
        const auto back = parseValue(v.type, v.toEditText(), error);
        QVERIFY2(back, (v.toEditText() + ": " + error).c_str());
        QCOMPARE(back->bits, v.bits);
    }
    const OwnedValue list = OwnedValue::array(
        ValueType::String, {OwnedValue::string("a\"b"), OwnedValue::string("tab\there"), OwnedValue::string("\x01")});
    const auto back = parseValue(ValueType::Array, list.toEditText(), error, ValueType::String);
    QVERIFY2(back, error.c_str());
    QVERIFY(*back == list);
}

void TestEdit::roundTripsEveryFixture()
{
    // nothing changed: the header comes out byte for byte — copied, and encoded anew from the parse
    const QStringList files = fixtureFiles();
    QVERIFY(files.size() >= 62);
    int checked = 0;
    for (const QString &path : files) {
        OpenResult r = GgufFile::open(path.toStdString());
        if (!r.file || !r.file->complete())
            continue; // a fixture of damage: the editor refuses it (refusesStructuralAndBadChanges)
        const GgufFile &f = *r.file;
        const auto original = f.bytes(0, f.dataOffset());
        for (const bool reencode : {false, true}) {
            std::string error;
            const auto plan = planHeader(f, {}, HeaderOptions{0, true, reencode}, error);
            QVERIFY2(plan, qPrintable(path + ": " + QString::fromStdString(error)));
            QVERIFY2(plan->fitsInPlace, qPrintable(path));
            QVERIFY2(std::equal(original.begin(), original.end(), plan->bytes.begin(), plan->bytes.end()),
                     qPrintable(path + (reencode ? " (encoded anew)" : " (copied)")));
        }
        ++checked;
    }
    QVERIFY2(checked == files.size(), qPrintable(QString::number(checked)));
}

void TestEdit::roundTripsBuiltVariants_data()
{
    QTest::addColumn<uint32_t>("version");
    QTest::addColumn<bool>("bigEndian");
    QTest::addColumn<bool>("extended");
    QTest::addColumn<bool>("swappedMagic");
    QTest::newRow("v3 little") << 3u << false << false << false;
    QTest::newRow("v3 big") << 3u << true << false << false;
    QTest::newRow("v2 little") << 2u << false << false << false;
    QTest::newRow("v1 little") << 1u << false << false << false;
    QTest::newRow("v1 big") << 1u << true << false << false;
    QTest::newRow("v3 extended") << 3u << false << true << false;
    QTest::newRow("v3 big extended") << 3u << true << true << false;
    QTest::newRow("FUGG magic") << 3u << false << false << true;
}

void TestEdit::roundTripsBuiltVariants()
{
    QFETCH(uint32_t, version);
    QFETCH(bool, bigEndian);
    QFETCH(bool, extended);
    QFETCH(bool, swappedMagic);
    GgufBuilder b = gguf_file_checks::sampleModel({version, bigEndian ? Endian::Big : Endian::Little});
    b.kv("all.types", V::array(ValueType::Int16, {V::i16(-1), V::i16(2)}))
        .kv("f64", V::f64Bits(0x7FF0000000000001ull)) // a signalling NaN keeps its payload
        .kv("f32", V::f32Bits(0x80000000u))
        .kv("b", V::boolean(true))
        .kv("u64", V::u64(UINT64_MAX))
        .kv("nested", V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(1)})}));
    if (extended)
        b.extendedHeader(1024);
    if (swappedMagic)
        b.swappedMagic();
    const BuiltFile built = b.build();
    const auto f = openBytes(built.bytes());
    QVERIFY(f && f->complete());
    QCOMPARE(f->headerLayout() == HeaderLayout::Extended, extended);
    for (const bool reencode : {false, true})
        QVERIFY(edited(*f, {}, HeaderOptions{0, true, reencode}) == built.bytes());

    // a changed value comes back in the same byte order, version and layout, with its type
    MetadataChanges c;
    c.set("general.name", OwnedValue::string("a longer name than before, to move the tensor infos"));
    c.setElement("all.types", 1, OwnedValue::signedInt(ValueType::Int16, -300));
    const auto out = openBytes(edited(*f, c));
    QVERIFY(out && out->complete());
    QCOMPARE(out->version(), version);
    QCOMPARE(out->byteOrder(), f->byteOrder());
    QCOMPARE(out->headerLayout(), f->headerLayout());
    QCOMPARE(out->swappedMagic(), swappedMagic);
    QCOMPARE(out->value("general.name").toStringView(), "a longer name than before, to move the tensor infos");
    const ArrayRef a = out->value("all.types").array();
    QCOMPARE(a.elementType(), ValueType::Int16);
    QCOMPARE(a.at(0).toInt(), std::optional<int64_t>(-1));
    QCOMPARE(a.at(1).toInt(), std::optional<int64_t>(-300));
    checkUntouched(*f, *out, {"general.name", "all.types"});
    QCOMPARE(out->findings().size(), f->findings().size()); // no new finding
}

void TestEdit::changesValuesKeepingTypes_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("text");
    QTest::newRow("u32") << "llama.context_length"
                         << "8192";
    QTest::newRow("f32") << "llama.rope.freq_base"
                         << "500000";
    QTest::newRow("string") << "general.name"
                            << "renamed";
    QTest::newRow("string array") << "tokenizer.ggml.tokens"
                                  << R"(["<pad>", "<s>", "</s>", "hi"])";
    QTest::newRow("f32 array") << "tokenizer.ggml.scores"
                               << "[0.5, -1, -2, -3.25]";
}

void TestEdit::changesValuesKeepingTypes()
{
    QFETCH(QString, key);
    QFETCH(QString, text);
    const BuiltFile built = gguf_file_checks::sampleModel({3, Endian::Little}).build();
    const auto f = openBytes(built.bytes());
    const MetadataEntry *entry = f->findMetadata(key.toStdString());
    QVERIFY(entry);
    const ValueType type = entry->value.type();
    const ValueType elementType = type == ValueType::Array ? entry->value.array().elementType() : ValueType::Uint8;
    std::string error;
    const auto value = parseValue(type, text.toStdString(), error, elementType);
    QVERIFY2(value, error.c_str());
    MetadataChanges c;
    c.set(key.toStdString(), *value);
    const auto out = openBytes(edited(*f, c));
    QVERIFY(out && out->complete() && out->llamaCppAccepts());
    const MetadataEntry *changed = out->findMetadata(key.toStdString());
    QVERIFY(changed);
    QCOMPARE(changed->index, entry->index); // in its place
    QCOMPARE(changed->value.type(), type);
    QVERIFY(OwnedValue::fromValue(changed->value) == *value);
    checkUntouched(*f, *out, {key});
}

void TestEdit::editsOneElementOfALargeArray()
{
    // 1000 integers of each narrow type: one element changed, the type of every element kept
    for (const ValueType t : {ValueType::Int16, ValueType::Uint8, ValueType::Uint64, ValueType::Int32}) {
        std::vector<BuildValue> elements;
        elements.reserve(1000);
        for (int i = 0; i < 1000; ++i)
            elements.push_back(t == ValueType::Int16    ? V::i16(static_cast<int16_t>(i - 500))
                               : t == ValueType::Uint8  ? V::u8(static_cast<uint8_t>(i))
                               : t == ValueType::Uint64 ? V::u64(uint64_t(i) << 40)
                                                        : V::i32(-i));
        GgufBuilder b = gguf_file_checks::sampleModel({3, Endian::Little});
        b.kv("many", V::array(t, elements));
        const BuiltFile built = b.build();
        const auto f = openBytes(built.bytes());
        MetadataChanges c;
        QVERIFY(c.setElement("many", 999, OwnedValue::unsignedInt(t, 7)));
        QVERIFY(c.setElement("many", 0, OwnedValue::unsignedInt(t, 1)));
        const auto out = openBytes(edited(*f, c));
        QVERIFY(out && out->complete());
        const ArrayRef a = out->value("many").array();
        QCOMPARE(a.elementType(), t);
        QCOMPARE(a.size(), uint64_t(1000));
        QCOMPARE(a.at(0).toUInt(), std::optional<uint64_t>(1));
        QCOMPARE(a.at(999).toUInt(), std::optional<uint64_t>(7));
        const ArrayRef before = f->value("many").array();
        for (uint64_t i = 1; i < 999; ++i)
            QCOMPARE(a.at(i).bits(), before.at(i).bits());
        checkUntouched(*f, *out, {"many"});
    }
}

void TestEdit::removesAndAddsKeys()
{
    const BuiltFile built = gguf_file_checks::sampleModel({3, Endian::Big}).build();
    const auto f = openBytes(built.bytes());
    MetadataChanges c;
    c.remove("llama.rope.freq_base");
    c.set("general.license", OwnedValue::string("mit"));
    c.set("zz.ids", OwnedValue::array(ValueType::Uint16, {OwnedValue::unsignedInt(ValueType::Uint16, 65535)}));
    const auto out = openBytes(edited(*f, c, HeaderOptions{0, false, false})); // no padding key: a copy
    QVERIFY(out && out->complete());
    QCOMPARE(out->metadata().size(), f->metadata().size() + 1);
    QVERIFY(!out->findMetadata("llama.rope.freq_base"));
    // new keys come last, in the order they were added
    const auto n = out->metadata().size();
    QCOMPARE(out->metadata()[n - 2].key, "general.license");
    QCOMPARE(out->metadata()[n - 1].key, "zz.ids");
    QCOMPARE(out->value("zz.ids").array().elementType(), ValueType::Uint16);
    QCOMPARE(out->value("zz.ids").array().at(0).toUInt(), std::optional<uint64_t>(65535));
    checkUntouched(*f, *out, {"llama.rope.freq_base"});
}

void TestEdit::fitsInPlaceWithThePaddingKey()
{
    // shorter by far more than the alignment: only the padding key lets the data stay in place
    GgufBuilder b = gguf_file_checks::sampleModel({3, Endian::Little});
    b.kv("long.text", V::str(std::string(500, 'x')));
    const BuiltFile built = b.build();
    const auto f = openBytes(built.bytes());
    MetadataChanges c;
    c.set("long.text", OwnedValue::string("short"));
    std::string error;
    const auto plan = planHeader(*f, c, {}, error);
    QVERIFY(plan && plan->fitsInPlace && plan->paddingKeyWritten);
    QCOMPARE(plan->dataOffset, f->dataOffset());
    // the test's own sum: the pair shrank by 495 bytes, the padding key is 8+21+4+4+8 bytes plus its zeros
    const uint64_t slack = f->dataOffset() - f->tensorInfoEnd();
    QCOMPARE(plan->paddingBytes, slack + 495 - (8 + 21 + 4 + 4 + 8));
    const auto out = openBytes(edited(*f, c));
    QVERIFY(out && out->complete() && out->llamaCppAccepts());
    QCOMPARE(out->fileSize(), f->fileSize());
    QCOMPARE(out->metadata().back().key, std::string_view(kPaddingKey));
    checkUntouched(*f, *out, {"long.text"});

    // the next save recomputes the padding: growing back fits in place too, without the key
    MetadataChanges back;
    back.set("long.text", OwnedValue::string(std::string(500, 'y')));
    const auto plan2 = planHeader(*out, back, {}, error);
    QVERIFY(plan2 && plan2->fitsInPlace && !plan2->paddingKeyWritten);
    const auto again = openBytes(edited(*out, back));
    QVERIFY(again && !again->findMetadata(kPaddingKey));
    QCOMPARE(again->metadata().size(), f->metadata().size());

    // without the padding key the same change needs a copy
    const auto copyPlan = planHeader(*f, c, HeaderOptions{0, false, false}, error);
    QVERIFY(copyPlan && !copyPlan->fitsInPlace && !copyPlan->paddingKeyWritten);
    QVERIFY(copyPlan->dataOffset < f->dataOffset());
    QCOMPARE(copyPlan->dataOffset % 32, uint64_t(0));
}

void TestEdit::growsByACopyWhenTheHeaderOutgrowsItsSpace()
{
    const BuiltFile built = gguf_file_checks::sampleModel({3, Endian::Little}).build();
    const auto f = openBytes(built.bytes());
    MetadataChanges c;
    c.set("tokenizer.chat_template", OwnedValue::string(std::string(1000, 'T')));
    std::string error;
    const uint64_t need = f->tensorInfoEnd() + 1000 + (8 + 23 + 4 + 8); // the pair
    // no key the user did not ask for (#40), whether or not a save in place could have used one: the
    // header padded to the alignment only
    for (const bool paddingKey : {true, false}) {
        const auto bare = planHeader(*f, c, HeaderOptions{0, paddingKey, false}, error);
        QVERIFY(bare && !bare->fitsInPlace && !bare->paddingKeyWritten);
        QCOMPARE(bare->dataOffset, (need + 31) / 32 * 32);
    }
    // a reserve leaves at least that much room for the next edit, held by the padding key; the data
    // moves by whole 4 KiB blocks
    const auto reserved = planHeader(*f, c, HeaderOptions{4096, true, false}, error);
    QVERIFY(reserved && reserved->paddingKeyWritten);
    QVERIFY(reserved->paddingBytes >= 4096);
    QCOMPARE((reserved->dataOffset - f->dataOffset()) % 4096, uint64_t(0));
    const auto out = openBytes(edited(*f, c, HeaderOptions{4096, true, false}));
    QVERIFY(out && out->complete() && out->llamaCppAccepts());
    checkUntouched(*f, *out, {"tokenizer.chat_template"});
    MetadataChanges more;
    more.set("tokenizer.chat_template", OwnedValue::string(std::string(4000, 'U')));
    const auto next = planHeader(*out, more, {}, error);
    QVERIFY(next && next->fitsInPlace);
}

void TestEdit::extendedHeaderKeepsOrMovesItsDataOffset()
{
    GgufBuilder b = gguf_file_checks::sampleModel({3, Endian::Little});
    b.extendedHeader(4096);
    const BuiltFile built = b.build();
    const auto f = openBytes(built.bytes());
    QCOMPARE(f->dataOffset(), uint64_t(4096));
    MetadataChanges c;
    c.set("general.name", OwnedValue::string(std::string(3000, 'n')));
    std::string error;
    const auto fits = planHeader(*f, c, {}, error);
    QVERIFY(fits && fits->fitsInPlace && !fits->paddingKeyWritten); // the gap before the data absorbs it
    const auto out = openBytes(edited(*f, c));
    QVERIFY(out && out->complete());
    QCOMPARE(out->dataOffset(), uint64_t(4096));
    checkUntouched(*f, *out, {"general.name"});

    c.set("general.name", OwnedValue::string(std::string(5000, 'n')));
    const auto moved = planHeader(*f, c, {}, error);
    QVERIFY(moved && !moved->fitsInPlace);
    const auto out2 = openBytes(edited(*f, c));
    QVERIFY(out2 && out2->complete());
    QCOMPARE(out2->headerLayout(), HeaderLayout::Extended);
    QCOMPARE(out2->dataOffset(), moved->dataOffset);
    QVERIFY(out2->dataOffset() > 4096);
    checkUntouched(*f, *out2, {"general.name"});
}

void TestEdit::refusesStructuralAndBadChanges()
{
    const BuiltFile built = gguf_file_checks::sampleModel({3, Endian::Little}).alignment(64).build();
    const auto f = openBytes(built.bytes());
    const auto refused = [&](const MetadataChanges &c, const char *words) {
        std::string error;
        const bool ok = planHeader(*f, c, {}, error).has_value();
        return !ok && QString::fromStdString(error).contains(QLatin1String(words));
    };
    MetadataChanges c;
    c.set("general.alignment", OwnedValue::unsignedInt(ValueType::Uint32, 32));
    QVERIFY(refused(c, "alignment"));
    c.clear();
    c.set("split.count", OwnedValue::unsignedInt(ValueType::Uint16, 2));
    QVERIFY(refused(c, "split"));
    c.clear();
    c.set(std::string(kPaddingKey), OwnedValue::array(ValueType::Uint8));
    QVERIFY(refused(c, "reserved"));
    c.clear();
    c.setElement("tokenizer.ggml.scores", 4, OwnedValue::float32(1));
    QVERIFY(refused(c, "past the end"));
    c.clear();
    c.setElement("tokenizer.ggml.scores", 0, OwnedValue::signedInt(ValueType::Int32, 1));
    QVERIFY(refused(c, "FLOAT32"));
    c.clear();
    c.setElement("general.name", 0, OwnedValue::string("x"));
    QVERIFY(refused(c, "not an array"));
    c.clear();
    c.remove("no.such.key");
    QVERIFY(refused(c, "no such key"));
    c.clear();
    c.set("mixed", OwnedValue::array(ValueType::Uint8, {OwnedValue::signedInt(ValueType::Int8, 1)}));
    QVERIFY(refused(c, "element 0"));
    // a removed key takes no element changes
    c.clear();
    c.remove("general.name");
    QVERIFY(!c.setElement("general.name", 0, OwnedValue::string("x")));
    // the metadata of a split set lives in its first shard
    const auto second = openBytes(twoFileSplitShard(2));
    QVERIFY(second && second->complete());
    std::string splitError;
    QVERIFY(!planHeader(*second, {}, {}, splitError));
    QVERIFY2(QString::fromStdString(splitError).contains("first shard"), splitError.c_str());
    const auto first = openBytes(twoFileSplitShard(1));
    QVERIFY(planHeader(*first, {}, {}, splitError));
    // a file that did not parse completely is not edited
    std::vector<uint8_t> cut = built.bytes();
    cut.resize(built.layout().tensorInfoEnd - 3);
    OpenResult partial = GgufFile::openBuffer(cut, "<cut>");
    QVERIFY(partial.file);
    std::string error;
    QVERIFY(!planHeader(*partial.file, {}, {}, error));
    QVERIFY(QString::fromStdString(error).contains("did not parse completely"));
    // an alignment of 2^30 (a power of two, so ggml accepts it) would pad the header to a GiB in
    // memory: refused (the input the fuzzer found, tests/fuzz/regressions)
    const OpenResult huge = GgufFile::open(
        gguf::test::dataPath(u"../fuzz/regressions/header-alignment-1gib-7f73701042778ed7a31dcd4d073451ec06200531")
            .toStdString());
    QVERIFY(huge.file && huge.file->complete());
    QCOMPARE(huge.file->alignment(), uint64_t(1) << 30);
    QVERIFY(!planHeader(*huge.file, {}, {}, error));
    QVERIFY2(QString::fromStdString(error).contains("are not written"), error.c_str());
}

QTEST_GUILESS_MAIN(TestEdit)
#include "tst_edit.moc"
