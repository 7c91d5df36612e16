// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_search.h"
#include "ui/common/page.h"
#include "ui/common/tensor_ref.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class HexAnnotator;
class HexFindBar;
class HexInspector;
class HexSearch;
class HexView;
class JobTracker;
class MessageBar;
class QComboBox;
class QLabel;
class QScrollArea;
class QSplitter;

namespace gguf {
class GgufFile;
class SplitModel;
} // namespace gguf

/// The Bytes page: the hex view of one file of the model with the inspector beside it and the
/// go-to/find bar above. Linked both ways with the other pages: it shows the byte range of a
/// selected metadata item or tensor, and announces the item a clicked byte belongs to.
class HexPage : public Page {
    Q_OBJECT
public:
    enum class CopyFormat { Hex, CArray };
    /// Selections larger than this are not copied (the clipboard text would be several times larger).
    static constexpr uint64_t kMaxCopyBytes = uint64_t(4) << 20;

    explicit HexPage(QWidget *parent = nullptr);
    ~HexPage() override;

    /// Shows the first file of `model` (null: nothing) and builds its byte map on a worker.
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    /// Shows shard `shard` (0-based) of a split model.
    void showShard(int shard);
    int shard() const { return m_shard; }
    /// The annotator of the file shown, once built (null before).
    std::shared_ptr<const HexAnnotator> annotator() const;

    /// Selects bytes [offset, offset + size) of the model's primary file (a metadata item).
    void showByteRange(quint64 offset, quint64 size);
    /// Selects bytes [offset, offset + size) of shard `shard` (0-based) of a split model; size 0
    /// selects the field at `offset` (its byte alone until the byte map is built).
    void showShardBytes(int shard, quint64 offset, quint64 size);
    /// Selects the info record of tensor `index` of shard `shard`; goToTensorData() then shows its data.
    void showTensor(TensorRef tensor);
    void goToTensorData();
    /// Moves to the offset a go-to expression names; false (with a message) when it names none.
    bool goTo(const QString &expression);
    /// Starts a search for `text` (hex bytes or UTF-8 text) from the cursor; false when the
    /// pattern is not valid (with a message).
    bool find(const QString &text, bool hex, gguf::SearchDirection direction);
    /// Stops the search in progress, if any.
    void cancelSearch();
    bool isSearching() const;
    /// The selection (or, without one, the field at the cursor) as clipboard text; empty with a
    /// message when it is too large.
    QString copyText(CopyFormat format);
    void copy(CopyFormat format);

    void focusGoTo();
    bool focusFind() override;

    HexView *view() const { return m_view; }
    HexInspector *inspector() const { return m_inspector; }
    HexFindBar *findBar() const { return m_bar; }
    MessageBar *messageBar() const { return m_message; }
    /// The inline message shown, or an empty string.
    QString messageText() const;
    /// The message a copy of bytes that have not arrived shows (gone once they arrive).
    static QString notArrivedText();

    /// A bytes link: selects them; a tensor link: selects its info record.
    bool follow(const Link &link) override;

    // Links (in the background): the metadata pair of the primary file, or the tensor (its info
    // record or its data), that a clicked byte belongs to.

signals:
    /// The byte map of the file shown is ready (colours and explanations are on).
    void annotationsReady();
    /// A search ended: found (and selected) or not.
    void searchFinished(bool found);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void buildAnnotator(int shard);
    void annotatorBuilt(int shard, std::shared_ptr<const HexAnnotator> built);
    const gguf::GgufFile *currentFile() const;
    std::shared_ptr<const gguf::GgufFile> currentFileShared() const;
    void byteClicked(quint64 offset);
    void byteDoubleClicked(quint64 offset);
    void cursorMoved(quint64 offset);
    void setLastTensor(TensorRef tensor);
    void showMessage(bool problem, const QString &text);
    void fetchBytes(quint64 begin, quint64 end);
    void createActions();

    std::shared_ptr<const gguf::SplitModel> m_model;
    std::vector<std::shared_ptr<const HexAnnotator>> m_annotators;
    int m_shard = 0;
    TensorRef m_lastTensor;
    bool m_linking = false;

    HexFindBar *m_bar;
    MessageBar *m_message;
    QComboBox *m_shards;
    QLabel *m_shardLabel;
    QSplitter *m_splitter;
    HexView *m_view;
    HexInspector *m_inspector;
    QScrollArea *m_side = nullptr; ///< the inspector's scroll area
    void fitInspector();
    HexSearch *m_search;
    JobTracker *m_annotatorJobs; ///< builds the annotator of the file shown, on Qt's global pool
    JobTracker *m_fetchJobs;     ///< fetches the rows on screen of a remote file, on Qt's global pool
};
