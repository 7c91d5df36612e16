// SPDX-License-Identifier: GPL-3.0-or-later
// The regular expressions of the BPE pre-tokenizers: data copied from llama.cpp's llm_tokenizer_bpe
// constructor (src/llama-vocab.cpp at ggerganov/llama.cpp c392e509, MIT licence, (c) the ggml authors;
// docs/TOKENIZER.md §3.2), applied in order, each refining the pieces of the one before. One change:
// DEEPSEEK3's \p{S} excludes "~", as llama.cpp's own matching does (§3.3). The long DEEPSEEK_LLM
// letter class is byte-for-byte the string in llama.cpp's library.
// clang-format off
#include "pre_tokenizer_patterns.h"

namespace gguf {

const std::array<std::span<const std::string_view>, kRegexSetCount> &regexSets()
{
    static constexpr std::string_view kDefault[] = {
        "[\\p{P}\\$\\+<=>\\^~\\|]+",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        "\\p{N}+",
        "[0-9][0-9][0-9]",
    };
    static constexpr std::string_view kFalcon[] = {
        "[\\p{P}\\$\\+<=>\\^~\\|`]+",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
        "[0-9][0-9][0-9]",
    };
    static constexpr std::string_view kGpt2[] = {
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    };
    static constexpr std::string_view kDigitsGpt2[] = {
        "\\p{N}",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    };
    static constexpr std::string_view kLlama3[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    static constexpr std::string_view kQwen2[] = {
        "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    static constexpr std::string_view kDeepseekCoder[] = {
        "[\r\n]",
        "\\s?\\p{L}+",
        "\\s?\\p{P}+",
        "[一-龥ࠀ-一가-퟿]+",
        "\\p{N}",
    };
    static constexpr std::string_view kDeepseekLlm[] = {
        "[\r\n]",
        "\\s?[A-Za-zµÀ-ÖØ-öø-ƺƼ-ƿǄ-ʓʕ-ʯͰ-ͳͶͷͻ-ͽͿΆΈ-ΊΌΎ-ΡΣ-ϵϷ-ҁҊ-ԯԱ-ՖႠ-ჅᎠ-Ᏽᏸ-ᏽᲐ-ᲺᲽ-Ჿᴀ-ᴫᵫ-ᵷᵹ-ᶚḀ-ἕἘ-Ἕἠ-ὅὈ-Ὅὐ-ὗὙὛὝὟ-ώᾀ-ᾴᾶ-ᾼιῂ-ῄῆ-ῌῐ-ΐῖ-Ίῠ-Ῥῲ-ῴῶ-ῼℂℇℊ-ℓℕℙ-ℝℤΩℨK-ℭℯ-ℴℹℼ-ℿⅅ-ⅉⅎↃↄⰀ-ⱻⱾ-ⳤⳫ-ⳮⳲⳳꙀ-ꙭꚀ-ꚛꜢ-ꝯꝱ-ꞇꞋ-ꞎꭰ-ꮿﬀ-ﬆﬓ-ﬗＡ-Ｚａ-ｚ𐐀-𐑏𐒰-𐓓𐓘-𐓻𐲀-𐲲𐳀-𐳲𑢠-𑣟𞤀-𞥃]+",
        "\\s?[!-/:-~！-／：-～‘-‟　-。]+",
        "\\s+$",
        "[一-龥ࠀ-一가-퟿]+",
        "\\p{N}+",
    };
    static constexpr std::string_view kDeepseek3[] = {
        "\\p{N}{1,3}",
        "[一-龥぀-ゟ゠-ヿ]+",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|(?:~|[^\\r\\n\\p{L}\\p{P}\\p{S}])?[\\p{L}\\p{M}]+| ?(?:(?!~)[\\p{P}\\p{S}])+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    static constexpr std::string_view kPoro[] = {
        " ?[^(\\s|.,!?…。，、।۔،)]+",
    };
    static constexpr std::string_view kViking[] = {
        " ?[^(\\s|.,!?…。，、।۔،)]+",
        "\\p{N}",
    };
    static constexpr std::string_view kTekken[] = {
        "[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
    };
    static constexpr std::string_view kChameleon[] = {
        "<sentinel:[0-9]+>",
        "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z",
        "([\\t\\n]|    |  )",
        "\\p{N}",
        "[\\p{P}!-/:-@\\[-`{-~]",
        "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)",
    };
    static const std::array<std::span<const std::string_view>, kRegexSetCount> kSets = {
        kDefault, kFalcon, kGpt2, kDigitsGpt2, kLlama3, kQwen2, kDeepseekCoder, kDeepseekLlm, kDeepseek3, kPoro, kViking, kTekken, kChameleon,
    };
    return kSets;
}

} // namespace gguf
