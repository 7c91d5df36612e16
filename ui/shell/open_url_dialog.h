// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

/// File ▸ Open URL…: an http(s) URL or a hub name (`hf:OWNER/REPO/PATH.gguf[@REVISION]`), the
/// size of the block cache and where it lives (memory, or a folder). The cache settings are kept
/// (QSettings) and applied to every remote file opened after (docs/REMOTE.md).
class OpenUrlDialog : public QDialog {
    Q_OBJECT
public:
    explicit OpenUrlDialog(QWidget *parent = nullptr);

    /// Asks; the name to open, or empty when cancelled.
    static QString ask(QWidget *parent);
    /// Installs the remote-file opener with the saved settings (GGUF_CACHE_MB, GGUF_CACHE_DIR and
    /// GGUF_BLOCK_KB in the environment win); called at start and after the dialog.
    static void applySettings();

    QString url() const;
    /// Closes the dialog only for a name that parses and a cache folder that exists.
    void accept() override;

private:
    QComboBox *m_url;
    QSpinBox *m_cacheMiB;
    QLineEdit *m_folder;
    QLabel *m_problem;
};
