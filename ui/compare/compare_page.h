// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/page.h"
#include "ui/common/page_state.h"

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

class CheckpointComparePanel;
class JobProgress;
class JobTracker;
class MetadataDiffModel;
class MetadataDiffProxy;
class QComboBox;
class QLabel;
class QLineEdit;
class QCheckBox;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTreeView;
class TensorDiffModel;
class TensorDiffProxy;
class TensorPairPanel;
class TextDiffView;
class TokenDiffModel;

namespace gguf::st {
class Checkpoint;
}
namespace CompareJobs {
struct Overview;
struct ValueBatch;
} // namespace CompareJobs

/// Two models side by side: the open model (A, the window's document) against another one (B).
/// Metadata keys added, removed and changed (filterable, arrays element by element, a changed
/// string such as the chat template as a line diff); the tokenizers id by id with a verdict; the
/// tensors matched by name with their status and, computed on workers as the rows stream in, the
/// error measures of each pair (sortable); and one pair in detail (TensorPairPanel). Everything
/// links: a key, token or tensor opens on its own file's pages (A in this window, B in one of its
/// own).
class ComparePage : public Page {
    Q_OBJECT
public:
    /// Which model of the comparison.
    enum Side : uint8_t { A = 0, B = 1 };

    explicit ComparePage(QWidget *parent = nullptr);
    ~ComparePage() override;

    /// The window's model (A).
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    /// The model compared with (B), opened from `path`; null ends the comparison.
    void setOther(std::shared_ptr<const gguf::SplitModel> model, const QString &path);
    std::shared_ptr<const gguf::SplitModel> other() const { return m_b; }
    /// B is a Hugging Face checkpoint (#43): the GGUF's tensors paired with it by llama.cpp's
    /// conversion, undone, and their values compared (CheckpointComparePanel); null ends it.
    void setOtherCheckpoint(std::shared_ptr<const gguf::st::Checkpoint> checkpoint, const QString &path);
    std::shared_ptr<const gguf::st::Checkpoint> otherCheckpoint() const { return m_checkpointB; }
    CheckpointComparePanel *checkpointPanel() const { return m_checkpointPanel; }
    /// The window's model (A).
    std::shared_ptr<const gguf::SplitModel> model() const { return m_a; }
    QString otherPath() const { return m_pathB; }
    bool focusFind() override;
    QByteArray saveState() const override;
    void restoreState(const QByteArray &state) override;

    /// Starts (or continues) comparing the values of every comparable pair not compared yet.
    void compareValues();
    /// True while the comparison of the overview or of values runs.
    bool isBusy() const;
    /// Shows the pair of tensor `name` in detail (Tensors section).
    bool selectTensor(const QString &name);

    QTabWidget *sections() const { return m_sections; }
    MetadataDiffModel *metadataModel() const { return m_metadataModel; }
    TokenDiffModel *tokenModel() const { return m_tokenModel; }
    TensorDiffModel *tensorModel() const { return m_tensorModel; }
    TensorDiffProxy *tensorProxy() const { return m_tensorProxy; }
    QTreeView *metadataView() const { return m_metadataView; }
    QTableView *tensorView() const { return m_tensorView; }
    TensorPairPanel *pairPanel() const { return m_pair; }
    TextDiffView *textDiff() const { return m_textDiff; }
    JobTracker *valueTracker() const { return m_valueTracker; }
    QString summaryText() const;
    QString tokenizerVerdict() const;
    /// The metadata filter: 0 differences, 1 every key, 2 added, 3 removed, 4 changed, 5 same.
    void setMetadataFilter(int choice, const QString &text = {});

signals:
    // Links of either side (Link::Side): a metadata entry of its first file, a tensor, a token of
    // its vocabulary, the bytes of a tile of a pair's heatmap.

    /// The user asked to choose the model to compare with.
    void compareWithRequested();
    /// The overview of a new pair of models is on screen.
    void comparisonShown();
    /// Every comparable pair's values have been compared.
    void valuesCompared();

private:
    QWidget *buildMetadataSection();
    QWidget *buildTokenizerSection();
    QWidget *buildTensorsSection();
    void restart();
    void showOverview(CompareJobs::Overview overview);
    void showValueBatch(const CompareJobs::ValueBatch &batch);
    void startNextBatch();
    void showMetadataDetails();
    void updateHeader();
    void updateValueButton();
    /// The pairs still to be measured (from m_nextValueRow on) and the bytes they hold.
    struct Remaining {
        uint64_t bytes = 0;
        int pairs = 0;
    };
    Remaining remainingValues() const;
    static Link::Side linkSide(int side);
    void activateMetadata(int side);
    void activateTensor(int side);
    void activateToken(int side);

    std::shared_ptr<const gguf::SplitModel> m_a, m_b;
    QString m_pathB;
    uint64_t m_valueBytesTotal = 0, m_valueBytesDone = 0;
    size_t m_nextValueRow = 0;   ///< the value batches delivered so far covered the rows before this
    bool m_updatingRows = false; ///< rows are being replaced: the proxy's moves are not the user's

    QLabel *m_files;
    QLabel *m_summary;
    QPushButton *m_chooseB;
    QTabWidget *m_sections;
    QStackedWidget *m_modes; ///< the sections, or the checkpoint panel
    CheckpointComparePanel *m_checkpointPanel;
    std::shared_ptr<const gguf::st::Checkpoint> m_checkpointB;
    // metadata
    MetadataDiffModel *m_metadataModel;
    MetadataDiffProxy *m_metadataProxy;
    QComboBox *m_metadataShow;
    QLineEdit *m_metadataFilter;
    QTreeView *m_metadataView;
    TextDiffView *m_textDiff;
    QLabel *m_textDiffLabel;
    // tokenizer
    QLabel *m_verdict;
    QLabel *m_tokenSummary;
    TokenDiffModel *m_tokenModel;
    QTableView *m_tokenView;
    // tensors
    TensorDiffModel *m_tensorModel;
    TensorDiffProxy *m_tensorProxy;
    QLineEdit *m_tensorFilter;
    QCheckBox *m_differencesOnly;
    QPushButton *m_compareValues;
    QTableView *m_tensorView;
    TensorPairPanel *m_pair;
    JobTracker *m_overviewTracker;
    JobTracker *m_valueTracker;
    JobProgress *m_valueProgress;
    PageState m_state{0}; ///< saveState()/restoreState()
};
