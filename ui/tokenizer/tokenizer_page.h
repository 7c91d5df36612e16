// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/common/page.h"

#include <QWidget>

#include <memory>

class ChatTemplateView;
class JobTracker;
class MergesView;
class QLabel;
class QSplitter;
class QTabWidget;
class TokenDetailsPanel;
class TokenizeView;
class VocabularyView;

namespace gguf {
class GgufFile;
class Vocabulary;
struct VocabularyStats;
} // namespace gguf

/// The tokenizer of a file: a summary (model, pre-tokenizer, size, counts per type, flags, score
/// range), the searchable vocabulary with the special tokens and the selected token beside it,
/// text tokenized as llama.cpp does, the merge rules, and the chat templates.
class TokenizerPage : public Page {
    Q_OBJECT
public:
    explicit TokenizerPage(QWidget *parent = nullptr);
    ~TokenizerPage() override;

    /// Shows the tokenizer of `file` (null: nothing).
    /// Shows the tokenizer of the model's first file.
    void setModel(std::shared_ptr<const gguf::SplitModel> model) override;
    void setFile(std::shared_ptr<const gguf::GgufFile> file);
    /// Shows the vocabulary and selects token `id`; false when it is not in the vocabulary.
    bool selectToken(quint64 id);
    /// A token link: selects the token in the vocabulary.
    bool follow(const Link &link) override;
    /// Shows the merge rules and selects rule `rank`.
    bool selectMerge(quint64 rank);
    /// Puts the keyboard focus into the search box of the section shown.
    void focusSearch();
    bool focusFind() override;

    QString summaryText() const;
    QTabWidget *sections() const { return m_sections; }
    VocabularyView *vocabularyView() const { return m_vocabulary; }
    TokenDetailsPanel *detailsPanel() const { return m_details; }
    MergesView *mergesView() const { return m_merges; }
    ChatTemplateView *chatTemplateView() const { return m_chatTemplate; }
    /// The file whose tokenizer is shown, and its vocabulary (null: none).
    const std::shared_ptr<const gguf::GgufFile> &file() const { return m_file; }
    const std::shared_ptr<const gguf::Vocabulary> &vocabulary() const { return m_vocab; }
    TokenizeView *tokenizeView() const { return m_tokenize; }

private:
    void showSummary(const gguf::VocabularyStats *stats);

    QLabel *m_summary;
    QTabWidget *m_sections;
    QSplitter *m_splitter;
    VocabularyView *m_vocabulary;
    TokenDetailsPanel *m_details;
    MergesView *m_merges;
    TokenizeView *m_tokenize;
    ChatTemplateView *m_chatTemplate;
    JobTracker *m_jobs;
    std::shared_ptr<const gguf::GgufFile> m_file;
    std::shared_ptr<const gguf::Vocabulary> m_vocab;
};
