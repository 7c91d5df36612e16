// SPDX-License-Identifier: GPL-3.0-or-later
// `tokenize` and `detokenize`: the file's own tokenizer, giving llama.cpp's token ids; for a Hugging
// Face checkpoint, its tokenizer.json run as the tokenizers library runs it.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/safetensors/checkpoint.h"
#include "core/safetensors/json_reader.h"
#include "core/vocab/tokenizer.h"
#include "core/vocab/tokenizer_json.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>

namespace cli {
namespace {

// The tokenizer of FILE (of a split set: shard 1's), or null after a message on stderr. Loader notes
// go to stderr, so stdout holds only the ids.
std::shared_ptr<const gguf::Tokenizer> openTokenizer(const CommandArgs &args)
{
    const MetadataFile metadata = openMetadataFile(args.file);
    if (!metadata.file)
        return nullptr;
    auto tokenizer = gguf::Tokenizer::create(metadata.file);
    const std::string path = printable(metadata.path);
    for (const std::string &note : tokenizer->diagnostics())
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", path.c_str(), printable(note).c_str());
    if (!tokenizer->canTokenize()) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", path.c_str(),
                     tokenizer->refusal().empty() ? "no tokenizer to run" : printable(tokenizer->refusal()).c_str());
        return nullptr;
    }
    return tokenizer;
}

// TEXT, or the content of --file F; standard input for `--file -` and when neither is given.
std::optional<std::string> readText(const CommandArgs &args)
{
    if (!args.textFile && !args.rest.empty())
        return args.rest.front();
    if (!args.textFile || *args.textFile == "-")
        return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    std::ifstream in(*args.textFile, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", args.textFile->c_str(), std::strerror(errno));
        return std::nullopt;
    }
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// tokenize's arguments hold one text at most (TEXT or --file F); else a message.
bool oneText(const CommandArgs &args)
{
    if (args.rest.size() <= 1 && !(args.textFile && !args.rest.empty()))
        return true;
    std::fputs("gguf-inspect: tokenize takes one TEXT or --file F (quote the text)\n", stderr);
    return false;
}

// tokenize's output: the ids on one line, separated by spaces; with --json each id with its
// stored token and the text it stands for (`token(i)`, `text(i)` of the i-th id).
int printIds(const CommandArgs &args, const std::vector<gguf::TokenId> &ids,
             const std::function<std::string(size_t)> &token, const std::function<std::string(size_t)> &text)
{
    if (!args.json) {
        std::string line;
        for (const gguf::TokenId id : ids)
            line += (line.empty() ? "" : " ") + std::to_string(id);
        print(line + '\n');
        return kExitOk;
    }
    JsonWriter json(stdout);
    json.beginArray();
    for (size_t i = 0; i < ids.size(); ++i) {
        json.beginObject();
        json.field("id", ids[i]);
        json.field("token", token(i));
        json.field("text", text(i));
        json.endObject();
    }
    json.endArray();
    return json.finish() ? kExitOk : kExitBadFile;
}

} // namespace

int runTokenize(const CommandArgs &args)
{
    if (!oneText(args))
        return kExitUsage;
    const auto tokenizer = openTokenizer(args);
    if (!tokenizer)
        return kExitBadFile;
    const auto text = readText(args);
    if (!text)
        return kExitBadFile;
    const std::vector<gguf::TokenId> ids =
        tokenizer->tokenize(*text, gguf::TokenizeOptions{args.addSpecial, args.parseSpecial});
    return printIds(
        args, ids, [&](size_t i) { return std::string(tokenizer->tokenText(ids[i])); },
        [&](size_t i) { return tokenizer->tokenToPiece(ids[i]); });
}

namespace {

// The ids of detokenize's arguments; nullopt after a message when one is not an id.
std::optional<std::vector<gguf::TokenId>> idArguments(const CommandArgs &args)
{
    std::vector<gguf::TokenId> ids;
    for (const std::string &arg : args.rest) {
        char *end = nullptr;
        errno = 0;
        const long long id = std::strtoll(arg.c_str(), &end, 10);
        if (arg.empty() || *end != '\0' || errno != 0 || id < 0 || id > INT32_MAX) {
            std::fprintf(stderr, "gguf-inspect: detokenize: '%s' is not a token id\n", printable(arg).c_str());
            return std::nullopt;
        }
        ids.push_back(static_cast<gguf::TokenId>(id));
    }
    return ids;
}

// An id past the vocabulary: a message, and true.
bool pastVocabulary(const std::string &file, const std::vector<gguf::TokenId> &ids, uint64_t size)
{
    for (const gguf::TokenId id : ids)
        if (static_cast<uint64_t>(id) >= size) {
            std::fprintf(stderr, "gguf-inspect: %s: token id %d is past the vocabulary (%llu tokens)\n",
                         printable(file).c_str(), id, static_cast<unsigned long long>(size));
            return true;
        }
    return false;
}

// The tokenizer.json beside a checkpoint, or null after a message on stderr.
std::shared_ptr<const gguf::JsonTokenizer> openJsonTokenizer(const gguf::st::Checkpoint &c, const CommandArgs &args)
{
    gguf::Error error;
    std::string why;
    const std::optional<std::string> text = c.readBeside("tokenizer.json", error);
    auto tokenizer = text ? gguf::JsonTokenizer::create(*text, why) : nullptr;
    const std::string path = printable(c.besidePath("tokenizer.json"));
    if (error)
        reportTokenizerJsonError(c, args.file, error);
    else if (!tokenizer)
        std::fprintf(stderr, "gguf-inspect: %s: %s\n", path.c_str(), printable(why).c_str());
    else
        for (const std::string &note : tokenizer->notes())
            std::fprintf(stderr, "gguf-inspect: %s: %s\n", path.c_str(), printable(note).c_str());
    return tokenizer;
}

} // namespace

int runDetokenize(const CommandArgs &args)
{
    const auto ids = idArguments(args);
    if (!ids)
        return kExitUsage;
    const auto tokenizer = openTokenizer(args);
    if (!tokenizer)
        return kExitBadFile;
    if (pastVocabulary(args.file, *ids, tokenizer->size()))
        return kExitBadFile;
    print(tokenizer->detokenize(*ids) + '\n');
    return kExitOk;
}

int runTokenizeOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    if (!oneText(args))
        return kExitUsage;
    const auto tokenizer = openJsonTokenizer(checkpoint, args);
    if (!tokenizer)
        return kExitBadFile;
    const auto text = readText(args);
    if (!text)
        return kExitBadFile;
    if (const auto bad = gguf::json::firstInvalidUtf8(*text)) {
        std::fprintf(stderr, "gguf-inspect: the text is not UTF-8 at byte %llu (a tokenizer.json tokenizes text)\n",
                     static_cast<unsigned long long>(*bad));
        return kExitBadFile;
    }
    const gguf::JsonEncoding encoding =
        *tokenizer->encodeTokens(*text, gguf::TokenizeOptions{args.addSpecial, args.parseSpecial});
    return printIds(
        args, encoding.ids, [&](size_t i) { return encoding.tokens[i]; },
        [&](size_t i) { return tokenizer->decode(std::span(&encoding.ids[i], 1), false); });
}

int runDetokenizeOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    const auto ids = idArguments(args);
    if (!ids)
        return kExitUsage;
    const auto tokenizer = openJsonTokenizer(checkpoint, args);
    if (!tokenizer)
        return kExitBadFile;
    if (pastVocabulary(args.file, *ids, tokenizer->size()))
        return kExitBadFile;
    print(tokenizer->decode(*ids, false) + '\n');
    return kExitOk;
}

} // namespace cli
