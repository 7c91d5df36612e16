// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/common/checkpoint_compare_panel.h"

#include "core/format/ggml_types.h"
#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "ui/common/fixed_font.h"
#include "ui/common/job_progress.h"
#include "ui/common/job_tracker.h"
#include "ui/common/text_format.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace {

QString measure(double v, char format, int precision)
{
    if (std::isnan(v))
        return QStringLiteral("–");
    if (std::isinf(v))
        return v > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QLocale().toString(v, format, precision);
}

} // namespace

CheckpointComparePanel::CheckpointComparePanel(QWidget *parent)
    : QWidget(parent), m_summary(new QLabel(this)), m_filter(new QLineEdit(this)), m_table(new QTableWidget(this)),
      m_tracker(new JobTracker(this)), m_progress(new JobProgress(this))
{
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filter->setPlaceholderText(tr("Filter by either name"));
    m_filter->setClearButtonEnabled(true);
    m_table->setColumnCount(ColumnCount);
    m_table->setHorizontalHeaderLabels({tr("A (GGUF)"), tr("B (checkpoint)"), tr("Status"), tr("A type"), tr("B dtype"),
                                        tr("RMSE"), tr("max |a−b|"), tr("mean |a−b| / mean |a|"), tr("Cosine"),
                                        tr("SNR dB"), tr("Rel. L2"), tr("Undone")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    m_table->setFont(fixedFont());
    m_progress->track(m_tracker);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_progress);
    layout->addWidget(m_filter);
    layout->addWidget(m_table, 1);
    connect(m_filter, &QLineEdit::textChanged, this, &CheckpointComparePanel::setFilter);
    connect(m_progress, &JobProgress::restartClicked, this,
            [this] { setSides(m_model, m_checkpoint, m_checkpointIsA); });
}

void CheckpointComparePanel::setSides(std::shared_ptr<const gguf::SplitModel> model,
                                      std::shared_ptr<const gguf::st::Checkpoint> checkpoint, bool checkpointIsA)
{
    m_tracker->drop();
    m_checkpointIsA = checkpointIsA;
    m_model = std::move(model);
    m_checkpoint = std::move(checkpoint);
    m_table->setRowCount(0);
    m_summary->clear();
    m_result.reset();
    if (!m_model || !m_checkpoint)
        return;
    m_summary->setText(tr("Pairing the tensors and comparing their values…"));
    m_tracker->start(
        tr("Comparing with the checkpoint"),
        [model = m_model, checkpoint = m_checkpoint, checkpointIsA](const gguf::ProgressFn &progress) {
            auto result = std::make_shared<Result>();
            result->pairing = gguf::pairWithCheckpoint(*model, *checkpoint);
            const auto &pairs = result->pairing.pairs;
            uint64_t total = 0, done = 0; // progress by elements of the GGUF tensors
            for (const gguf::CheckpointPair &p : pairs)
                total += p.paired() ? model->tensors()[size_t(p.ggufTensor)].info->elements : 0;
            for (const gguf::CheckpointPair &p : pairs) {
                const uint64_t elements = p.paired() ? model->tensors()[size_t(p.ggufTensor)].info->elements : 0;
                gguf::ValueDiffOptions options;
                options.progress = [&](uint64_t chunk, uint64_t chunks) {
                    return progress(done + (chunks ? elements * chunk / chunks : 0), std::max<uint64_t>(total, 1));
                };
                result->outcomes.push_back(
                    gguf::compareCheckpointPair(*model, *checkpoint, p, checkpointIsA, true, options));
                done += elements;
                if (!progress(done, std::max<uint64_t>(total, 1)))
                    break; // cancelled: the job's result is dropped
            }
            return result;
        },
        [this](const std::shared_ptr<Result> &result) { show(result); });
}

void CheckpointComparePanel::show(const std::shared_ptr<Result> &result)
{
    m_result = result;
    const auto &pairs = result->pairing.pairs;
    m_table->setSortingEnabled(false);
    m_table->setRowCount(static_cast<int>(pairs.size()));
    uint64_t paired = 0, onlyA = 0, onlyB = 0, same = 0, changed = 0;
    for (size_t i = 0; i < pairs.size() && i < result->outcomes.size(); ++i) {
        const gguf::CheckpointPair &p = pairs[i];
        const gguf::CheckpointPairOutcome &o = result->outcomes[i];
        const int row = static_cast<int>(i);
        paired += p.paired();
        onlyA += o.status == gguf::TensorDiffStatus::OnlyA;
        onlyB += o.status == gguf::TensorDiffStatus::OnlyB;
        same += o.status == gguf::TensorDiffStatus::SameValues;
        changed += o.status == gguf::TensorDiffStatus::Changed;
        const gguf::TensorInfo *info = p.ggufTensor >= 0 ? m_model->tensors()[size_t(p.ggufTensor)].info : nullptr;
        const auto set = [&](int column, const QString &text) {
            m_table->setItem(row, column, new QTableWidgetItem(text));
        };
        const QString ggufName = info ? TextFormat::fromView(info->name) : QString();
        const QString checkpointName = QString::fromStdString(p.sourceName);
        set(NameA, m_checkpointIsA ? checkpointName : ggufName);
        set(NameB, m_checkpointIsA ? ggufName : checkpointName);
        set(Status, QString::fromUtf8(gguf::tensorDiffStatusName(o.status).data(),
                                      static_cast<qsizetype>(gguf::tensorDiffStatusName(o.status).size())));
        const QString ggufType = info ? QString::fromStdString(gguf::typeName(info->typeId)) : QString();
        const QString dtype = p.sources.empty()
                                  ? QString()
                                  : QString::fromStdString(std::string(gguf::st::dtypeName(
                                        m_checkpoint->tensors()[size_t(p.sources.front())].entry->dtype)));
        set(TypeA, m_checkpointIsA ? dtype : ggufType);
        set(TypeB, m_checkpointIsA ? ggufType : dtype);
        if (o.compared) {
            const gguf::DiffMeasures m = o.values.measures();
            set(Rmse, measure(m.rmse, 'g', 4));
            set(MaxAbs, measure(m.maxAbs, 'g', 4));
            set(MeanRel, measure(m.meanAbsRelative, 'g', 4));
            set(Cosine, measure(m.cosine, 'f', 6));
            set(Snr, measure(m.snrDb, 'f', 2));
            set(RelL2, measure(m.relativeL2, 'g', 4));
        }
        QStringList undone;
        for (const std::string &u : p.undone)
            undone << QString::fromStdString(u);
        if (!o.problem.empty())
            undone << tr("not compared: %1").arg(QString::fromStdString(o.problem));
        set(Undone, undone.join(QStringLiteral("; ")));
    }
    m_table->setSortingEnabled(true);
    m_table->resizeColumnsToContents();
    m_summary->setText(result->pairing.known
                           ? tr("Paired by llama.cpp's conversion of %1, undone: %2 paired (%3 with every value "
                                "equal, %4 with values that differ), %5 only in A, %6 only in B.")
                                 .arg(QString::fromStdString(result->pairing.architecture), TextFormat::count(paired),
                                      TextFormat::count(same), TextFormat::count(changed), TextFormat::count(onlyA),
                                      TextFormat::count(onlyB))
                           : tr("Not paired: %1.").arg(QString::fromStdString(result->pairing.problem)));
    setFilter(m_filter->text());
    emit compared();
}

const gguf::CheckpointPairing &CheckpointComparePanel::pairing() const
{
    static const gguf::CheckpointPairing none;
    return m_result ? m_result->pairing : none;
}

const std::vector<gguf::CheckpointPairOutcome> &CheckpointComparePanel::outcomes() const
{
    static const std::vector<gguf::CheckpointPairOutcome> none;
    return m_result ? m_result->outcomes : none;
}

QString CheckpointComparePanel::summary() const
{
    return m_summary->text();
}

void CheckpointComparePanel::setFilter(const QString &text)
{
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const auto *a = m_table->item(row, NameA);
        const auto *b = m_table->item(row, NameB);
        const bool match = text.isEmpty() || (a && a->text().contains(text, Qt::CaseInsensitive)) ||
                           (b && b->text().contains(text, Qt::CaseInsensitive));
        m_table->setRowHidden(row, !match);
    }
}
