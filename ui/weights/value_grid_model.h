// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/byte_source.h"

#include <QAbstractTableModel>

#include <list>
#include <memory>
#include <unordered_map>
#include <vector>

namespace gguf {
class GgufFile;
struct TensorInfo;
} // namespace gguf

/// The dequantized values of one tensor as rows × columns: a row is ne[0] values, higher dims are
/// flattened into rows. A huge tensor is shown one page at a time (at most pageRows × pageColumns
/// cells) so row and column numbers fit the views. Nothing is decoded ahead: data() decodes the
/// few blocks holding the cell it is asked for (dequantizeRange) into a small LRU cache of chunks,
/// so any position of any tensor shows at once and memory stays bounded — never a float copy of
/// the tensor.
class ValueGridModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Role {
        ValueRole = Qt::UserRole + 1, ///< double: the value
        ElementRole,                  ///< quint64: element index in file order
    };
    static constexpr quint64 kPageRows = quint64(1) << 20;
    static constexpr quint64 kPageColumns = quint64(1) << 14;
    /// Cached chunks of decoded values (each a few blocks: 256 values for most types).
    static constexpr size_t kCacheChunks = 2048;

    explicit ValueGridModel(QObject *parent = nullptr);
    ~ValueGridModel() override;

    /// Shows the values of `tensor` of `file` (null: nothing). The file is kept alive while shown.
    void setTensor(std::shared_ptr<const gguf::GgufFile> file, const gguf::TensorInfo *tensor);
    const gguf::TensorInfo *tensor() const { return m_tensor; }
    const std::shared_ptr<const gguf::GgufFile> &file() const { return m_file; }
    /// Smaller pages (for tests); the page shown starts over at the top left.
    void setPageSize(quint64 rows, quint64 columns);

    /// Why values cannot be shown ("Q4_2 cannot be decoded"); empty when they can.
    QString problem() const { return m_problem; }
    quint64 tensorRows() const { return m_rows; }
    quint64 tensorColumns() const { return m_columns; }
    /// The tensor row and column of the page's top left cell.
    quint64 firstRow() const { return m_firstRow; }
    quint64 firstColumn() const { return m_firstColumn; }
    quint64 pageRows() const { return m_pageRows; }
    quint64 pageColumns() const { return m_pageColumns; }

    /// Shows the page holding tensor cell (row, column) and returns its index (invalid when outside).
    QModelIndex locate(quint64 row, quint64 column);
    /// The same for element `element` in file order.
    QModelIndex locateElement(quint64 element);
    /// Shows the page whose top left cell holds (row, column), both rounded down to a page.
    void showPage(quint64 row, quint64 column);

    /// Keeps `bytes` (fetched for bytesWanted) readable while they are shown, and repaints; a
    /// failed fetch (an empty lease) shows "?" where bytes are missing until the page changes.
    void holdBytes(gguf::ByteLease bytes);

    /// Chunks decoded since setTensor (a cell in a cached chunk decodes nothing).
    quint64 decodedChunks() const { return m_decoded; }
    size_t cachedChunks() const { return m_cache.size(); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    /// Another page is shown.
    void pageChanged();
    /// Cells on screen need bytes [offset, offset+size) of a remote file that have not arrived:
    /// fetch them, then holdBytes(). Said once per screenful, after the cells were asked for.
    void bytesWanted(quint64 offset, quint64 size);

private:
    struct Chunk {
        quint64 key = 0;
        std::vector<float> values;
        bool ok = false;
    };
    /// The value at tensor cell (row, column); nullptr when it cannot be decoded, or (`pending`)
    /// when a remote file's bytes have not arrived.
    const float *valueAt(quint64 row, quint64 column, bool &pending) const;
    void want(quint64 begin, quint64 end) const;
    QString cellText(float value) const;
    QString indexText(quint64 row, quint64 column) const;

    std::shared_ptr<const gguf::GgufFile> m_file;
    const gguf::TensorInfo *m_tensor = nullptr;
    QString m_problem;
    quint64 m_rows = 0, m_columns = 0;
    quint64 m_firstRow = 0, m_firstColumn = 0;
    quint64 m_pageRows = kPageRows, m_pageColumns = kPageColumns;
    quint64 m_chunk = 256;   ///< elements per cached chunk: a multiple of the block size
    bool m_integers = false; ///< an integer type: shown without a fraction

    // LRU cache: most recent first; the map finds a chunk by its key (row · chunks per row + k).
    mutable std::list<Chunk> m_cache;
    mutable std::unordered_map<quint64, std::list<Chunk>::iterator> m_index;
    mutable quint64 m_decoded = 0;

    gguf::ByteLease m_held;                     ///< a remote file's bytes on screen
    mutable std::pair<quint64, quint64> m_want; ///< bytes asked for since the last bytesWanted
    mutable bool m_wantQueued = false;
    bool m_fetchFailed = false; ///< not asked again until another page or tensor
};
