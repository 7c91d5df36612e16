// SPDX-License-Identifier: GPL-3.0-or-later
// Reads a tokenizer.json into its pipeline (docs/TOKENIZER_JSON.md §1): every component by its
// "type", with the library's defaults for fields left out; a component this code does not run
// refuses the file, naming it.
#include "hf_load.h"

#include "core/safetensors/json_reader.h"

#include <algorithm>
#include <stdexcept>

namespace gguf::hf {
namespace {

using json::Value;

// A refusal, caught by loadPipeline and turned into its `why`.
struct Refusal : std::runtime_error {
    using std::runtime_error::runtime_error;
};

char32_t oneChar(const std::string &s, const std::string &part)
{
    const Text t = toText(s);
    if (t.size() != 1)
        refuse(part + ": \"" + s + "\" is not one character");
    return t.front();
}

// {"String": "…"} or {"Regex": "…"}.
Pattern patternOf(const Value &v, const std::string &part)
{
    const Value *p = v.find("pattern");
    const Value *s = p ? p->find("String") : nullptr;
    const Value *r = p ? p->find("Regex") : nullptr;
    Pattern pattern;
    if (s && s->kind == Value::Kind::String) {
        pattern.literal = toText(s->text);
    } else if (r && r->kind == Value::Kind::String) {
        std::string why;
        pattern.regex = Regex::compile(toText(r->text), why);
        if (!pattern.regex)
            refuse(part + ": " + why);
    } else {
        refuse(part + " without a String or Regex pattern");
    }
    return pattern;
}

Behavior behaviorOf(const Value &v, const std::string &part, Behavior fallback)
{
    const Value *b = v.find("behavior");
    if (!b)
        return fallback;
    static const std::pair<const char *, Behavior> kNames[] = {{"Removed", Behavior::Removed},
                                                               {"Isolated", Behavior::Isolated},
                                                               {"MergedWithPrevious", Behavior::MergedWithPrevious},
                                                               {"MergedWithNext", Behavior::MergedWithNext},
                                                               {"Contiguous", Behavior::Contiguous}};
    for (const auto &[name, behavior] : kNames)
        if (b->kind == Value::Kind::String && b->text == name)
            return behavior;
    refuse(part + ": unknown behavior");
}

Normalizer normalizerOf(const Value &v)
{
    const std::string type = typeOf(v, "a normalizer");
    using Kind = Normalizer::Kind;
    Normalizer n;
    if (type == "Sequence") {
        for (const Value &child : listField(v, "normalizers", "normalizer Sequence").values)
            n.children.push_back(normalizerOf(child));
    } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
        n.kind = type == "NFC" ? Kind::Nfc : type == "NFD" ? Kind::Nfd : type == "NFKC" ? Kind::Nfkc : Kind::Nfkd;
    } else if (type == "Lowercase") {
        n.kind = Kind::Lowercase;
    } else if (type == "Strip") {
        n.kind = Kind::Strip;
        n.left = flagField(v, "strip_left", true);
        n.right = flagField(v, "strip_right", true);
    } else if (type == "StripAccents") {
        n.kind = Kind::StripAccents;
    } else if (type == "Replace") {
        n.kind = Kind::Replace;
        n.pattern = patternOf(v, "normalizer Replace");
        n.content = toText(textField(v, "content"));
    } else if (type == "Prepend") {
        n.kind = Kind::Prepend;
        n.content = toText(textField(v, "prepend"));
    } else if (type == "BertNormalizer") {
        n.kind = Kind::Bert;
        n.cleanText = flagField(v, "clean_text", true);
        n.chineseChars = flagField(v, "handle_chinese_chars", true);
        n.lowercase = flagField(v, "lowercase", true);
        n.stripAccents = flagField(v, "strip_accents", n.lowercase);
    } else {
        refuse("normalizer " + type + " is not supported");
    }
    return n;
}

PreTokenizer::Prepend prependOf(const Value &v)
{
    const std::string scheme = textField(v, "prepend_scheme");
    if (scheme == "first")
        return PreTokenizer::Prepend::First;
    if (scheme == "never")
        return PreTokenizer::Prepend::Never;
    if (!scheme.empty() && scheme != "always")
        refuse("Metaspace: unknown prepend_scheme \"" + scheme + "\"");
    if (scheme.empty() && !flagField(v, "add_prefix_space", true))
        return PreTokenizer::Prepend::Never;
    return PreTokenizer::Prepend::Always;
}

PreTokenizer preTokenizerOf(const Value &v)
{
    const std::string type = typeOf(v, "a pre-tokenizer");
    using Kind = PreTokenizer::Kind;
    PreTokenizer p;
    if (type == "Sequence") {
        for (const Value &child : listField(v, "pretokenizers", "pre-tokenizer Sequence").values)
            p.children.push_back(preTokenizerOf(child));
    } else if (type == "ByteLevel") {
        p.kind = Kind::ByteLevel;
        p.addPrefixSpace = flagField(v, "add_prefix_space", true);
        p.useRegex = flagField(v, "use_regex", true);
    } else if (type == "Split") {
        p.kind = Kind::Split;
        p.pattern = patternOf(v, "pre-tokenizer Split");
        p.behavior = behaviorOf(v, "pre-tokenizer Split", Behavior::Removed);
        p.invert = flagField(v, "invert", false);
    } else if (type == "Metaspace") {
        p.kind = Kind::Metaspace;
        p.replacement = oneChar(textField(v, "replacement", "\u2581"), "pre-tokenizer Metaspace");
        p.prepend = prependOf(v);
        p.split = flagField(v, "split", true);
    } else if (type == "Whitespace" || type == "WhitespaceSplit" || type == "BertPreTokenizer") {
        p.kind = type == "Whitespace"        ? Kind::Whitespace
                 : type == "WhitespaceSplit" ? Kind::WhitespaceSplit
                                             : Kind::Bert;
    } else if (type == "Digits") {
        p.kind = Kind::Digits;
        p.individualDigits = flagField(v, "individual_digits", false);
    } else if (type == "Punctuation") {
        p.kind = Kind::Punctuation;
        p.behavior = behaviorOf(v, "pre-tokenizer Punctuation", Behavior::Isolated);
    } else {
        refuse("pre-tokenizer " + type + " is not supported");
    }
    return p;
}

Decoder decoderOf(const Value &v)
{
    const std::string type = typeOf(v, "a decoder");
    using Kind = Decoder::Kind;
    Decoder d;
    if (type == "Sequence") {
        for (const Value &child : listField(v, "decoders", "decoder Sequence").values)
            d.children.push_back(decoderOf(child));
    } else if (type == "ByteLevel" || type == "ByteFallback" || type == "Fuse") {
        d.kind = type == "ByteLevel" ? Kind::ByteLevel : type == "ByteFallback" ? Kind::ByteFallback : Kind::Fuse;
    } else if (type == "Replace") {
        d.kind = Kind::Replace;
        d.pattern = patternOf(v, "decoder Replace");
        d.content = textField(v, "content");
    } else if (type == "Strip") {
        d.kind = Kind::Strip;
        d.stripChar = oneChar(textField(v, "content", " "), "decoder Strip");
        d.start = countField(v, "start", 0);
        d.stop = countField(v, "stop", 0);
    } else if (type == "Metaspace") {
        d.kind = Kind::Metaspace;
        d.replacement = oneChar(textField(v, "replacement", "\u2581"), "decoder Metaspace");
        d.firstWithoutMark = prependOf(v) != PreTokenizer::Prepend::Never;
    } else if (type == "WordPiece") {
        d.kind = Kind::WordPiece;
        d.content = textField(v, "prefix", "##");
        d.cleanup = flagField(v, "cleanup", true);
    } else if (type == "BPEDecoder") {
        d.kind = Kind::Bpe;
        d.content = textField(v, "suffix", "</w>");
    } else {
        refuse("decoder " + type + " is not supported");
    }
    return d;
}

} // namespace

std::string typeOf(const Value &v, const char *part)
{
    const Value *type = v.kind == Value::Kind::Object ? v.find("type") : nullptr;
    if (!type || type->kind != Value::Kind::String)
        refuse(std::string(part) + " without a type");
    return type->text;
}

bool flagField(const Value &v, const char *key, bool fallback)
{
    const Value *f = v.find(key);
    return f && f->kind == Value::Kind::Bool ? f->boolean : fallback;
}

std::string textField(const Value &v, const char *key, const std::string &fallback)
{
    const Value *f = v.find(key);
    return f && f->kind == Value::Kind::String ? f->text : fallback;
}

uint64_t countField(const Value &v, const char *key, uint64_t fallback)
{
    const Value *f = v.find(key);
    const std::optional<uint64_t> n = f ? f->asUnsigned() : std::nullopt;
    return n ? *n : fallback;
}

const Value &listField(const Value &v, const char *key, const std::string &part)
{
    const Value *f = v.find(key);
    if (!f || f->kind != Value::Kind::Array)
        refuse(part + " without its list \"" + key + "\"");
    return *f;
}

TokenId tokenIdOf(const Value &v, const std::string &part)
{
    const std::optional<uint64_t> id = v.asUnsigned();
    if (!id || *id > uint64_t(INT32_MAX))
        refuse(part + ": an id that is not a token id");
    return static_cast<TokenId>(*id);
}

void refuse(const std::string &why)
{
    throw Refusal(why);
}

namespace {

// The added tokens by id, the text each decodes as, and the two matchers: a token not marked
// normalized is found in the raw text, one marked so (its text normalized) in the normalized text.
void indexAddedTokens(Pipeline &p)
{
    for (size_t i = 0; i < p.added.size(); ++i) {
        AddedToken &token = p.added[i];
        p.addedById[token.id] = i;
        Text content = token.content;
        if (token.normalized && p.normalizer)
            normalize(*p.normalizer, content);
        token.decoded = toUtf8(content); // decoding gives a normalized token's normalized form
        (token.normalized ? p.normalized : p.raw).add(content, i);
        p.size = std::max<uint64_t>(p.size, uint64_t(token.id) + 1);
    }
    p.size = std::max(p.size, p.model.size);
}

} // namespace

std::unique_ptr<Pipeline> loadPipeline(const Value &root, std::string &why)
{
    try {
        if (root.kind != Value::Kind::Object || !root.find("model"))
            refuse("no \"model\": not a tokenizers file");
        auto pipeline = std::make_unique<Pipeline>();
        pipeline->model = modelOf(*root.find("model"));
        if (const Value *n = root.find("normalizer"); n && n->kind != Value::Kind::Null)
            pipeline->normalizer = normalizerOf(*n);
        if (const Value *p = root.find("pre_tokenizer"); p && p->kind != Value::Kind::Null)
            pipeline->preTokenizer = preTokenizerOf(*p);
        if (const Value *d = root.find("decoder"); d && d->kind != Value::Kind::Null)
            pipeline->decoder = decoderOf(*d);
        for (const char *key : {"truncation", "padding"})
            if (const Value *t = root.find(key); t && t->kind != Value::Kind::Null)
                refuse(std::string("\"") + key + "\" is set: encoding would " +
                       (std::string(key) == "padding" ? "pad" : "truncate") + ", which is not supported");
        readAddedTokens(root, *pipeline);
        indexAddedTokens(*pipeline);
        const Model &m = pipeline->model;
        if (m.unk && m.unkId == kNoToken)
            pipeline->notes.push_back("the unknown token \"" + *m.unk +
                                      "\" is not in the model's vocabulary: the library fails to encode a text with a "
                                      "character it has no token for; here that character is dropped");
        if (const Value *p = root.find("post_processor"); p && p->kind != Value::Kind::Null)
            pipeline->postProcessor = postProcessorOf(*p);
        return pipeline;
    } catch (const Refusal &refusal) {
        why = refusal.what();
        return nullptr;
    }
}

} // namespace gguf::hf
