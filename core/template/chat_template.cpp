// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/template/chat_template.h"

#include "jinja_eval.h"

namespace gguf {

struct ChatTemplate::Parsed {
    jinja::Body body;
};

SourcePosition sourcePosition(std::string_view text, size_t offset)
{
    SourcePosition p;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++p.line;
            p.column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++p.column; // not a UTF-8 continuation byte: a new character
        }
    }
    return p;
}

ChatTemplate::ChatTemplate(std::string_view source)
{
    try {
        m_parsed = std::make_unique<Parsed>(Parsed{jinja::parseTemplate(source)});
    } catch (const jinja::ParseError &e) {
        m_error = e.message;
        m_errorOffset = e.offset;
    } catch (const jinja::Error &e) {
        m_error = e.message;
    }
}

ChatTemplate::~ChatTemplate() = default;

ChatTemplateResult ChatTemplate::render(const ChatTemplateInput &input) const
{
    ChatTemplateResult result;
    if (!m_parsed) {
        result.error = m_error;
        result.errorOffset = m_errorOffset;
        return result;
    }
    jinja::List messages;
    for (const ChatMessage &m : input.messages)
        messages.push_back(
            jinja::Value::dict({{"role", jinja::Value::string(m.role)}, {"content", jinja::Value::string(m.content)}}));
    const jinja::Dict variables = {
        {"messages", jinja::Value::list(std::move(messages))},
        {"bos_token", jinja::Value::string(input.bosToken)},
        {"eos_token", jinja::Value::string(input.eosToken)},
        {"add_generation_prompt", jinja::Value::boolean(input.addGenerationPrompt)},
    };
    try {
        result.text = jinja::render(m_parsed->body, variables);
        result.ok = true;
    } catch (const jinja::RenderError &e) {
        result.error = e.message;
        result.errorOffset = e.offset;
    } catch (const jinja::Error &e) {
        result.error = e.message;
    } catch (const std::exception &e) { // out of memory, or a size the standard library refuses
        result.error = std::string("the template could not be rendered: ") + e.what();
    }
    return result;
}

std::vector<ChatMessage> ChatTemplate::exampleMessages()
{
    return {
        {"system", "You are a helpful assistant."},
        {"user", "What is the capital of France?"},
        {"assistant", "The capital of France is Paris."},
        {"user", "And of Italy?"},
    };
}

} // namespace gguf
