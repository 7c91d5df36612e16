// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/checkpoint/checkpoint_view.h"

#include "ui/checkpoint/checkpoint_bytes.h"
#include "ui/checkpoint/checkpoint_metadata.h"
#include "ui/checkpoint/checkpoint_overview.h"
#include "ui/checkpoint/checkpoint_tensors.h"
#include "ui/checkpoint/checkpoint_tokenizer.h"
#include "ui/checkpoint/checkpoint_weights.h"

#include "core/safetensors/checkpoint.h"

CheckpointView::CheckpointView(QWidget *parent)
    : QTabWidget(parent), m_overview(new CheckpointOverview(this)), m_metadata(new CheckpointMetadata(this)),
      m_tensors(new CheckpointTensors(this)), m_bytes(new CheckpointBytes(this)),
      m_weights(new CheckpointWeights(this)), m_tokenizer(new CheckpointTokenizer(this))
{
    setDocumentMode(true);
    addTab(m_overview, tr("&Overview"));
    addTab(m_metadata, tr("&Metadata"));
    addTab(m_tensors, tr("&Tensors"));
    addTab(m_weights, tr("&Weights"));
    addTab(m_tokenizer, tr("To&kenizer"));
    addTab(m_bytes, tr("&Bytes"));
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
    m_overview->setCheckpoint(m_checkpoint);
    m_metadata->setCheckpoint(m_checkpoint);
    m_tensors->setCheckpoint(m_checkpoint);
    m_bytes->setCheckpoint(m_checkpoint);
    m_weights->setCheckpoint(m_checkpoint);
    m_tokenizer->setCheckpoint(m_checkpoint);
}
