// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Internal to core/vocab: what the users of PCRE2 (32-bit code units) share — llama.cpp's
// pre-tokenizer patterns (pre_tokenizer.cpp), a tokenizer.json's regexes (hf_text.cpp) and the
// vocabulary search (token_search.cpp).

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 32
#endif
#include <pcre2.h>

#include <string>

namespace gguf::detail {

/// PCRE2's message for the compile error `error`, as UTF-8.
std::string pcre2ErrorText(int error);

/// pcre2_match of `code` in [text, text + length) from `at`: by the JIT on a stack of this thread's
/// own (PCRE2's default of 32 KiB gives up on a run of about 900 letters with TEKKEN's pattern),
/// and when even that is too small, or there is no JIT code, by the interpreter, which works on the
/// heap. PCRE2's result (the count of pairs set, or a negative error).
int pcre2MatchAt(const pcre2_code *code, PCRE2_SPTR text, PCRE2_SIZE length, PCRE2_SIZE at, pcre2_match_data *match);

} // namespace gguf::detail
