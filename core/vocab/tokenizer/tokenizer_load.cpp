// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a tokenizer's definition as llama.cpp's llama_vocab::impl::load does (docs/TOKENIZER.md
// §1, §4.1, §4.3), reporting instead of throwing where llama.cpp would refuse the file.
#include "core/format/gguf_file.h"
#include "core/vocab/vocabulary.h"
#include "tokenizer_data.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace gguf {
namespace {

uint16_t attributeOfType(std::optional<int32_t> type)
{
    switch (static_cast<TokenType>(type.value_or(static_cast<int32_t>(TokenType::Normal)))) {
    case TokenType::Unknown: return kAttrUnknown;
    case TokenType::Unused: return kAttrUnused;
    case TokenType::Normal: return kAttrNormal;
    case TokenType::Control: return kAttrControl;
    case TokenType::UserDefined: return kAttrUserDefined;
    case TokenType::Byte: return kAttrByte;
    case TokenType::Undefined: break;
    }
    return 0;
}

TokenizerKind kindOfModel(std::string_view model)
{
    if (model == "llama")
        return TokenizerKind::Spm;
    if (model == "gpt2" || model == "gemma4")
        return TokenizerKind::Bpe;
    if (model == "bert")
        return TokenizerKind::Wpm;
    if (model == "t5")
        return TokenizerKind::Ugm;
    if (model == "rwkv")
        return TokenizerKind::Rwkv;
    return TokenizerKind::None;
}

// The per-kind defaults, before the file's keys override them (§1.2).
void setDefaults(TokenizerData &d)
{
    switch (d.kind) {
    case TokenizerKind::Spm:
        d.bos = 1, d.eos = 2, d.unk = 0;
        d.addBos = true, d.addSpacePrefix = true;
        break;
    case TokenizerKind::Bpe:
        d.bos = d.preSpec.bosNull ? kNoToken : 11;
        d.eos = 11;
        d.addBos = d.preSpec.addBos;
        d.cleanSpaces = d.preSpec.cleanSpaces;
        break;
    case TokenizerKind::Wpm:
        d.bos = 101, d.unk = 100, d.sep = 102, d.pad = 0, d.mask = 103;
        d.addBos = true, d.cleanSpaces = true;
        break;
    case TokenizerKind::Ugm:
        d.eos = 1, d.unk = 2, d.pad = 0;
        d.addEos = true;
        break;
    case TokenizerKind::Rwkv:
    case TokenizerKind::None: break;
    }
}

// Token ids named by keys; an id past the vocabulary keeps the default (§1.1).
void readSpecialIds(const GgufFile &file, TokenizerData &d, std::array<TokenId, 6> &fim)
{
    const auto n = static_cast<uint64_t>(d.text.size());
    const std::array<std::pair<std::string_view, TokenId *>, 17> keys = {{
        {"bos_token_id", &d.bos},
        {"eos_token_id", &d.eos},
        {"eot_token_id", &d.eot},
        {"eom_token_id", &d.eom},
        {"unknown_token_id", &d.unk},
        {"seperator_token_id", &d.sep},
        {"padding_token_id", &d.pad},
        {"mask_token_id", &d.mask},
        {"fim_pre_token_id", &fim[0]},
        {"fim_suf_token_id", &fim[1]},
        {"fim_mid_token_id", &fim[2]},
        {"fim_pad_token_id", &fim[3]},
        {"fim_rep_token_id", &fim[4]},
        {"fim_sep_token_id", &fim[5]},
        {"prefix_token_id", &fim[0]},
        {"suffix_token_id", &fim[1]},
        {"middle_token_id", &fim[2]},
    }};
    for (const auto &[suffix, id] : keys) {
        const std::string key = "tokenizer.ggml." + std::string(suffix);
        const auto value = file.value(key).toUInt();
        if (!value)
            continue;
        if (*value >= n)
            d.diagnostics.push_back(key + " = " + std::to_string(*value) + " is not a token id (the vocabulary has " +
                                    std::to_string(n) + "); the default " + std::to_string(*id) + " is used");
        else
            *id = static_cast<TokenId>(*value);
    }
}

// DeepSeek's "<｜end▁of▁sentence｜>" (full-width bars, U+2581 for the spaces).
constexpr std::string_view kEndOfSentence = "<\xEF\xBD\x9C"
                                            "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>";

// The end-of-generation tokens, and what llama.cpp changes by them: every EOG text is a control
// token; gpt-oss's channel tokens, o200k_harmony's and solar-open's "<|end|>" and gemma4's "</s>"
// get the attributes llama.cpp's workarounds give them.
void markEndOfGeneration(TokenizerData &d, const std::array<TokenId, 6> &fim)
{
    std::vector<TokenId> eog;
    for (TokenId id : {fim[3], fim[4], fim[5]})
        if (id != kNoToken)
            eog.push_back(id);
    // clang-format off
    static constexpr std::string_view kEndOfGeneration[] = {
        "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
        "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
        "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", kEndOfSentence, "[e~["};
    // clang-format on
    for (std::string_view text : kEndOfGeneration)
        if (const TokenId id = d.find(text); id != kNoToken) {
            eog.push_back(id);
            if (!d.has(id, kAttrControl)) {
                d.attrs[static_cast<size_t>(id)] |= kAttrControl;
                d.diagnostics.push_back("token " + std::to_string(id) + " '" + std::string(text) +
                                        "' ends generation; it is made a control token, as llama.cpp does");
            }
        }
    for (std::string_view text : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})
        if (const TokenId id = d.find(text); id != kNoToken)
            d.attrs[static_cast<size_t>(id)] = kAttrUserDefined;
    for (TokenId id : {d.eos, d.eot, d.eom})
        if (d.valid(id))
            eog.push_back(id);
    const auto eogHas = [&](std::initializer_list<std::string_view> texts) {
        return std::any_of(eog.begin(), eog.end(), [&](TokenId id) {
            return d.valid(id) && std::find(texts.begin(), texts.end(), d.text[static_cast<size_t>(id)]) != texts.end();
        });
    };
    const bool end = eogHas({"<|end|>"}), call = eogHas({"<|call|>", "<|calls|>"});
    if (end && call && (eogHas({"<|return|>"}) || eogHas({"<|flush|>"})))
        d.attrs[static_cast<size_t>(d.find("<|end|>"))] = kAttrUserDefined;
    if (eogHas({"<|tool_response>"}) && eogHas({"</s>"}))
        d.attrs[static_cast<size_t>(d.find("</s>"))] = kAttrNormal;
}

// Tokens found by their text when no key names them; each gains the control attribute, keeping the
// ones it had (§1.3; llama.cpp's impl::load at de3ff815). llama.cpp takes the first match in its hash
// map's order; the lowest id is taken here.
void detectByText(TokenizerData &d, std::array<TokenId, 6> &fim)
{
    const auto forceControl = [&](TokenId id) {
        if (!d.has(id, kAttrControl)) {
            d.attrs[static_cast<size_t>(id)] |= kAttrControl;
            d.diagnostics.push_back("token " + std::to_string(id) + " '" +
                                    std::string(d.text[static_cast<size_t>(id)]) +
                                    "' looks like a control token; it is made one, as llama.cpp does");
        }
    };
    const auto detect = [&](TokenId &id, std::initializer_list<std::string_view> texts) {
        if (id != kNoToken)
            return;
        for (std::string_view text : texts)
            if (const TokenId found = d.find(text); found != kNoToken && (id == kNoToken || found < id))
                id = found;
        if (id != kNoToken)
            forceControl(id);
    };
    detect(d.eot, {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>",
                   "_<EOT>", "[EOT]", kEndOfSentence, "<end_of_utterance>"});
    detect(d.eom, {"<|eom_id|>"});
    detect(fim[0], {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>",
                    "<\xEF\xBD\x9C"
                    "fim\xE2\x96\x81"
                    "begin\xEF\xBD\x9C>",
                    "<PRE>", "\xE2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>"});
    detect(fim[1], {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>",
                    "<\xEF\xBD\x9C"
                    "fim\xE2\x96\x81hole\xEF\xBD\x9C>",
                    "<SUF>", "\xE2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>"});
    detect(fim[2], {"<|fim_middle|>", "<fim-middle>", "<fim_middle>",
                    "<\xEF\xBD\x9C"
                    "fim\xE2\x96\x81"
                    "end\xEF\xBD\x9C>",
                    "<MID>", "\xE2\x96\x81<MID>", "<|code_middle|>", "<|middle|>"});
    detect(fim[3], {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"});
    detect(fim[4], {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"});
    detect(fim[5], {"<|file_sep|>"});
    // control tokens named "unused…" are unused ones too
    for (size_t i = 0; i < d.attrs.size(); ++i)
        if ((d.attrs[i] & kAttrControl) && d.text[i].find("unused") != std::string_view::npos)
            d.attrs[i] |= kAttrUnused;
    markEndOfGeneration(d, fim);
}

bool containsAny(std::string_view s, std::initializer_list<std::string_view> parts)
{
    return std::any_of(parts.begin(), parts.end(),
                       [&](std::string_view p) { return s.find(p) != std::string_view::npos; });
}

// The strip attributes llama.cpp sets by model name (§4.3).
void applyNameHacks(const GgufFile &file, TokenizerData &d)
{
    const auto setAttr = [&](std::string_view text, uint16_t attr, bool on) {
        const TokenId id = d.find(text);
        if (id == kNoToken)
            return;
        auto &a = d.attrs[static_cast<size_t>(id)];
        a = on ? static_cast<uint16_t>(a | attr) : static_cast<uint16_t>(a & ~attr);
    };
    std::string name(file.value("general.name").toStringView());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    const std::string_view arch = file.value("general.architecture").toStringView();
    const std::string_view pre = file.value("tokenizer.ggml.pre").toStringView();
    if (containsAny(pre, {"jina-v2-de", "jina-v2-es", "jina-v2-code"}) ||
        containsAny(arch, {"nomic-bert-moe", "jina-bert-v3"})) {
        setAttr("<mask>", kAttrLstrip, true);
    } else if (containsAny(name, {"phi-3", "phi3"})) {
        for (TokenId id : d.specialCache)
            d.attrs[static_cast<size_t>(id)] |= kAttrRstrip;
        setAttr("</s>", kAttrRstrip, true);
        for (std::string_view t : {"<unk>", "<s>", "<|endoftext|>"})
            setAttr(t, kAttrRstrip, false);
    } else if (containsAny(name, {"modern-bert"})) {
        setAttr("[MASK]", kAttrLstrip, true);
    }
}

void readTokens(const Vocabulary &vocab, TokenizerData &d)
{
    const size_t n = vocab.size();
    d.text.resize(n);
    d.scores.resize(n);
    d.attrs.resize(n);
    d.textToId.reserve(n);
    uint64_t missingScores = 0, missingTypes = 0;
    for (size_t i = 0; i < n; ++i) {
        std::string_view text = vocab.token(i);
        if (text.empty())
            text = d.owned.emplace_back("[EMPTY_" + std::to_string(i) + "]");
        d.text[i] = text;
        const auto score = vocab.score(i);
        missingScores += vocab.hasScores() && !score;
        d.scores[i] = score.value_or(0.0f);
        const auto type = vocab.type(i);
        missingTypes += vocab.hasTypes() && !type;
        d.attrs[i] = attributeOfType(type);
        const auto [it, inserted] = d.textToId.try_emplace(text, static_cast<TokenId>(i));
        if (!inserted) { // llama.cpp keeps the later id, then refuses the file
            d.diagnostics.push_back(
                "tokens " + std::to_string(it->second) + " and " + std::to_string(i) +
                " have the same text; the later one is used, as llama.cpp would before refusing the file");
            it->second = static_cast<TokenId>(i);
        }
        d.maxTokenLength = std::max(d.maxTokenLength, text.size());
    }
    if (missingScores != 0)
        d.diagnostics.push_back("tokenizer.ggml.scores is shorter than the token list: " +
                                std::to_string(missingScores) + " tokens score 0");
    if (missingTypes != 0)
        d.diagnostics.push_back("tokenizer.ggml.token_type is shorter than the token list: " +
                                std::to_string(missingTypes) + " tokens are normal");
}

void readMerges(const Vocabulary &vocab, TokenizerData &d)
{
    d.mergeRank.reserve(vocab.mergeCount());
    for (uint64_t rank = 0; rank < vocab.mergeCount(); ++rank) {
        const std::string_view rule = vocab.merge(rank);
        // llama.cpp splits at the first space after the first byte; lookups join the two halves
        // with one space, so a rule is found by its stored text
        if (rule.find(' ', 1) == std::string_view::npos)
            continue;
        d.mergeRank.try_emplace(rule, static_cast<int32_t>(rank));
    }
}

} // namespace

namespace {

// A BPE tokenizer's pre-tokenizer from tokenizer.ggml.pre, with what the choice implies said in
// the diagnostics (no pre: DEFAULT; an unknown one; a regex that does not compile; no merges).
void chooseBpePreTokenizer(const Vocabulary &vocab, TokenizerData &d)
{
    if (const auto spec = preTokenizerSpec(d.pre)) {
        d.preSpec = *spec;
        if (d.pre.empty())
            d.diagnostics.emplace_back(
                "the file has no tokenizer.ggml.pre: the DEFAULT pre-tokenizer is used, as llama.cpp does "
                "(it warns that generation quality will be degraded)");
    } else {
        d.preSpec = *preTokenizerSpec("default");
        d.refusal = "llama.cpp refuses this vocabulary: \"unknown pre-tokenizer type: '" + std::string(d.pre) +
                    "'\" (tokenizer.ggml.pre is none of the " + std::to_string(knownPreTokenizers().size()) +
                    " values it knows), so it gives no ids";
        return;
    }
    const RegexSplitter &splitter = RegexSplitter::forSet(d.preSpec.regexes);
    if (!splitter.error().empty())
        d.diagnostics.push_back("the " + std::string(d.preSpec.type) +
                                " pre-tokenizer's regex does not compile: " + splitter.error());
    if (vocab.mergeCount() == 0)
        d.diagnostics.emplace_back("a gpt2 tokenizer without tokenizer.ggml.merges (llama.cpp refuses it): words are "
                                   "split into characters");
}

// The tables of the models that need more than the vocabulary: UGM's trie and character map,
// WPM's word pieces, RWKV's byte trie.
void buildModelTables(const GgufFile &file, TokenizerData &d)
{
    if (d.kind == TokenizerKind::Ugm) {
        const ArrayRef charsmap = file.value("tokenizer.ggml.precompiled_charsmap").array();
        std::span<const uint8_t> bytes;
        if (charsmap.isValid() &&
            (charsmap.elementType() == ValueType::Uint8 || charsmap.elementType() == ValueType::Int8))
            bytes = file.bytes(charsmap.elementsOffset(), charsmap.size());
        d.ugm = buildUgmModel(d, bytes, d.diagnostics);
    } else if (d.kind == TokenizerKind::Wpm) {
        // the ids of the text map, so a later duplicate wins as in llama.cpp
        d.wpm = std::make_unique<WpmModel>();
        for (const auto &[text, id] : d.textToId)
            d.wpm->tokens.insert(text, id);
        d.wpm->lowercase = file.value("tokenizer.ggml.normalizer.lowercase").toBool().value_or(true);
        d.wpm->stripAccents = file.value("tokenizer.ggml.normalizer.strip_accents").toBool().value_or(d.wpm->lowercase);
    } else if (d.kind == TokenizerKind::Rwkv) {
        d.rwkv = buildRwkvModel(d);
    }
}

} // namespace

TokenizerData::TokenizerData() = default;
TokenizerData::~TokenizerData() = default;

std::unique_ptr<TokenizerData> loadTokenizerData(std::shared_ptr<const GgufFile> file)
{
    auto d = std::make_unique<TokenizerData>();
    d->vocab = Vocabulary::shared(file);
    if (!d->vocab || !d->vocab->isValid()) {
        d->diagnostics.emplace_back("the file has no tokenizer.ggml.tokens array");
        return d;
    }
    const Vocabulary &vocab = *d->vocab;
    if (vocab.size() > static_cast<uint64_t>(INT32_MAX)) {
        d->diagnostics.emplace_back("the vocabulary has more tokens than a token id can name");
        return d;
    }
    d->kind = kindOfModel(vocab.model());
    if (d->kind == TokenizerKind::None) {
        d->diagnostics.push_back(
            vocab.model().empty() ? std::string("the file has no tokenizer.ggml.model")
                                  : "tokenizer.ggml.model '" + std::string(vocab.model()) +
                                        "' cannot tokenize text (llama.cpp knows llama, gpt2, gemma4, bert, t5, rwkv)");
        return d;
    }
    // llama.cpp reads a "gemma4" vocabulary as BPE with the GEMMA4 pre-tokenizer, whatever the key says
    d->pre = vocab.model() == "gemma4" ? std::string_view("gemma4") : vocab.pre();
    if (d->kind == TokenizerKind::Bpe)
        chooseBpePreTokenizer(vocab, *d);
    setDefaults(*d);
    if (vocab.model() == "gemma4") // no default special tokens
        d->bos = d->eos = kNoToken;
    const auto flag = [&](std::string_view key, bool &out) {
        if (const auto v = file->value(key).toBool())
            out = *v;
    };
    flag("tokenizer.ggml.add_space_prefix", d->addSpacePrefix);
    flag("tokenizer.ggml.remove_extra_whitespaces", d->removeExtraWhitespaces);

    readTokens(vocab, *d);
    if (d->kind == TokenizerKind::Bpe)
        readMerges(vocab, *d);

    // a default id past a small vocabulary names no token (llama.cpp would use it anyway)
    for (TokenId *id : {&d->bos, &d->eos, &d->unk, &d->sep, &d->pad, &d->mask})
        if (*id != kNoToken && !d->valid(*id)) {
            d->diagnostics.push_back("the default special token id " + std::to_string(*id) +
                                     " is past the vocabulary; no token is used for it");
            *id = kNoToken;
        }
    std::array<TokenId, 6> fim;
    fim.fill(kNoToken);
    readSpecialIds(*file, *d, fim);
    flag("tokenizer.ggml.add_bos_token", d->addBos);
    flag("tokenizer.ggml.add_eos_token", d->addEos);
    if (d->kind == TokenizerKind::Bpe && d->preSpec.type == "GEMMA4")
        d->addBos = true; // llama.cpp forces it for GEMMA4
    detectByText(*d, fim);

    // partition candidates, longest text first (§4.1; equal lengths by id, where llama.cpp's
    // unstable sort leaves the order open)
    for (size_t i = 0; i < d->attrs.size(); ++i)
        if (d->attrs[i] & (kAttrControl | kAttrUserDefined | kAttrUnknown))
            d->specialCache.push_back(static_cast<TokenId>(i));
    std::stable_sort(d->specialCache.begin(), d->specialCache.end(), [&](TokenId a, TokenId b) {
        return d->text[static_cast<size_t>(a)].size() > d->text[static_cast<size_t>(b)].size();
    });
    applyNameHacks(*file, *d);

    buildModelTables(*file, *d);
    return d;
}

} // namespace gguf
