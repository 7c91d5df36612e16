// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPalette>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

/// Jinja syntax highlighting for chat templates: the {{ }}, {% %} and {# #} delimiters (with their
/// -/+ whitespace markers), keywords, strings, numbers and filters inside them, and comments.
/// Tags, strings and comments may span lines.
class JinjaHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    enum class Kind { Delimiter, Keyword, String, Number, Comment, Filter, KindCount };

    explicit JinjaHighlighter(QTextDocument *document);

    /// Colours for `palette`'s base: darker hues on a light base, lighter ones on a dark base, each
    /// with a contrast of at least 4.5:1 against it; highlights the document again.
    void applyPalette(const QPalette &palette);

    /// The format used for `kind`.
    QTextCharFormat format(Kind kind) const { return m_formats[static_cast<int>(kind)]; }

protected:
    void highlightBlock(const QString &text) override;

private:
    // Where a line ends: in plain text, inside an expression, a statement or a comment, and
    // inside a quoted string of an expression or statement.
    enum class Context { Text, Expression, Statement, Comment };
    int scanTag(const QString &text, int pos, Context context, QChar &quote);

    QTextCharFormat m_formats[static_cast<int>(Kind::KindCount)];
};
