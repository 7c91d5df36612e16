// SPDX-License-Identifier: GPL-3.0-or-later
// Chat templates rendered as HuggingFace renders them: twenty real and test templates
// (tests/data/chat-templates) against what Jinja2 itself produced for two conversations
// (expected.json, made by make_expected.py), then errors, limits and hostile templates.
#include "core/template/chat_template.h"
#include "tests/support/test_paths.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace gguf;

namespace {

const QString kDir = gguf::test::dataPath(u"chat-templates/");

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

ChatTemplateInput conversation(bool withSystem)
{
    ChatTemplateInput input;
    input.messages = ChatTemplate::exampleMessages();
    if (!withSystem)
        input.messages.erase(input.messages.begin());
    input.bosToken = "<s>";
    input.eosToken = "</s>";
    input.addGenerationPrompt = withSystem;
    return input;
}

ChatTemplateResult renderText(const std::string &source, const ChatTemplateInput &input = conversation(true))
{
    return ChatTemplate(source).render(input);
}

} // namespace

class TestChatTemplate : public QObject {
    Q_OBJECT

private slots:
    // Line and column of a byte offset, as an editor counts them (written out by hand here).
    void sourcePositions()
    {
        // "ab\ncé d": a0 b1 \n2 c3 é4-5 space6 d7
        const std::string text = "ab\nc\xc3\xa9 d";
        const auto at = [&](size_t offset) {
            const gguf::SourcePosition p = gguf::sourcePosition(text, offset);
            return std::pair{p.line, p.column};
        };
        QCOMPARE(at(0), std::pair(size_t(1), size_t(1)));
        QCOMPARE(at(2), std::pair(size_t(1), size_t(3))); // the newline itself
        QCOMPARE(at(3), std::pair(size_t(2), size_t(1)));
        QCOMPARE(at(4), std::pair(size_t(2), size_t(2))); // é starts
        QCOMPARE(at(6), std::pair(size_t(2), size_t(3))); // é is one column
        QCOMPARE(at(7), std::pair(size_t(2), size_t(4)));
        QCOMPARE(at(1000), std::pair(size_t(2), size_t(5))); // past the end: the end
    }

    void likeJinja2_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("withSystem");
        QTest::addColumn<QJsonObject>("expected");
        const QJsonObject all = QJsonDocument::fromJson(readAll(kDir + "expected.json")).object();
        QCOMPARE(all.size(), 22);
        for (const QString &file : all.keys())
            for (const bool withSystem : {true, false})
                QTest::addRow("%s/%s", qPrintable(file), withSystem ? "system" : "plain")
                    << file << withSystem << all[file].toObject()[withSystem ? "with_system" : "no_system"].toObject();
    }
    // The same text as Jinja2, or an error where Jinja2 raised one (with its message)
    void likeJinja2()
    {
        QFETCH(QString, file);
        QFETCH(bool, withSystem);
        QFETCH(QJsonObject, expected);
        const ChatTemplate tmpl(readAll(kDir + file).toStdString());
        QVERIFY2(tmpl.isValid(), tmpl.error().c_str());
        const ChatTemplateResult r = tmpl.render(conversation(withSystem));
        if (expected.contains("error")) {
            QVERIFY(!r.ok);
            QVERIFY2(QString::fromStdString(r.error).contains(expected["error"].toString()), r.error.c_str());
            return;
        }
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(QString::fromStdString(r.text), expected["text"].toString());
    }

    void parseErrorsNameTheOffset_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<int>("offset");
        QTest::addColumn<QString>("message");
        QTest::newRow("unclosed tag") << "ab{{ x" << 2 << "never closed";
        QTest::newRow("if without endif") << "{% if x %}y" << 3 << "endif";
        QTest::newRow("stray endfor") << "a{% endfor %}" << 4 << "endfor";
        QTest::newRow("unknown statement") << "{% include 'x' %}" << 3 << "include";
        QTest::newRow("unclosed string") << "{{ 'abc }}" << 10 << "never closed";
        QTest::newRow("bad character") << "{{ a ? b }}" << 5 << "?";
        // a hostile template is refused, not a stack overflow
        QTest::newRow("nested brackets") << "{{ " + QString(100000, '(') + "1" + QString(100000, ')') + " }}" << -1
                                         << "nests more than 256";
        QTest::newRow("nested minus") << "{{ " + QString(100000, '-') + "1 }}" << -1 << "nests more than 256";
    }
    void parseErrorsNameTheOffset()
    {
        QFETCH(QString, source);
        QFETCH(int, offset);
        QFETCH(QString, message);
        const ChatTemplate tmpl(source.toStdString());
        QVERIFY(!tmpl.isValid());
        if (offset >= 0)
            QCOMPARE(tmpl.errorOffset(), static_cast<size_t>(offset));
        else
            QVERIFY(tmpl.errorOffset() < static_cast<size_t>(source.size()));
        QVERIFY2(QString::fromStdString(tmpl.error()).contains(message), tmpl.error().c_str());
        QVERIFY(!tmpl.render(conversation(true)).ok);
    }

    void renderErrors_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("message");
        QTest::addColumn<int>("offset");
        QTest::newRow("raise_exception") << "ab{{ raise_exception('no system role') }}"
                                         << "no system role" << 20;
        QTest::newRow("undefined attribute") << "{{ nothing.role }}"
                                             << "'nothing' is undefined" << 10;
        QTest::newRow("unknown filter") << "{{ 'a' | frobnicate }}"
                                        << "frobnicate" << 7;
        QTest::newRow("list append") << "{% set l = [] %}{{ l.append(1) }}"
                                     << "unsafe" << 20;
        QTest::newRow("string minus") << "{{ 'a' - 1 }}"
                                      << "'-'" << 7;
        QTest::newRow("endless loop")
            << "{% for i in range(1000000) %}{% for j in range(1000000) %}{% endfor %}{% endfor %}"
            << "too long" << -1;
        QTest::newRow("huge output") << "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}"
                                     << "more than" << -1;
        QTest::newRow("nested ifs") << QString("{% if true %}").repeated(5000) << "nests more than 256" << -1;
        QTest::newRow("nested values")
            << "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}"
            << "nest more than 200" << -1;
        QTest::newRow("namespace cycle") << "{% set a = namespace(x=1) %}{% set a.x = [a] %}{{ a }}"
                                         << "cannot hold a namespace" << -1;
        // found in review: each of these crashed, hung or exhausted memory before
        QTest::newRow("long chain") << "{{ 1" + QString("+1").repeated(20000) + " }}"
                                    << "nests more than 256" << -1;
        QTest::newRow("attribute chain") << "{{ x" + QString(".a").repeated(20000) + " }}"
                                         << "nests more than 256" << -1;
        QTest::newRow("filter chain") << "{{ 'x'" + QString("|trim").repeated(20000) + " }}"
                                      << "nests more than 256" << -1;
        QTest::newRow("INT64_MIN // -1") << "{{ (-9223372036854775807 - 1) // -1 }}"
                                         << "integer overflow" << -1;
        QTest::newRow("INT64_MIN % -1") << "{{ (-9223372036854775807 - 1) % -1 }}"
                                        << "integer overflow" << -1;
        QTest::newRow("int overflow") << "{{ 9223372036854775807 + 1 }}"
                                      << "integer overflow" << -1;
        QTest::newRow("power overflow") << "{{ 10 ** 30 }}"
                                        << "integer overflow" << -1;
        QTest::newRow("string doubling") << "{% set ns = namespace(s='x' * 4000000) %}{% for i in range(12) %}"
                                            "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s|length }}"
                                         << "more than 8388608 bytes" << -1;
        QTest::newRow("list growth") << "{{ (range(1000000) + range(1000000))|length }}"
                                     << "more than 1048576 items" << -1;
        QTest::newRow("unique of a million") << "{{ range(1000000)|unique|length }}"
                                             << "unique of more than" << -1;
        QTest::newRow("in inside a loop")
            << "{% set l = range(1000000) %}{% for i in range(100000) %}{{ -1 in l }}{% endfor %}"
            << "too long" << -1;
        QTest::newRow("macro recursion x nesting")
            << "{% macro m() %}{{ " + QString("not ").repeated(200) + "m() }}{% endmacro %}{{ m() }}"
            << "deep" << -1;
        QTest::newRow("deep macro") << "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"
                                    << "nest" << -1;
    }
    // A template that fails says why and where, and never hangs or exhausts memory
    void renderErrors()
    {
        QFETCH(QString, source);
        QFETCH(QString, message);
        QFETCH(int, offset);
        const ChatTemplateResult r = renderText(source.toStdString());
        QVERIFY(!r.ok);
        QVERIFY2(QString::fromStdString(r.error).contains(message), r.error.c_str());
        if (offset >= 0)
            QCOMPARE(r.errorOffset, static_cast<size_t>(offset));
    }

    void valuesPrintAsPython_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        // Python's str() of each value, as Jinja2 prints it
        QTest::newRow("list") << "{{ [1, 'a', none, true, 2.0] }}"
                              << "[1, 'a', None, True, 2.0]";
        QTest::newRow("dict") << "{{ {'k': \"it's\"} }}"
                              << "{'k': \"it's\"}";
        QTest::newRow("float") << "{{ 0.1 + 0.2 }} {{ 10 / 4 }} {{ 1e3 if false else 3.0 }}"
                               << "0.30000000000000004 2.5 3.0";
        QTest::newRow("undefined prints nothing") << "[{{ missing }}]"
                                                  << "[]";
        QTest::newRow("slices") << "{{ 'abcdef'[1:4] }} {{ [1,2,3,4][::-2] }} {{ 'abc'[-1] }}"
                                << "bcd [4, 2] c";
        QTest::newRow("unicode") << "{{ 'Größe'|length }} {{ 'Größe'|upper }} {{ 'x'|tojson }} {{ 'ü'|tojson }}"
                                 << "5 GRößE \"x\" \"ü\"";
        QTest::newRow("comparison chain") << "{{ 1 < 2 and 'b' > 'a' and [1] == [1] and 1 == 1.0 and true == 1 }}"
                                          << "True";
        QTest::newRow("whitespace control") << "a  {%- if true -%}  b  {%- endif -%}  c"
                                            << "abc";
        QTest::newRow("trim_blocks") << "{% if true %}\nx\n{% endif %}\ny"
                                     << "x\ny";
        QTest::newRow("lstrip_blocks") << "a\n    {% if true %}b{% endif %}"
                                       << "a\nb";
    }
    // Expected values: Python 3 / Jinja2 (trim_blocks, lstrip_blocks) print these
    void valuesPrintAsPython()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        const ChatTemplateResult r = renderText(source.toStdString());
        QVERIFY2(r.ok, r.error.c_str());
        QCOMPARE(QString::fromStdString(r.text), expected);
    }
};

QTEST_GUILESS_MAIN(TestChatTemplate)
#include "tst_chat_template.moc"
