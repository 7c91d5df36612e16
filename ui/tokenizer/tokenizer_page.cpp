// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/tokenizer_page.h"

#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/vocab/vocabulary.h"
#include "ui/common/damage_text.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/tokenizer/chat_template_view.h"
#include "ui/tokenizer/merges_view.h"
#include "ui/tokenizer/token_details_panel.h"
#include "ui/tokenizer/tokenize_view.h"
#include "ui/tokenizer/vocabulary_view.h"

#include <QCheckBox>

#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTabWidget>
#include <QTextDocument>
#include <QVBoxLayout>

namespace {

QString bold(const QString &text)
{
    return QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped());
}

// The vocabulary together with the file it points into: whoever holds it keeps both alive.
QString spelling(gguf::TokenizerStyle style)
{
    switch (style) {
    case gguf::TokenizerStyle::Gpt2ByteLevel: return TokenizerPage::tr("GPT-2 byte-level (Ġ is a space, Ċ a newline)");
    case gguf::TokenizerStyle::SentencePiece: return TokenizerPage::tr("SentencePiece (▁ is a space, <0x0A> a byte)");
    case gguf::TokenizerStyle::WordPiece:
        return TokenizerPage::tr("WordPiece as llama.cpp stores it (▁ starts a word)");
    case gguf::TokenizerStyle::Raw: break;
    }
    return TokenizerPage::tr("as stored");
}

} // namespace

TokenizerPage::TokenizerPage(QWidget *parent)
    : Page(parent), m_summary(new QLabel(this)), m_sections(new QTabWidget(this)),
      m_splitter(new QSplitter(Qt::Horizontal, this)), m_vocabulary(new VocabularyView(this)),
      m_details(new TokenDetailsPanel(this)), m_merges(new MergesView(this)), m_tokenize(new TokenizeView(this)),
      m_chatTemplate(new ChatTemplateView(this)), m_jobs(new JobTracker(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_splitter->addWidget(m_vocabulary);
    m_splitter->addWidget(m_details);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({800, 300});
    m_sections->setDocumentMode(true);
    m_sections->addTab(m_splitter, tr("Vocabulary"));
    m_sections->addTab(m_tokenize, tr("Tokenize"));
    m_sections->addTab(m_merges, tr("Merges"));
    m_sections->addTab(m_chatTemplate, tr("Chat template"));

    connect(m_vocabulary, &VocabularyView::tokenSelected, m_details,
            [this](quint64 id) { m_details->showToken(static_cast<qint64>(id)); });
    connect(m_details, &TokenDetailsPanel::tokenActivated, this, &TokenizerPage::selectToken);
    connect(m_details, &TokenDetailsPanel::mergeActivated, this, &TokenizerPage::selectMerge);
    connect(m_tokenize, &TokenizeView::tokenActivated, this, &TokenizerPage::selectToken);
    // a rendered chat prompt is tokenized with its special tokens parsed, as llama.cpp does
    connect(m_chatTemplate, &ChatTemplateView::tokenizeRequested, this, [this](const QString &text) {
        m_sections->setCurrentWidget(m_tokenize);
        m_tokenize->parseSpecialBox()->setChecked(true);
        m_tokenize->setText(text);
    });

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_sections, 1);
    setFile(nullptr);
}

TokenizerPage::~TokenizerPage() = default;

void TokenizerPage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    setFile(model ? model->primaryShared() : nullptr);
}

bool TokenizerPage::focusFind()
{
    focusSearch();
    return true;
}

void TokenizerPage::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    m_jobs->drop();
    m_file = std::move(file);
    m_vocab = gguf::Vocabulary::shared(m_file);
    m_vocabulary->setVocabulary(m_vocab);
    m_details->setVocabulary(m_vocab);
    m_merges->setVocabulary(m_vocab);
    m_chatTemplate->setFile(m_file);
    m_tokenize->setFile(m_vocab ? m_file : nullptr);

    // a disabled section hands over to the next enabled one: go back to the vocabulary instead
    const int shown = m_sections->currentIndex();
    const QLocale locale;
    const quint64 tokens = m_vocab ? m_vocab->size() : 0;
    const quint64 merges = m_vocab ? m_vocab->mergeCount() : 0;
    m_sections->setTabText(0, tokens ? tr("Vocabulary (%1)").arg(locale.toString(tokens)) : tr("Vocabulary"));
    const int mergesTab = m_sections->indexOf(m_merges), chatTab = m_sections->indexOf(m_chatTemplate),
              tokenizeTab = m_sections->indexOf(m_tokenize);
    m_sections->setTabEnabled(tokenizeTab, m_vocab != nullptr);
    m_sections->setTabText(mergesTab, merges ? tr("Merges (%1)").arg(locale.toString(merges)) : tr("Merges"));
    m_sections->setTabEnabled(mergesTab, merges > 0);
    m_sections->setTabToolTip(mergesTab,
                              merges ? QString() : tr("This vocabulary has no merge rules (tokenizer.ggml.merges)."));
    const int templates = m_chatTemplate->templateCount();
    m_sections->setTabText(chatTab, templates > 1 ? tr("Chat templates (%1)").arg(templates) : tr("Chat template"));
    m_sections->setTabEnabled(chatTab, templates > 0);
    m_sections->setTabToolTip(chatTab,
                              templates ? QString() : tr("This file has no chat template (tokenizer.chat_template)."));
    if (!m_sections->isTabEnabled(shown))
        m_sections->setCurrentIndex(0);

    showSummary(nullptr);
    if (m_vocab)
        m_jobs->start(
            tr("Counting token types"), [vocab = m_vocab](const gguf::ProgressFn &) { return vocab->stats(); },
            [this](const gguf::VocabularyStats &stats) { showSummary(&stats); });
}

void TokenizerPage::showSummary(const gguf::VocabularyStats *stats)
{
    if (!m_vocab) {
        // a damaged file may have broken off before its tokenizer keys
        const gguf::Breakage *broken = m_file ? m_file->breakage() : nullptr;
        if (broken && broken->section != gguf::Breakage::Section::TensorInfos)
            m_summary->setText(tr("No tokenizer vocabulary was read: the file is damaged. %1")
                                   .arg(DamageText::where(*m_file).toHtmlEscaped()));
        else
            m_summary->setText(m_file
                                   ? tr("No tokenizer vocabulary in this file (no tokenizer.ggml.tokens string array).")
                                   : QString());
        return;
    }
    const QLocale locale;
    QStringList head;
    head << tr("%1 tokenizer")
                .arg(bold(m_vocab->model().empty() ? tr("unnamed") : TextFormat::fromView(m_vocab->model())));
    if (!m_vocab->pre().empty())
        head << tr("pre-tokenizer %1").arg(bold(TextFormat::fromView(m_vocab->pre())));
    head << tr("%1 tokens").arg(bold(locale.toString(m_vocab->size())));
    head << (m_vocab->mergeCount() ? tr("%1 merge rules").arg(bold(locale.toString(m_vocab->mergeCount())))
                                   : tr("no merge rules"));
    head << tr("spelling: %1").arg(spelling(m_vocab->style()).toHtmlEscaped());
    QString html = head.join(QStringLiteral(" · "));

    QStringList types;
    if (!stats) {
        types << tr("counting token types…");
    } else {
        for (const int t : {1, 6, 3, 4, 2, 5, 0})
            if (stats->typeCounts[static_cast<size_t>(t)])
                types << QStringLiteral("%1 %2").arg(locale.toString(stats->typeCounts[static_cast<size_t>(t)]),
                                                     TextFormat::fromView(gguf::tokenTypeName(t)).replace(u'_', u'-'));
        if (stats->untyped)
            types << tr("%1 without a type").arg(locale.toString(stats->untyped));
    }
    html += QStringLiteral("<br>") + tr("Token types: %1").arg(types.join(QStringLiteral(" · ")));
    if (!m_vocab->hasScores())
        html += QStringLiteral(" — ") + tr("no scores");
    else if (stats && stats->minScore)
        html += QStringLiteral(" — ") + tr("scores from %1 to %2")
                                            .arg(bold(QLocale::c().toString(*stats->minScore, 'g', 6)),
                                                 bold(QLocale::c().toString(*stats->maxScore, 'g', 6)));
    if (stats && stats->nonFiniteScores)
        html += tr(" (%1 NaN or infinite)").arg(locale.toString(stats->nonFiniteScores));

    // every boolean tokenizer.ggml.* key: add_bos_token, add_eos_token, add_space_prefix, …
    QStringList flags;
    for (const gguf::MetadataEntry &e : m_file->metadata()) {
        constexpr std::string_view prefix = "tokenizer.ggml.";
        if (e.value.type() == gguf::ValueType::Bool && e.key.substr(0, prefix.size()) == prefix)
            flags << QStringLiteral("%1 = %2").arg(
                TextFormat::fromView(e.key.substr(prefix.size())).toHtmlEscaped(),
                bold(e.value.toBool().value_or(false) ? QStringLiteral("true") : QStringLiteral("false")));
    }
    html +=
        QStringLiteral("<br>") + tr("Flags: %1").arg(flags.isEmpty() ? tr("none") : flags.join(QStringLiteral(" · ")));
    m_summary->setText(html);
}

QString TokenizerPage::summaryText() const
{
    QTextDocument document;
    document.setHtml(m_summary->text());
    return document.toPlainText();
}

bool TokenizerPage::follow(const Link &link)
{
    if (link.target != Link::Target::Token)
        return false;
    selectToken(link.token);
    return true;
}

bool TokenizerPage::selectToken(quint64 id)
{
    m_sections->setCurrentWidget(m_splitter);
    return m_vocabulary->selectToken(id);
}

bool TokenizerPage::selectMerge(quint64 rank)
{
    if (!m_sections->isTabEnabled(m_sections->indexOf(m_merges)))
        return false;
    m_sections->setCurrentWidget(m_merges);
    return m_merges->selectRank(rank);
}

void TokenizerPage::focusSearch()
{
    if (m_sections->currentWidget() == m_merges) {
        m_merges->focusSearch();
        return;
    }
    m_sections->setCurrentWidget(m_splitter);
    m_vocabulary->focusSearch();
}
