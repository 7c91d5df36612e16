// SPDX-License-Identifier: GPL-3.0-or-later
// The regular expressions of the BPE pre-tokenizers: data copied verbatim from llama.cpp's
// llm_tokenizer_bpe constructor (src/llama-vocab.cpp lines 280-575 at ggml-org/llama.cpp de3ff815,
// the llama.cpp of node-llama-cpp 3.22.1; MIT licence, (c) the ggml authors; docs/TOKENIZER.md §3.2),
// applied in order, each refining the pieces of the one before. Lists that llama.cpp gives several
// types appear once; the comment above each names the types.
// clang-format off
#include "pre_tokenizer_patterns.h"

namespace gguf {

const std::array<std::span<const std::string_view>, kRegexSetCount> &regexSets()
{
    // DEFAULT
    static constexpr std::string_view kDefault[] = {
        "[\\p{P}\\$\\+<=>\\^~\\|]+",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        "\\p{N}+",
        "[0-9][0-9][0-9]",
    };
    // LLAMA3, DBRX, SMAUG, CHATGLM4
    static constexpr std::string_view kLlama3[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // JAIS2
    static constexpr std::string_view kJais2[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s{512}(?!\\S)|\\s{256}(?!\\S)|\\s{128}(?!\\S)|\\s{64}(?!\\S)|\\s{32}(?!\\S)|\\s{16}(?!\\S)|\\s{8}(?!\\S)|\\s{4}(?!\\S)|\\s{1,2}(?!\\S)|\\s{1}",
    };
    // DEEPSEEK_LLM
    static constexpr std::string_view kDeepseekLlm[] = {
        "[\r\n]",
        "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
        "\\s?[!-/:-~！-／：-～‘-‟　-。]+",
        "\\s+$",
        "[一-龥ࠀ-一가-퟿]+",
        "\\p{N}+",
    };
    // DEEPSEEK3_LLM, HUNYUAN_DENSE, JOYAI_LLM, HY_V4
    static constexpr std::string_view kDeepseek3[] = {
        "\\p{N}{1,3}",
        "[一-龥぀-ゟ゠-ヿ]+",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
    };
    // SPARK2_5
    static constexpr std::string_view kSpark25[] = {
        "\\p{N}{1,3}",
        "[一-龥぀-ゟ゠-ヿ]+",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+|[\r\n]|\\s+(?!\\S)|\\s+",
        "\\p{N}",
    };
    // YOUTU
    static constexpr std::string_view kYoutu[] = {
        "[가-힣ㄱ-ㆎ]+|[！…“”‘’—：；，、-〿︰-﹏]+|[ㄅ-ㄯ]+|[一-龥぀-ゟ゠-ヿ]+",
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // DEEPSEEK_CODER
    static constexpr std::string_view kDeepseekCoder[] = {
        "[\r\n]",
        "\\s?\\p{L}+",
        "\\s?\\p{P}+",
        "[一-龥ࠀ-一가-퟿]+",
        "\\p{N}",
    };
    // FALCON
    static constexpr std::string_view kFalcon[] = {
        "[\\p{P}\\$\\+<=>\\^~\\|`]+",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        "[0-9][0-9][0-9]",
    };
    // STARCODER, REFACT, COMMAND_R, SMOLLM, CODESHELL, EXAONE, MINERVA, MELLUM2
    static constexpr std::string_view kDigitsGpt2[] = {
        "\\p{N}",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    };
    // GPT2, MPT, OLMO, JAIS, TRILLION, GRANITE_DOCLING
    static constexpr std::string_view kGpt2[] = {
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    };
    // STABLELM2, QWEN2, HUNYUAN, SOLAR_OPEN, GROK_2
    static constexpr std::string_view kQwen2[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // QWEN35
    static constexpr std::string_view kQwen35[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // PORO, BLOOM, GPT3_FINNISH
    static constexpr std::string_view kPoro[] = {
        " ?[^(\\s|.,!?…。，、।۔،)]+",
    };
    // VIKING
    static constexpr std::string_view kViking[] = {
        " ?[^(\\s|.,!?…。，、।۔،)]+",
        "\\p{N}",
    };
    // TEKKEN
    static constexpr std::string_view kTekken[] = {
        "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // CHAMELEON
    static constexpr std::string_view kChameleon[] = {
        "<sentinel:[0-9]+>",
        "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z",
        "([\\t\\n]|    |  )",
        "\\p{N}",
        "[\\p{P}!-/:-@\\[-`{-~]",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    };
    // GPT4O, MINIMAX_M2
    static constexpr std::string_view kGpt4o[] = {
        "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // GRANITE_EMB_MULTI
    static constexpr std::string_view kGraniteEmbMulti[] = {
        "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))*((?=[\\p{L}\\p{M}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}\\p{M}])([^a-z]))+((?=[\\p{L}\\p{M}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // TINY_AYA
    static constexpr std::string_view kTinyAya[] = {
        "\\d{1,3}(?=(?:\\d{3})*\\b)",
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // KIMI_K2
    static constexpr std::string_view kKimiK2[] = {
        "\\p{Han}+",
    };
    // SUPERBPE
    static constexpr std::string_view kSuperBpe[] = {
        "\\p{N}+",
        "(?=(\\d{3})+(?!\\d))",
    };
    // BAILINGMOE
    static constexpr std::string_view kBailingMoe[] = {
        "'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
    };
    // SEED_CODER
    static constexpr std::string_view kSeedCoder[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // UFAKZEKA
    static constexpr std::string_view kUfakzeka[] = {
        "[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // AFMOE
    static constexpr std::string_view kAfmoe[] = {
        "\\p{AFMoE_digits}",
        "[一-鿿㐀-䶿豈-﫿぀-ゟ゠-ヿ･-ﾟ⼀-⿟เ-๿຀-໿ក-៿က-႟ꩠ-ꩿꧠ-꧿가-힯ᄀ-ᇿ]+",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // LAGUNA
    static constexpr std::string_view kLaguna[] = {
        "[^\\n]+|[\\n]+",
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // EXAONE_MOE
    static constexpr std::string_view kExaoneMoe[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?(?:\\p{L}\\p{M}*(?: \\p{L}\\p{M}*)*)+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]?|\\s*[\\r\\n]|\\s+(?!\\S)|\\s+",
    };
    // GEMMA4, SARVAM_MOE
    static constexpr std::string_view kNewlines[] = {
        "[^\\n]+|[\\n]+",
    };
    // MINICPM5
    static constexpr std::string_view kMinicpm5[] = {
        "\\p{N}{1,3}",
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}+| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    // WHITESPACE
    static constexpr std::string_view kWhitespace[] = {
        "\\S+",
    };
    static const std::array<std::span<const std::string_view>, kRegexSetCount> kSets = {
        kDefault, kLlama3, kJais2, kDeepseekLlm, kDeepseek3, kSpark25, kYoutu, kDeepseekCoder, kFalcon, kDigitsGpt2, kGpt2, kQwen2, kQwen35, kPoro, kViking, kTekken, kChameleon, kGpt4o, kGraniteEmbMulti, kTinyAya, kKimiK2, kSuperBpe, kBailingMoe, kSeedCoder, kUfakzeka, kAfmoe, kLaguna, kExaoneMoe, kNewlines, kMinicpm5, kWhitespace,
    };
    return kSets;
}

} // namespace gguf
