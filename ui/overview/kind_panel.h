// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"
#include "core/kind/file_kind.h"

#include <QGroupBox>

#include <memory>

class JobTracker;
class LayerChart;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

/// The Overview's section for a file that is not a model (docs/KINDS.md): a LoRA adapter's ranks,
/// alpha, scale and targets by layer and role; an importance matrix's datasets, chunks, entries and
/// the experts never used; a projector's encoders; a control vector's layers and the norm of each. Hidden for models.
class KindPanel : public QGroupBox {
    Q_OBJECT
public:
    explicit KindPanel(QWidget *parent = nullptr);

    /// Shows the report's facts for `file` (hidden for a model or a vocabulary).
    void setReport(const gguf::KindReport &report, std::shared_ptr<const gguf::GgufFile> file = nullptr);
    /// A LoRA adapter: opens `basePath` on a worker and checks every pair against it as llama.cpp
    /// does before applying the adapter; the result shows under "Against …" (baseChecked() then).
    void checkAgainstBase(const QString &basePath);

    const QTreeWidget *tree() const { return m_tree; }
    /// The text of the row whose first column is `label` (top level or below), empty when none.
    QString valueOf(const QString &label) const;
    /// A control vector's norm per layer (computed on a worker; normsShown() then).
    const LayerChart *directionNorms() const { return m_norms; }
    /// True while a computation (the norms, a base check) runs.
    bool isBusy() const;

signals:
    void baseChecked();
    void normsShown();

private:
    QTreeWidgetItem *add(QTreeWidgetItem *parent, const QString &label, const QString &value);
    void showLora(const gguf::LoraFacts &lora);
    void showImatrix(const gguf::ImatrixFacts &imatrix);
    void showProjector(const gguf::ProjectorFacts &projector);
    void showControlVector(const gguf::ControlVectorFacts &control);

    void computeNorms();
    void chooseBase();
    void showBaseCheck(const QString &basePath, const gguf::AdapterCheck &check, const QString &error);

    QTreeWidget *m_tree;
    QPushButton *m_checkBase;
    LayerChart *m_norms;
    JobTracker *m_job;
    std::shared_ptr<const gguf::GgufFile> m_file;
    std::optional<gguf::KindReport> m_report;
    QTreeWidgetItem *m_baseItem = nullptr;
};
