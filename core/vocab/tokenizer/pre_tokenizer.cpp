// SPDX-License-Identifier: GPL-3.0-or-later
#include "pre_tokenizer.h"

#include "pre_tokenizer_custom.h"
#include "unicode_text.h"

#include "pcre2_match.h"

#include <algorithm>
#include <array>

namespace gguf {
namespace {

struct PreEntry {
    std::initializer_list<std::string_view> names;
    PreTokenizerSpec spec;
};

// tokenizer.ggml.pre values → llama.cpp's pre-tokenizer types and the flags they change (impl::load,
// src/llama-vocab.cpp lines 2154-2424 at de3ff815; docs/TOKENIZER.md §3.1). Every type whose clean_spaces
// llama.cpp leaves true says so by omitting it. Not kept: add_sep (jina-v1-en, jina-v2-code,
// roberta-bpe), which never changes the ids, and WHITESPACE's normalizer lowercase = false, which only
// the "whitespace" tokenizer model reads.
const std::array<PreEntry, 59> &preEntries()
{
    using R = RegexSet;
    static const std::array<PreEntry, 59> kEntries = {{
        {{"default", ""}, {.type = "DEFAULT", .regexes = R::Default}},
        {{"minicpm5"}, {.type = "MINICPM5", .regexes = R::Minicpm5, .ignoreMerges = true}},
        {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"},
         {.type = "LLAMA3", .regexes = R::Llama3, .ignoreMerges = true, .addBos = true}},
        {{"deepseek-llm"}, {.type = "DEEPSEEK_LLM", .regexes = R::DeepseekLlm, .cleanSpaces = false}},
        {{"deepseek-coder"}, {.type = "DEEPSEEK_CODER", .regexes = R::DeepseekCoder, .cleanSpaces = false}},
        {{"deepseek-v3"}, {.type = "DEEPSEEK3_LLM", .regexes = R::Deepseek3, .cleanSpaces = false}},
        {{"spark2_5"}, {.type = "SPARK2_5", .regexes = R::Spark25, .cleanSpaces = false}},
        {{"youtu"}, {.type = "YOUTU", .regexes = R::Youtu, .cleanSpaces = false, .ignoreMerges = true}},
        {{"falcon"}, {.type = "FALCON", .regexes = R::Falcon}},
        {{"mpt"}, {.type = "MPT", .regexes = R::Gpt2}},
        {{"starcoder"}, {.type = "STARCODER", .regexes = R::DigitsGpt2}},
        {{"gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
          "modern-bert", "exaone4"},
         {.type = "GPT2", .regexes = R::Gpt2}},
        {{"jais-2"}, {.type = "JAIS2", .regexes = R::Jais2}},
        {{"gemma4", "granite-embed-multi-311m"},
         {.type = "GEMMA4", .regexes = R::Newlines, .escapeWhitespaces = true, .byteEncode = false}},
        {{"sarvam-moe"},
         {.type = "SARVAM_MOE",
          .regexes = R::Newlines,
          .cleanSpaces = false,
          .escapeWhitespaces = true,
          .byteEncode = false}},
        {{"jina-v1-en", "jina-v2-code", "roberta-bpe"}, {.type = "GPT2", .regexes = R::Gpt2}},
        {{"whitespace"}, {.type = "WHITESPACE", .regexes = R::Whitespace, .byteEncode = false}},
        {{"refact"}, {.type = "REFACT", .regexes = R::DigitsGpt2}},
        {{"command-r"}, {.type = "COMMAND_R", .regexes = R::DigitsGpt2, .cleanSpaces = false}},
        {{"qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2"},
         {.type = "QWEN2", .regexes = R::Qwen2, .cleanSpaces = false}},
        {{"qwen35"}, {.type = "QWEN35", .regexes = R::Qwen35, .cleanSpaces = false}},
        {{"stablelm2"}, {.type = "STABLELM2", .regexes = R::Qwen2}},
        {{"olmo"}, {.type = "OLMO", .regexes = R::Gpt2}},
        {{"dbrx"}, {.type = "DBRX", .regexes = R::Llama3}},
        {{"smaug-bpe"}, {.type = "SMAUG", .regexes = R::Llama3}},
        {{"poro-chat"}, {.type = "PORO", .regexes = R::Poro, .cleanSpaces = false}},
        {{"glm4", "chatglm-bpe"}, {.type = "CHATGLM4", .regexes = R::Llama3, .bosNull = true}},
        {{"viking"}, {.type = "VIKING", .regexes = R::Viking, .cleanSpaces = false}},
        {{"jais"}, {.type = "JAIS", .regexes = R::Gpt2}},
        {{"tekken"},
         {.type = "TEKKEN", .regexes = R::Tekken, .cleanSpaces = false, .ignoreMerges = true, .addBos = true}},
        {{"smollm"}, {.type = "SMOLLM", .regexes = R::DigitsGpt2, .cleanSpaces = false}},
        {{"codeshell"}, {.type = "CODESHELL", .regexes = R::DigitsGpt2}},
        {{"bloom"}, {.type = "BLOOM", .regexes = R::Poro}},
        {{"gpt3-finnish"}, {.type = "GPT3_FINNISH", .regexes = R::Poro}},
        {{"exaone"}, {.type = "EXAONE", .regexes = R::DigitsGpt2}},
        {{"exaone-moe"}, {.type = "EXAONE_MOE", .regexes = R::ExaoneMoe}},
        {{"chameleon"}, {.type = "CHAMELEON", .regexes = R::Chameleon, .cleanSpaces = false, .addBos = true}},
        {{"minerva-7b"}, {.type = "MINERVA", .regexes = R::DigitsGpt2}},
        {{"megrez"}, {.type = "QWEN2", .regexes = R::Qwen2}},
        {{"gpt-4o", "llama4", "kanana2", "talkie"}, {.type = "GPT4O", .regexes = R::Gpt4o, .cleanSpaces = false}},
        {{"granite-embed-multi-97m"},
         {.type = "GRANITE_EMB_MULTI", .regexes = R::GraniteEmbMulti, .cleanSpaces = false, .ignoreMerges = true}},
        {{"tiny_aya", "cohere2moe"}, {.type = "TINY_AYA", .regexes = R::TinyAya, .cleanSpaces = false}},
        {{"superbpe"}, {.type = "SUPERBPE", .regexes = R::SuperBpe, .cleanSpaces = false}},
        {{"trillion"}, {.type = "TRILLION", .regexes = R::Gpt2, .cleanSpaces = false}},
        {{"granite-docling"}, {.type = "GRANITE_DOCLING", .regexes = R::Gpt2, .cleanSpaces = false}},
        {{"bailingmoe", "bailingmoe2", "llada-moe"},
         {.type = "BAILINGMOE", .regexes = R::BailingMoe, .cleanSpaces = false}},
        {{"seed-coder"}, {.type = "SEED_CODER", .regexes = R::SeedCoder, .cleanSpaces = false}},
        {{"hunyuan"}, {.type = "HUNYUAN", .regexes = R::Qwen2, .cleanSpaces = false}},
        {{"hunyuan-dense"}, {.type = "HUNYUAN_DENSE", .regexes = R::Deepseek3, .cleanSpaces = false}},
        {{"hy_v4"}, {.type = "HY_V4", .regexes = R::Deepseek3, .cleanSpaces = false}},
        {{"joyai-llm"}, {.type = "JOYAI_LLM", .regexes = R::Deepseek3, .cleanSpaces = false}},
        {{"kimi-k2"}, {.type = "KIMI_K2", .regexes = R::KimiK2, .cleanSpaces = false}},
        {{"ufakzeka"}, {.type = "UFAKZEKA", .regexes = R::Ufakzeka, .cleanSpaces = false}},
        {{"grok-2"}, {.type = "GROK_2", .regexes = R::Qwen2, .cleanSpaces = false}},
        {{"afmoe"}, {.type = "AFMOE", .regexes = R::Afmoe, .cleanSpaces = false}},
        {{"laguna"}, {.type = "LAGUNA", .regexes = R::Laguna, .cleanSpaces = false}},
        {{"minimax-m2"}, {.type = "MINIMAX_M2", .regexes = R::Gpt4o, .cleanSpaces = false}},
        {{"solar-open"}, {.type = "SOLAR_OPEN", .regexes = R::Qwen2, .cleanSpaces = false}},
        {{"mellum2"}, {.type = "MELLUM2", .regexes = R::DigitsGpt2}},
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

std::vector<std::string_view> knownPreTokenizers()
{
    std::vector<std::string_view> all;
    for (const PreEntry &e : preEntries())
        for (std::string_view name : e.names)
            if (!name.empty())
                all.push_back(name);
    return all;
}

struct RegexSplitter::Compiled {
    pcre2_code *code = nullptr;
    CustomSplit custom = CustomSplit::None;
    ~Compiled() { pcre2_code_free(code); }
};

namespace {

// The pattern as PCRE2 should see it: llama.cpp maps \p{Lu}, \p{Ll}, \p{Lt}, \p{Lm} and \p{Lo} to
// its one letter category (unicode.cpp k_ucat_enum), so each means \p{L} there.
std::vector<uint32_t> patternForPcre2(std::string_view pattern)
{
    std::string text(pattern);
    for (std::string_view sub : {"\\p{Lu}", "\\p{Ll}", "\\p{Lt}", "\\p{Lm}", "\\p{Lo}"})
        for (size_t at = text.find(sub); at != std::string::npos; at = text.find(sub, at))
            text.replace(at, sub.size(), "\\p{L}");
    return unicode::decodeUtf8(text);
}

} // namespace

RegexSplitter::RegexSplitter(RegexSet set)
{
    for (std::string_view pattern : regexSets()[static_cast<size_t>(set)]) {
        auto compiled = std::make_unique<Compiled>();
        compiled->custom = customSplitOf(pattern);
        if (compiled->custom != CustomSplit::None) {
            m_patterns.push_back(std::move(compiled));
            continue;
        }
        const std::vector<uint32_t> wide = patternForPcre2(pattern);
        int error = 0;
        PCRE2_SIZE errorOffset = 0;
        compiled->code =
            pcre2_compile(reinterpret_cast<PCRE2_SPTR>(wide.data()), wide.size(),
                          PCRE2_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NO_UTF_CHECK, &error, &errorOffset, nullptr);
        if (compiled->code == nullptr) {
            m_error = "pattern " + std::to_string(m_patterns.size() + 1) + " at " + std::to_string(errorOffset) + ": " +
                      detail::pcre2ErrorText(error);
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

bool RegexSplitter::splitWithPattern(const Compiled &pattern, std::span<const uint32_t> cps,
                                     std::span<const uint32_t> subject, const std::vector<CodePointRange> &pieces,
                                     std::vector<CodePointRange> &next) const
{
    if (pattern.custom != CustomSplit::None) {
        for (const CodePointRange &piece : pieces)
            splitCustom(pattern.custom, cps, piece, next);
        return true;
    }
    using MatchData = std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)>;
    const MatchData match(pcre2_match_data_create_from_pattern(pattern.code, nullptr), &pcre2_match_data_free);
    bool complete = true;
    for (const auto &[begin, end] : pieces) {
        // the piece is the whole subject: lookaheads and `$` see its end, as in llama.cpp
        const auto *text = reinterpret_cast<PCRE2_SPTR>(subject.data() + begin);
        const PCRE2_SIZE length = end - begin;
        PCRE2_SIZE at = 0, gap = 0;
        while (at < length) {
            const int rc = detail::pcre2MatchAt(pattern.code, text, length, at, match.get());
            if (rc < 0) {
                complete = complete && rc == PCRE2_ERROR_NOMATCH;
                break;
            }
            const PCRE2_SIZE *ovector = pcre2_get_ovector_pointer(match.get());
            const PCRE2_SIZE first = ovector[0], last = ovector[1];
            if (first > gap)
                next.emplace_back(begin + gap, begin + first);
            if (last > first)
                next.emplace_back(begin + first, begin + last);
            // an empty match (SUPERBPE's lookahead) only cuts, as std::regex's empty pieces do in
            // llama.cpp; the search goes on after it
            gap = last;
            at = last > first ? last : first + 1;
        }
        if (gap < length)
            next.emplace_back(begin + gap, end);
    }
    return complete;
}

bool RegexSplitter::split(std::span<const uint32_t> cps, std::vector<CodePointRange> &words) const
{
    std::vector<uint32_t> subject(cps.size());
    std::transform(cps.begin(), cps.end(), subject.begin(), subjectCodePoint);
    bool complete = true;
    std::vector<CodePointRange> pieces{{0, static_cast<uint32_t>(cps.size())}}, next;
    if (cps.empty())
        pieces.clear();
    for (const auto &pattern : m_patterns) {
        next.clear();
        complete = splitWithPattern(*pattern, cps, subject, pieces, next) && complete;
        pieces.swap(next);
    }
    words.insert(words.end(), pieces.begin(), pieces.end());
    return complete;
}

} // namespace gguf
