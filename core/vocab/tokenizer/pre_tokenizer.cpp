// SPDX-License-Identifier: GPL-3.0-or-later
#include "pre_tokenizer.h"

#include "unicode_text.h"

#define PCRE2_CODE_UNIT_WIDTH 32
#include <pcre2.h>

#include <algorithm>
#include <array>

namespace gguf {
namespace {

struct PreEntry {
    std::initializer_list<std::string_view> names;
    PreTokenizerSpec spec;
};

// tokenizer.ggml.pre values → llama.cpp's pre-tokenizer types and the flags they change (impl::load
// at c392e509; docs/TOKENIZER.md §3.1).
const std::array<PreEntry, 29> &preEntries()
{
    using R = RegexSet;
    static const std::array<PreEntry, 29> kEntries = {{
        {{"llama3", "llama-v3", "llama-bpe", "falcon3"}, {"LLAMA3", R::Llama3, true, true, true, false}},
        {{"deepseek-llm"}, {"DEEPSEEK_LLM", R::DeepseekLlm, false}},
        {{"deepseek-coder"}, {"DEEPSEEK_CODER", R::DeepseekCoder, false}},
        {{"deepseek-v3"}, {"DEEPSEEK3_LLM", R::Deepseek3, false}},
        {{"falcon"}, {"FALCON", R::Falcon}},
        {{"mpt"}, {"MPT", R::Gpt2}},
        {{"starcoder"}, {"STARCODER", R::DigitsGpt2}},
        {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v1-en", "jina-v2-es", "jina-v2-de", "jina-v2-code",
          "roberta-bpe"},
         {"GPT2", R::Gpt2}},
        {{"refact"}, {"REFACT", R::DigitsGpt2}},
        {{"command-r"}, {"COMMAND_R", R::DigitsGpt2, false}},
        {{"qwen2", "deepseek-r1-qwen"}, {"QWEN2", R::Qwen2, false}},
        {{"megrez"}, {"QWEN2", R::Qwen2}},
        {{"stablelm2"}, {"STABLELM2", R::Qwen2}},
        {{"olmo"}, {"OLMO", R::Gpt2}},
        {{"dbrx"}, {"DBRX", R::Llama3}},
        {{"smaug-bpe"}, {"SMAUG", R::Llama3}},
        {{"poro-chat"}, {"PORO", R::Poro, false}},
        {{"chatglm-bpe"}, {"CHATGLM4", R::Llama3, true, false, false, true}},
        {{"viking"}, {"VIKING", R::Viking, false}},
        {{"jais"}, {"JAIS", R::Gpt2}},
        {{"tekken"}, {"TEKKEN", R::Tekken, false, true, true, false}},
        {{"smollm"}, {"SMOLLM", R::DigitsGpt2, false}},
        {{"codeshell"}, {"CODESHELL", R::DigitsGpt2}},
        {{"bloom"}, {"BLOOM", R::Poro}},
        {{"gpt3-finnish"}, {"GPT3_FINNISH", R::Poro}},
        {{"exaone"}, {"EXAONE", R::DigitsGpt2}},
        {{"chameleon"}, {"CHAMELEON", R::Chameleon, false, false, true, false}},
        {{"minerva-7b"}, {"MINERVA", R::DigitsGpt2}},
        {{"default", ""}, {"DEFAULT", R::Default}},
    }};
    return kEntries;
}

// The subject PCRE2 matches: llama.cpp's whitespace outside ASCII becomes U+000B (as llama.cpp's
// own matching does, so `\s` without UCP is exactly its whitespace and a literal U+3000 in a class
// never matches), and surrogates, which UTF-32 mode refuses, a private-use code point (both are
// "other" to every pattern).
uint32_t subjectCodePoint(uint32_t cp)
{
    if (cp >= 0x80 && unicode::isWhitespace(cp))
        return 0x0B;
    return cp >= 0xD800 && cp <= 0xDFFF ? 0xE000 : cp;
}

} // namespace

std::optional<PreTokenizerSpec> preTokenizerSpec(std::string_view pre)
{
    for (const PreEntry &e : preEntries())
        if (std::find(e.names.begin(), e.names.end(), pre) != e.names.end())
            return e.spec;
    return std::nullopt;
}

struct RegexSplitter::Compiled {
    pcre2_code *code = nullptr;
    ~Compiled() { pcre2_code_free(code); }
};

RegexSplitter::RegexSplitter(RegexSet set)
{
    for (std::string_view pattern : regexSets()[static_cast<size_t>(set)]) {
        const std::vector<uint32_t> wide = unicode::decodeUtf8(pattern);
        int error = 0;
        PCRE2_SIZE errorOffset = 0;
        auto compiled = std::make_unique<Compiled>();
        compiled->code =
            pcre2_compile(reinterpret_cast<PCRE2_SPTR>(wide.data()), wide.size(),
                          PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NO_UTF_CHECK, &error, &errorOffset, nullptr);
        if (compiled->code == nullptr) {
            std::array<PCRE2_UCHAR, 256> message{};
            pcre2_get_error_message(error, message.data(), message.size());
            std::string text;
            for (PCRE2_UCHAR c : message) {
                if (c == 0)
                    break;
                unicode::appendUtf8(c, text);
            }
            m_error =
                "pattern " + std::to_string(m_patterns.size() + 1) + " at " + std::to_string(errorOffset) + ": " + text;
            m_patterns.clear();
            return;
        }
        pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE); // without JIT, matching still works
        m_patterns.push_back(std::move(compiled));
    }
}

RegexSplitter::~RegexSplitter() = default;

const RegexSplitter &RegexSplitter::forSet(RegexSet set)
{
    static const std::array<std::unique_ptr<RegexSplitter>, kRegexSetCount> kAll = [] {
        std::array<std::unique_ptr<RegexSplitter>, kRegexSetCount> all;
        for (size_t i = 0; i < kRegexSetCount; ++i)
            all[i].reset(new RegexSplitter(static_cast<RegexSet>(i)));
        return all;
    }();
    return *kAll[static_cast<size_t>(set)];
}

bool RegexSplitter::split(std::span<const uint32_t> cps, std::vector<CodePointRange> &words) const
{
    std::vector<uint32_t> subject(cps.size());
    std::transform(cps.begin(), cps.end(), subject.begin(), subjectCodePoint);

    using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
    // JIT matching gets a stack of its own (PCRE2's default of 32 KiB gives up on a run of about
    // 900 letters with TEKKEN's pattern); when even that is too small, the interpreter, which
    // works on the heap, matches again
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
    static thread_local JitStack jit;
    bool complete = true;
    std::vector<CodePointRange> pieces{{0, static_cast<uint32_t>(cps.size())}}, next;
    if (cps.empty())
        pieces.clear();
    for (const auto &pattern : m_patterns) {
        const MatchData match(pcre2_match_data_create_from_pattern(pattern->code, nullptr), &pcre2_match_data_free);
        next.clear();
        for (const auto &[begin, end] : pieces) {
            // the piece is the whole subject: lookaheads and `$` see its end, as in llama.cpp
            const auto *text = reinterpret_cast<PCRE2_SPTR>(subject.data() + begin);
            const PCRE2_SIZE length = end - begin;
            PCRE2_SIZE at = 0, gap = 0;
            while (at < length) {
                int rc = pcre2_match(pattern->code, text, length, at, PCRE2_NO_UTF_CHECK, match.get(), jit.context);
                if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
                    rc = pcre2_match(pattern->code, text, length, at, PCRE2_NO_UTF_CHECK | PCRE2_NO_JIT, match.get(),
                                     nullptr);
                if (rc < 0) {
                    complete = complete && rc == PCRE2_ERROR_NOMATCH;
                    break;
                }
                const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match.get());
                const PCRE2_SIZE first = ovector[0], last = ovector[1];
                if (last == first) { // no pattern of llama.cpp's matches empty text; never loop on one
                    at = first + 1;
                    continue;
                }
                if (first > gap)
                    next.emplace_back(begin + gap, begin + first);
                next.emplace_back(begin + first, begin + last);
                at = gap = last;
            }
            if (gap < length)
                next.emplace_back(begin + gap, end);
        }
        pieces.swap(next);
    }
    words.insert(words.end(), pieces.begin(), pieces.end());
    return complete;
}

} // namespace gguf
