// SPDX-License-Identifier: GPL-3.0-or-later
// planCheckpointSplit, planCheckpointMerge, planMetadataEdit and writeCheckpointPlan
// (docs/SAFETENSORS.md §10).
#include "core/edit/checkpoint_writer.h"

#include "core/safetensors/checkpoint.h"
#include "core/util/json_text.h"

#include "output_file.h"

#include <algorithm>
#include <filesystem>

namespace gguf {
namespace {

using st::Checkpoint;

// Why `checkpoint` cannot be rewritten, or "": every shard read whole, accepted by the reference
// rules, local, and every tensor's bytes inside its file.
std::string checkpointRefusal(const Checkpoint &checkpoint)
{
    for (const Checkpoint::Shard &s : checkpoint.shards()) {
        if (!s.file)
            return s.path + ": " + (s.error.message.empty() ? std::string("could not be opened") : s.error.message);
        if (s.file->source().isRemote())
            return s.path + ": a remote checkpoint cannot be rewritten; download it first";
    }
    if (!checkpoint.referenceAccepts())
        return checkpoint.path() + ": the checkpoint is damaged (see validate); it is not rewritten";
    for (const Checkpoint::TensorRef &t : checkpoint.tensors())
        if (!t.entry->dataInFile)
            return checkpoint.shards()[t.shard].path + ": " + t.entry->name + "'s data is not inside the file";
    if (checkpoint.tensors().empty())
        return checkpoint.path() + ": no tensors to write";
    return {};
}

std::vector<std::pair<std::string, std::string>> firstMetadata(const Checkpoint &checkpoint)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const st::MetadataItem &m : checkpoint.shards().front().file->metadata())
        out.emplace_back(m.key, m.value);
    return out;
}

// One file at `path` holding every tensor of `checkpoint`, in order.
CheckpointFile wholeCheckpoint(const Checkpoint &checkpoint, const std::string &path)
{
    CheckpointFile file{path, {}, 0};
    for (size_t t = 0; t < checkpoint.tensors().size(); ++t) {
        file.tensors.push_back(t);
        file.dataBytes += checkpoint.tensors()[t].entry->bytes();
    }
    return file;
}

// transformers' index: {"metadata": {"total_size": N}, "weight_map": {tensor: shard}}, keys sorted,
// indented by two, as save_pretrained writes it.
std::string indexText(const Checkpoint &checkpoint, const CheckpointPlan &plan)
{
    std::vector<std::pair<std::string, std::string>> map;
    uint64_t total = 0;
    for (const CheckpointFile &f : plan.files) {
        const std::string base = std::filesystem::path(f.path).filename().string();
        for (const size_t t : f.tensors)
            map.emplace_back(checkpoint.tensors()[t].entry->name, base);
        total += f.dataBytes;
    }
    std::sort(map.begin(), map.end());
    std::string out =
        "{\n  \"metadata\": {\n    \"total_size\": " + std::to_string(total) + "\n  },\n  \"weight_map\": {";
    for (size_t i = 0; i < map.size(); ++i) {
        out += i ? ",\n    " : "\n    ";
        appendJsonString(out, map[i].first);
        out += ": ";
        appendJsonString(out, map[i].second);
    }
    out += "\n  }\n}\n";
    return out;
}

// The header a file of `plan` gets (the 8-byte length, the JSON, the spaces).
std::string checkpointHeader(const Checkpoint &checkpoint, const CheckpointPlan &plan, const CheckpointFile &file)
{
    std::string json = "{";
    if (!plan.metadata.empty()) {
        json += "\"__metadata__\":{";
        for (size_t i = 0; i < plan.metadata.size(); ++i) {
            json += i ? "," : "";
            appendJsonString(json, plan.metadata[i].first);
            json += ':';
            appendJsonString(json, plan.metadata[i].second);
        }
        json += '}';
    }
    uint64_t offset = 0;
    for (const size_t t : file.tensors) {
        const st::TensorEntry &e = *checkpoint.tensors()[t].entry;
        json += json.size() > 1 ? "," : "";
        appendJsonString(json, e.name);
        json += ":{\"dtype\":\"" + std::string(st::dtypeName(e.dtype)) + "\",\"shape\":[";
        for (size_t d = 0; d < e.shape.size(); ++d)
            json += (d ? "," : "") + std::to_string(e.shape[d]);
        json += "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + e.bytes()) + "]}";
        offset += e.bytes();
    }
    json += '}';
    json.append((8 - json.size() % 8) % 8, ' ');
    std::string out(8, '\0');
    uint64_t n = json.size();
    for (int i = 0; i < 8; ++i, n >>= 8)
        out[i] = static_cast<char>(n & 0xff);
    return out + json;
}

} // namespace

CheckpointPlan planCheckpointSplit(const Checkpoint &checkpoint, const std::string &prefix, const SplitLimits &limits)
{
    CheckpointPlan plan;
    if ((plan.error = checkpointRefusal(checkpoint)); !plan.error.empty())
        return plan;
    std::vector<CheckpointFile> files = packTensors(
        checkpoint.tensors().size(), [&](size_t t) { return checkpoint.tensors()[t].entry->bytes(); }, limits,
        plan.error);
    if (files.empty())
        return plan;
    if (files.size() > 99999) {
        plan.error = "that makes " + std::to_string(files.size()) + " shards; the names hold at most 99999";
        return plan;
    }
    for (size_t k = 0; k < files.size(); ++k)
        files[k].path = shardFileName(prefix, k, files.size(), "safetensors");
    plan.files = std::move(files);
    plan.indexPath = prefix + ".safetensors.index.json";
    plan.metadata = firstMetadata(checkpoint);
    return plan;
}

CheckpointPlan planCheckpointMerge(const Checkpoint &checkpoint, const std::string &out)
{
    CheckpointPlan plan;
    if ((plan.error = checkpointRefusal(checkpoint)); !plan.error.empty())
        return plan;
    if (checkpoint.shards().size() < 2) {
        plan.error = checkpoint.path() + " is one file already; merge joins the shards of an index or a folder";
        return plan;
    }
    plan.files.push_back(wholeCheckpoint(checkpoint, out));
    plan.metadata = firstMetadata(checkpoint);
    return plan;
}

CheckpointPlan planMetadataEdit(const Checkpoint &checkpoint,
                                const std::vector<std::pair<std::string, std::string>> &set,
                                const std::vector<std::string> &remove, const std::string &target)
{
    CheckpointPlan plan;
    if ((plan.error = checkpointRefusal(checkpoint)); !plan.error.empty())
        return plan;
    if (checkpoint.shards().size() != 1) {
        plan.error = checkpoint.path() + " has " + std::to_string(checkpoint.shards().size()) +
                     " shards; set edits the __metadata__ of one .safetensors file: name the shard";
        return plan;
    }
    std::vector<std::pair<std::string, std::string>> metadata = firstMetadata(checkpoint);
    for (const std::string &key : remove) {
        const auto it = std::find_if(metadata.begin(), metadata.end(), [&](const auto &m) { return m.first == key; });
        if (it == metadata.end()) {
            plan.error = "--remove " + key + ": __metadata__ has no such key";
            return plan;
        }
        metadata.erase(it);
    }
    for (const std::pair<std::string, std::string> &change : set) {
        const auto it =
            std::find_if(metadata.begin(), metadata.end(), [&](const auto &m) { return m.first == change.first; });
        if (it != metadata.end())
            it->second = change.second;
        else
            metadata.push_back(change);
    }
    std::error_code ec;
    plan.replace = std::filesystem::equivalent(target, checkpoint.shards().front().path, ec);
    // an edit in place goes to the file a symbolic link names, not over the link
    const std::string path = plan.replace ? std::filesystem::canonical(target, ec).string() : target;
    plan.files.push_back(wholeCheckpoint(checkpoint, ec || path.empty() ? target : path));
    plan.metadata = std::move(metadata);
    return plan;
}

WriteOutcome writeCheckpointPlan(const Checkpoint &checkpoint, const CheckpointPlan &plan, const ProgressFn &progress)
{
    if (!plan.error.empty()) {
        WriteOutcome out;
        out.message = plan.error;
        return out;
    }
    std::vector<std::string> paths;
    uint64_t total = 0;
    for (const CheckpointFile &f : plan.files) {
        paths.push_back(f.path);
        total += f.dataBytes;
    }
    if (!plan.indexPath.empty())
        paths.push_back(plan.indexPath);
    return writeFiles(
        paths, plan.replace, total, progress,
        [&](size_t k, FileFill &sink) {
            if (k == plan.files.size()) // the index, after the shards
                return sink.write(indexText(checkpoint, plan));
            const CheckpointFile &f = plan.files[k];
            if (!sink.write(checkpointHeader(checkpoint, plan, f)))
                return false;
            for (const size_t t : f.tensors) {
                const Checkpoint::TensorRef &ref = checkpoint.tensors()[t];
                const st::SafetensorsFile &src = *checkpoint.shards()[ref.shard].file;
                if (!sink.data(std::span(src.source().data() + ref.entry->fileBegin, ref.entry->bytes())))
                    return false;
            }
            return true;
        },
        [&] { return detail::changedSource(checkpoint.shards()); });
}

} // namespace gguf
