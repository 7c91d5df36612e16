// SPDX-License-Identifier: GPL-3.0-or-later
#include "pcre2_match.h"

#include "core/util/utf8.h"

#include <array>

namespace gguf::detail {
namespace {

// The JIT's stack: 64 KiB, growing to 8 MiB.
struct JitStack {
    pcre2_jit_stack *stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
    pcre2_match_context *context = pcre2_match_context_create(nullptr);
    JitStack() { pcre2_jit_stack_assign(context, nullptr, stack); }
    ~JitStack()
    {
        pcre2_match_context_free(context);
        pcre2_jit_stack_free(stack);
    }
    JitStack(const JitStack &) = delete;
    JitStack &operator=(const JitStack &) = delete;
};

} // namespace

std::string pcre2ErrorText(int error)
{
    std::array<PCRE2_UCHAR, 256> message{};
    pcre2_get_error_message(error, message.data(), message.size());
    std::string text;
    for (size_t i = 0; i < message.size() && message[i] != 0; ++i)
        appendUtf8(message[i], text);
    return text;
}

int pcre2MatchAt(const pcre2_code *code, PCRE2_SPTR text, PCRE2_SIZE length, PCRE2_SIZE at, pcre2_match_data *match)
{
    static thread_local JitStack jit;
    const int rc = pcre2_match(code, text, length, at, PCRE2_NO_UTF_CHECK, match, jit.context);
    if (rc >= 0 || rc == PCRE2_ERROR_NOMATCH)
        return rc;
    return pcre2_match(code, text, length, at, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match, nullptr);
}

} // namespace gguf::detail
