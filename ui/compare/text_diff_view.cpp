// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/text_diff_view.h"

#include "core/compare/text_diff.h"
#include "ui/common/diff_colors.h"
#include "ui/common/fixed_font.h"
#include "ui/common/text_format.h"

#include <QTextBlock>

#include <QTextCursor>
#include <algorithm>

TextDiffView::TextDiffView(QWidget *parent) : QPlainTextEdit(parent)
{
    setReadOnly(true);
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setFont(fixedFont());
}

namespace {

// The GUI thread diffs a chat template in a few milliseconds; texts past these sizes (a whole
// tokenizer.json stored as a string) are summarised instead.
constexpr size_t kMaxBytes = 512 * 1024;
constexpr size_t kMaxLines = 8000;
constexpr uint64_t kMaxCells = 4'000'000;

} // namespace

void TextDiffView::setTexts(std::string_view a, std::string_view b)
{
    const auto lineCount = [](std::string_view t) { return static_cast<size_t>(std::count(t.begin(), t.end(), '\n')); };
    if (a.size() + b.size() > kMaxBytes || lineCount(a) + lineCount(b) > kMaxLines) {
        size_t first = 0;
        while (first < a.size() && first < b.size() && a[first] == b[first])
            ++first;
        m_removed = m_added = 0;
        setPlainText(tr("Too long to show line by line here (%1 and %2 bytes); the texts first differ at byte %3.")
                         .arg(a.size())
                         .arg(b.size())
                         .arg(first));
        return;
    }
    const std::vector<gguf::DiffLine> lines = gguf::diffLines(a, b, kMaxCells);
    const bool dark = palette().color(QPalette::Base).lightness() < 128;
    QTextCharFormat removed, added;
    removed.setBackground(DiffColors::background(DiffColors::Shade::Red, dark));
    added.setBackground(DiffColors::background(DiffColors::Shade::Green, dark));
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
