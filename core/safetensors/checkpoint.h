// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A Hugging Face checkpoint (docs/SAFETENSORS.md §4): one .safetensors file, the shards a
// `model.safetensors.index.json` names, or a folder holding either, with the folder's config.json.
// A missing or damaged shard is reported and the others are still read, as for a GGUF split set.

#include "core/safetensors/json_reader.h"
#include "core/safetensors/safetensors_file.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gguf::st {

class Checkpoint {
public:
    struct Shard {
        std::string path;
        std::shared_ptr<const SafetensorsFile> file; ///< null when it could not be read at all
        Error error;                                 ///< why not, or where its header broke
    };
    /// A tensor of the checkpoint: its shard and its entry there.
    struct TensorRef {
        uint32_t shard = 0;
        const TensorEntry *entry = nullptr;
    };

    /// Opens `path`: a .safetensors file; a `*.index.json`; or a folder, through its
    /// `model.safetensors.index.json`, else its `.safetensors` files (sorted by name). Null, with
    /// `error`, only when nothing can be read: no such path, an index that is not JSON, a folder
    /// without a checkpoint.
    static std::shared_ptr<const Checkpoint> open(const std::string &path, Error &error);

    /// Whether `path` names a checkpoint rather than a GGUF: a folder with a config.json or a
    /// .safetensors file in it, a file whose name ends in ".safetensors.index.json", or a file whose
    /// first bytes are a safetensors header.
    static bool looksLikeCheckpoint(const std::string &path);

    const std::string &path() const { return m_path; }
    /// The folder the shards and config.json are in.
    const std::string &folder() const { return m_folder; }
    /// The index file, when the checkpoint has one.
    const std::string &indexPath() const { return m_indexPath; }
    const std::vector<Shard> &shards() const { return m_shards; }
    /// Every tensor of every shard that opened, shard by shard in header order.
    const std::vector<TensorRef> &tensors() const { return m_tensors; }
    /// A finding about the checkpoint as a whole, and the file its offset is in (the index, or a
    /// shard).
    struct FileFinding {
        std::string file;
        Finding finding;
    };
    /// What is wrong with the checkpoint as a whole (index against shards, missing shards,
    /// repeated tensors); each shard's own findings are in its file.
    const std::vector<FileFinding> &findings() const { return m_findings; }
    /// config.json, when the folder has one that is JSON.
    const json::Value *config() const { return m_config ? &*m_config : nullptr; }
    /// Why config.json could not be read (empty when it was, or there is none).
    const std::string &configProblem() const { return m_configProblem; }

    /// config.json's `architectures[0]`, else its `model_type`, else "".
    std::string architecture() const;
    uint64_t parameterCount() const;
    uint64_t tensorBytes() const;
    /// Every shard opened, its header whole, and neither it nor the checkpoint has an Error finding.
    bool referenceAccepts() const;
    const TensorRef *tensor(std::string_view name) const;
    /// The path of `file` beside the checkpoint: in its folder, or beside its index or file (a URL's
    /// or hf: name's sibling, its revision kept).
    std::string besidePath(const std::string &file) const;
    /// The bytes of `file` beside the checkpoint (at most 64 MiB; local or remote); nullopt with
    /// `error` when it cannot be read (NotFound when there is none).
    std::optional<std::string> readBeside(const std::string &file, Error &error) const;

private:
    void openIndex(const std::string &indexPath, Error &error);
    void openShards(const std::vector<std::string> &paths);
    void readConfig();
    void checkIndex(const json::Value &weightMap, const json::Value *metadata);

    std::string m_path, m_folder, m_indexPath;
    std::vector<Shard> m_shards;
    std::vector<TensorRef> m_tensors;
    std::vector<FileFinding> m_findings;
    void note(std::string file, Severity severity, std::string code, uint64_t offset, std::string message);
    std::optional<json::Value> m_config;
    std::string m_configProblem;
};

} // namespace gguf::st
