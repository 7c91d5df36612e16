// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <memory>

class JinjaHighlighter;
class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace gguf {
class GgufFile;
}

/// The chat templates of a file — tokenizer.chat_template and the named tokenizer.chat_template.*
/// — in full, read-only, in the fixed font with Jinja highlighting, with a copy button.
class ChatTemplateView : public QWidget {
    Q_OBJECT
public:
    explicit ChatTemplateView(QWidget *parent = nullptr);
    ~ChatTemplateView() override;

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

private:
    void showCurrent();

    QComboBox *m_templates;
    QLabel *m_info;
    QCheckBox *m_wrap;
    QPushButton *m_copy;
    QPlainTextEdit *m_text;
    JinjaHighlighter *m_highlighter;
    std::shared_ptr<const gguf::GgufFile> m_file;
};
