// SPDX-License-Identifier: GPL-3.0-or-later
// GgufFile metadata: lazily indexed string arrays (also across threads), nested arrays and the getters.
#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "tests/support/gguf_builder.h"
#include "tests/support/gguf_file_checks.h"
#include "tests/support/test_printers.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace gguf;
using namespace gguf::test;
using namespace gguf_file_checks;

struct Getters {
    std::string architecture;
    std::string name;
    std::optional<uint64_t> contextLength, embeddingLength, headCount, headCountKv, blockCount, feedForwardLength,
        vocabSize, fileType;
};

Q_DECLARE_METATYPE(Getters)

namespace {

BuildValue nestedValue()
{
    return V::array(ValueType::Array, {V::array(ValueType::Int32, {V::i32(1), V::i32(2), V::i32(3)}),
                                       V::array(ValueType::Int32, {}), V::stringArray({"x", "yz"}),
                                       V::array(ValueType::Array, {V::array(ValueType::Uint8, {V::u8(7), V::u8(8)}),
                                                                   V::array(ValueType::Float32, {V::f32(1.5f)})})});
}

} // namespace

class TestGgufFileMetadata : public QObject {
    Q_OBJECT

private slots:
    void lazyStringArray();
    void lazyIndexFromThreads();
    void nestedArrays_data();
    void nestedArrays();
    void deepestNesting();
    void convenienceGetters_data();
    void convenienceGetters();
};

void TestGgufFileMetadata::lazyStringArray()
{
    constexpr size_t kCount = 300000;
    std::vector<std::string> tokens(kCount);
    for (size_t i = 0; i < kCount; ++i)
        tokens[i] = "tok" + std::string(i % 7, '_') + std::to_string(i);
    const BuiltFile built = GgufBuilder()
                                .kv("general.architecture", V::str("llama"))
                                .kv("tokenizer.ggml.tokens", V::stringArray(tokens))
                                .kv("tokenizer.ggml.token_type", V::array(ValueType::Int32, {V::i32(1), V::i32(3)}))
                                .build();
    const KvLayout &k = *built.layout().kv("tokenizer.ggml.tokens");
    const auto file = openOk(built);
    QVERIFY(file);
    // opening, counting and reading fixed-size arrays build no index
    QCOMPARE(file->builtArrayIndexCount(), size_t(0));
    const ArrayRef a = file->value("tokenizer.ggml.tokens").array();
    QCOMPARE(a.size(), uint64_t(kCount));
    QCOMPARE(file->vocabSize(), std::optional<uint64_t>(kCount));
    QCOMPARE(file->value("tokenizer.ggml.token_type").array().at(1).toInt(), std::optional<int64_t>(3));
    QCOMPARE(file->builtArrayIndexCount(), size_t(0));

    std::mt19937 rng(20240611);
    std::vector<uint64_t> picks{0, kCount - 1};
    for (int n = 0; n < 2000; ++n)
        picks.push_back(rng() % kCount);
    for (size_t n = 0; n < picks.size(); ++n) {
        const uint64_t i = picks[n];
        const Value v = a.at(i);
        QCOMPARE(v.toStringView(), std::string_view(tokens[i]));
        QCOMPARE(v.offset(), k.elementOffsets[i]);
        // the index is built by the first element access, once
        QCOMPARE(file->builtArrayIndexCount(), size_t(1));
    }
    QVERIFY(!a.at(kCount).isValid());
}

void TestGgufFileMetadata::lazyIndexFromThreads()
{
    // several readers build and use the indexes of two arrays at once
    std::vector<std::string> a(5000), b(3000);
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = std::string(i % 13, 'a') + std::to_string(i);
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = std::to_string(i * 7) + std::string(i % 5, 'b');
    const BuiltFile built = GgufBuilder().kv("a", V::stringArray(a)).kv("b", V::stringArray(b)).build();
    const auto file = openOk(built);
    QVERIFY(file);
    std::atomic<int> mismatches{0};
    std::vector<std::thread> readers;
    for (unsigned t = 0; t < 4; ++t)
        readers.emplace_back([&, t] {
            std::mt19937 rng(t);
            const ArrayRef ra = file->value("a").array(), rb = file->value("b").array();
            for (int n = 0; n < 2000; ++n) {
                const size_t i = rng() % a.size(), j = rng() % b.size();
                mismatches += ra.stringAt(i) != a[i];
                mismatches += rb.stringAt(j) != b[j];
            }
        });
    for (std::thread &r : readers)
        r.join();
    QCOMPARE(mismatches.load(), 0);
    QCOMPARE(file->builtArrayIndexCount(), size_t(2));
}

void TestGgufFileMetadata::nestedArrays_data()
{
    QTest::addColumn<Encoding>("encoding");
    QTest::newRow("v3-little") << Encoding{3, Endian::Little};
    QTest::newRow("v3-big") << Encoding{3, Endian::Big};
    QTest::newRow("v1-little") << Encoding{1, Endian::Little};
}

void TestGgufFileMetadata::nestedArrays()
{
    QFETCH(Encoding, encoding);
    const BuildValue nested = nestedValue();
    const BuiltFile built = GgufBuilder()
                                .version(encoding.version)
                                .byteOrder(encoding.order)
                                .kv("general.architecture", V::str("test"))
                                .kv("test.arr.nested", nested)
                                .kv("test.after_nested", V::u32(3735928559u))
                                .tensor("t", {32}, id(GgmlType::Q8_0))
                                .build();
    const Layout &L = built.layout();
    const auto file = openOk(built);
    QVERIFY(file);
    QVERIFY(file->complete());
    const std::string diff = compareEntry(*file, L, 1, nested);
    QVERIFY2(diff.empty(), diff.c_str());
    QCOMPARE(file->value("test.after_nested").toUInt(), std::optional<uint64_t>(3735928559u));
    // reach the innermost level directly: [3][1][0] is 1.5
    const Value inner = file->value("test.arr.nested").array().at(3).array().at(1).array().at(0);
    QCOMPARE(inner.toDouble(), std::optional<double>(1.5));
    verifyTensors(*file, L);
    std::vector<Refusal> expected{{"nested_array", L.kv("test.arr.nested")->valueOffset}};
    if (encoding.version == 1)
        expected.emplace_back("version_1", L.versionOffset);
    if (encoding.order == Endian::Big)
        expected.emplace_back("byte_swapped", L.versionOffset);
    COMPARE_REFUSALS(*file, expected);
    QVERIFY(!file->llamaCppAccepts());
}

void TestGgufFileMetadata::deepestNesting()
{
    // eight levels of arrays is the deepest the reader walks; the innermost values stay reachable
    BuildValue v = V::array(ValueType::Uint8, {V::u8(41), V::u8(42)});
    for (int level = 0; level < 7; ++level)
        v = V::array(ValueType::Array, {V::stringArray({"pad"}), v});
    const BuiltFile built = GgufBuilder().kv("deep", v).kv("after", V::i8(-7)).build();
    const auto file = openOk(built);
    QVERIFY(file);
    const std::string diff = compareEntry(*file, built.layout(), 0, v);
    QVERIFY2(diff.empty(), diff.c_str());
    ArrayRef a = file->value("deep").array();
    for (int level = 0; level < 7; ++level)
        a = a.at(1).array();
    QCOMPARE(a.elementType(), ValueType::Uint8);
    QCOMPARE(a.at(1).toUInt(), std::optional<uint64_t>(42));
    QCOMPARE(file->value("after").toInt(), std::optional<int64_t>(-7));
}

void TestGgufFileMetadata::convenienceGetters_data()
{
    QTest::addColumn<BuiltFile>("built");
    QTest::addColumn<Getters>("expected");

    {
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("general.name", V::str("Tiny Llama"))
            .kv("general.file_type", V::u32(15))
            .kv("llama.context_length", V::u32(2048))
            .kv("llama.embedding_length", V::u32(64))
            .kv("llama.attention.head_count", V::u32(4))
            .kv("llama.attention.head_count_kv", V::u32(2))
            .kv("llama.block_count", V::u32(3))
            .kv("llama.feed_forward_length", V::u32(192))
            .kv("tokenizer.ggml.tokens", V::stringArray({"a", "b", "c", "d", "e"}));
        b.tensor("token_embd.weight", {64, 5}, id(GgmlType::F32));
        for (int layer : {0, 1, 2, 10}) {
            b.tensor("blk." + std::to_string(layer) + ".attn_q.weight", {64, 64}, id(GgmlType::Q8_0));
            b.tensor("blk." + std::to_string(layer) + ".attn_norm.weight", {64}, id(GgmlType::F32));
        }
        b.tensor("output.weight", {64, 5}, id(GgmlType::F16));
        QTest::newRow("llama") << b.build() << Getters{"llama", "Tiny Llama", 2048, 64, 4, 2, 3, 192, 5, 15};
    }
    {
        // other integer types are accepted; an explicit vocab_size wins over the token list
        GgufBuilder b;
        b.kv("general.architecture", V::str("gpt2"))
            .kv("gpt2.context_length", V::u64(1ull << 40))
            .kv("gpt2.embedding_length", V::i32(768))
            .kv("gpt2.attention.head_count", V::u16(12))
            .kv("gpt2.block_count", V::u8(2))
            .kv("gpt2.vocab_size", V::u32(50257))
            .kv("tokenizer.ggml.tokens", V::stringArray({"x"}));
        b.tensor("layers.0.w", {16}, id(GgmlType::F32)).tensor("layers.1.w", {16, 2}, id(GgmlType::F32));
        QTest::newRow("gpt2_other_int_types")
            << b.build()
            << Getters{"gpt2", "", 1ull << 40, 768, 12, std::nullopt, 2, std::nullopt, 50257, std::nullopt};
    }
    {
        // values of the wrong type or sign are absent, not misread
        GgufBuilder b;
        b.kv("general.architecture", V::str("llama"))
            .kv("llama.context_length", V::str("4096"))
            .kv("llama.embedding_length", V::f32(64.0f))
            .kv("llama.attention.head_count", V::i32(-4))
            .kv("llama.block_count", V::array(ValueType::Uint32, {V::u32(1)}))
            .kv("general.file_type", V::str("15"));
        QTest::newRow("wrong_types") << b.build() << Getters{"llama", "", {}, {}, {}, {}, {}, {}, {}, {}};
    }
    QTest::newRow("no_metadata") << GgufBuilder().tensor("w", {4}, id(GgmlType::F32)).build() << Getters{};
}

void TestGgufFileMetadata::convenienceGetters()
{
    QFETCH(BuiltFile, built);
    QFETCH(Getters, expected);
    const auto file = openOk(built);
    QVERIFY(file);
    QCOMPARE(file->architecture(), expected.architecture);
    QCOMPARE(file->name(), expected.name);
    QCOMPARE(file->contextLength(), expected.contextLength);
    QCOMPARE(file->embeddingLength(), expected.embeddingLength);
    QCOMPARE(file->headCount(), expected.headCount);
    QCOMPARE(file->headCountKv(), expected.headCountKv);
    QCOMPARE(file->blockCount(), expected.blockCount);
    QCOMPARE(file->feedForwardLength(), expected.feedForwardLength);
    QCOMPARE(file->vocabSize(), expected.vocabSize);
    QCOMPARE(file->fileType(), expected.fileType);

    // parameter count, data bytes and layers follow from what was written
    uint64_t params = 0, bytes = 0;
    int32_t maxLayer = -1;
    for (const TensorLayout &t : built.layout().tensors) {
        params += t.elements;
        bytes += t.dataSize;
        for (const char *prefix : {"blk.", "layers."}) {
            const std::string p(prefix);
            if (t.name.rfind(p, 0) == 0)
                maxLayer = std::max(maxLayer, std::stoi(t.name.substr(p.size())));
        }
    }
    QCOMPARE(file->parameterCount(), params);
    QCOMPARE(file->tensorDataBytes(), bytes);
    QCOMPARE(file->layerCount(), static_cast<uint32_t>(maxLayer + 1));
    for (const TensorInfo &t : file->tensors()) {
        const std::string name(t.name);
        const size_t dot = name.find('.');
        const bool layered = name.rfind("blk.", 0) == 0 || name.rfind("layers.", 0) == 0;
        QCOMPARE(t.layer, layered ? std::stoi(name.substr(dot + 1)) : -1);
    }
}

QTEST_GUILESS_MAIN(TestGgufFileMetadata)
#include "tst_gguf_file_metadata.moc"
