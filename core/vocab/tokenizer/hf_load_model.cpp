// SPDX-License-Identifier: GPL-3.0-or-later
// Reads a tokenizer.json's model (BPE, WordPiece), its added tokens and its post-processor
// (docs/TOKENIZER_JSON.md §1, §5–6).
#include "hf_load.h"

#include <algorithm>
#include <cstdio>

namespace gguf::hf {
namespace {

using json::Value;

void readVocab(const Value &v, Model &m)
{
    const Value *vocab = v.find("vocab");
    if (!vocab || vocab->kind != Value::Kind::Object)
        refuse("model " + m.type + " without a vocab object");
    for (size_t i = 0; i < vocab->values.size(); ++i) {
        const TokenId id = tokenIdOf(vocab->values[i], "model.vocab");
        const std::string &token = vocab->keys[i].first;
        m.vocab[token] = id;
        m.tokens[id] = token;
        m.size = std::max<uint64_t>(m.size, uint64_t(id) + 1);
    }
}

TokenId vocabId(const Model &m, const std::string &token, size_t rank)
{
    const auto it = m.vocab.find(token);
    if (it == m.vocab.end())
        refuse("merge " + std::to_string(rank + 1) + ": \"" + token + "\" is not in the vocabulary");
    return it->second;
}

// "a b" (split at the one space) or ["a", "b"].
std::pair<std::string, std::string> mergePair(const Value &merge, size_t rank)
{
    if (merge.kind == Value::Kind::String) {
        const size_t space = merge.text.find(' ');
        if (space == std::string::npos || merge.text.find(' ', space + 1) != std::string::npos)
            refuse("merge " + std::to_string(rank + 1) + " is not two tokens");
        return {merge.text.substr(0, space), merge.text.substr(space + 1)};
    }
    if (merge.kind != Value::Kind::Array || merge.values.size() != 2 || merge.values[0].kind != Value::Kind::String ||
        merge.values[1].kind != Value::Kind::String)
        refuse("merge " + std::to_string(rank + 1) + " is not two tokens");
    return {merge.values[0].text, merge.values[1].text};
}

void readMerges(const Value &v, Model &m)
{
    const Value *merges = v.find("merges");
    if (!merges || merges->kind != Value::Kind::Array)
        refuse("model BPE without merges");
    size_t rank = 0;
    for (const Value &merge : merges->values) {
        if (merge.kind == Value::Kind::String && merge.text.starts_with("#version"))
            continue;
        const auto [a, b] = mergePair(merge, rank);
        const std::string joined = a + b.substr(std::min(m.prefix.size(), b.size()));
        const uint64_t key = (uint64_t(uint32_t(vocabId(m, a, rank))) << 32) | uint32_t(vocabId(m, b, rank));
        m.merges[key] = Model::Merge{static_cast<uint32_t>(rank), vocabId(m, joined, rank)};
        ++rank;
    }
}

// A template's {"SpecialToken": {"id": NAME}}: the ids and tokens `special_tokens` gives NAME.
SpecialTokens templateSpecial(const Value &item, const Value *specials)
{
    const Value *special = item.find("SpecialToken");
    const Value *name = special ? special->find("id") : nullptr;
    const Value *entry = name && specials && name->kind == Value::Kind::String ? specials->find(name->text) : nullptr;
    const Value *ids = entry ? entry->find("ids") : nullptr;
    const Value *tokens = entry ? entry->find("tokens") : nullptr;
    if (!ids || ids->kind != Value::Kind::Array || ids->values.empty() || !tokens ||
        tokens->kind != Value::Kind::Array || tokens->values.size() != ids->values.size())
        refuse("post-processor TemplateProcessing: a special token without its ids and tokens");
    SpecialTokens out;
    for (size_t i = 0; i < ids->values.size(); ++i) {
        out.ids.push_back(tokenIdOf(ids->values[i], "post-processor TemplateProcessing"));
        out.tokens.push_back(tokens->values[i].text);
    }
    return out;
}

// Roberta's and Bert's "cls" and "sep": [token, id].
SpecialTokens namedSpecial(const Value &v, const char *key, const std::string &type)
{
    const Value *pair = v.find(key);
    if (!pair || pair->kind != Value::Kind::Array || pair->values.size() != 2 ||
        pair->values[0].kind != Value::Kind::String)
        refuse("post-processor " + type + " without its " + key);
    return SpecialTokens{false, {tokenIdOf(pair->values[1], "post-processor " + type)}, {pair->values[0].text}};
}

} // namespace

Model modelOf(const Value &v)
{
    Model m;
    m.type = textField(v, "type", v.find("merges") ? "BPE" : "");
    if (m.type == "BPE") {
        const Value *dropout = v.find("dropout");
        if (dropout && dropout->kind == Value::Kind::Number &&
            dropout->text.find_first_not_of("0.") != std::string::npos)
            refuse("model BPE with dropout: its tokens are random");
        if (const Value *unk = v.find("unk_token"); unk && unk->kind == Value::Kind::String)
            m.unk = unk->text;
        m.prefix = textField(v, "continuing_subword_prefix");
        m.suffix = textField(v, "end_of_word_suffix");
        m.fuseUnk = flagField(v, "fuse_unk", false);
        m.byteFallback = flagField(v, "byte_fallback", false);
        m.ignoreMerges = flagField(v, "ignore_merges", false);
        readVocab(v, m);
        readMerges(v, m);
    } else if (m.type == "WordPiece") {
        m.kind = Model::Kind::WordPiece;
        m.unk = textField(v, "unk_token", "[UNK]");
        m.prefix = textField(v, "continuing_subword_prefix", "##");
        if (const Value *max = v.find("max_input_chars_per_word"))
            m.maxWordChars = max->asUnsigned().value_or(100);
        readVocab(v, m);
    } else {
        refuse("model " + (m.type.empty() ? std::string("without a type") : m.type) + " is not supported");
    }
    // what tokenizing looks up for every unknown character, found once
    if (const auto it = m.unk ? m.vocab.find(*m.unk) : m.vocab.end(); it != m.vocab.end())
        m.unkId = it->second;
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        const auto it = m.vocab.find(name);
        m.byteIds[size_t(b)] = it == m.vocab.end() ? kNoToken : it->second;
    }
    return m;
}

// AddedVocabulary::add_tokens: an added token takes the id its text already has (an earlier added
// token's, else the model's); a new text takes the next id from the model vocabulary's size (its
// number of entries, not its largest id) on. The ids written in the file are not used: where they
// differ, a note says so.
void readAddedTokens(const Value &root, Pipeline &p)
{
    const Value *added = root.find("added_tokens");
    if (!added || added->kind != Value::Kind::Array)
        return;
    // the map of added tokens starts empty, so the first new id is the vocabulary's size
    uint64_t nextId = p.model.vocab.size();
    std::unordered_map<std::string, size_t> byText;
    uint64_t moved = 0;
    std::string first;
    for (const Value &a : added->values) {
        const std::string content = textField(a, "content");
        if (content.empty())
            continue;
        AddedToken token;
        token.content = toText(content);
        token.special = flagField(a, "special", false);
        token.lstrip = flagField(a, "lstrip", false);
        token.rstrip = flagField(a, "rstrip", false);
        token.singleWord = flagField(a, "single_word", false);
        token.normalized = flagField(a, "normalized", !token.special);
        if (token.special) // the library's set of special texts only grows
            p.specialTexts.insert(content);
        if (const auto it = byText.find(content); it != byText.end()) {
            token.id = p.added[it->second].id;
            p.added[it->second] = token;
            continue;
        }
        if (const auto it = p.model.vocab.find(content); it != p.model.vocab.end()) {
            token.id = it->second;
        } else {
            if (nextId > uint64_t(INT32_MAX))
                refuse("added token \"" + content + "\": no id left");
            token.id = static_cast<TokenId>(nextId++);
        }
        if (const Value *id = a.find("id");
            id && id->asUnsigned() != std::optional<uint64_t>(uint64_t(token.id)) && moved++ == 0)
            first = "\"" + content + "\" is given id " + std::to_string(token.id) + ", not " + id->text;
        byText[content] = p.added.size();
        p.added.push_back(token);
    }
    if (moved > 0)
        p.notes.push_back(std::to_string(moved) + " added token" + (moved == 1 ? "" : "s") +
                          " take other ids than the file writes, by the library's rule (" + first + ")");
}

PostProcessor postProcessorOf(const Value &v)
{
    const std::string type = typeOf(v, "a post-processor");
    PostProcessor out;
    if (type == "Sequence") {
        for (const Value &child : listField(v, "processors", "post-processor Sequence").values)
            out.children.push_back(postProcessorOf(child));
    } else if (type == "ByteLevel") {
        out.kind = PostProcessor::Kind::ByteLevel;
    } else if (type == "TemplateProcessing") {
        out.kind = PostProcessor::Kind::Template;
        const Value *single = v.find("single");
        const Value *specials = v.find("special_tokens");
        if (!single || single->kind != Value::Kind::Array)
            refuse("post-processor TemplateProcessing without a single template");
        for (const Value &item : single->values)
            out.items.push_back(item.find("Sequence") ? SpecialTokens{true, {}, {}} : templateSpecial(item, specials));
    } else if (type == "RobertaProcessing" || type == "BertProcessing") {
        out.kind = PostProcessor::Kind::Wrap;
        out.items = {namedSpecial(v, "cls", type), SpecialTokens{true, {}, {}}, namedSpecial(v, "sep", type)};
    } else {
        refuse("post-processor " + type + " is not supported");
    }
    return out;
}

} // namespace gguf::hf
