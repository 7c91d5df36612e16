// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPlainTextEdit>

#include <string_view>

/// Two texts (a chat template in A and in B) as a line-by-line difference: lines only A has on a
/// red ground with "−", lines only B has on a green ground with "+", common lines plain, each with
/// its line numbers in A and B. Read-only.
class TextDiffView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit TextDiffView(QWidget *parent = nullptr);

    void setTexts(std::string_view a, std::string_view b);
    /// Lines removed and added by the last setTexts().
    int removedLines() const { return m_removed; }
    int addedLines() const { return m_added; }

private:
    int m_removed = 0, m_added = 0;
};
