// SPDX-License-Identifier: GPL-3.0-or-later
// `set FILE KEY=VALUE… [--type KEY=TYPE] [--remove KEY] [--chat-template-file F] (-o OUT | --in-place)`:
// edits the metadata with the same writer as the window (core/edit, docs/EDITING.md).
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/edit/checkpoint_writer.h"
#include "core/edit/file_writer.h"
#include "core/edit/header_writer.h"
#include "core/safetensors/checkpoint.h"
#include "core/template/chat_template.h"
#include "core/vocab/well_known_keys.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>

namespace cli {
namespace {

int setUsage(const std::string &message)
{
    return usageError("set", message);
}

struct TypeSpec {
    gguf::ValueType type = gguf::ValueType::Uint8;
    gguf::ValueType elementType = gguf::ValueType::Uint8;
};

// KEY=TYPE of --type, by key.
bool readTypes(const std::vector<std::string> &specs, std::map<std::string, TypeSpec> &out, std::string &error)
{
    for (const std::string &spec : specs) {
        const size_t eq = spec.rfind('=');
        TypeSpec t;
        if (eq == std::string::npos || eq == 0 ||
            !gguf::parseTypeName(std::string_view(spec).substr(eq + 1), t.type, t.elementType)) {
            error = "--type " + spec +
                    ": expected KEY=TYPE, TYPE one of UINT8 INT8 UINT16 INT16 UINT32 INT32 "
                    "UINT64 INT64 FLOAT32 FLOAT64 BOOL STRING or ARRAY[TYPE]";
            return false;
        }
        out[spec.substr(0, eq)] = t;
    }
    return true;
}

// One KEY=VALUE or KEY[N]=VALUE into `changes`, the value read by the key's type.
// A value as text; for an integer key with named values (general.file_type, *.pooling_type,
// tokenizer.ggml.token_type's elements…) also the name, as the window offers it: file_type=Q8_0.
std::optional<gguf::OwnedValue> parseNamed(const std::string &key, gguf::ValueType type, const std::string &text,
                                           std::string &error)
{
    if (auto value = gguf::parseValue(type, text, error))
        return value;
    const bool integer = gguf::valueTypeSize(type) != 0 && type != gguf::ValueType::Float32 &&
                         type != gguf::ValueType::Float64 && type != gguf::ValueType::Bool;
    if (!integer)
        return std::nullopt;
    const std::optional<int64_t> named = gguf::enumValueOfName(key, text);
    if (!named)
        return std::nullopt;
    std::string unused;
    return gguf::parseValue(type, std::to_string(*named), unused);
}

// KEY=VALUE split at its first '='; nullopt when there is none or the key is empty.
std::optional<std::pair<std::string, std::string>> keyAndValue(const std::string &arg)
{
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0)
        return std::nullopt;
    return std::pair{arg.substr(0, eq), arg.substr(eq + 1)};
}

bool addAssignment(const gguf::GgufFile &file, const std::string &arg, const std::map<std::string, TypeSpec> &types,
                   gguf::MetadataChanges &changes, std::string &error)
{
    auto assignment = keyAndValue(arg);
    if (!assignment) {
        error = "'" + arg + "' is not KEY=VALUE";
        return false;
    }
    std::string key = std::move(assignment->first);
    const std::string text = std::move(assignment->second);
    std::optional<uint64_t> index;
    if (key.back() == ']') {
        const size_t open = key.rfind('[');
        const std::string digits = open == std::string::npos ? "" : key.substr(open + 1, key.size() - open - 2);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
            error = "'" + key + "': an element is KEY[N] with N a number";
            return false;
        }
        uint64_t n = 0;
        if (std::from_chars(digits.data(), digits.data() + digits.size(), n).ec != std::errc()) {
            error = "'" + key + "': the element number is too large";
            return false;
        }
        index = n;
        key.resize(open);
    }
    const gguf::MetadataEntry *entry = file.findMetadata(key);
    const auto given = types.find(key);
    TypeSpec t;
    if (given != types.end()) {
        t = given->second;
    } else if (entry) {
        t.type = entry->value.type();
        if (t.type == gguf::ValueType::Array)
            t.elementType = entry->value.array().elementType();
    } else {
        error = key + " is a new key: give its type with --type " + key + "=TYPE";
        return false;
    }
    if (index) {
        if (t.type != gguf::ValueType::Array) {
            error = key + " is " + gguf::typeDisplayName(t.type, t.elementType) + ", not an array";
            return false;
        }
        const auto element = parseNamed(key, t.elementType, text, error);
        if (!element) {
            error = key + "[" + std::to_string(*index) + "]: " + error;
            return false;
        }
        if (!changes.setElement(key, *index, *element)) {
            error = key + "[" + std::to_string(*index) + "]: the key is removed or was given a shorter array";
            return false;
        }
        return true;
    }
    const auto value = t.type == gguf::ValueType::Array ? gguf::parseValue(t.type, text, error, t.elementType)
                                                        : parseNamed(key, t.type, text, error);
    if (!value) {
        error = key + " (" + gguf::typeDisplayName(t.type, t.elementType) + "): " + error;
        return false;
    }
    changes.set(key, *value);
    return true;
}

// A chat template is parsed as the window's live check parses it: one that does not is refused
// (nothing written) unless --force, and then written with a warning.
bool checkTemplate(const CommandArgs &args, const std::string &text, std::string &error)
{
    const gguf::ChatTemplate parsed(text);
    if (parsed.isValid())
        return true;
    const gguf::SourcePosition at = gguf::sourcePosition(text, parsed.errorOffset());
    const std::string where = *args.chatTemplateFile + ": the chat template does not parse: " + parsed.error() +
                              " at line " + std::to_string(at.line) + ", column " + std::to_string(at.column);
    if (!args.force) {
        error = where + " (--force writes it anyway)";
        return false;
    }
    std::fprintf(stderr, "gguf-inspect: warning: %s; written anyway (--force)\n", printable(where).c_str());
    return true;
}

bool readText(const std::string &path, std::string &out, std::string &error)
{
    if (path == "-") {
        out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = "cannot read " + path;
        return false;
    }
    std::ostringstream s;
    s << in.rdbuf();
    out = s.str();
    return true;
}

// The changes the command line asks for: KEY=VALUE (typed by --type), --chat-template-file,
// --remove; nullopt (and why in `error`) when one cannot be read.
std::optional<gguf::MetadataChanges> readChanges(const CommandArgs &args, const gguf::GgufFile &file,
                                                 std::string &error)
{
    std::map<std::string, TypeSpec> types;
    if (!readTypes(args.types, types, error))
        return std::nullopt;
    gguf::MetadataChanges changes;
    for (const std::string &assignment : args.rest)
        if (!addAssignment(file, assignment, types, changes, error))
            return std::nullopt;
    if (args.chatTemplateFile) {
        std::string text;
        if (!readText(*args.chatTemplateFile, text, error) || !checkTemplate(args, text, error))
            return std::nullopt;
        changes.set("tokenizer.chat_template", gguf::OwnedValue::string(std::move(text)));
    }
    for (const std::string &key : args.removes)
        changes.remove(key);
    return changes;
}

// A split set keeps the model's metadata in shard 1 (split.no 0), the only shard `set` edits: FILE
// being another shard is refused before anything else (usage, nothing written); shard 1 is edited
// alone, and a note on stderr says the other shards are unchanged.
std::optional<int> checkSplitShard(const CommandArgs &args, const gguf::GgufFile &file)
{
    if (const std::string refusal = gguf::otherShardRefusal(file); !refusal.empty())
        return setUsage(refusal + " (nothing was changed)");
    const uint64_t count = file.value("split.count").toUInt().value_or(0);
    if (count >= 2)
        std::fprintf(stderr,
                     "gguf-inspect: note: %s is shard 1 of a %llu-file split set; only this file is edited (the "
                     "other shards hold tensor data and stay as they are)\n",
                     printable(args.file).c_str(), static_cast<unsigned long long>(count));
    return std::nullopt;
}

// What the save did: counts of keys changed, added and removed, and how it was written.
int reportSet(const CommandArgs &args, const gguf::GgufFile &file, const gguf::MetadataChanges &changes,
              const gguf::HeaderPlan &plan, const gguf::SaveResult &result)
{
    size_t added = 0, removed = 0, edited = 0;
    for (const std::string &key : changes.order()) {
        const gguf::KeyChange *c = changes.find(key);
        if (c->kind == gguf::KeyChange::Kind::Remove)
            ++removed;
        else if (file.findMetadata(key))
            ++edited;
        else
            ++added;
    }
    if (args.json) {
        JsonWriter json(stdout);
        json.beginObject();
        json.field("path", result.path);
        json.field("in_place", result.inPlace);
        json.field("changed", edited);
        json.field("added", added);
        json.field("removed", removed);
        json.field("data_offset", plan.dataOffset);
        json.field("padding_key_bytes", plan.paddingKeyWritten ? plan.paddingBytes : 0);
        json.field("bytes_written", result.bytesWritten);
        json.endObject();
        return json.finish() ? kExitOk : kExitBadFile;
    }
    print(printable(result.path) + ": " + std::to_string(edited) + " changed, " + std::to_string(added) + " added, " +
          std::to_string(removed) + " removed; " +
          (result.inPlace ? "saved in place (" + humanBytes(result.bytesWritten) + " of header written)"
                          : "written by a copy (" + humanBytes(result.bytesWritten) + ")") +
          "\n");
    // a key the user did not write: say why it is there
    if (plan.paddingKeyWritten)
        print("note: " + plan.reason + "\n");
    return kExitOk;
}

// -o OUT or --in-place, and something to change; else the usage message's status.
std::optional<int> checkTarget(const CommandArgs &args)
{
    if (args.output.empty() && !args.inPlace)
        return setUsage("say where to write: -o OUT (a new file) or --in-place (FILE itself); nothing was changed");
    if (!args.output.empty() && args.inPlace)
        return setUsage("-o and --in-place exclude each other");
    if (args.rest.empty() && args.removes.empty() && !args.chatTemplateFile)
        return setUsage("nothing to change: give KEY=VALUE, --remove KEY or --chat-template-file F");
    return std::nullopt;
}

} // namespace

int runSet(const CommandArgs &args)
{
    if (const std::optional<int> refused = checkTarget(args))
        return *refused;

    const auto file = openFile(args.file);
    if (!file)
        return kExitBadFile;
    if (const std::optional<int> refused = checkSplitShard(args, *file))
        return *refused;

    std::string error;
    const std::optional<gguf::MetadataChanges> changes = readChanges(args, *file, error);
    if (!changes)
        return setUsage(error);

    // the plan checks the changes (MetadataChanges::problems) and says the first refusal
    gguf::HeaderOptions options;
    options.reserve = args.reserve;
    options.paddingKey = args.inPlace; // a copy (-o) moves the data rather than add a key
    const auto plan = gguf::planHeader(*file, *changes, options, error);
    if (!plan)
        return setUsage(error);

    const std::string target = args.inPlace ? args.file : args.output;
    const InterruptWatch interrupt;
    ProgressPrinter progress("copying the tensor data");
    const gguf::SaveResult result = gguf::writeEdited(
        *file, *plan, target, args.inPlace,
        gguf::SaveHooks{
            [&](uint64_t done, uint64_t total) { return !interrupt.interrupted() && progress(done, total); }, {}});
    if (!result.ok) {
        std::fprintf(stderr, "gguf-inspect: %s\n", printable(result.message).c_str());
        return kExitBadFile;
    }

    return reportSet(args, *file, *changes, *plan, result);
}

// `set` on a checkpoint: one .safetensors file's `__metadata__` (string to string), written by a
// copy beside the target, synced and renamed over it (core/edit/checkpoint_writer.h).
int runSetOf(const gguf::st::Checkpoint &checkpoint, const CommandArgs &args)
{
    if (const std::optional<int> refused = checkTarget(args))
        return *refused;
    if (!args.types.empty() || args.chatTemplateFile || args.reserve != 0)
        return setUsage("a safetensors file's __metadata__ holds strings only: --type, --chat-template-file and "
                        "--reserve are for a GGUF");
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string &arg : args.rest) {
        auto assignment = keyAndValue(arg);
        if (!assignment)
            return setUsage("'" + arg + "' is not KEY=VALUE");
        pairs.push_back(std::move(*assignment));
    }
    const std::string target = args.inPlace ? checkpoint.shards().front().path : args.output;
    const gguf::CheckpointPlan plan = gguf::planMetadataEdit(checkpoint, pairs, args.removes, target);
    if (!plan.error.empty()) {
        std::fprintf(stderr, "gguf-inspect: set: %s\n", printable(plan.error).c_str());
        return kExitBadFile;
    }
    const InterruptWatch interrupt;
    ProgressPrinter progress("copying the tensor data");
    const gguf::WriteOutcome out = gguf::writeCheckpointPlan(checkpoint, plan, [&](uint64_t done, uint64_t total) {
        return !interrupt.interrupted() && progress(done, total);
    });
    if (!out.ok) {
        std::fprintf(stderr, "gguf-inspect: set: %s\n", printable(out.message).c_str());
        return kExitBadFile;
    }
    if (args.json) {
        JsonWriter json(stdout);
        json.beginObject();
        json.field("path", target);
        json.field("in_place", plan.replace);
        json.field("set", static_cast<uint64_t>(pairs.size()));
        json.field("removed", static_cast<uint64_t>(args.removes.size()));
        json.field("bytes_written", out.bytesWritten);
        json.endObject();
        return json.finish() ? kExitOk : kExitBadFile;
    }
    print(printable(target) + ": __metadata__ " + countOf(pairs.size(), "key set", "keys set") + ", " +
          countOf(args.removes.size(), "removed", "removed") + "; written by a copy (" + humanBytes(out.bytesWritten) +
          " of tensor data)\n");
    return kExitOk;
}

} // namespace cli
