// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_tokenizer.h"

#include "core/safetensors/checkpoint.h"
#include "core/safetensors/hf_tokenizer.h"
#include "core/vocab/tokenizer_json.h"
#include "ui/common/compact_rows.h"
#include "ui/common/fixed_font.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"
#include "ui/tokenizer/tokenize_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <mutex>

using gguf::st::HfTokenizer;

namespace {

struct Read {
    std::shared_ptr<const HfTokenizer> tokenizer;
    gguf::Error error;
};

// A checkpoint's tokenizer.json, run as Hugging Face's tokenizers library runs it
// (core/vocab/tokenizer_json.h); or why it cannot run.
class JsonTokenizeSource : public TokenizeSource {
public:
    JsonTokenizeSource(std::shared_ptr<const gguf::JsonTokenizer> tokenizer, QString problem)
        : m_t(std::move(tokenizer)), m_problem(std::move(problem))
    {
    }
    bool canTokenize() const override { return m_t != nullptr; }
    QStringList notes() const override
    {
        if (!m_t)
            return {m_problem};
        QStringList notes{CheckpointTokenizer::tr("%1 tokenizer.json: the ids of Hugging Face's tokenizers library "
                                                  "(its pipeline as the file describes it; \"Parse special tokens\" "
                                                  "off is its encode_special_tokens).")
                              .arg(TextFormat::fromView(m_t->modelType()))};
        for (const std::string &note : m_t->notes())
            notes << QString::fromStdString(note);
        return notes;
    }
    QString addSpecialToolTip() const override
    {
        return CheckpointTokenizer::tr("Add the special tokens the file's post-processor puts around a text "
                                       "(add_special_tokens)");
    }
    QString addSpecialLabel() const override { return CheckpointTokenizer::tr("Add special tokens"); }
    std::optional<std::vector<qint32>> tokenize(const std::string &text, bool addSpecial, bool parseSpecial,
                                                const std::function<bool(uint64_t, uint64_t)> &progress) const override
    {
        auto encoding = m_t->encodeTokens(text, gguf::TokenizeOptions{addSpecial, parseSpecial}, progress);
        if (!encoding)
            return std::nullopt;
        return std::vector<qint32>(encoding->ids.begin(), encoding->ids.end());
    }
    TokenChips::Chip chip(qint32 id) const override
    {
        return {id, TokenText::visible(m_t->decode(std::span(&id, 1), false), 60), m_t->isSpecial(id)};
    }
    QString details(qint32 id) const override
    {
        const std::string text = m_t->decode(std::span(&id, 1), false);
        QString tip = CheckpointTokenizer::tr("token: %1").arg(TokenText::visible(m_t->tokenText(id)).toHtmlEscaped());
        tip +=
            QStringLiteral("<br>") + CheckpointTokenizer::tr("text: %1").arg(TokenText::visible(text).toHtmlEscaped());
        tip += QStringLiteral("<br>") + CheckpointTokenizer::tr("bytes: %1")
                                            .arg(text.empty() ? CheckpointTokenizer::tr("none") : TokenText::hex(text));
        if (m_t->isSpecial(id))
            tip += QStringLiteral("<br>") + CheckpointTokenizer::tr("a special added token");
        return tip;
    }

private:
    std::shared_ptr<const gguf::JsonTokenizer> m_t;
    QString m_problem;
};

// The text of the tokenizer.json beside a checkpoint, read once for the page's two users — the
// Vocabulary tab's job and the Tokenize tab's builder, both on workers: the first to ask reads it,
// and it is let go of once both have had it (a remote checkpoint's tokenizer.json is fetched once;
// until the Tokenize tab is first shown the text stays here). A build started again reads anew.
class SharedText {
public:
    explicit SharedText(std::shared_ptr<const gguf::st::Checkpoint> checkpoint) : m_checkpoint(std::move(checkpoint)) {}
    const gguf::st::Checkpoint &checkpoint() const { return *m_checkpoint; }
    /// The text, or null with `error`.
    std::shared_ptr<const std::string> take(gguf::Error &error)
    {
        const std::lock_guard lock(m_mutex);
        if (!m_text && !m_error)
            if (auto text = m_checkpoint->readBeside("tokenizer.json", m_error))
                m_text = std::make_shared<const std::string>(std::move(*text));
        error = m_error;
        std::shared_ptr<const std::string> text = m_text;
        if (++m_taken >= 2)
            m_text.reset();
        return text;
    }

private:
    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
    std::mutex m_mutex;
    int m_taken = 0;
    std::shared_ptr<const std::string> m_text;
    gguf::Error m_error;
};

// Why the tokenizer.json could not be had: none beside the checkpoint, or a read that failed.
QString readProblem(const gguf::Error &error)
{
    return error.kind == gguf::ErrorKind::NotFound
               ? CheckpointTokenizer::tr("No tokenizer.json beside this checkpoint.")
               : CheckpointTokenizer::tr("tokenizer.json could not be read: %1")
                     .arg(QString::fromStdString(error.message));
}

// Builds the tokenizer.json's tokenizer (on a worker).
std::shared_ptr<const TokenizeSource> jsonSource(SharedText &shared)
{
    gguf::Error error;
    std::string why;
    const std::shared_ptr<const std::string> text = shared.take(error);
    auto tokenizer = text ? gguf::JsonTokenizer::create(*text, why) : nullptr;
    QString problem;
    if (error)
        problem = readProblem(error);
    else if (!tokenizer)
        problem = CheckpointTokenizer::tr("tokenizer.json cannot be run here: %1.").arg(QString::fromStdString(why));
    return std::make_shared<const JsonTokenizeSource>(std::move(tokenizer), problem);
}

} // namespace

void HfTokenModel::setTokenizer(std::shared_ptr<const HfTokenizer> tokenizer)
{
    beginResetModel();
    m_tokenizer = std::move(tokenizer);
    endResetModel();
}

int HfTokenModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_tokenizer ? 0 : static_cast<int>(m_tokenizer->tokens.size());
}

int HfTokenModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HfTokenModel::data(const QModelIndex &index, int role) const
{
    if (!m_tokenizer || !index.isValid())
        return {};
    const gguf::st::HfToken &t = m_tokenizer->tokens[size_t(index.row())];
    if (role == Qt::UserRole) // sorting: numbers as numbers
        return index.column() == Id      ? QVariant(index.row())
               : index.column() == Score ? QVariant(t.score.value_or(0))
                                         : data(index, Qt::DisplayRole);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Id: return index.row();
    case Token: return t.named ? TokenText::visible(t.text) : QString();
    case Kind:
        if (!t.named)
            return tr("(no token)");
        return t.special ? tr("special") : t.added ? tr("added") : tr("normal");
    case Score: return t.score ? QLocale().toString(*t.score, 'g', 6) : QString();
    case Bytes: return TokenText::hex(t.text);
    default: return {};
    }
}

QVariant HfTokenModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Id: return tr("Id");
    case Token: return tr("Token");
    case Kind: return tr("Kind");
    case Score: return tr("Score");
    case Bytes: return tr("Bytes");
    default: return {};
    }
}

CheckpointTokenizer::CheckpointTokenizer(QWidget *parent)
    : QWidget(parent), m_model(new HfTokenModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_summary(new QLabel(this)), m_filter(new QLineEdit(this)), m_view(new QTableView(this)),
      m_tracker(new JobTracker(this)), m_tabs(new QTabWidget(this)), m_tokenize(new TokenizeView(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(Qt::UserRole);
    m_proxy->setFilterKeyColumn(HfTokenModel::Token);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(HfTokenModel::Id, Qt::AscendingOrder);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setFont(fixedFont());
    setCompactRows(m_view);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter->setPlaceholderText(tr("Find tokens by their text"));
    m_filter->setClearButtonEnabled(true);
    auto *vocabulary = new QWidget(this);
    auto *vocabularyLayout = new QVBoxLayout(vocabulary);
    vocabularyLayout->setContentsMargins(0, 0, 0, 0);
    vocabularyLayout->addWidget(m_filter);
    vocabularyLayout->addWidget(m_view, 1);
    m_tabs->addTab(vocabulary, tr("&Vocabulary"));
    m_tabs->addTab(m_tokenize, tr("T&okenize"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &CheckpointTokenizer::setFilter);
    connect(m_tokenize, &TokenizeView::tokenActivated, this, &CheckpointTokenizer::selectToken);
}

void CheckpointTokenizer::selectToken(quint64 id)
{
    m_filter->clear();
    const QModelIndex source = m_model->index(static_cast<int>(id), HfTokenModel::Token);
    if (!source.isValid())
        return;
    m_tabs->setCurrentIndex(0);
    m_view->setCurrentIndex(m_proxy->mapFromSource(source));
    m_view->scrollTo(m_view->currentIndex(), QAbstractItemView::PositionAtCenter);
}

void CheckpointTokenizer::setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint)
{
    m_tracker->drop();
    m_model->setTokenizer(nullptr);
    m_summary->clear();
    if (!checkpoint) {
        m_tokenize->setSource({});
        return;
    }
    const auto shared = std::make_shared<SharedText>(checkpoint);
    m_tokenize->setSource([shared] { return jsonSource(*shared); });
    m_summary->setText(tr("Reading tokenizer.json…"));
    m_tracker->start(
        tr("Reading tokenizer.json"),
        [shared](const gguf::ProgressFn &) {
            Read read;
            if (const std::shared_ptr<const std::string> text = shared->take(read.error))
                if (auto t = gguf::st::parseHfTokenizer(*text, shared->checkpoint().besidePath("tokenizer.json"),
                                                        read.error))
                    read.tokenizer = std::make_shared<const HfTokenizer>(std::move(*t));
            return read;
        },
        [this](const Read &read) {
            if (!read.tokenizer) {
                m_summary->setText(readProblem(read.error));
                emit tokenizerShown();
                return;
            }
            const HfTokenizer &t = *read.tokenizer;
            uint64_t added = 0, special = 0;
            for (const gguf::st::HfToken &token : t.tokens) {
                added += token.added;
                special += token.special;
            }
            m_summary->setText(
                tr("%1: %2 ids (%3 added, %4 special%5), %6 merges.")
                    .arg(t.model.empty() ? tr("tokenizer.json") : QString::fromStdString(t.model),
                         TextFormat::count(t.tokens.size()), TextFormat::count(added), TextFormat::count(special),
                         t.gaps ? tr(", %1 ids without a token").arg(TextFormat::count(t.gaps)) : QString(),
                         TextFormat::count(t.merges)));
            m_model->setTokenizer(read.tokenizer);
            m_view->resizeColumnToContents(HfTokenModel::Id);
            m_view->setColumnWidth(HfTokenModel::Token, 320);
            emit tokenizerShown();
        });
}

QString CheckpointTokenizer::summary() const
{
    return m_summary->text();
}

void CheckpointTokenizer::setFilter(const QString &text)
{
    m_proxy->setFilterFixedString(text);
}
