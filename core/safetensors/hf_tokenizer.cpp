// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/safetensors/hf_tokenizer.h"

#include "core/safetensors/checkpoint.h"
#include "core/safetensors/json_reader.h"

#include <charconv>

namespace gguf::st {
namespace {

using json::Value;

Error malformed(const std::string &path, uint64_t offset, const std::string &what)
{
    return Error{ErrorKind::Malformed, "bad_tokenizer_json", offset, path + ": " + what};
}

std::optional<double> numberOf(const Value &v)
{
    if (v.kind != Value::Kind::Number)
        return std::nullopt;
    double d = 0;
    const auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), d);
    return ec == std::errc() && end == v.text.data() + v.text.size() ? std::optional(d) : std::nullopt;
}

// Gives id `id` the token `text`; false when the id is too large to be a vocabulary's.
bool place(HfTokenizer &t, uint64_t id, const std::string &text)
{
    if (id >= kMaxTokenizerIds)
        return false;
    if (id >= t.tokens.size())
        t.tokens.resize(id + 1);
    t.tokens[id].text = text;
    t.tokens[id].named = true;
    return true;
}

// `model.vocab`: {token: id} (BPE, WordPiece, WordLevel) or [[token, score], …] (Unigram, by id).
bool readVocab(const Value &vocab, HfTokenizer &t, Error &error)
{
    if (vocab.kind == Value::Kind::Object) {
        for (size_t i = 0; i < vocab.values.size(); ++i) {
            const std::optional<uint64_t> id = vocab.values[i].asUnsigned();
            if (!id || !place(t, *id, vocab.keys[i].first)) {
                error = malformed(t.path, vocab.values[i].begin, "a vocabulary id that is not a token id");
                return false;
            }
        }
        return true;
    }
    if (vocab.kind == Value::Kind::Array) {
        for (size_t i = 0; i < vocab.values.size(); ++i) {
            const Value &pair = vocab.values[i];
            if (pair.kind != Value::Kind::Array || pair.values.empty() || pair.values[0].kind != Value::Kind::String ||
                !place(t, i, pair.values[0].text)) {
                error = malformed(t.path, pair.begin, "a Unigram entry that is not [token, score]");
                return false;
            }
            if (pair.values.size() > 1)
                t.tokens[i].score = numberOf(pair.values[1]);
        }
        return true;
    }
    error = malformed(t.path, vocab.begin, "model.vocab is neither an object nor an array");
    return false;
}

bool readAdded(const Value &added, HfTokenizer &t, Error &error)
{
    if (added.kind != Value::Kind::Array)
        return true;
    for (const Value &a : added.values) {
        const Value *id = a.find("id"), *content = a.find("content");
        const std::optional<uint64_t> n = id ? id->asUnsigned() : std::nullopt;
        if (!n || !content || content->kind != Value::Kind::String || !place(t, *n, content->text)) {
            error = malformed(t.path, a.begin, "an added token without an id and content");
            return false;
        }
        t.tokens[*n].added = true;
        const Value *special = a.find("special");
        t.tokens[*n].special = special && special->kind == Value::Kind::Bool && special->boolean;
    }
    return true;
}

} // namespace

std::optional<HfTokenizer> parseHfTokenizer(std::string_view text, const std::string &path, Error &error)
{
    HfTokenizer t;
    t.path = path;
    json::ParseError why;
    const std::optional<Value> root = json::parse(text, why);
    if (!root) {
        error = malformed(path, why.offset, "not JSON at offset " + std::to_string(why.offset) + ": " + why.message);
        return std::nullopt;
    }
    const Value *model = root->kind == Value::Kind::Object ? root->find("model") : nullptr;
    const Value *vocab = model ? model->find("vocab") : nullptr;
    if (!vocab) {
        error = malformed(path, root->begin, "no model.vocab: not a tokenizers file");
        return std::nullopt;
    }
    if (const Value *type = model->find("type"); type && type->kind == Value::Kind::String)
        t.model = type->text;
    if (const Value *merges = model->find("merges"); merges && merges->kind == Value::Kind::Array)
        t.merges = merges->values.size();
    if (!readVocab(*vocab, t, error))
        return std::nullopt;
    if (const Value *added = root->find("added_tokens"); added && !readAdded(*added, t, error))
        return std::nullopt;
    for (const HfToken &token : t.tokens)
        t.gaps += !token.named;
    return t;
}

std::optional<HfTokenizer> readHfTokenizer(const Checkpoint &checkpoint, Error &error)
{
    const std::optional<std::string> text = checkpoint.readBeside("tokenizer.json", error);
    if (!text)
        return std::nullopt;
    return parseHfTokenizer(*text, checkpoint.besidePath("tokenizer.json"), error);
}

} // namespace gguf::st
