// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/token_search_bar.h"

#include "core/vocab/vocabulary.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSignalBlocker>

TokenSearchBar::TokenSearchBar(Target target, QWidget *parent)
    : QWidget(parent), m_target(target), m_text(new QLineEdit(this)), m_mode(new QComboBox(this)),
      m_field(new QComboBox(this)), m_case(new QCheckBox(tr("Match case"), this))
{
    using Mode = gguf::TokenSearch::Mode;
    using Field = gguf::TokenSearch::Field;
    m_text->setClearButtonEnabled(true);
    // Files dropped anywhere open in the window; the search box must not take them as text.
    m_text->setAcceptDrops(false);
    m_mode->addItem(tr("Text"), static_cast<int>(Mode::Text));
    m_mode->addItem(tr("Regex"), static_cast<int>(Mode::RegularExpression));
    m_mode->addItem(target == Target::Tokens ? tr("Id") : tr("Rank"), static_cast<int>(Mode::Id));
    m_mode->addItem(tr("Bytes (hex)"), static_cast<int>(Mode::Bytes));
    m_mode->setToolTip(tr("What the search text is: text, a regular expression, ids or hex bytes"));
    m_text->setMinimumWidth(100);
    m_field->addItem(tr("Stored or decoded"), static_cast<int>(Field::StoredOrDecoded));
    m_field->addItem(tr("Stored"), static_cast<int>(Field::Stored));
    m_field->addItem(tr("Decoded"), static_cast<int>(Field::Decoded));
    m_field->setToolTip(tr("Look in the text as stored in the file (Ġthe, ▁the), in the text it stands for "
                           "( the), or in either"));
    m_case->setToolTip(tr("Without it, text matches in any case (A–Z; a regular expression folds every letter)"));

    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_mode);
    layout->addWidget(m_field);
    layout->addWidget(m_case);
    if (target == Target::Tokens) {
        m_type = new QComboBox(this);
        m_type->setObjectName(QStringLiteral("tokenTypeFilter"));
        m_type->addItem(tr("All types"), gguf::TokenSearch::kAnyType);
        m_type->addItem(tr("Special tokens"), gguf::TokenSearch::kSpecialTokens);
        for (const gguf::TokenType t : {gguf::TokenType::Normal, gguf::TokenType::Unknown, gguf::TokenType::Control,
                                        gguf::TokenType::UserDefined, gguf::TokenType::Unused, gguf::TokenType::Byte}) {
            const std::string_view name = gguf::tokenTypeName(static_cast<int32_t>(t));
            m_type->addItem(QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())).replace(u'_', u'-'),
                            static_cast<int>(t));
        }
        m_type->setToolTip(tr("Only tokens of this type (tokenizer.ggml.token_type), or only the special tokens "
                              "named by tokenizer.ggml.*_token_id keys"));
        layout->addWidget(m_type);
    }

    connect(m_text, &QLineEdit::textChanged, this, &TokenSearchBar::queryChanged);
    for (QComboBox *box : {m_mode, m_field, m_type})
        if (box)
            connect(box, &QComboBox::currentIndexChanged, this, &TokenSearchBar::queryChanged);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &TokenSearchBar::updatePlaceholder);
    connect(m_case, &QCheckBox::toggled, this, &TokenSearchBar::queryChanged);
    updatePlaceholder();
}

gguf::TokenSearch::Query TokenSearchBar::query() const
{
    gguf::TokenSearch::Query q;
    q.mode = static_cast<gguf::TokenSearch::Mode>(m_mode->currentData().toInt());
    q.text = m_text->text().toStdString();
    q.field = static_cast<gguf::TokenSearch::Field>(m_field->currentData().toInt());
    q.caseSensitive = m_case->isChecked();
    q.typeFilter = m_type ? m_type->currentData().toInt() : gguf::TokenSearch::kAnyType;
    return q;
}

void TokenSearchBar::setQuery(const gguf::TokenSearch::Query &query)
{
    {
        const QSignalBlocker blockText(m_text), blockMode(m_mode), blockField(m_field), blockCase(m_case);
        m_mode->setCurrentIndex(std::max(0, m_mode->findData(static_cast<int>(query.mode))));
        m_field->setCurrentIndex(std::max(0, m_field->findData(static_cast<int>(query.field))));
        m_case->setChecked(query.caseSensitive);
        m_text->setText(QString::fromStdString(query.text));
        if (m_type) {
            const QSignalBlocker blockType(m_type);
            m_type->setCurrentIndex(std::max(0, m_type->findData(query.typeFilter)));
        }
    }
    updatePlaceholder();
    emit queryChanged();
}

QString TokenSearchBar::errorText(const gguf::TokenSearch &search)
{
    using Error = gguf::TokenSearch::QueryError;
    switch (search.error()) {
    case Error::None: return {};
    case Error::BadPattern:
        return tr("Bad regular expression: %1 (at character %2)")
            .arg(QString::fromStdString(search.patternError()))
            .arg(search.patternErrorOffset());
    case Error::BadIds: return tr("Not a token id, a range (100-200) or a list of them");
    case Error::BadBytes: return tr("Not a byte sequence in hex (e.g. \"e2 96 81\")");
    }
    return {};
}

void TokenSearchBar::setError(const QString &message)
{
    QPalette palette = parentWidget() ? parentWidget()->palette() : QPalette();
    if (!message.isEmpty())
        palette.setColor(QPalette::Base, QColor::fromRgbF(0.85f, 0.27f, 0.33f, 0.35f));
    m_text->setPalette(palette);
    m_text->setToolTip(message);
}

void TokenSearchBar::focusSearch()
{
    m_text->setFocus(Qt::ShortcutFocusReason);
    m_text->selectAll();
}

void TokenSearchBar::updatePlaceholder()
{
    const auto mode = static_cast<gguf::TokenSearch::Mode>(m_mode->currentData().toInt());
    const bool tokens = m_target == Target::Tokens;
    switch (mode) {
    case gguf::TokenSearch::Mode::Text:
        m_text->setPlaceholderText(tokens ? tr("Find tokens containing text (a space finds Ġ and ▁ tokens)…")
                                          : tr("Find merge rules containing text…"));
        break;
    case gguf::TokenSearch::Mode::RegularExpression:
        m_text->setPlaceholderText(tr("Regular expression, e.g. ^\\s?[A-Z]{2,}$…"));
        break;
    case gguf::TokenSearch::Mode::Id:
        m_text->setPlaceholderText(tokens ? tr("Token ids: 42, 100-200, 1 2 7…") : tr("Ranks: 42, 100-200…"));
        break;
    case gguf::TokenSearch::Mode::Bytes:
        m_text->setPlaceholderText(tr("Bytes in hex: 0a, e2 96 81, \\xe2\\x80\\x94…"));
        break;
    }
    m_field->setEnabled(mode != gguf::TokenSearch::Mode::Id);
    m_case->setEnabled(mode == gguf::TokenSearch::Mode::Text || mode == gguf::TokenSearch::Mode::RegularExpression);
}
