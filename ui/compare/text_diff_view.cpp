// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/text_diff_view.h"

#include "core/compare/text_diff.h"
#include "ui/models/fixed_font.h"
#include "ui/models/text_format.h"

#include <QTextBlock>
#include <QTextCursor>

TextDiffView::TextDiffView(QWidget *parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(fixedFont());
}

void TextDiffView::setTexts(std::string_view a, std::string_view b)
{
    const std::vector<gguf::DiffLine> lines = gguf::diffLines(a, b);
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    QTextCharFormat removed, added;
    removed.setBackground(dark ? QColor(0x5c, 0x22, 0x22) : QColor(0xfb, 0xe0, 0xe0));
    added.setBackground(dark ? QColor(0x1e, 0x4d, 0x2b) : QColor(0xdc, 0xf5, 0xe0));
    clear();
    m_removed = m_added = 0;
    QTextCursor cursor(document());
    const auto number = [](uint32_t n) { return n ? QStringLiteral("%1").arg(n, 4) : QStringLiteral("    "); };
    bool first = true;
    for (const gguf::DiffLine &l : lines) {
        if (!first)
            cursor.insertBlock();
        first = false;
        const QChar mark = l.kind == gguf::DiffLine::Kind::Removed ? u'−'
                           : l.kind == gguf::DiffLine::Kind::Added ? u'+'
                                                                   : u' ';
        const QString text =
            number(l.lineA) + u' ' + number(l.lineB) + u' ' + mark + u' ' + TextFormat::fromView(l.text);
        if (l.kind == gguf::DiffLine::Kind::Removed) {
            ++m_removed;
            cursor.insertText(text, removed);
        } else if (l.kind == gguf::DiffLine::Kind::Added) {
            ++m_added;
            cursor.insertText(text, added);
        } else {
            cursor.insertText(text, QTextCharFormat());
        }
    }
    moveCursor(QTextCursor::Start);
}
