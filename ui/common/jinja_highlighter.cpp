// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/jinja_highlighter.h"

#include <QColor>
#include <QGuiApplication>
#include <QSet>

namespace {

// Block state: context in the low two bits, the open quote above them (0 none, 1 ', 2 ").
int encodeState(int context, QChar quote)
{
    return context | (quote == u'\'' ? 4 : quote == u'"' ? 8 : 0);
}

bool isIdentifierStart(QChar c)
{
    return c.isLetter() || c == u'_';
}

bool isIdentifierPart(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}

const QSet<QString> &keywords()
{
    static const QSet<QString> words = {
        QStringLiteral("if"),        QStringLiteral("elif"),       QStringLiteral("else"),
        QStringLiteral("endif"),     QStringLiteral("for"),        QStringLiteral("endfor"),
        QStringLiteral("in"),        QStringLiteral("not"),        QStringLiteral("and"),
        QStringLiteral("or"),        QStringLiteral("is"),         QStringLiteral("set"),
        QStringLiteral("endset"),    QStringLiteral("macro"),      QStringLiteral("endmacro"),
        QStringLiteral("call"),      QStringLiteral("endcall"),    QStringLiteral("filter"),
        QStringLiteral("endfilter"), QStringLiteral("block"),      QStringLiteral("endblock"),
        QStringLiteral("extends"),   QStringLiteral("include"),    QStringLiteral("import"),
        QStringLiteral("from"),      QStringLiteral("as"),         QStringLiteral("with"),
        QStringLiteral("endwith"),   QStringLiteral("generation"), QStringLiteral("endgeneration"),
        QStringLiteral("break"),     QStringLiteral("continue"),   QStringLiteral("recursive"),
        QStringLiteral("true"),      QStringLiteral("false"),      QStringLiteral("none"),
        QStringLiteral("True"),      QStringLiteral("False"),      QStringLiteral("None"),
    };
    return words;
}

} // namespace

JinjaHighlighter::JinjaHighlighter(QTextDocument *document) : QSyntaxHighlighter(document)
{
    m_formats[static_cast<int>(Kind::Delimiter)].setFontWeight(QFont::Bold);
    m_formats[static_cast<int>(Kind::Keyword)].setFontWeight(QFont::Bold);
    m_formats[static_cast<int>(Kind::Comment)].setFontItalic(true);
    applyPalette(QGuiApplication::palette());
}

void JinjaHighlighter::applyPalette(const QPalette &palette)
{
    // delimiter, keyword, string, number, comment, filter
    static constexpr QRgb kLight[] = {0xb34d00, 0x0033b3, 0x067d17, 0x1750eb, 0x6e6e6e, 0x871094};
    static constexpr QRgb kDark[] = {0xf0a35e, 0x82aaff, 0x8fd694, 0x79c6e8, 0xa0a0a0, 0xd69ef0};
    const bool dark = palette.color(QPalette::Base).lightness() < 128;
    for (int k = 0; k < static_cast<int>(Kind::KindCount); ++k)
        m_formats[k].setForeground(QColor(dark ? kDark[k] : kLight[k]));
    if (document())
        rehighlight();
}

void JinjaHighlighter::highlightBlock(const QString &text)
{
    const int previous = std::max(0, previousBlockState());
    auto context = static_cast<Context>(previous & 3);
    QChar quote = previous & 4 ? QChar(u'\'') : previous & 8 ? QChar(u'"') : QChar();
    int pos = 0;
    while (pos < text.size()) {
        if (context == Context::Text) {
            const int open = text.indexOf(u'{', pos);
            if (open < 0 || open + 1 >= text.size())
                break;
            const QChar kind = text[open + 1];
            if (kind != u'{' && kind != u'%' && kind != u'#') {
                pos = open + 1;
                continue;
            }
            int length = 2;
            if (open + 2 < text.size() && (text[open + 2] == u'-' || text[open + 2] == u'+'))
                ++length;
            context = kind == u'{' ? Context::Expression : kind == u'%' ? Context::Statement : Context::Comment;
            setFormat(open, length, format(context == Context::Comment ? Kind::Comment : Kind::Delimiter));
            pos = open + length;
            continue;
        }
        if (context == Context::Comment) {
            const int close = text.indexOf(QLatin1String("#}"), pos);
            const int end = close < 0 ? int(text.size()) : close + 2;
            setFormat(pos, end - pos, format(Kind::Comment));
            pos = end;
            if (close >= 0)
                context = Context::Text;
            continue;
        }
        pos = scanTag(text, pos, context, quote);
        if (pos < 0) { // the tag was closed
            pos = -pos;
            context = Context::Text;
        }
    }
    setCurrentBlockState(encodeState(static_cast<int>(context), quote));
}

// Colours the inside of an expression or a statement from `pos`: returns where it stopped, negated
// when the tag's closing delimiter ended it.
int JinjaHighlighter::scanTag(const QString &text, int pos, Context context, QChar &quote)
{
    const QLatin1String close(context == Context::Expression ? "}}" : "%}");
    bool afterPipe = false;
    while (pos < text.size()) {
        if (!quote.isNull()) {
            int end = pos;
            while (end < text.size() && text[end] != quote)
                end += text[end] == u'\\' ? 2 : 1;
            const bool closed = end < text.size();
            end = std::min<int>(end + (closed ? 1 : 0), int(text.size()));
            setFormat(pos, end - pos, format(Kind::String));
            pos = end;
            if (closed)
                quote = QChar();
            continue;
        }
        const QChar c = text[pos];
        const bool marker = (c == u'-' || c == u'+') && QStringView(text).mid(pos + 1).startsWith(close);
        if (marker || QStringView(text).mid(pos).startsWith(close)) {
            const int length = marker ? 3 : 2;
            setFormat(pos, length, format(Kind::Delimiter));
            return -(pos + length);
        }
        if (c == u'\'' || c == u'"') {
            quote = c;
            setFormat(pos, 1, format(Kind::String));
            ++pos;
        } else if (c.isDigit()) {
            int end = pos;
            while (end < text.size() && (text[end].isDigit() || text[end] == u'.'))
                ++end;
            setFormat(pos, end - pos, format(Kind::Number));
            pos = end;
        } else if (isIdentifierStart(c)) {
            int end = pos;
            while (end < text.size() && isIdentifierPart(text[end]))
                ++end;
            const QString word = text.mid(pos, end - pos);
            if (afterPipe)
                setFormat(pos, end - pos, format(Kind::Filter));
            else if (keywords().contains(word))
                setFormat(pos, end - pos, format(Kind::Keyword));
            afterPipe = false;
            pos = end;
        } else {
            if (c == u'|')
                afterPipe = true;
            else if (!c.isSpace())
                afterPipe = false;
            ++pos;
        }
    }
    return pos;
}
