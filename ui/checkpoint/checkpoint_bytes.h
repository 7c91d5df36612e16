// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QTreeView;
class RegionModel;
namespace gguf::st {
class Checkpoint;
struct Region;
} // namespace gguf::st

/// The bytes of one shard, every one accounted for: the 8-byte header length, the JSON header's
/// punctuation, `__metadata__`, each tensor's entry, the padding, each tensor's data and any
/// unused or unparsed bytes (gguf::st::byteRegions), and the bytes of the region selected in hex
/// with what they mean.
class CheckpointBytes : public QWidget {
    Q_OBJECT
public:
    explicit CheckpointBytes(QWidget *parent = nullptr);
    ~CheckpointBytes() override;
    void setCheckpoint(const std::shared_ptr<const gguf::st::Checkpoint> &checkpoint);
    /// Shows the data of checkpoint tensor `index` (its shard, its region selected).
    void showTensor(int index);
    QTreeView *regions() const { return m_regions; }
    QString dumpText() const;
    QString explanation() const;

private:
    void showShard(int shard);
    void showRegion(int row);

    std::shared_ptr<const gguf::st::Checkpoint> m_checkpoint;
    std::vector<gguf::st::Region> m_shown; ///< the regions of the shard shown
    int m_shard = -1;
    QComboBox *m_shards;
    RegionModel *m_model;
    QTreeView *m_regions;
    QLabel *m_explanation;
    QPlainTextEdit *m_dump;
};
