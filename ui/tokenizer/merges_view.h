// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/tokenizer/searchable_table.h"

#include <memory>

class MergesModel;

namespace gguf {
class Vocabulary;
}

/// The merge rules table with the same search as the vocabulary (text, pattern, rank, bytes),
/// run on a worker; the table shows the vector of matching ranks.
class MergesView : public SearchableTable {
    Q_OBJECT
public:
    explicit MergesView(QWidget *parent = nullptr);
    ~MergesView() override;

    /// Shows the merge rules of `vocab` (null: nothing).
    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    /// Selects rule `rank`, clearing the search when it hides the rule. False when there is no such rule.
    bool selectRank(quint64 rank);

    MergesModel *model() const { return m_model; }

private:
    void startSearch() override;
    int rowOf(quint64 rank) const override;
    void showRows(std::shared_ptr<const gguf::TokenSearch::Ids> rows, double milliseconds);

    MergesModel *m_model;
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
};
