// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QFont>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gguf {
class Vocabulary;
}

/// The tokens of a vocabulary as a table: every token in id order, or the rows a search or a sort
/// produced (a vector of ids computed on a worker). Each cell is read from the vocabulary's
/// in-place index in data(); the model holds no token text. Special tokens (named by a
/// tokenizer.ggml.*_token_id key) are bold and coloured, with their roles in the tooltip.
class VocabularyModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        TokenColumn,
        DecodedColumn,
        BytesColumn,
        LengthColumn,
        TypeColumn,
        ScoreColumn,
        ColumnCount
    };
    enum Role {
        TokenIdRole = Qt::UserRole + 1, ///< quint64: the token's id
        SpecialRolesRole,               ///< QStringList: "bos", "eos", … (empty for ordinary tokens)
        RawTextRole,                    ///< QByteArray: the stored bytes (Token column) or decoded bytes
    };
    using Rows = std::vector<uint32_t>;

    explicit VocabularyModel(QObject *parent = nullptr);
    ~VocabularyModel() override;

    /// Shows `vocab` (null: nothing), every token in id order. The pointer keeps it (and its file) alive.
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    const gguf::Vocabulary *vocabulary() const { return m_vocab.get(); }
    std::shared_ptr<const gguf::Vocabulary> vocabularyShared() const { return m_vocab; }

    /// Shows the tokens `rows` (ids, in that order); null: every token in id order.
    void setRows(std::shared_ptr<const Rows> rows);
    bool isFiltered() const { return m_rows != nullptr; }
    /// Number of tokens in the vocabulary (rowCount() when not filtered).
    int tokenCount() const;

    /// The id shown in `row`, or nullopt.
    std::optional<uint32_t> idAt(int row) const;
    /// The row showing token `id`, or -1.
    int rowOf(uint64_t id) const;
    /// Roles of token `id` ("bos", "eos"); empty for ordinary tokens.
    QStringList specialRoles(uint64_t id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// Asks for an order; the model does not sort itself (see sortRequested).
    void sort(int column, Qt::SortOrder order) override;

    /// The key a column sorts by, or -1 for columns without one (Decoded, Bytes).
    static int sortKeyOf(int column);

signals:
    /// A view asked for an order (a header click): the owner computes it on a worker and calls setRows().
    void sortRequested(int column, Qt::SortOrder order);

private:
    QVariant displayData(uint32_t id, int column) const;
    QString toolTip(uint32_t id) const;
    bool isSpecial(uint64_t id) const;

    std::shared_ptr<const gguf::Vocabulary> m_vocab;
    std::shared_ptr<const Rows> m_rows;
    // (id, role) of every special token, sorted by id; roles are views into the file.
    std::vector<std::pair<uint64_t, std::string_view>> m_special;
    QFont m_fixed, m_fixedBold, m_bold;
    // data() decodes into this one buffer instead of allocating a string per cell
    mutable std::string m_scratch;
};
