// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/kind/file_kind.h"
#include "ui/common/page.h"

#include <QWidget>

#include <array>
#include <memory>

class JobTracker;
class KindPanel;
class MemoryPanel;
class QFormLayout;
class QGroupBox;
class QLabel;
class QTreeWidget;
class TypeMixPlot;

namespace gguf {
class GgufFile;
class SplitModel;
struct ModelSummary;
} // namespace gguf

/// The summary of a model: file and header facts, model hyper-parameters, the tensor-type mix
/// as a bar chart, the validation verdict with its findings, and the memory it needs to run.
class OverviewPage : public Page {
    Q_OBJECT
public:
    enum class Field {
        Kind,
        Name,
        Architecture,
        Path,
        FileSize,
        Shards,
        Version,
        ByteOrder,
        HeaderLayout,
        Alignment,
        DataOffset,
        MetadataCount,
        TensorCount,
        FileType,
        Parameters,
        BitsPerWeight,
        Layers,
        ContextLength,
        EmbeddingLength,
        Heads,
        FeedForwardLength,
        VocabularySize,
        Count
    };

    explicit OverviewPage(QWidget *parent = nullptr);

    /// Shows `model` (null: empty page).
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;

    QString fieldText(Field field) const;
    QString verdictText() const;
    QString titleText() const;
    /// The kind, known at once; its facts and findings once kindShown() (read on a worker).
    const gguf::KindReport &kind() const { return m_kind; }
    /// The model shown (null: none).
    const std::shared_ptr<const gguf::SplitModel> &model() const { return m_model; }
    bool isKindShown() const { return m_kindShown; }
    int findingCount() const;
    const TypeMixPlot *typeMixPlot() const { return m_plot; }
    MemoryPanel *memoryPanel() const { return m_memory; }
    KindPanel *kindPanel() const { return m_kindPanel; }

signals:
    /// The kind's facts and findings are shown (after setModel, from a worker).
    void kindShown();

private:
    void createFields(QFormLayout *fileForm, QFormLayout *modelForm);
    QGroupBox *createValidationBox();
    /// The title and the kind, name and architecture fields; returns the kind's title.
    QString showKind(const gguf::GgufFile &file);
    void showFileFields(const gguf::GgufFile &file, const gguf::ModelSummary &summary);
    void showModelFields(const gguf::GgufFile &file, const gguf::ModelSummary &summary);
    void showVerdict(const gguf::SplitModel &model);
    void showFindings(const gguf::SplitModel &model);
    void showTypeMix(const gguf::SplitModel &model);
    void setField(Field field, const QString &text);

    std::shared_ptr<const gguf::SplitModel> m_model;
    std::array<QLabel *, static_cast<size_t>(Field::Count)> m_fields{};
    QLabel *m_title;
    QLabel *m_verdict;
    TypeMixPlot *m_plot;
    QTreeWidget *m_findings;
    QLabel *m_noFindings;
    MemoryPanel *m_memory;
    KindPanel *m_kindPanel;
    gguf::KindReport m_kind;
    JobTracker *m_kindJob;
    bool m_kindShown = false;
};
