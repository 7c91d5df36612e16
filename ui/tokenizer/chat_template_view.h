// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <string>

#include <memory>

class JinjaHighlighter;
class JobTracker;
class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace gguf {
class GgufFile;
}

/// The chat templates of a file — tokenizer.chat_template and the named tokenizer.chat_template.*
/// — in full, read-only, in the fixed font with Jinja highlighting, with a copy button; "Render
/// with example messages" runs the template (core/template, as HuggingFace's Jinja does) on a
/// worker with a system/user/assistant/user conversation and the file's BOS/EOS tokens, shows the
/// prompt it makes, and offers it to the Tokenize section. A template the evaluator cannot run says
/// why and where.
class ChatTemplateView : public QWidget {
    Q_OBJECT
public:
    explicit ChatTemplateView(QWidget *parent = nullptr);
    ~ChatTemplateView() override;

    /// "line 3, column 14" of byte `offset` of `text`.
    static QString sourcePosition(const std::string &text, size_t offset);

    /// Shows the templates of `file` (null: none).
    void setFile(std::shared_ptr<const gguf::GgufFile> file);

    /// Number of templates in the file.
    int templateCount() const;
    /// The keys of the templates, the default one first.
    QStringList templateKeys() const;
    /// Shows the template with `key`; false when the file has none by that key.
    bool showTemplate(const QString &key);
    QString currentKey() const;
    QString text() const;

    QPlainTextEdit *editor() const { return m_text; }
    JinjaHighlighter *highlighter() const { return m_highlighter; }
    QPushButton *copyButton() const { return m_copy; }
    QPushButton *renderButton() const { return m_render; }
    QPushButton *tokenizeButton() const { return m_tokenize; }
    /// The rendering (or why there is none), as shown.
    QString renderedText() const;
    QString renderNote() const;

signals:
    /// The user asked to tokenize the rendered prompt.
    void tokenizeRequested(const QString &text);
    /// A rendering finished (or failed) and is on show.
    void rendered();

protected:
    void changeEvent(QEvent *event) override;

private:
    void showCurrent();
    void renderCurrent();

    QComboBox *m_templates;
    QLabel *m_info;
    QCheckBox *m_wrap;
    QPushButton *m_copy;
    QPushButton *m_render;
    QPushButton *m_tokenize;
    QPlainTextEdit *m_text;
    QLabel *m_renderNote;
    QPlainTextEdit *m_rendered;
    QWidget *m_renderPane;
    JinjaHighlighter *m_highlighter;
    JobTracker *m_jobs;
    std::shared_ptr<const gguf::GgufFile> m_file;
};
