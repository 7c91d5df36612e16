// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/compare/compare_page.h"

#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/page_state.h"
#include "ui/common/text_format.h"
#include "ui/common/token_text.h"
#include "ui/compare/compare_jobs.h"
#include "ui/compare/metadata_diff_model.h"
#include "ui/compare/tensor_diff_model.h"
#include "ui/compare/tensor_pair_panel.h"
#include "ui/compare/text_diff_view.h"
#include "ui/compare/token_diff_model.h"
#include "ui/pairing/checkpoint_compare_panel.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDataStream>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <QVBoxLayout>

namespace {

// Values are compared at once when both models hold less than this; else on request.
constexpr uint64_t kAutoValueBytes = uint64_t(4) << 30;
// A job compares pairs until it holds this many bytes (or this many pairs), then hands them over.
constexpr uint64_t kBatchBytes = uint64_t(64) << 20;
constexpr size_t kBatchPairs = 32;

constexpr quint32 kCompareStateVersion = 1;

QString describe(const std::shared_ptr<const gguf::SplitModel> &m)
{
    if (!m)
        return {};
    const size_t n = m->tensors().size();
    return ComparePage::tr("%1 (%2, %3)")
        .arg(QFileInfo(QString::fromStdString(m->primary().path())).fileName(),
             n == 1 ? ComparePage::tr("1 tensor") : ComparePage::tr("%1 tensors").arg(TextFormat::count(n)),
             TextFormat::byteSize(m->totalFileSize()));
}

bool needsValues(const gguf::TensorPair &p)
{
    return p.comparable() && !p.valuesCompared && p.status != gguf::TensorDiffStatus::SameBytes && p.problem.empty();
}

} // namespace

ComparePage::ComparePage(QWidget *parent)
    : Page(parent), m_files(new QLabel(this)), m_summary(new QLabel(this)),
      m_chooseB(new QPushButton(tr("Compare &with…"), this)), m_sections(new QTabWidget(this)),
      m_modes(new QStackedWidget(this)), m_checkpointPanel(new CheckpointComparePanel(this)),
      m_metadataModel(new MetadataDiffModel(this)), m_metadataProxy(new MetadataDiffProxy(this)),
      m_metadataShow(new QComboBox(this)), m_metadataFilter(new QLineEdit(this)), m_metadataView(new QTreeView(this)),
      m_textDiff(new TextDiffView(this)), m_textDiffLabel(new QLabel(this)), m_verdict(new QLabel(this)),
      m_tokenSummary(new QLabel(this)), m_tokenModel(new TokenDiffModel(this)), m_tokenView(new QTableView(this)),
      m_tensorModel(new TensorDiffModel(this)), m_tensorProxy(new TensorDiffProxy(this)),
      m_tensorFilter(new QLineEdit(this)), m_differencesOnly(new QCheckBox(tr("&Differences only"), this)),
      m_compareValues(new QPushButton(tr("Compare &values"), this)), m_tensorView(new QTableView(this)),
      m_pair(new TensorPairPanel(m_tensorModel, this)), m_overviewTracker(new JobTracker(this)),
      m_valueTracker(new JobTracker(this)), m_valueProgress(new JobProgress(this))
{
    m_files->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_files->setWordWrap(true);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *header = new QHBoxLayout;
    header->addWidget(m_files, 1);
    header->addWidget(m_chooseB);
    m_sections->addTab(buildMetadataSection(), tr("Metadata"));
    m_sections->addTab(buildTokenizerSection(), tr("Tokenizer"));
    m_sections->addTab(buildTensorsSection(), tr("Tensors"));
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    m_modes->addWidget(m_sections);
    m_modes->addWidget(m_checkpointPanel);
    layout->addWidget(m_modes, 1);
    connect(m_checkpointPanel, &CheckpointComparePanel::compared, this, &ComparePage::valuesCompared);
    connect(m_chooseB, &QPushButton::clicked, this, &ComparePage::compareWithRequested);
    updateHeader();
    // the view state kept between runs (the same layout as before PageState: old settings restore)
    m_state = PageState(kCompareStateVersion);
    m_state.add(m_tensorView->horizontalHeader()).add(m_metadataView->header()).add(m_metadataShow);
}

ComparePage::~ComparePage() = default;

void ComparePage::setModel(std::shared_ptr<const gguf::SplitModel> model)
{
    if (model == m_a)
        return;
    m_a = std::move(model);
    if (m_checkpointB) {
        m_checkpointPanel->setSides(m_a, m_checkpointB);
        updateHeader();
        return;
    }
    restart();
}

void ComparePage::setOtherCheckpoint(std::shared_ptr<const gguf::st::Checkpoint> checkpoint, const QString &path)
{
    m_b.reset();
    m_pathB = checkpoint ? path : QString();
    m_checkpointB = std::move(checkpoint);
    restart(); // the GGUF sections let go of what they showed
    m_modes->setCurrentWidget(m_checkpointB ? static_cast<QWidget *>(m_checkpointPanel) : m_sections);
    m_checkpointPanel->setSides(m_a, m_checkpointB);
    updateHeader();
    if (m_checkpointB)
        emit comparisonShown();
}

void ComparePage::setOther(std::shared_ptr<const gguf::SplitModel> model, const QString &path)
{
    if (m_checkpointB) {
        m_checkpointB.reset();
        m_checkpointPanel->setSides(nullptr, nullptr);
        m_modes->setCurrentWidget(m_sections);
    }
    m_b = std::move(model);
    m_pathB = m_b ? path : QString();
    restart();
}

void ComparePage::restart()
{
    m_overviewTracker->drop();
    m_valueTracker->drop();
    m_valueProgress->hide(); // a "Cancelled" strip of the comparison before
    m_compareValues->setEnabled(false);
    m_nextValueRow = 0;
    m_pair->setRow(-1);
    m_metadataModel->setDiff(nullptr, nullptr, {});
    m_tokenModel->setDiff(nullptr, nullptr, {});
    m_tensorModel->setPairs(nullptr, nullptr, {});
    m_textDiff->hide();
    m_textDiffLabel->hide();
    m_verdict->clear();
    m_tokenSummary->clear();
    updateHeader();
    if (!m_a || !m_b)
        return;
    const auto a = m_a, b = m_b;
    m_overviewTracker->start(
        tr("Comparing %1 with %2").arg(describe(a), describe(b)),
        [a, b](const gguf::ProgressFn &) {
            return std::make_shared<CompareJobs::Overview>(CompareJobs::overview(*a, *b));
        },
        [this](const std::shared_ptr<CompareJobs::Overview> &overview) { showOverview(std::move(*overview)); });
}

void ComparePage::showOverview(CompareJobs::Overview overview)
{
    m_metadataModel->setDiff(m_a, m_b, std::move(overview.metadata));
    const gguf::TokenizerDiff &t = overview.tokenizer;
    m_verdict->setText(tr("Tokenizer: %1").arg(QString::fromStdString(t.verdict)));
    QStringList facts;
    if (t.hasA || t.hasB) {
        facts << tr("%1 → %2 tokens").arg(TextFormat::count(t.sizeA), TextFormat::count(t.sizeB));
        const auto orNone = [](std::string_view v) { return v.empty() ? tr("(none)") : TextFormat::fromView(v); };
        if (t.modelA != t.modelB)
            facts << tr("model %1 → %2").arg(orNone(t.modelA), orNone(t.modelB));
        if (t.preA != t.preB)
            facts << tr("pre-tokenizer %1 → %2").arg(orNone(t.preA), orNone(t.preB));
        if (t.mergesA + t.mergesB > 0)
            facts << tr("merges %1 → %2: %3 added, %4 removed, %5 at another rank")
                         .arg(TextFormat::count(t.mergesA), TextFormat::count(t.mergesB),
                              TextFormat::count(t.mergesAdded), TextFormat::count(t.mergesRemoved),
                              TextFormat::count(t.mergesReranked));
        // the first merges each side alone has (all are counted above)
        const auto mergeList = [](const std::vector<std::string_view> &merges) {
            QStringList shown;
            for (size_t i = 0; i < std::min<size_t>(8, merges.size()); ++i)
                shown << TokenText::visible(merges[i], 40);
            return shown.join(QStringLiteral(", ")) + (merges.size() > 8 ? QStringLiteral(", …") : QString());
        };
        if (!t.firstMergesAdded.empty())
            facts << tr("merges only B has: %1").arg(mergeList(t.firstMergesAdded));
        if (!t.firstMergesRemoved.empty())
            facts << tr("merges only A has: %1").arg(mergeList(t.firstMergesRemoved));
        for (const gguf::SpecialTokenChange &s : t.special)
            facts << tr("%1: %2 → %3")
                         .arg(TextFormat::fromView(s.key), s.a ? QString::number(*s.a) : tr("none"),
                              s.b ? QString::number(*s.b) : tr("none"));
    }
    m_tokenSummary->setText(facts.join(QStringLiteral(" · ")));
    m_tokenModel->setDiff(m_a, m_b, std::move(overview.tokenizer));
    m_tensorModel->setPairs(m_a, m_b, std::move(overview.tensors));
    m_valueBytesDone = 0;
    m_nextValueRow = 0;
    const bool automatic = remainingValues().bytes <= kAutoValueBytes;
    updateHeader();
    updateValueButton();
    if (m_tensorProxy->rowCount() > 0)
        m_tensorView->selectRow(0);
    emit comparisonShown();
    if (automatic)
        compareValues();
}

void ComparePage::compareValues()
{
    if (!m_a || !m_b || m_valueTracker->isRunning() || m_overviewTracker->isRunning())
        return;
    // what is left to compare (after a cancel, the pairs done stay done)
    m_valueBytesTotal = m_valueBytesDone + remainingValues().bytes;
    startNextBatch();
}

void ComparePage::startNextBatch()
{
    std::vector<int> rows;
    std::vector<gguf::TensorPair> pairs;
    uint64_t bytes = 0;
    const std::vector<gguf::TensorPair> &all = m_tensorModel->pairs();
    for (size_t i = m_nextValueRow; i < all.size() && bytes < kBatchBytes && pairs.size() < kBatchPairs; ++i)
        if (needsValues(all[i])) {
            rows.push_back(static_cast<int>(i));
            pairs.push_back(all[i]);
            bytes += CompareJobs::pairBytes(all[i]);
        }
    if (pairs.empty()) {
        updateValueButton();
        m_pair->refreshLayers();
        emit valuesCompared();
        return;
    }
    const auto a = m_a, b = m_b;
    const uint64_t before = m_valueBytesDone, total = std::max<uint64_t>(1, m_valueBytesTotal);
    m_valueTracker->start(
        m_tensorModel->rowCount() == 1
            ? tr("Comparing the values of 1 tensor")
            : tr("Comparing the values of %1 tensors").arg(TextFormat::count(m_tensorModel->rowCount())),
        [a, b, rows = std::move(rows), pairs = std::move(pairs), before,
         total](const gguf::ProgressFn &progress) mutable {
            return CompareJobs::compareValues(a, b, std::move(rows), std::move(pairs), before, total, progress);
        },
        [this](const CompareJobs::ValueBatch &batch) { showValueBatch(batch); });
    updateValueButton(); // disabled while the batches run
}

void ComparePage::showValueBatch(const CompareJobs::ValueBatch &batch)
{
    for (const gguf::TensorPair &p : batch.pairs)
        m_valueBytesDone += CompareJobs::pairBytes(p);
    if (!batch.rows.empty())
        m_nextValueRow = static_cast<size_t>(batch.rows.back()) + 1; // the rows before are done
    // a row that turns "same" leaves a "differences only" list: the pair on show stays on show
    m_updatingRows = true;
    m_tensorModel->updatePairs(batch.rows, batch.pairs); // a pair whose data could not be read keeps its problem
    m_updatingRows = false;
    m_pair->refreshLayers();
    m_pair->updateTitle();
    updateHeader();
    if (batch.complete)
        startNextBatch(); // chained: the job runner's progress strip stays up until the last batch
}

bool ComparePage::isBusy() const
{
    return m_overviewTracker->isRunning() || m_valueTracker->isRunning();
}

ComparePage::Remaining ComparePage::remainingValues() const
{
    Remaining left;
    const std::vector<gguf::TensorPair> &all = m_tensorModel->pairs();
    for (size_t i = m_nextValueRow; i < all.size(); ++i)
        if (needsValues(all[i])) {
            left.bytes += CompareJobs::pairBytes(all[i]);
            ++left.pairs;
        }
    return left;
}

void ComparePage::updateValueButton()
{
    const Remaining left = remainingValues();
    m_compareValues->setEnabled(left.pairs > 0 && !m_valueTracker->isRunning());
    m_compareValues->setText(left.pairs > 0 ? tr("Compare &values (%1 to read)").arg(TextFormat::byteSize(left.bytes))
                                            : tr("Compare &values"));
}

void ComparePage::updateHeader()
{
    if (m_a && m_checkpointB) {
        m_chooseB->setEnabled(true);
        m_files->setText(tr("<b>A</b> %1<br><b>B</b> %2 (a Hugging Face checkpoint, %3)")
                             .arg(describe(m_a).toHtmlEscaped(), QFileInfo(m_pathB).fileName().toHtmlEscaped(),
                                  m_checkpointB->tensors().size() == 1
                                      ? tr("1 tensor")
                                      : tr("%1 tensors").arg(TextFormat::count(m_checkpointB->tensors().size()))));
        m_summary->clear();
        return;
    }
    if (!m_a || !m_b) {
        m_files->setText(m_a ? tr("<b>A</b> %1 · choose a GGUF, or the Hugging Face checkpoint it was converted from, "
                                  "to compare it with (File ▸ Compare With…, or drop one on the window while "
                                  "holding Ctrl).")
                                   .arg(describe(m_a).toHtmlEscaped())
                             : tr("Open a model first, then choose another to compare it with."));
        m_summary->clear();
        m_chooseB->setEnabled(m_a != nullptr);
        return;
    }
    m_chooseB->setEnabled(true);
    m_files->setText(
        tr("<b>A</b> %1<br><b>B</b> %2").arg(describe(m_a).toHtmlEscaped(), describe(m_b).toHtmlEscaped()));
    m_summary->setText(summaryText());
}

QString ComparePage::summaryText() const
{
    if (!m_a || !m_b)
        return {};
    const gguf::MetadataDiff &m = m_metadataModel->diff();
    QStringList parts;
    parts << tr("Metadata: %1 changed, %2 added, %3 removed, %4 the same")
                 .arg(TextFormat::count(m.changed), TextFormat::count(m.added), TextFormat::count(m.removed),
                      TextFormat::count(m.same));
    parts << tr("Tokenizer: %1").arg(QString::fromStdString(m_tokenModel->diff().verdict));
    std::array<int, 8> counts{};
    for (const gguf::TensorPair &p : m_tensorModel->pairs())
        ++counts[static_cast<size_t>(p.status)];
    QStringList tensors;
    for (size_t s = 0; s < counts.size(); ++s)
        if (counts[s] > 0)
            tensors << QStringLiteral("%1 %2").arg(counts[s]).arg(
                TensorDiffModel::statusText(static_cast<gguf::TensorDiffStatus>(s)));
    parts << tr("Tensors: %1").arg(tensors.isEmpty() ? tr("none") : tensors.join(QStringLiteral(", ")));
    return parts.join(QStringLiteral("\n"));
}

QString ComparePage::tokenizerVerdict() const
{
    return QString::fromStdString(m_tokenModel->diff().verdict);
}

bool ComparePage::selectTensor(const QString &name)
{
    const int row = m_tensorModel->rowOfName(name);
    if (row < 0)
        return false;
    m_sections->setCurrentIndex(2);
    m_tensorFilter->clear();
    m_differencesOnly->setChecked(false);
    const QModelIndex i = m_tensorProxy->mapFromSource(m_tensorModel->index(row, 0));
    m_tensorView->setCurrentIndex(i);
    m_tensorView->scrollTo(i);
    return true;
}

bool ComparePage::focusFind()
{
    QLineEdit *filter = m_sections->currentIndex() == 2 ? m_tensorFilter : m_metadataFilter;
    if (m_sections->currentIndex() == 1)
        return false;
    filter->setFocus();
    filter->selectAll();
    return true;
}

QByteArray ComparePage::saveState() const
{
    return m_state.save();
}

void ComparePage::restoreState(const QByteArray &state)
{
    m_state.restore(state);
}
