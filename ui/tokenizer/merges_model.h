// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QFont>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gguf {
class Vocabulary;
}

/// The merge rules of a BPE vocabulary (tokenizer.ggml.merges) as a table: rank, left and right
/// halves, and the token they merge into, stored and decoded. Every rule in rank order, or the
/// ranks a search produced. Each cell is read from the file in data(); the model holds no text.
class MergesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { RankColumn, LeftColumn, RightColumn, ResultColumn, DecodedColumn, ColumnCount };
    enum Role {
        RankRole = Qt::UserRole + 1, ///< quint64: the rule's rank
    };
    using Rows = std::vector<uint32_t>;

    explicit MergesModel(QObject *parent = nullptr);
    ~MergesModel() override;

    /// Shows the rules of `vocab` (null: nothing), all of them in rank order.
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    const gguf::Vocabulary *vocabulary() const { return m_vocab.get(); }

    /// Shows the rules `rows` (ranks, in that order); null: every rule in rank order.
    void setRows(std::shared_ptr<const Rows> rows);
    bool isFiltered() const { return m_rows != nullptr; }
    /// Number of rules in the vocabulary.
    int mergeCount() const;
    /// The rank shown in `row`, or nullopt.
    std::optional<uint32_t> rankAt(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
    std::shared_ptr<const Rows> m_rows;
    QFont m_fixed;
    // data() joins and decodes into these buffers instead of allocating per cell
    mutable std::string m_joined, m_decoded;
};
