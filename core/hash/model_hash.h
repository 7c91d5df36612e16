// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What llama.cpp's llama-gguf-hash computes (#45; docs/HASH.md): a hash of each tensor's data and
// one of all tensors' data in order, never of the metadata, so that editing the metadata leaves
// them as they were — XXH64 (seed 0), SHA-1, SHA-256, and a UUIDv5 in llama.cpp's namespace over
// the same bytes.

#include "core/format/errors.h"
#include "core/util/parallel_chunks.h"

#include "core/stats/tensor_data.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gguf {

class SplitModel;

enum class HashKind : uint8_t { Xxh64, Sha1, Sha256, Uuid };
inline constexpr HashKind kHashKinds[] = {HashKind::Xxh64, HashKind::Sha1, HashKind::Sha256, HashKind::Uuid};
const char *hashKindName(HashKind kind); ///< "xxh64", "sha1", "sha256", "uuid"
std::optional<HashKind> hashKindFromName(std::string_view name);

/// Which hashes to compute.
struct HashSelection {
    bool kinds[4] = {false, false, false, false}; ///< by HashKind
    bool perTensor = true;                        ///< false: the whole model only (--no-layer)
    bool has(HashKind k) const { return kinds[size_t(k)]; }
    void set(HashKind k) { kinds[size_t(k)] = true; }
    bool any() const { return kinds[0] || kinds[1] || kinds[2] || kinds[3]; }
};

/// One line of llama-gguf-hash's output: a tensor's hash, or (tensor empty) the whole model's.
struct HashLine {
    HashKind kind = HashKind::Xxh64;
    std::string digest; ///< lowercase hex (xxh64: 16 digits, big-endian); uuid: 8-4-4-4-12
    std::string tensor; ///< empty for the whole model
};

struct ModelHashes {
    std::vector<HashLine> lines; ///< per tensor in the model's order (xxh64, sha1, sha256), then the model's
    uint64_t bytes = 0;          ///< tensor data hashed
    std::optional<Error> error;  ///< a tensor's data could not be read (then no lines)
    bool cancelled = false;
};

/// One tensor's bytes to hash: its name, its data (only the bytes are read) and where they lie.
struct HashedTensor {
    std::string name;
    TensorData data;
    uint64_t size = 0;       ///< bytes hashed (from the start of data.bytes)
    uint64_t fileOffset = 0; ///< for messages
    std::string file;        ///< for messages
};

/// The hashes of `tensors` in order (llama-gguf-hash's lines: each tensor's, then all of them as
/// one model's). `progress` gets bytes done of all; false cancels.
ModelHashes hashTensors(const std::vector<HashedTensor> &tensors, const HashSelection &which,
                        const ProgressFn &progress = {});

/// The hashes of `model`'s tensors (all shards of a split set, in order: the whole-model hashes
/// equal those of the merged file). `progress` gets bytes done of all; false cancels.
ModelHashes hashModel(const SplitModel &model, const HashSelection &which, const ProgressFn &progress = {});

/// llama-gguf-hash's line: the kind padded to 8 columns, two spaces, the digest, two spaces, and
/// `file` (then ":" and the tensor's name for a tensor's line).
std::string hashLineText(const HashLine &line, const std::string &file);

/// One line of a manifest (llama-gguf-hash's output, or its --check output): kind, digest, name.
struct ManifestLine {
    HashKind kind = HashKind::Xxh64;
    std::string digest, name;
};
/// The lines of a manifest's text whose first word is a hash kind (the others are skipped).
std::vector<ManifestLine> parseManifest(std::string_view text);
/// The strongest kind the manifest holds (sha256, sha1, xxh64, uuid: llama-gguf-hash's choice).
std::optional<HashKind> strongestKind(const std::vector<ManifestLine> &manifest);

enum class CheckResult : uint8_t { Ok, Mismatch, NotFound };
const char *checkResultName(CheckResult result); ///< "Ok", "Mismatch", "Not Found"

/// Each line of `hashes` against `manifest`: the entry of the same kind and name (FILE:tensor or
/// FILE) decides, else — the file named otherwise — the entry of the same kind and tensor (the
/// name's part after its last ':'), or for the whole model the entry of that kind that is no
/// tensor's of `tensors`.
struct CheckedLine {
    HashLine line;
    CheckResult result = CheckResult::NotFound;
};
struct ManifestCheck {
    std::vector<CheckedLine> lines;
    std::vector<std::string> differing; ///< the tensors (and "the whole model (KIND)") that differ
    bool missing = false;               ///< the manifest has no entry for this model at all
    bool ok() const { return differing.empty() && !missing; }
};
ManifestCheck checkAgainst(const std::vector<HashLine> &hashes, const std::vector<ManifestLine> &manifest,
                           const std::string &file, const std::vector<std::string> &tensors);

} // namespace gguf
