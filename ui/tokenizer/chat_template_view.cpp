// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/chat_template_view.h"
#include "ui/common/fixed_font.h"

#include "core/format/gguf_file.h"
#include "core/template/chat_template.h"
#include "core/vocab/vocabulary.h"
#include "ui/common/jinja_highlighter.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QEvent>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

namespace {

constexpr std::string_view kDefaultKey = "tokenizer.chat_template";

// The text of the token a `tokenizer.ggml.*_token_id` key names ("" without one).
std::string specialTokenText(const gguf::GgufFile &file, const gguf::Vocabulary &vocab, std::string_view key)
{
    const auto id = file.value(key).toUInt();
    return vocab.isValid() && id && *id < vocab.size() ? std::string(vocab.token(*id)) : std::string();
}

} // namespace

QString ChatTemplateView::sourcePosition(const std::string &text, size_t offset)
{
    const gguf::SourcePosition p = gguf::sourcePosition(text, offset);
    return tr("line %1, column %2").arg(p.line).arg(p.column);
}

namespace {

// What a rendering delivers: the prompt or the error, and a note on how it was made.
struct Rendering {
    bool ok = false;
    QString text;
    QString note;
};

} // namespace

ChatTemplateView::ChatTemplateView(QWidget *parent)
    : QWidget(parent), m_templates(new QComboBox(this)), m_info(new QLabel(this)),
      m_wrap(new QCheckBox(tr("Wrap lines"), this)), m_copy(new QPushButton(tr("Copy"), this)),
      m_render(new QPushButton(tr("Render with example messages"), this)),
      m_tokenize(new QPushButton(tr("Tokenize the prompt"), this)), m_text(new QPlainTextEdit(this)),
      m_renderNote(new QLabel(this)), m_rendered(new QPlainTextEdit(this)), m_renderPane(new QWidget(this)),
      m_highlighter(new JinjaHighlighter(m_text->document())), m_jobs(new JobTracker(this))
{
    m_render->setToolTip(tr("Run the template on a short conversation (system, user, assistant, user) with the "
                            "file's BOS/EOS tokens and show the prompt it makes"));
    m_tokenize->setToolTip(tr("Show this prompt in the Tokenize section, special tokens parsed"));
    m_rendered->setReadOnly(true);
    m_rendered->setFont(fixedFont());
    m_renderNote->setWordWrap(true);
    m_renderNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_templates->setToolTip(tr("The default template and the named ones (tokenizer.chat_template.NAME)"));
    m_templates->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_copy->setIcon(QIcon::fromTheme(QStringLiteral("edit-copy")));
    m_copy->setToolTip(tr("Copy the whole template to the clipboard"));
    m_wrap->setChecked(true);
    m_text->setReadOnly(true);
    m_text->setFont(fixedFont());
    m_text->setPlaceholderText(tr("This file has no chat template (tokenizer.chat_template)."));
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);

    connect(m_templates, &QComboBox::currentIndexChanged, this, &ChatTemplateView::showCurrent);
    connect(m_wrap, &QCheckBox::toggled, this, [this](bool wrap) {
        m_text->setLineWrapMode(wrap ? QPlainTextEdit::WidgetWidth : QPlainTextEdit::NoWrap);
    });
    connect(m_copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_text->toPlainText()); });
    connect(m_render, &QPushButton::clicked, this, &ChatTemplateView::renderCurrent);
    connect(m_tokenize, &QPushButton::clicked, this, [this] { emit tokenizeRequested(m_rendered->toPlainText()); });

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_templates);
    bar->addWidget(m_info, 1);
    bar->addWidget(m_wrap);
    bar->addWidget(m_copy);
    bar->addWidget(m_render);
    auto *paneBar = new QHBoxLayout;
    paneBar->addWidget(m_renderNote, 1);
    paneBar->addWidget(m_tokenize);
    auto *pane = new QVBoxLayout(m_renderPane);
    pane->setContentsMargins(0, 0, 0, 0);
    pane->addLayout(paneBar);
    pane->addWidget(m_rendered, 1);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_text);
    splitter->addWidget(m_renderPane);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(splitter, 1);
    m_renderPane->hide();
    showCurrent();
}

ChatTemplateView::~ChatTemplateView() = default;

void ChatTemplateView::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    m_file = std::move(file);
    const QSignalBlocker blocker(m_templates);
    m_templates->clear();
    if (m_file) {
        // the default template first, then the named ones in file order
        if (const gguf::MetadataEntry *e = m_file->findMetadata(kDefaultKey);
            e && e->value.type() == gguf::ValueType::String)
            m_templates->addItem(tr("default"), TextFormat::fromView(kDefaultKey));
        for (const gguf::MetadataEntry &e : m_file->metadata()) {
            const std::string_view key = e.key;
            if (key.size() > kDefaultKey.size() + 1 &&
                key.substr(0, kDefaultKey.size() + 1) == "tokenizer.chat_template." &&
                e.value.type() == gguf::ValueType::String)
                m_templates->addItem(TextFormat::fromView(key.substr(kDefaultKey.size() + 1)),
                                     TextFormat::fromView(key));
        }
    }
    m_templates->setVisible(m_templates->count() > 1);
    showCurrent();
}

int ChatTemplateView::templateCount() const
{
    return m_templates->count();
}

QStringList ChatTemplateView::templateKeys() const
{
    QStringList keys;
    for (int i = 0; i < m_templates->count(); ++i)
        keys << m_templates->itemData(i).toString();
    return keys;
}

bool ChatTemplateView::showTemplate(const QString &key)
{
    const int index = m_templates->findData(key);
    if (index < 0)
        return false;
    m_templates->setCurrentIndex(index);
    return true;
}

QString ChatTemplateView::currentKey() const
{
    return m_templates->currentData().toString();
}

QString ChatTemplateView::text() const
{
    return m_text->toPlainText();
}

void ChatTemplateView::showCurrent()
{
    m_jobs->drop();
    m_renderPane->hide();
    const QString key = currentKey();
    const gguf::MetadataEntry *entry = m_file && !key.isEmpty() ? m_file->findMetadata(key.toStdString()) : nullptr;
    if (!entry) {
        m_text->clear();
        m_info->setText(m_file ? tr("No chat template in this file.") : QString());
        m_copy->setEnabled(false);
        m_render->setEnabled(false);
        return;
    }
    const QString text = TextFormat::fromView(entry->value.toStringView());
    m_text->setPlainText(text);
    const QLocale locale;
    const int lines = m_text->blockCount();
    const QString size =
        (text.size() == 1 ? tr("1 character") : tr("%1 characters").arg(locale.toString(text.size()))) +
        QStringLiteral(", ") + (lines == 1 ? tr("1 line") : tr("%1 lines").arg(locale.toString(lines)));
    m_info->setText(tr("%1 — %2").arg(key, size));
    m_copy->setEnabled(true);
    m_render->setEnabled(true);
}

void ChatTemplateView::renderCurrent()
{
    const gguf::MetadataEntry *entry = m_file ? m_file->findMetadata(currentKey().toStdString()) : nullptr;
    if (!entry)
        return;
    m_renderPane->show();
    m_rendered->clear();
    m_renderNote->setText(tr("Rendering…"));
    m_tokenize->setEnabled(false);
    m_jobs->start(
        tr("Rendering the chat template"),
        [file = m_file, source = std::string(entry->value.toStringView())](const gguf::ProgressFn &) {
            Rendering r;
            const gguf::Vocabulary vocab(*file);
            gguf::ChatTemplateInput input;
            input.messages = gguf::ChatTemplate::exampleMessages();
            input.bosToken = specialTokenText(*file, vocab, "tokenizer.ggml.bos_token_id");
            input.eosToken = specialTokenText(*file, vocab, "tokenizer.ggml.eos_token_id");
            const gguf::ChatTemplate tmpl(source);
            if (!tmpl.isValid()) {
                r.note = tr("This template cannot be evaluated here: %1 (%2).")
                             .arg(QString::fromStdString(tmpl.error()), sourcePosition(source, tmpl.errorOffset()));
                return r;
            }
            gguf::ChatTemplateResult result = tmpl.render(input);
            QString how = tr("Rendered as HuggingFace's Jinja does, with a system message, two user messages and an "
                             "answer, and the generation prompt.");
            if (!result.ok) {
                // many templates refuse a system message: try the conversation without it
                gguf::ChatTemplateInput noSystem = input;
                noSystem.messages.erase(noSystem.messages.begin());
                const gguf::ChatTemplateResult second = tmpl.render(noSystem);
                if (second.ok) {
                    how = tr("With a system message the template stops (%1, %2); rendered without one.")
                              .arg(QString::fromStdString(result.error), sourcePosition(source, result.errorOffset));
                    result = second;
                }
            }
            if (!result.ok) {
                r.note = tr("The template stops: %1 (%2).")
                             .arg(QString::fromStdString(result.error), sourcePosition(source, result.errorOffset));
                return r;
            }
            r.ok = true;
            r.text = QString::fromStdString(result.text);
            r.note = how;
            return r;
        },
        [this](const Rendering &r) {
            m_rendered->setPlainText(r.text);
            m_renderNote->setText(r.note);
            m_tokenize->setEnabled(r.ok);
            emit rendered();
        });
}

QString ChatTemplateView::renderedText() const
{
    return m_rendered->toPlainText();
}

QString ChatTemplateView::renderNote() const
{
    return m_renderNote->text();
}

void ChatTemplateView::changeEvent(QEvent *event)
{
    // a switch between light and dark palettes recolours the template's highlighting
    if (event->type() == QEvent::PaletteChange)
        m_highlighter->applyPalette(palette());
    QWidget::changeEvent(event);
}
