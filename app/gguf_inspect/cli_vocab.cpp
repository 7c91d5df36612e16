// SPDX-License-Identifier: GPL-3.0-or-later
// `vocab`: the tokenizer vocabulary, streamed token by token (vocabularies reach 256k entries).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/vocab/vocabulary.h"

#include <algorithm>
#include <cstdio>

namespace cli {
namespace {

void writeVocabJson(const gguf::Vocabulary &vocab)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (uint64_t id = 0; id < vocab.size(); ++id) {
        json.beginObject();
        json.field("id", id);
        json.field("token", vocab.token(id));
        json.field("decoded", vocab.decoded(id));
        json.key("type");
        if (const auto type = vocab.type(id))
            json.string(gguf::tokenTypeName(*type));
        else
            json.null();
        json.key("score");
        if (const auto score = vocab.score(id))
            json.number(*score);
        else
            json.null();
        json.endObject();
    }
    json.endArray();
    json.finish();
}

std::string padRight(std::string text, size_t width)
{
    size_t chars = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80)
            ++chars;
    if (chars < width)
        text.append(width - chars, ' ');
    return text;
}

void printHeader(const gguf::Vocabulary &vocab)
{
    std::string line = std::to_string(vocab.size()) + " tokens";
    line += ", model " + (vocab.model().empty() ? std::string("-") : printable(vocab.model(), 40));
    if (!vocab.pre().empty())
        line += " (pre " + printable(vocab.pre(), 40) + ")";
    line += vocab.hasScores() ? ", scores" : ", no scores";
    line += vocab.hasTypes() ? ", token types" : ", no token types";
    line += ", " + std::to_string(vocab.mergeCount()) + " merges\n";
    print(line);
    for (const gguf::SpecialToken &s : vocab.specialTokens())
        print("  " + std::string(s.role) + ": " + std::to_string(s.id) + " '" + printable(vocab.token(s.id), 40) +
              "'\n");
}

// Streamed rather than a TextTable: fixed widths, so no row is held in memory.
void printTable(const gguf::Vocabulary &vocab)
{
    printHeader(vocab);
    const size_t idWidth = std::max<size_t>(2, std::to_string(vocab.size() ? vocab.size() - 1 : 0).size());
    constexpr size_t kTypeWidth = 12, kScoreWidth = 12, kTokenWidth = 24;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%*s  ", static_cast<int>(idWidth), "id");
    print(std::string(buf) + padRight("type", kTypeWidth) + "  " + padRight("score", kScoreWidth) + "  " +
          padRight("token", kTokenWidth) + "  decoded\n");
    for (uint64_t id = 0; id < vocab.size(); ++id) {
        std::snprintf(buf, sizeof buf, "%*llu  ", static_cast<int>(idWidth), static_cast<unsigned long long>(id));
        std::string line = buf;
        const auto type = vocab.type(id);
        line += padRight(type ? std::string(gguf::tokenTypeName(*type)) : "-", kTypeWidth) + "  ";
        if (const auto score = vocab.score(id))
            std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(*score));
        else
            std::snprintf(buf, sizeof buf, "-");
        line += padRight(buf, kScoreWidth) + "  ";
        line += padRight(printable(vocab.token(id), 60), kTokenWidth) + "  ";
        line += printable(vocab.decoded(id), 60) + "\n";
        print(line);
    }
}

} // namespace

int runVocab(const CommandArgs &args)
{
    // a split set's vocabulary is in shard 1, whichever shard FILE names
    const MetadataFile metadata = openMetadataFile(args.file);
    if (!metadata.file)
        return kExitBadFile;
    const gguf::Vocabulary vocab(*metadata.file);
    if (args.json) {
        writeVocabJson(vocab);
    } else if (!vocab.isValid()) {
        print(printable(metadata.path) + " has no tokenizer vocabulary (no tokenizer.ggml.tokens string array)\n");
    } else {
        printTable(vocab);
    }
    return kExitOk;
}

} // namespace cli
