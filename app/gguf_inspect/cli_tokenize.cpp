// SPDX-License-Identifier: GPL-3.0-or-later
// `tokenize` and `detokenize`: the file's own tokenizer, giving llama.cpp's token ids.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/vocab/tokenizer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
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

} // namespace

int runTokenize(const CommandArgs &args)
{
    if (args.rest.size() > 1 || (args.textFile && !args.rest.empty())) {
        std::fputs("gguf-inspect: tokenize takes one TEXT or --file F (quote the text)\n", stderr);
        return kExitUsage;
    }
    const auto tokenizer = openTokenizer(args);
    if (!tokenizer)
        return kExitBadFile;
    const auto text = readText(args);
    if (!text)
        return kExitBadFile;
    const std::vector<gguf::TokenId> ids =
        tokenizer->tokenize(*text, gguf::TokenizeOptions{args.addSpecial, args.parseSpecial});
    if (!args.json) {
        std::string line;
        for (const gguf::TokenId id : ids) {
            if (!line.empty())
                line += ' ';
            line += std::to_string(id);
        }
        print(line + '\n');
        return kExitOk;
    }
    JsonWriter json(stdout);
    json.beginArray();
    for (const gguf::TokenId id : ids) {
        json.beginObject();
        json.field("id", id);
        json.field("token", tokenizer->tokenText(id));
        json.field("text", tokenizer->tokenToPiece(id));
        json.endObject();
    }
    json.endArray();
    json.finish();
    return kExitOk;
}

int runDetokenize(const CommandArgs &args)
{
    std::vector<gguf::TokenId> ids;
    for (const std::string &arg : args.rest) {
        char *end = nullptr;
        errno = 0;
        const long long id = std::strtoll(arg.c_str(), &end, 10);
        if (arg.empty() || *end != '\0' || errno != 0 || id < 0 || id > INT32_MAX) {
            std::fprintf(stderr, "gguf-inspect: detokenize: '%s' is not a token id\n", printable(arg).c_str());
            return kExitUsage;
        }
        ids.push_back(static_cast<gguf::TokenId>(id));
    }
    const auto tokenizer = openTokenizer(args);
    if (!tokenizer)
        return kExitBadFile;
    for (const gguf::TokenId id : ids)
        if (static_cast<uint64_t>(id) >= tokenizer->size()) {
            std::fprintf(stderr, "gguf-inspect: %s: token id %d is past the vocabulary (%llu tokens)\n",
                         args.file.c_str(), id, static_cast<unsigned long long>(tokenizer->size()));
            return kExitBadFile;
        }
    print(tokenizer->detokenize(ids) + '\n');
    return kExitOk;
}

} // namespace cli
