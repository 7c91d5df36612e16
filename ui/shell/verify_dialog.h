// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

#include <memory>

class JobProgress;
class JobTracker;
class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTreeWidget;

namespace gguf {
class SplitModel;
}

/// File ▸ Verify… (#45): the hashes of the open model's tensors as llama-gguf-hash computes them
/// (core/hash), on a worker with progress and Cancel; with a manifest (llama-gguf-hash's lines) each
/// line marked Ok, Mismatch or Not Found and the tensors that differ named; Save Manifest… writes the
/// lines.
class VerifyDialog : public QDialog {
    Q_OBJECT
public:
    explicit VerifyDialog(std::shared_ptr<const gguf::SplitModel> model, QWidget *parent = nullptr);

    /// The manifest to check against ("" for none).
    void setManifest(const QString &path);
    /// Starts hashing (what the Verify button does).
    void start();
    bool running() const;
    const QTreeWidget *results() const { return m_results; }
    QString summary() const;
    /// Writes the lines shown to `path`; false with a message on failure.
    bool saveManifest(const QString &path, QString &error) const;

private:
    std::shared_ptr<const gguf::SplitModel> m_model;
    QCheckBox *m_kinds[4];
    QCheckBox *m_perTensor;
    QLineEdit *m_manifest;
    QPushButton *m_browse, *m_start, *m_save;
    QTreeWidget *m_results;
    QLabel *m_summary;
    JobProgress *m_progress;
    JobTracker *m_jobs;
    QStringList m_lines; ///< the lines as llama-gguf-hash prints them, for Save Manifest…
};
