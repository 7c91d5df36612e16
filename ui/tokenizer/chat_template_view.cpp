// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/chat_template_view.h"
#include "ui/models/fixed_font.h"

#include "core/format/gguf_file.h"
#include "ui/models/text_format.h"
#include "ui/tokenizer/jinja_highlighter.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace {

constexpr std::string_view kDefaultKey = "tokenizer.chat_template";

} // namespace

ChatTemplateView::ChatTemplateView(QWidget *parent)
    : QWidget(parent), m_templates(new QComboBox(this)), m_info(new QLabel(this)),
      m_wrap(new QCheckBox(tr("Wrap lines"), this)), m_copy(new QPushButton(tr("Copy"), this)),
      m_text(new QPlainTextEdit(this)), m_highlighter(new JinjaHighlighter(m_text->document()))
{
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

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_templates);
    bar->addWidget(m_info, 1);
    bar->addWidget(m_wrap);
    bar->addWidget(m_copy);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(m_text, 1);
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
    const QString key = currentKey();
    const gguf::MetadataEntry *entry = m_file && !key.isEmpty() ? m_file->findMetadata(key.toStdString()) : nullptr;
    if (!entry) {
        m_text->clear();
        m_info->setText(m_file ? tr("No chat template in this file.") : QString());
        m_copy->setEnabled(false);
        return;
    }
    const QString text = TextFormat::fromView(entry->value.toStringView());
    m_text->setPlainText(text);
    const QLocale locale;
    m_info->setText(tr("%1 — %2 characters, %3 lines")
                        .arg(key, locale.toString(text.size()), locale.toString(m_text->blockCount())));
    m_copy->setEnabled(true);
}
