// SPDX-License-Identifier: GPL-3.0-or-later
// JinjaHighlighter: what each character of a chat template is drawn as — delimiters with their
// whitespace markers, keywords, strings, numbers, filters and comments, also across lines.
#include "tests/support/contrast.h"
#include "ui/common/jinja_highlighter.h"

#include <QStyle>
#include <QStyleFactory>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QtTest>

#include <memory>

using Kind = JinjaHighlighter::Kind;

namespace {

// The kind of the character at `position` of the document, or "plain".
QString kindAt(const QTextDocument &document, const JinjaHighlighter &highlighter, int position)
{
    const QTextBlock block = document.findBlock(position);
    const int inBlock = position - block.position();
    for (const QTextLayout::FormatRange &range : block.layout()->formats()) {
        if (inBlock < range.start || inBlock >= range.start + range.length)
            continue;
        static const std::pair<Kind, const char *> kinds[] = {
            {Kind::Delimiter, "delimiter"}, {Kind::Keyword, "keyword"}, {Kind::String, "string"},
            {Kind::Number, "number"},       {Kind::Comment, "comment"}, {Kind::Filter, "filter"}};
        for (const auto &[kind, name] : kinds)
            if (range.format == highlighter.format(kind))
                return QLatin1String(name);
    }
    return QStringLiteral("plain");
}

} // namespace

class TestJinjaHighlighter : public QObject {
    Q_OBJECT

private slots:
    void kinds_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("at"); // the first occurrence of this text is looked at
        QTest::addColumn<int>("offset"); // …this many characters into it
        QTest::addColumn<QString>("kind");
        const QString phi3 =
            QStringLiteral("{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') %}"
                           "{{'<|user|>' + '\n' + message['content'] + '<|end|>' + '\n' + '<|assistant|>' + '\n'}}"
                           "{% endif %}{% endfor %}");
        QTest::newRow("expression opens") << phi3 << "{{ bos" << 0 << "delimiter";
        QTest::newRow("variable") << phi3 << "bos_token" << 0 << "plain";
        QTest::newRow("expression closes") << phi3 << "}}{%" << 1 << "delimiter";
        QTest::newRow("statement opens") << phi3 << "{% for" << 1 << "delimiter";
        QTest::newRow("for") << phi3 << "for message" << 0 << "keyword";
        QTest::newRow("in") << phi3 << " in " << 1 << "keyword";
        QTest::newRow("string") << phi3 << "'role'" << 2 << "string";
        QTest::newRow("string quote") << phi3 << "'user'" << 0 << "string";
        QTest::newRow("string across a line break") << phi3 << "'\n'" << 2 << "string";
        QTest::newRow("after the string") << phi3 << "'\n' +" << 3 << "plain";
        QTest::newRow("endfor") << phi3 << "endfor" << 3 << "keyword";
        QTest::newRow("text outside tags") << QStringLiteral("if you {{ x }} for") << "if" << 0 << "plain";
        QTest::newRow("text after a tag") << QStringLiteral("if you {{ x }} for") << " for" << 1 << "plain";
        QTest::newRow("whitespace marker") << QStringLiteral("{%- if x -%}") << "{%-" << 2 << "delimiter";
        QTest::newRow("closing marker") << QStringLiteral("{%- if x -%}") << "-%}" << 0 << "delimiter";
        QTest::newRow("filter") << QStringLiteral("{{ messages | length }}") << "length" << 2 << "filter";
        QTest::newRow("number") << QStringLiteral("{{ loop.index0 + 42 }}") << "42" << 1 << "number";
        QTest::newRow("comment") << QStringLiteral("a {# note: {{ x }} #} b") << "x }}" << 0 << "comment";
        QTest::newRow("after a comment") << QStringLiteral("a {# note #} b") << " b" << 1 << "plain";
        QTest::newRow("statement across lines") << QStringLiteral("{% if a\n and b %}x") << "and" << 0 << "keyword";
        QTest::newRow("comment across lines") << QStringLiteral("{# one\ntwo #}three") << "two" << 0 << "comment";
        QTest::newRow("text after a multi-line comment")
            << QStringLiteral("{# one\ntwo #}three") << "three" << 0 << "plain";
        QTest::newRow("a brace is not a tag") << QStringLiteral("{ if } {{ x }}") << "if" << 0 << "plain";
        QTest::newRow("escaped quote") << QStringLiteral("{{ 'it\\'s' + y }}") << "s'" << 0 << "string";
    }

    void kinds()
    {
        QFETCH(QString, text);
        QFETCH(QString, at);
        QFETCH(int, offset);
        QFETCH(QString, kind);
        QTextDocument document;
        JinjaHighlighter highlighter(&document);
        document.setPlainText(text);
        highlighter.rehighlight(); // a new highlighter's first pass is queued: run it now
        const int position = int(text.indexOf(at));
        QVERIFY(position >= 0);
        QCOMPARE(kindAt(document, highlighter, position + offset), kind);
    }

    void formatsDiffer()
    {
        QTextDocument document;
        const JinjaHighlighter highlighter(&document);
        QVERIFY(highlighter.format(Kind::Delimiter).fontWeight() == QFont::Bold);
        QVERIFY(highlighter.format(Kind::Comment).fontItalic());
        QVERIFY(highlighter.format(Kind::String) != highlighter.format(Kind::Keyword));
    }

    // Every kind stays readable on a light and on a dark base, 4.5:1 at least (#20), and
    // switching the palette recolours the document.
    void coloursKeepContrast()
    {
        const std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        QVERIFY(fusion);
        QTextDocument document(QStringLiteral("{% for m in messages %}{{ m.content }}{% endfor %}"));
        JinjaHighlighter highlighter(&document);
        for (const QPalette &palette : {fusion->standardPalette(), gguf::test::breezeDarkPalette()}) {
            highlighter.applyPalette(palette);
            // the text already highlighted takes the new colours
            const QList<QTextLayout::FormatRange> ranges = document.firstBlock().layout()->formats();
            QVERIFY(!ranges.isEmpty());
            const QColor keyword = highlighter.format(Kind::Keyword).foreground().color();
            QVERIFY(std::any_of(ranges.begin(), ranges.end(), [&](const QTextLayout::FormatRange &r) {
                return r.format.foreground().color() == keyword;
            }));
            for (int k = 0; k < int(Kind::KindCount); ++k) {
                const QColor colour = highlighter.format(Kind(k)).foreground().color();
                const double ratio = gguf::test::contrastRatio(colour, palette.color(QPalette::Base));
                QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("kind %1: %2 on %3 is %4:1")
                                                      .arg(k)
                                                      .arg(colour.name(), palette.color(QPalette::Base).name())
                                                      .arg(ratio, 0, 'f', 2)));
            }
        }
    }
};

QTEST_MAIN(TestJinjaHighlighter)
#include "tst_jinja_highlighter.moc"
