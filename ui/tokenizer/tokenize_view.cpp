// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/tokenize_view.h"

#include "core/format/gguf_file.h"
#include "core/vocab/tokenizer.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/lazy_refresh.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"
#include "ui/tokenizer/token_chips.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QShowEvent>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace {

// What a tokenization delivers to the GUI thread: every id, and the chips of the first ones.
struct Tokenized {
    std::vector<qint32> ids;
    QVector<TokenChips::Chip> chips;
    qsizetype characters = 0, bytes = 0; ///< of the text (code points, UTF-8 bytes)
    bool complete = false;               ///< false when cancelled
};

QString attributeNames(uint16_t attr)
{
    QStringList names;
    const std::pair<uint16_t, const char *> kNames[] = {
        {gguf::kAttrNormal, "normal"}, {gguf::kAttrControl, "control"}, {gguf::kAttrUserDefined, "user-defined"},
        {gguf::kAttrByte, "byte"},     {gguf::kAttrUnknown, "unknown"}, {gguf::kAttrUnused, "unused"},
        {gguf::kAttrLstrip, "lstrip"}, {gguf::kAttrRstrip, "rstrip"},
    };
    for (const auto &[bit, name] : kNames)
        if (attr & bit)
            names << QString::fromLatin1(name);
    return names.isEmpty() ? TokenizeView::tr("undefined") : names.join(QStringLiteral(", "));
}

// A GGUF's tokenizer: llama.cpp's ids (core/vocab/tokenizer.h).
class GgufTokenizeSource : public TokenizeSource {
public:
    explicit GgufTokenizeSource(std::shared_ptr<const gguf::Tokenizer> tokenizer) : m_t(std::move(tokenizer)) {}
    bool canTokenize() const override { return m_t->canTokenize(); }
    QStringList notes() const override
    {
        QStringList notes;
        if (!m_t->refusal().empty())
            notes << TextFormat::fromView(m_t->refusal()) + QLatin1Char('.');
        else if (m_t->canTokenize())
            notes << TokenizeView::tr("%1 tokenizer%2: the ids llama.cpp gives (its rules as of commit de3ff815, the "
                                      "llama.cpp of node-llama-cpp 3.22.1).")
                         .arg(TextFormat::fromView(gguf::tokenizerKindName(m_t->kind())),
                              m_t->preType().empty()
                                  ? QString()
                                  : TokenizeView::tr(", pre-tokenizer %1").arg(TextFormat::fromView(m_t->preType())));
        for (const std::string &d : m_t->diagnostics())
            notes << TextFormat::fromView(d);
        return notes;
    }
    QString addSpecialToolTip() const override
    {
        return TokenizeView::tr("Add the tokens the model adds around a prompt: %1")
            .arg(m_t->kind() == gguf::TokenizerKind::Wpm
                     ? TokenizeView::tr("CLS and SEP")
                     : TokenizeView::tr("BOS %1, EOS %2")
                           .arg(m_t->addBos() ? TokenizeView::tr("yes") : TokenizeView::tr("no"),
                                m_t->addEos() ? TokenizeView::tr("yes") : TokenizeView::tr("no")));
    }
    std::optional<std::vector<qint32>> tokenize(const std::string &text, bool addSpecial, bool parseSpecial,
                                                const std::function<bool(uint64_t, uint64_t)> &progress) const override
    {
        auto ids = m_t->tokenize(text, gguf::TokenizeOptions{addSpecial, parseSpecial}, progress);
        if (!ids)
            return std::nullopt;
        return std::vector<qint32>(ids->begin(), ids->end());
    }
    TokenChips::Chip chip(qint32 id) const override
    {
        const uint16_t attr = m_t->attributes(id);
        return {id, TokenText::visible(m_t->tokenToPiece(id), 60),
                (attr & (gguf::kAttrControl | gguf::kAttrUnknown | gguf::kAttrUserDefined)) != 0};
    }
    QString details(qint32 id) const override
    {
        const std::string piece = m_t->tokenToPiece(id);
        QString tip = TokenizeView::tr("stored: %1").arg(TokenText::visible(m_t->tokenText(id)).toHtmlEscaped());
        tip += QStringLiteral("<br>") + TokenizeView::tr("text: %1").arg(TokenText::visible(piece).toHtmlEscaped());
        tip += QStringLiteral("<br>") +
               TokenizeView::tr("bytes: %1").arg(piece.empty() ? TokenizeView::tr("none") : TokenText::hex(piece));
        if (const auto score = m_t->score(id))
            tip += QStringLiteral("<br>") + TokenizeView::tr("score: %1").arg(QLocale::c().toString(*score, 'g', 7));
        tip += QStringLiteral("<br>") + TokenizeView::tr("type: %1").arg(attributeNames(m_t->attributes(id)));
        return tip;
    }

private:
    std::shared_ptr<const gguf::Tokenizer> m_t;
};

} // namespace

QString TokenizeSource::addSpecialLabel() const
{
    return TokenizeView::tr("Add BOS/EOS");
}

TokenizeView::TokenizeView(QWidget *parent)
    : QWidget(parent), m_editor(new QPlainTextEdit(this)), m_addSpecial(new QCheckBox(tr("Add BOS/EOS"), this)),
      m_parseSpecial(new QCheckBox(tr("Parse special tokens"), this)), m_counts(new QLabel(this)),
      m_notes(new QLabel(this)), m_chips(new TokenChips(this)), m_build(new JobTracker(this)),
      m_jobs(new JobTracker(this)), m_progress(new JobProgress(this)), m_debounce(new QTimer(this))
{
    m_lazy = new LazyRefresh(this, [this] { buildTokenizer(); });
    m_editor->setPlaceholderText(tr("Type or paste text to see how this model's tokenizer splits it"));
    m_addSpecial->setToolTip(tr("Add the tokens the model adds around a prompt (BOS/EOS; CLS/SEP for WordPiece), "
                                "as llama.cpp does with add_special"));
    m_parseSpecial->setToolTip(tr("Text such as <|im_end|> becomes that control token (llama.cpp's parse_special); "
                                  "user-defined tokens are always split out"));
    m_notes->setWordWrap(true);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_counts->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_chips->setToolTipProvider([this](int index) { return chipToolTip(index); });
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    m_progress->track(m_build);
    m_progress->track(m_jobs);

    auto *scroll = new QScrollArea(this);
    scroll->setWidget(m_chips);
    scroll->setWidgetResizable(true);
    scroll->setBackgroundRole(QPalette::Base);
    auto *options = new QHBoxLayout;
    options->addWidget(m_addSpecial);
    options->addWidget(m_parseSpecial);
    options->addStretch(1);
    options->addWidget(m_counts);
    auto *top = new QWidget(this);
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_editor, 1);
    topLayout->addLayout(options);
    topLayout->addWidget(m_notes);
    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(top);
    splitter->addWidget(scroll);
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 3);
    splitter->setSizes({160, 480});
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter, 1);
    layout->addWidget(m_progress);

    connect(m_editor, &QPlainTextEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_debounce, &QTimer::timeout, this, &TokenizeView::retokenize);
    connect(m_addSpecial, &QCheckBox::toggled, this, &TokenizeView::retokenize);
    connect(m_parseSpecial, &QCheckBox::toggled, this, &TokenizeView::retokenize);
    connect(m_chips, &TokenChips::tokenClicked, this,
            [this](qint32 id) { emit tokenActivated(static_cast<quint64>(id)); });
    connect(m_progress, &JobProgress::restartClicked, this, &TokenizeView::retokenize);
    setFile(nullptr);
}

TokenizeView::~TokenizeView() = default;

void TokenizeView::setFile(std::shared_ptr<const gguf::GgufFile> file)
{
    if (!file) {
        setSource(nullptr);
        return;
    }
    setSource([file] { return std::make_shared<const GgufTokenizeSource>(gguf::Tokenizer::create(file)); });
}

void TokenizeView::setSource(TokenizeSourceBuilder build)
{
    m_build->drop();
    m_jobs->drop();
    m_tokenizer.reset();
    m_builder = std::move(build);
    showTokens({}, {}, 0, 0);
    m_notes->setText(m_builder ? tr("The tokenizer is built when this section is first shown.") : QString());
    m_editor->setEnabled(false);
    m_lazy->invalidate();
}

// The tokenizer's tables (a text → id map, the merge ranks) take memory and a moment for a large
// vocabulary, so they are built on a worker the first time the section is shown, not for every file.
void TokenizeView::buildTokenizer()
{
    if (!m_builder || m_tokenizer || m_build->isRunning())
        return;
    m_notes->setText(tr("Building the tokenizer…"));
    m_build->start(
        tr("Building the tokenizer"), [build = m_builder](const gguf::ProgressFn &) { return build(); },
        [this](const std::shared_ptr<const TokenizeSource> &tokenizer) {
            m_tokenizer = tokenizer;
            // a few lines, the rest in the tooltip (a vocabulary may give thousands: the label, as tall
            // as its text, made the window's least height 600,000 px)
            constexpr qsizetype kShown = 7;
            const QStringList all = tokenizer->notes();
            QStringList notes = all.mid(0, kShown);
            if (all.size() > kShown)
                notes << tr("… and %1 more notes (hover to read the first 100)").arg(all.size() - kShown);
            m_notes->setText(notes.join(QLatin1Char('\n')));
            m_notes->setToolTip(all.size() > kShown ? all.mid(1, 100).join(QLatin1Char('\n')) : QString());
            m_editor->setEnabled(tokenizer->canTokenize());
            m_addSpecial->setToolTip(tokenizer->addSpecialToolTip());
            m_addSpecial->setText(tokenizer->addSpecialLabel());
            retokenize();
        });
}

void TokenizeView::setText(const QString &text)
{
    buildTokenizer();
    m_editor->setPlainText(text);
    m_debounce->stop();
    retokenize();
}

bool TokenizeView::isBusy() const
{
    return m_build->isRunning() || m_jobs->isRunning() || m_debounce->isActive();
}

void TokenizeView::retokenize()
{
    m_debounce->stop();
    if (!m_tokenizer || !m_tokenizer->canTokenize())
        return;
    const QString text = m_editor->toPlainText();
    const bool addSpecial = m_addSpecial->isChecked(), parseSpecial = m_parseSpecial->isChecked();
    m_jobs->start(
        tr("Tokenizing %1 characters").arg(QLocale().toString(text.size())),
        [tokenizer = m_tokenizer, text, addSpecial, parseSpecial](const gguf::ProgressFn &progress) {
            // the text's UTF-8 and its counts are made here too, not on the GUI thread
            const std::string bytes = text.toStdString();
            Tokenized result;
            result.bytes = static_cast<qsizetype>(bytes.size());
            result.characters = std::count_if(bytes.begin(), bytes.end(),
                                              [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
            auto ids = tokenizer->tokenize(bytes, addSpecial, parseSpecial, progress);
            if (!ids)
                return result;
            result.complete = true;
            result.ids = std::move(*ids);
            const size_t shown = std::min<size_t>(result.ids.size(), kMaxChips);
            result.chips.reserve(static_cast<qsizetype>(shown));
            for (size_t i = 0; i < shown; ++i)
                result.chips.append(tokenizer->chip(result.ids[i]));
            return result;
        },
        [this](const Tokenized &result) {
            if (result.complete)
                showTokens(result.ids, result.chips, result.characters, result.bytes);
        });
}

void TokenizeView::showTokens(std::vector<qint32> ids, const QVector<TokenChips::Chip> &chips, qsizetype characters,
                              qsizetype bytes)
{
    m_ids = std::move(ids);
    m_chips->setChips(chips);
    const QLocale locale;
    QString counts =
        m_ids.size() == 1 ? tr("1 token") : tr("%1 tokens").arg(locale.toString(static_cast<qulonglong>(m_ids.size())));
    counts += QStringLiteral(" · ") + tr("%1 characters").arg(locale.toString(characters));
    counts += QStringLiteral(" · ") + tr("%1 bytes").arg(locale.toString(bytes));
    if (!m_ids.empty())
        counts +=
            QStringLiteral(" · ") +
            tr("%1 characters per token").arg(locale.toString(static_cast<double>(characters) / m_ids.size(), 'f', 2));
    if (m_ids.size() > static_cast<size_t>(kMaxChips))
        counts += QStringLiteral(" · ") + tr("the first %1 shown").arg(locale.toString(kMaxChips));
    m_counts->setText(counts);
    emit tokenized();
}

QString TokenizeView::countsText() const
{
    return m_counts->text();
}

QString TokenizeView::notesText() const
{
    return m_notes->text();
}

QString TokenizeView::chipToolTip(int index) const
{
    if (!m_tokenizer || index < 0 || index >= m_chips->chips().size())
        return {};
    const qint32 id = m_chips->chips()[index].id;
    QString tip = tr("<b>token %1</b> (position %2)").arg(id).arg(index + 1);
    tip += QStringLiteral("<br>") + m_tokenizer->details(id);
    tip += QStringLiteral("<br><i>") + tr("Click to show it in the vocabulary") + QStringLiteral("</i>");
    return tip;
}
