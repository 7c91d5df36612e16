// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

/// Parts of a shard file name `<base>-0000K-of-0000N.gguf`.
struct ShardName {
    std::string base;    ///< path before "-0000K-of-0000N.gguf"
    uint32_t number = 0; ///< K (1-based)
    uint32_t count = 0;  ///< N
    std::string suffix;  ///< what follows ".gguf" in a remote name ("@REVISION", "?query"); else empty
};

/// Recognises llama.cpp's split naming (`-%05d-of-%05d.gguf`, docs/FORMAT.md §6); nullopt for other names.
std::optional<ShardName> parseShardName(const std::string &path);
/// The path of shard `number` (1-based) of a split.
std::string shardPath(const ShardName &name, uint32_t number);

/// One model made of one or more GGUF files. Opening any shard finds the others; a shard that is
/// missing or unreadable is reported and the rest are still shown.
class SplitModel {
public:
    /// A tensor of the model: which shard, and its info there.
    struct TensorRef {
        uint32_t shard = 0; ///< index into shards()
        const TensorInfo *info = nullptr;
    };
    /// A shard slot: the file when it opened, else why not.
    struct Shard {
        std::string path;
        std::shared_ptr<const GgufFile> file;
        Error error;
        /// Without a file, what is there instead: "shard_missing", "shard_empty" (0 bytes),
        /// "shard_lfs_pointer" (a Git LFS pointer file), "shard_html" (a web page), or
        /// "shard_unreadable".
        std::string problem;
    };

    /// Where a set's structure broke off: a shard that opened damaged (its reading stopped at a
    /// field; the file holds what was read before the break).
    struct Break {
        size_t shard = 0;               ///< index into shards()
        const GgufFile *file = nullptr; ///< that shard's file (file->breakage(): the item and field)
    };
    /// What opening a path gave.
    enum class Outcome : uint8_t {
        Opened,        ///< a model, no shard damaged
        OpenedDamaged, ///< a model holding what was read before a break (firstBreak() says where)
        Refused,       ///< no model: not a GGUF, unreadable, or failed other than by a break
    };

    /// Opens `path`; when its name (or its `split.count` key) says it is part of a split, opens the
    /// other shards too. Fails (returns the error, no model) only when `path` itself cannot be read.
    /// `error` is `path`'s own failure, also when the model is returned: outcome() tells whether
    /// that is a break (the model is shown as far as it was read) or a refusal.
    static std::shared_ptr<const SplitModel> open(const std::string &path, Error &error,
                                                  const OpenOptions &options = {});
    /// The outcome of open() from what it gave: Refused without a model, or when `error` is not
    /// where a shard broke off; else OpenedDamaged when a shard broke off; else Opened.
    static Outcome outcome(const SplitModel *model, const Error &error);
    /// Wraps one already-opened file.
    static std::shared_ptr<const SplitModel> single(std::shared_ptr<const GgufFile> file);

    const std::vector<Shard> &shards() const { return m_shards; }
    bool isSplit() const { return m_shards.size() > 1; }
    /// The shard holding the model metadata (the first that opened, normally shard 1).
    const GgufFile &primary() const { return *m_shards[m_primary].file; }
    std::shared_ptr<const GgufFile> primaryShared() const { return m_shards[m_primary].file; }
    /// Tensors of all shards, in shard order then file order.
    const std::vector<TensorRef> &tensors() const { return m_tensors; }
    /// Shards that could not be opened, as "path: reason" lines.
    std::vector<std::string> problems() const;
    /// What is wrong with the set as a whole, as findings llama.cpp refuses it for, offset 0, each
    /// message naming the shard: a shard that is missing, empty, a Git LFS pointer, an HTML page or
    /// otherwise unreadable (Shard::problem); split.no not the shard's place ("split_no_mismatch");
    /// split.count not the number of shards ("split_count_mismatch"); split.tensors.count differing
    /// between shards ("shard_other_set") or from the tensors the shards hold
    /// ("split_tensors_count_mismatch"); a tensor in two shards ("tensor_duplicated"). Empty for a
    /// single file and for a whole, consistent set (docs/FORMAT.md §8).
    std::vector<Finding> setFindings() const;
    /// Whether llama.cpp would load the model: every shard there and accepted, the set consistent.
    bool llamaCppAccepts() const;
    /// Why llama.cpp would not load it, the first reason in shard order: a shard's first refusal
    /// (`shard` is its index), else a missing shard or one whose reading stopped (`shard` unset:
    /// the finding is about the set, or a file's own error). Empty when it would load it.
    struct Refusal {
        Finding finding;
        std::optional<size_t> shard; ///< set for a finding inside that shard's file
    };
    std::optional<Refusal> firstRefusal() const;
    uint64_t parameterCount() const;
    uint64_t totalFileSize() const;
    /// The first shard, in shard order, whose structure broke off; nullopt when none did.
    std::optional<Break> firstBreak() const;

private:
    SplitModel() = default;
    void indexTensors();

    std::vector<Shard> m_shards;
    size_t m_primary = 0;
    std::vector<TensorRef> m_tensors;
};

} // namespace gguf
