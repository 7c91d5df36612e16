// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/tokenizer/token_chips.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class LazyRefresh;
class JobProgress;
class JobTracker;
class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QTimer;

namespace gguf {
class GgufFile;
} // namespace gguf

/// What a TokenizeView tokenizes with: a GGUF's llama.cpp tokenizer, or a checkpoint's
/// tokenizer.json. Built on a worker, then used from workers (immutable).
class TokenizeSource {
public:
    virtual ~TokenizeSource() = default;
    virtual bool canTokenize() const = 0;
    /// Lines for the notes under the text: what tokenizes, then what loading noticed.
    virtual QStringList notes() const = 0;
    /// The tooltip of the "Add BOS/EOS" box: what it adds with this tokenizer.
    virtual QString addSpecialToolTip() const = 0;
    /// That box's label ("Add BOS/EOS" unless the source says otherwise).
    virtual QString addSpecialLabel() const;
    virtual std::optional<std::vector<qint32>>
    tokenize(const std::string &text, bool addSpecial, bool parseSpecial,
             const std::function<bool(uint64_t, uint64_t)> &progress) const = 0;
    /// The chip of a token: the text it stands for, and whether it is a special one.
    virtual TokenChips::Chip chip(qint32 id) const = 0;
    /// The tooltip lines after "token N (position P)" (HTML).
    virtual QString details(qint32 id) const = 0;
};

/// Builds a source (on a worker); never null.
using TokenizeSourceBuilder = std::function<std::shared_ptr<const TokenizeSource>()>;

/// Type or paste text and see how the model's own tokenizer splits it (a GGUF's: llama.cpp's ids;
/// a checkpoint's tokenizer.json: Hugging Face's tokenizers library's): the
/// tokens as chips (hover: id, stored token, bytes, score, type; click: the token in the
/// vocabulary), the token count and characters per token, and toggles for BOS/EOS and for parsing
/// special tokens. The tokenizer is built (when the view is first shown or given a text) and every
/// text tokenized on a worker (a newer text supersedes an older one), so the window never waits,
/// however long the text.
class TokenizeView : public QWidget {
    Q_OBJECT
public:
    /// At most this many chips are drawn; the count covers every token.
    static constexpr int kMaxChips = 5000;

    explicit TokenizeView(QWidget *parent = nullptr);
    ~TokenizeView() override;

    /// The file's own tokenizer (llama.cpp's).
    void setFile(std::shared_ptr<const gguf::GgufFile> file);
    /// Another tokenizer, built by `build` when the view is first shown (null: none).
    void setSource(TokenizeSourceBuilder build);
    /// Replaces the text (and tokenizes it).
    void setText(const QString &text);

    QPlainTextEdit *editor() const { return m_editor; }
    QCheckBox *addSpecialBox() const { return m_addSpecial; }
    QCheckBox *parseSpecialBox() const { return m_parseSpecial; }
    TokenChips *chips() const { return m_chips; }
    /// "12 tokens · 57 characters · 4.75 characters per token" (plain text, for tests).
    QString countsText() const;
    QString notesText() const;
    /// The ids of the text on show, all of them (empty while a job runs).
    const std::vector<qint32> &ids() const { return m_ids; }
    /// True while the tokenizer is built or a text tokenized (or a built tokenizer is pending).
    bool isBusy() const;
    /// The tooltip of chip `index`.
    QString chipToolTip(int index) const;

signals:
    /// A chip was clicked: show this token in the vocabulary.
    void tokenActivated(quint64 id);
    /// A tokenization finished and its result is on show.
    void tokenized();

private:
    void buildTokenizer();
    void retokenize();
    void showTokens(std::vector<qint32> ids, const QVector<TokenChips::Chip> &chips, qsizetype characters,
                    qsizetype bytes);

    QPlainTextEdit *m_editor;
    QCheckBox *m_addSpecial;
    QCheckBox *m_parseSpecial;
    QLabel *m_counts;
    QLabel *m_notes;
    TokenChips *m_chips;
    JobTracker *m_build;
    JobTracker *m_jobs;
    JobProgress *m_progress;
    QTimer *m_debounce;
    TokenizeSourceBuilder m_builder;
    std::shared_ptr<const TokenizeSource> m_tokenizer;
    std::vector<qint32> m_ids;
    LazyRefresh *m_lazy = nullptr; ///< buildTokenizer() once a file is set and the view is on screen
};
