// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON reader against RFC 8259's grammar: what it accepts (with the offsets of values and keys
// counted here by hand), what it refuses and where.
#include "core/safetensors/json_reader.h"

#include <QTest>

using namespace gguf::json;

class TestJsonReader : public QObject {
    Q_OBJECT

private slots:
    void offsetsOfValuesAndKeys()
    {
        //                     0         1         2         3
        //                     0123456789012345678901234567890123456
        const std::string t = " {\"a\": [1, -2.5e3, true], \"b\":null} ";
        ParseError e;
        const auto v = parse(t, e);
        QVERIFY2(v, e.message.c_str());
        QCOMPARE(v->kind, Value::Kind::Object);
        QCOMPARE(v->begin, 1u);
        QCOMPARE(v->end, 35u);
        QCOMPARE(v->keys.size(), 2u);
        QCOMPARE(v->keys[0].first, std::string("a"));
        QCOMPARE(v->keys[0].second, 2u);
        QCOMPARE(v->keys[1].second, 26u);
        const Value *a = v->find("a");
        QVERIFY(a && a->kind == Value::Kind::Array);
        QCOMPARE(a->begin, 7u);
        QCOMPARE(a->end, 24u);
        QCOMPARE(a->values.size(), 3u);
        QCOMPARE(a->values[0].asUnsigned(), std::optional<uint64_t>(1));
        QCOMPARE(a->values[1].text, std::string("-2.5e3"));
        QCOMPARE(a->values[1].begin, 11u);
        QVERIFY(!a->values[1].asUnsigned());
        QVERIFY(a->values[2].boolean);
        QCOMPARE(v->find("b")->kind, Value::Kind::Null);
        QVERIFY(!v->find("c"));
    }

    void stringEscapes()
    {
        ParseError e;
        const auto v = parse("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u00e9\\u20ac\", \"\\ud83d\\ude00\", \"é\"]", e);
        QVERIFY2(v, e.message.c_str());
        QCOMPARE(v->values[0].text, std::string("\"\\/\b\f\n\r\t"));
        QCOMPARE(v->values[1].text, std::string("\xc3\xa9\xe2\x82\xac"));
        QCOMPARE(v->values[2].text, std::string("\xf0\x9f\x98\x80")); // U+1F600 from its surrogate pair
        QCOMPARE(v->values[3].text, std::string("\xc3\xa9"));
    }

    void bigIntegers()
    {
        ParseError e;
        const auto v = parse("[18446744073709551615, 18446744073709551616, 007]", e);
        QVERIFY(!v); // a leading zero is not JSON: the second digit is where it stops
        QCOMPARE(e.offset, 46u);
        const auto w = parse("[18446744073709551615, 18446744073709551616, 0]", e);
        QVERIFY2(w, e.message.c_str());
        QCOMPARE(w->values[0].asUnsigned(), std::optional<uint64_t>(UINT64_MAX));
        QVERIFY(!w->values[1].asUnsigned()); // 2^64
        QCOMPARE(w->values[2].asUnsigned(), std::optional<uint64_t>(0));
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("offset");
        QTest::newRow("empty") << QByteArray("") << 0;
        QTest::newRow("trailing comma") << QByteArray("[1,]") << 3;
        QTest::newRow("single quotes") << QByteArray("{'a':1}") << 1;
        QTest::newRow("unquoted key") << QByteArray("{a:1}") << 1;
        QTest::newRow("missing colon") << QByteArray("{\"a\" 1}") << 5;
        QTest::newRow("text after") << QByteArray("{} x") << 3;
        QTest::newRow("two values") << QByteArray("1 2") << 2;
        QTest::newRow("raw newline in string") << QByteArray("\"a\nb\"") << 2;
        QTest::newRow("unknown escape") << QByteArray("\"\\x41\"") << 2;
        QTest::newRow("short unicode escape") << QByteArray("\"\\u12\"") << 3;
        QTest::newRow("lone low surrogate") << QByteArray("\"\\udc00\"") << 7;
        QTest::newRow("high surrogate alone") << QByteArray("\"\\ud800x\"") << 7;
        QTest::newRow("unclosed string") << QByteArray("{\"a\":\"b") << 7;
        QTest::newRow("unclosed object") << QByteArray("{\"a\":1") << 6;
        QTest::newRow("plus sign") << QByteArray("+1") << 0;
        QTest::newRow("bare dot") << QByteArray("1.") << 2;
        QTest::newRow("empty exponent") << QByteArray("1e") << 2;
        QTest::newRow("NaN") << QByteArray("NaN") << 0;
        QTest::newRow("truthy") << QByteArray("tru") << 0;
        QTest::newRow("form feed is not space") << QByteArray("\f1") << 0;
        QTest::newRow("invalid UTF-8") << QByteArray("[\"a\xff\"]") << 3;
        QTest::newRow("overlong UTF-8") << QByteArray("\"\xc0\xaf\"") << 1;
        QTest::newRow("UTF-8 surrogate") << QByteArray("\"\xed\xa0\x80\"") << 1;
    }

    void refused()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, offset);
        ParseError e;
        QVERIFY(!parse(text.toStdString(), e));
        QVERIFY(!e.message.empty());
        QCOMPARE(e.offset, static_cast<uint64_t>(offset));
    }

    void depthLimit()
    {
        ParseError e;
        const std::string deep = std::string(64, '[') + std::string(64, ']');
        QVERIFY2(parse(deep, e), e.message.c_str());
        const std::string deeper = std::string(65, '[') + std::string(65, ']');
        QVERIFY(!parse(deeper, e));
        QCOMPARE(e.offset, 64u);
        const std::string hostile(1 << 20, '['); // no stack overflow
        QVERIFY(!parse(hostile, e));
    }

    void duplicateKeysAreKept()
    {
        ParseError e;
        const auto v = parse("{\"k\":1,\"k\":2}", e);
        QVERIFY(v);
        QCOMPARE(v->keys.size(), 2u);
        QCOMPARE(v->find("k")->text, std::string("1")); // the first
    }
};

QTEST_GUILESS_MAIN(TestJsonReader)
#include "tst_json_reader.moc"
