// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_view.h"

#include "ui/checkpoint/checkpoint_bytes.h"
#include "ui/checkpoint/checkpoint_metadata.h"
#include "ui/checkpoint/checkpoint_overview.h"
#include "ui/checkpoint/checkpoint_tensors.h"
#include "ui/checkpoint/checkpoint_tokenizer.h"
#include "ui/checkpoint/checkpoint_weights.h"

#include "core/format/split_model.h"
#include "core/safetensors/checkpoint.h"
#include "ui/pairing/checkpoint_compare_panel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

CheckpointView::CheckpointView(QWidget *parent)
    : QTabWidget(parent), m_overview(new CheckpointOverview(this)), m_metadata(new CheckpointMetadata(this)),
      m_tensors(new CheckpointTensors(this)), m_bytes(new CheckpointBytes(this)),
      m_weights(new CheckpointWeights(this)), m_tokenizer(new CheckpointTokenizer(this)),
      m_compareTab(new QWidget(this)), m_compareHeader(new QLabel(this)), m_compare(new CheckpointComparePanel(this))
{
    setDocumentMode(true);
    addTab(m_overview, tr("&Overview"));
    addTab(m_metadata, tr("&Metadata"));
    addTab(m_tensors, tr("&Tensors"));
    addTab(m_weights, tr("&Weights"));
    addTab(m_tokenizer, tr("To&kenizer"));
    addTab(m_bytes, tr("&Bytes"));
    // the checkpoint (A) against a GGUF (B), e.g. the one converted from it
    auto *choose = new QPushButton(tr("Compare &with…"), m_compareTab);
    m_compareHeader->setWordWrap(true);
    auto *header = new QHBoxLayout;
    header->addWidget(m_compareHeader, 1);
    header->addWidget(choose);
    auto *compareLayout = new QVBoxLayout(m_compareTab);
    compareLayout->addLayout(header);
    compareLayout->addWidget(m_compare, 1);
    addTab(m_compareTab, tr("Co&mpare"));
    connect(choose, &QPushButton::clicked, this, &CheckpointView::compareWithRequested);
    // a tensor chosen in the table is the one the Weights and Bytes pages show
    connect(m_tensors, &CheckpointTensors::tensorActivated, this, [this](int index) {
        m_weights->showTensor(index);
        setCurrentWidget(m_weights);
    });
    connect(m_tensors, &CheckpointTensors::bytesRequested, this, [this](int index) {
        m_bytes->showTensor(index);
        setCurrentWidget(m_bytes);
    });
}

CheckpointView::~CheckpointView() = default;

void CheckpointView::setCheckpoint(std::shared_ptr<const gguf::st::Checkpoint> checkpoint)
{
    m_checkpoint = std::move(checkpoint);
    // the page in view first, then the others one per turn of the event loop, so that a checkpoint
    // of tens of thousands of tensors never keeps the window from answering (as PageHost does)
    const quint64 generation = ++m_generation;
    QList<std::function<void()>> steps{
        [this] { m_overview->setCheckpoint(m_checkpoint); },  [this] { m_metadata->setCheckpoint(m_checkpoint); },
        [this] { m_tensors->setCheckpoint(m_checkpoint); },   [this] { m_weights->setCheckpoint(m_checkpoint); },
        [this] { m_tokenizer->setCheckpoint(m_checkpoint); }, [this] { m_bytes->setCheckpoint(m_checkpoint); },
        [this] { compareWith(m_other, m_otherPath); },
    };
    const int current = std::min(currentIndex(), static_cast<int>(steps.size()) - 1);
    if (current > 0)
        steps.move(current, 0);
    steps.takeFirst()();
    if (!m_checkpoint) { // letting go: at once
        for (const auto &step : steps)
            step();
        emit checkpointShown();
        return;
    }
    runInTurns(generation, steps);
}

void CheckpointView::runInTurns(quint64 generation, QList<std::function<void()>> steps)
{
    if (generation != m_generation)
        return; // a newer checkpoint took over
    if (steps.isEmpty()) {
        emit checkpointShown();
        return;
    }
    QTimer::singleShot(0, this, [this, generation, steps]() mutable {
        if (generation != m_generation)
            return;
        steps.takeFirst()();
        runInTurns(generation, std::move(steps));
    });
}

void CheckpointView::setOther(std::shared_ptr<const gguf::SplitModel> model, const QString &path)
{
    m_other = std::move(model);
    m_otherPath = path;
}

void CheckpointView::compareWith(std::shared_ptr<const gguf::SplitModel> model, const QString &path)
{
    m_other = std::move(model);
    m_otherPath = path;
    m_compareHeader->setText(
        m_other ? tr("<b>A</b> this checkpoint<br><b>B</b> %1 (GGUF)").arg(QFileInfo(path).fileName().toHtmlEscaped())
                : tr("Compare this checkpoint with a GGUF, such as one converted from it (File ▸ "
                     "Compare With…, or drop one on the window while holding Ctrl)."));
    m_compare->setSides(m_other, m_checkpoint, true);
}

void CheckpointView::showComparison()
{
    setCurrentWidget(m_compareTab);
}
