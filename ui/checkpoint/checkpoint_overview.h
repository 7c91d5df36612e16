// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <memory>

class QFormLayout;
class QLabel;
class QTreeWidget;
class TypeMixPlot;
namespace gguf::st {
class Checkpoint;
}

/// A checkpoint's summary: what was opened and its files, config.json's architecture and sizes,
/// the dtype mix (bytes per dtype), the parameter count, and whether the safetensors library would
/// load it, with every finding at its file and offset; and what llama.cpp would need for the GGUF
/// its converter makes of it (one GPU, CPU only, at the trained context).
class CheckpointOverview : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointOverview(QWidget *parent = nullptr);
    void setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint);

    /// The text of the field labelled `label` ("Architecture", "Parameters", …); empty when absent.
    QString fieldText(const QString &label) const;
    QString verdictText() const;
    int findingCount() const;
    const TypeMixPlot *dtypePlot() const { return m_plot; }

private:
    void addField(const QString &label, const QString &text, const QString &toolTip = {});
    void addMemoryFields(const gguf::st::Checkpoint &c);

    QLabel *m_title;
    QLabel *m_verdict;
    QFormLayout *m_form;
    TypeMixPlot *m_plot;
    QTreeWidget *m_findings;
};
