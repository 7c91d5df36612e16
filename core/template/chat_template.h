// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

/// One message of a conversation.
struct ChatMessage {
    std::string role; ///< "system", "user", "assistant"
    std::string content;
};

/// What a chat template is rendered with, as HuggingFace's apply_chat_template passes it.
struct ChatTemplateInput {
    std::vector<ChatMessage> messages;
    std::string bosToken, eosToken;
    bool addGenerationPrompt = true;
};

/// A rendering, or why there is none and where in the template it failed.
struct ChatTemplateResult {
    bool ok = false;
    std::string text;
    std::string error;
    size_t errorOffset = 0; ///< byte offset in the template
};

/// Where a byte offset of a template is, as an editor shows it: 1-based line and column, the
/// column counting UTF-8 characters (an offset past the end is the end).
struct SourcePosition {
    size_t line = 1;
    size_t column = 1;
};
SourcePosition sourcePosition(std::string_view text, size_t offset);

/// A `tokenizer.chat_template` parsed once and rendered as HuggingFace's Jinja environment does
/// (trim_blocks, lstrip_blocks, raise_exception, namespace, tojson, …; docs/CHAT_TEMPLATES.md).
/// Templates that use what this evaluator lacks are reported, never guessed at. Immutable; safe
/// to render from several threads.
class ChatTemplate {
public:
    explicit ChatTemplate(std::string_view source);
    ~ChatTemplate();
    ChatTemplate(const ChatTemplate &) = delete;
    ChatTemplate &operator=(const ChatTemplate &) = delete;

    /// False when the template does not parse (error() says why).
    bool isValid() const { return m_error.empty(); }
    const std::string &error() const { return m_error; }
    size_t errorOffset() const { return m_errorOffset; }

    ChatTemplateResult render(const ChatTemplateInput &input) const;

    /// The example conversation of the window's "Render with example messages": a system prompt,
    /// a user question, an answer and a follow-up question.
    static std::vector<ChatMessage> exampleMessages();

private:
    struct Parsed;
    std::unique_ptr<Parsed> m_parsed;
    std::string m_error;
    size_t m_errorOffset = 0;
};

} // namespace gguf
