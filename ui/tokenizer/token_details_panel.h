// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <memory>

class JobTracker;
class QLabel;
class QTreeWidget;

namespace gguf {
class MergeIndex;
class Vocabulary;
} // namespace gguf

/// The side panel of the vocabulary: the special tokens (role, id, text; a click selects one), the
/// current token in full (stored, decoded, bytes, type, score, roles) and the merge rules that
/// produce it. The index of merge results is built on a worker the first time it is needed.
class TokenDetailsPanel : public QWidget {
    Q_OBJECT
public:
    explicit TokenDetailsPanel(QWidget *parent = nullptr);
    ~TokenDetailsPanel() override;

    void setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocab);
    /// Shows token `id` (-1: none).
    void showToken(qint64 id);

    QTreeWidget *specialTokens() const { return m_special; }
    /// The text of the token details and of the producing merges, as shown (for tests).
    QString detailsText() const;
    QString producersText() const;
    bool isIndexing() const;

signals:
    /// A special token, or a token named in the details, was clicked.
    void tokenActivated(quint64 id);
    /// A merge rule producing the current token was clicked.
    void mergeActivated(quint64 rank);
    /// The producing merges of the current token are shown (after the index was built).
    void producersShown();

private:
    void fillSpecialTokens();
    void showProducers();

    QTreeWidget *m_special;
    QLabel *m_details;
    QLabel *m_producers;
    JobTracker *m_jobs;
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
    std::shared_ptr<const gguf::MergeIndex> m_mergeIndex;
    qint64 m_current = -1;
};
