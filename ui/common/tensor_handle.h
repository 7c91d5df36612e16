// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/stats/heatmap.h"
#include "core/stats/tensor_series.h"
#include "core/stats/tensor_stats.h"
#include "ui/common/tensor_ref.h"

#include <QString>
#include <QVector>

#include <memory>

namespace gguf {
class GgufFile;
class SplitModel;
struct TensorInfo;
} // namespace gguf

/// One tensor of an open model, as the weight views pass it around and hand it to worker threads:
/// it keeps the model (and so the mapping) alive for as long as a job holds it.
struct TensorHandle {
    std::shared_ptr<const gguf::SplitModel> model;
    int position = -1; ///< index into SplitModel::tensors()

    /// The tensor with info record `index` of shard `shard` (TensorsPage::tensorSelected); invalid when absent.
    static TensorHandle find(std::shared_ptr<const gguf::SplitModel> model, TensorRef ref);
    /// The tensor called `name`; invalid when absent.
    static TensorHandle named(std::shared_ptr<const gguf::SplitModel> model, const QString &name);
    /// A tensor worth showing first: layer 0's attention query, else the largest 2-D tensor.
    static TensorHandle representative(std::shared_ptr<const gguf::SplitModel> model);

    bool isValid() const;
    /// The tensor as the pages name it in signals.
    TensorRef ref() const;
    const gguf::TensorInfo &info() const;
    const gguf::GgufFile &file() const;
    std::shared_ptr<const gguf::GgufFile> fileShared() const;
    int shard() const;
    /// The tensor's bytes; a remote file's are fetched by the passes that read them, chunk by
    /// chunk, on their worker (gguf::readError then says why a chunk could not be had).
    gguf::TensorData data() const;
    /// The tensor as the core's multi-tensor passes take it (core/stats/tensor_series.h); both
    /// pointers null when invalid. Valid while this handle (its model) lives.
    gguf::TensorSource source() const;
    QString name() const;
    /// Columns are ne[0]; rows are all higher dims flattened.
    quint64 columns() const;
    quint64 rows() const;
    /// "Q4_K [4096 × 4096]".
    QString description() const;
    /// The name without its "blk.N." (or "layers.N.") part: "attn_q.weight"; empty outside layers.
    QString role() const;
    /// The file byte range of the blocks holding elements [first, last).
    std::pair<quint64, quint64> byteRange(quint64 first, quint64 last) const;
    /// The file byte range of the blocks holding the first row of tile (row, column) of `heatmap`
    /// (a heatmap of this tensor's shape); {0, 0} outside the grid.
    std::pair<quint64, quint64> tileByteRange(const gguf::Heatmap &heatmap, int row, int column) const;

    bool operator==(const TensorHandle &other) const { return model == other.model && position == other.position; }
};

/// Role (see TensorHandle::role) of a tensor name; empty when the name has no layer part.
QString tensorRole(const QString &name);
/// The tensors of `role` in every layer, in layer order.
QVector<TensorHandle> layerTensors(const std::shared_ptr<const gguf::SplitModel> &model, const QString &role);
/// Every role that occurs in a layer, in order of first appearance.
QStringList layerRoles(const gguf::SplitModel &model);
