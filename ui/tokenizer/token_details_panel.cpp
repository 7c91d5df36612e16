// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/tokenizer/token_details_panel.h"

#include "core/vocab/merge_index.h"
#include "core/vocab/vocabulary.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTextDocument>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {

QString code(const QString &text)
{
    return QStringLiteral("<code>%1</code>").arg(text.toHtmlEscaped());
}

QLabel *heading(const QString &text, QWidget *parent)
{
    auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(text.toHtmlEscaped()), parent);
    return label;
}

} // namespace

TokenDetailsPanel::TokenDetailsPanel(QWidget *parent)
    : QWidget(parent), m_special(new QTreeWidget(this)), m_details(new QLabel(this)), m_producers(new QLabel(this)),
      m_jobs(new JobTracker(this))
{
    m_special->setColumnCount(3);
    m_special->setHeaderLabels({tr("Role"), tr("Id"), tr("Token")});
    m_special->setRootIsDecorated(false);
    m_special->setUniformRowHeights(true);
    m_special->setAllColumnsShowFocus(true);
    m_special->header()->resizeSection(0, 80);
    m_special->header()->resizeSection(1, 60);
    setMinimumWidth(180);
    m_special->setToolTip(tr("Tokens named by tokenizer.ggml.*_token_id keys; click one to select it"));
    const auto activate = [this](QTreeWidgetItem *item) {
        if (item)
            emit tokenActivated(item->data(1, Qt::DisplayRole).toULongLong());
    };
    connect(m_special, &QTreeWidget::itemClicked, this, activate);
    connect(m_special, &QTreeWidget::itemActivated, this, activate);

    for (QLabel *label : {m_details, m_producers}) {
        label->setWordWrap(true);
        label->setAlignment(Qt::AlignTop | Qt::AlignLeft);
        label->setTextInteractionFlags(Qt::TextBrowserInteraction);
        label->setTextFormat(Qt::RichText);
    }
    connect(m_producers, &QLabel::linkActivated, this, [this](const QString &link) {
        if (link.startsWith(QLatin1String("merge:")))
            emit mergeActivated(link.mid(6).toULongLong());
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(heading(tr("Special tokens"), this));
    layout->addWidget(m_special, 1);
    layout->addWidget(heading(tr("Selected token"), this));
    layout->addWidget(m_details);
    layout->addWidget(m_producers);
    layout->addStretch(2);
    showToken(-1);
}

TokenDetailsPanel::~TokenDetailsPanel() = default;

void TokenDetailsPanel::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab)
{
    m_jobs->drop();
    m_vocab = std::move(vocab);
    m_mergeIndex.reset();
    fillSpecialTokens();
    showToken(-1);
}

void TokenDetailsPanel::fillSpecialTokens()
{
    m_special->clear();
    if (!m_vocab)
        return;
    for (const gguf::SpecialToken &s : m_vocab->specialTokens()) {
        auto *item = new QTreeWidgetItem(m_special);
        item->setText(0, TextFormat::fromView(s.role));
        item->setData(1, Qt::DisplayRole, QVariant::fromValue<quint64>(s.id));
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setText(2, s.id < m_vocab->size() ? TokenText::visible(m_vocab->token(s.id), 60)
                                                : tr("(not in the vocabulary)"));
        item->setToolTip(0, TextFormat::fromView(s.key));
        item->setToolTip(2, TextFormat::fromView(s.key));
    }
}

void TokenDetailsPanel::showToken(qint64 id)
{
    m_current = id;
    if (!m_vocab || id < 0 || static_cast<quint64>(id) >= m_vocab->size()) {
        m_current = -1;
        m_details->setText(tr("<i>Select a token to see it in full.</i>"));
        m_producers->clear();
        return;
    }
    const auto token = static_cast<uint64_t>(id);
    const std::string decoded = m_vocab->decoded(token);
    const QLocale locale;
    QStringList roles;
    for (const gguf::SpecialToken &s : m_vocab->specialTokens())
        if (s.id == token)
            roles << TextFormat::fromView(s.role);
    const auto type = m_vocab->type(token);
    const auto score = m_vocab->score(token);
    QString html = QStringLiteral("<table cellspacing='2'>");
    const auto row = [&html](const QString &name, const QString &value) {
        html += QStringLiteral("<tr><td>%1&nbsp;</td><td>%2</td></tr>").arg(name.toHtmlEscaped(), value);
    };
    row(tr("Id"), locale.toString(id));
    row(tr("Stored"), code(TokenText::visible(m_vocab->token(token), 400)));
    row(tr("Decoded"), code(TokenText::visible(decoded, 400)));
    row(tr("Bytes"), code(TokenText::hex(decoded, 64)) +
                         (decoded.size() == 1 ? tr(" (1 byte)") : tr(" (%1 bytes)").arg(decoded.size())));
    row(tr("Type"), type ? TextFormat::fromView(gguf::tokenTypeName(*type)).toHtmlEscaped() : tr("—"));
    row(tr("Score"), score ? QLocale::c().toString(*score, 'g', 7) : tr("—"));
    if (!roles.isEmpty())
        row(tr("Special"), QStringLiteral("<b>%1</b>").arg(roles.join(QStringLiteral(", ")).toHtmlEscaped()));
    html += QStringLiteral("</table>");
    m_details->setText(html);
    showProducers();
}

void TokenDetailsPanel::showProducers()
{
    if (!m_vocab || m_current < 0)
        return;
    if (m_vocab->mergeCount() == 0) {
        m_producers->clear();
        emit producersShown();
        return;
    }
    if (!m_mergeIndex) {
        m_producers->setText(tr("<i>Indexing %1 merge rules…</i>").arg(QLocale().toString(m_vocab->mergeCount())));
        if (!m_jobs->isRunning())
            m_jobs->start(
                tr("Indexing the merge rules"),
                [vocab = m_vocab](const gguf::ProgressFn &progress) {
                    auto index = gguf::MergeIndex::build(*vocab, progress);
                    return index ? std::make_shared<const gguf::MergeIndex>(std::move(*index))
                                 : std::shared_ptr<const gguf::MergeIndex>();
                },
                [this](std::shared_ptr<const gguf::MergeIndex> index) {
                    m_mergeIndex = std::move(index);
                    if (m_mergeIndex)
                        showProducers();
                });
        return;
    }
    const auto token = static_cast<uint64_t>(m_current);
    const std::vector<uint64_t> ranks = m_mergeIndex->producing(*m_vocab, m_vocab->token(token));
    QString html;
    if (ranks.empty()) {
        html = tr("No merge rule produces this token.");
    } else {
        html = ranks.size() == 1 ? tr("Produced by the merge rule") : tr("Produced by the merge rules");
        for (const uint64_t rank : ranks) {
            const auto [left, right] = m_vocab->mergeParts(rank);
            html += QStringLiteral("<br><a href='merge:%1'>#%1</a> %2 + %3")
                        .arg(rank)
                        .arg(code(TokenText::visible(left, 60)), code(TokenText::visible(right, 60)));
        }
    }
    m_producers->setText(html);
    emit producersShown();
}

QString TokenDetailsPanel::detailsText() const
{
    QTextDocument document;
    document.setHtml(m_details->text());
    return document.toPlainText();
}

QString TokenDetailsPanel::producersText() const
{
    QTextDocument document;
    document.setHtml(m_producers->text());
    return document.toPlainText();
}

bool TokenDetailsPanel::isIndexing() const
{
    return m_jobs->isRunning();
}
