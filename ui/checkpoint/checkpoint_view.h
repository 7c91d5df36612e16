// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTabWidget>

#include <QList>

#include <functional>
#include <memory>

class CheckpointBytes;
class CheckpointComparePanel;
class CheckpointMetadata;
class CheckpointOverview;
class CheckpointTensors;
class CheckpointTokenizer;
class CheckpointWeights;
class QLabel;
namespace gguf {
class SplitModel;
namespace st {
class Checkpoint;
}
} // namespace gguf

/// What the window shows for a Hugging Face checkpoint (#43): its own pages, built on the
/// checkpoint as the core reads it (core/safetensors), in place of the GGUF pages — Overview
/// (config.json's architecture and sizes, dtype mix, parameters, findings), Metadata (config.json
/// and each shard's `__metadata__` as a tree), Tensors (dtype, shape, shard, offsets), Bytes (each
/// shard's regions and their bytes), Weights (a tensor's statistics and histogram, on a worker) and
/// Tokenizer (the vocabulary of the tokenizer.json beside it).
class CheckpointView : public QTabWidget {
    Q_OBJECT
public:
    explicit CheckpointView(QWidget *parent = nullptr);
    ~CheckpointView() override;

    /// Shows `checkpoint` (null: nothing) on every page.
    void setCheckpoint(std::shared_ptr<const gguf::st::Checkpoint> checkpoint);
    const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint() const { return m_checkpoint; }

    CheckpointOverview *overview() const { return m_overview; }
    CheckpointMetadata *metadata() const { return m_metadata; }
    CheckpointTensors *tensors() const { return m_tensors; }
    CheckpointBytes *bytes() const { return m_bytes; }
    CheckpointWeights *weights() const { return m_weights; }
    CheckpointTokenizer *tokenizer() const { return m_tokenizer; }
    CheckpointComparePanel *comparePanel() const { return m_compare; }
    /// Compares the checkpoint (A) with the GGUF `model` (B) opened from `path`, on the Compare tab;
    /// null ends the comparison.
    void compareWith(std::shared_ptr<const gguf::SplitModel> model, const QString &path);
    /// The GGUF (B) the next setCheckpoint() compares with, without comparing now.
    void setOther(std::shared_ptr<const gguf::SplitModel> model, const QString &path);
    /// Brings the Compare tab forward.
    void showComparison();

signals:
    /// The Compare tab's button: choose a GGUF to compare the checkpoint with.
    void compareWithRequested();
    /// Every page shows the checkpoint of the last setCheckpoint (they take it one per turn of the
    /// event loop, the page in view first).
    void checkpointShown();

private:
    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
    CheckpointOverview *m_overview;
    CheckpointMetadata *m_metadata;
    CheckpointTensors *m_tensors;
    CheckpointBytes *m_bytes;
    CheckpointWeights *m_weights;
    CheckpointTokenizer *m_tokenizer;
    QWidget *m_compareTab;
    QLabel *m_compareHeader;
    CheckpointComparePanel *m_compare;
    std::shared_ptr<const gguf::SplitModel> m_other;
    QString m_otherPath;
    quint64 m_generation = 0; ///< counts setCheckpoint calls: an older one stops filling pages

    void runInTurns(quint64 generation, QList<std::function<void()>> steps);
};
