// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gguf {

class GgufFile;
class SplitModel;
struct TensorInfo;

/// What a GGUF file is (docs/KINDS.md): a model, or one of the other things written as GGUF.
enum class FileKind : uint8_t { Model, Adapter, Imatrix, Projector, ControlVector, Vocabulary };

/// "model", "adapter", "imatrix", "projector", "control-vector", "vocabulary" (`gguf-inspect info`).
const char *fileKindName(FileKind kind);
/// "model", "LoRA adapter", "importance matrix", "multimodal projector", "control vector", "vocabulary".
const char *fileKindTitle(FileKind kind);

/// Something about the kind's own structure that its loader in llama.cpp would object to.
struct KindFinding {
    std::string code; ///< e.g. "lora-pair-incomplete"
    std::string message;
    std::string tensor;   ///< the tensor concerned, when there is one
    bool refusal = false; ///< llama.cpp's loader refuses the file for it (else: a remark)
};

/// One LoRA target: `<base>.lora_a` ne = [n_in, r] and `<base>.lora_b` ne = [r, n_out].
struct LoraPair {
    std::string base; ///< the base model's tensor name
    const TensorInfo *a = nullptr;
    const TensorInfo *b = nullptr;
    uint64_t rank = 0; ///< lora_b's ne[0], as llama.cpp takes it
    uint64_t nIn = 0, nOut = 0;
    int32_t layer = -1;
    std::string role; ///< the name after "blk.N." (e.g. "attn_q.weight"), or the whole name
    /// The token embedding's pair, stored the other way round (llama.cpp's build_inp_embd):
    /// lora_a [r, n_vocab], lora_b [r, n_embd].
    bool embedding = false;
};

/// The pair of `base`'s lora_a and lora_b as llama.cpp reads it (rank = lora_b's ne[0]).
LoraPair makeLoraPair(const std::string &base, const TensorInfo &a, const TensorInfo &b);

struct LoraFacts {
    std::string adapterType;     ///< `adapter.type`
    std::optional<double> alpha; ///< `adapter.lora.alpha`
    std::vector<uint64_t> ranks; ///< distinct ranks, ascending
    std::vector<LoraPair> pairs; ///< complete pairs, in file order
    std::string taskName, promptPrefix;
    uint64_t invocationTokens = 0; ///< aLoRA's `adapter.alora.invocation_tokens` count
    uint64_t normTensors = 0;      ///< `*_norm.weight` tensors (llama.cpp skips them)
    /// llama.cpp's scale for a pair of rank r at adapter scale 1: alpha / r, or 1 without alpha.
    double scale(uint64_t rank) const;
};

/// One weight's collected activations: `W.in_sum2` [n_in, n_mat] and `W.counts` [1, n_mat].
struct ImatrixEntry {
    std::string weight;
    const TensorInfo *sum2 = nullptr;
    const TensorInfo *counts = nullptr;
    uint64_t nIn = 0, nMat = 0;
    std::vector<double> countValues; ///< one per matrix (expert)
};

struct ImatrixExpert {
    std::string tensor;
    uint64_t expert = 0;
};

struct ImatrixFacts {
    std::vector<std::string> datasets;
    std::optional<uint64_t> chunkCount, chunkSize;
    std::vector<ImatrixEntry> entries;
    std::vector<ImatrixExpert> unusedExperts; ///< matrices whose count rounds to 0
    bool truncated = false;                   ///< more counts or unused experts than are kept
};

struct EncoderFacts {
    std::optional<uint64_t> imageSize, patchSize, embeddingLength, blockCount, feedForwardLength, projectionDim,
        headCount;
};

struct ProjectorFacts {
    std::string type; ///< `clip.projector_type` (or the vision/audio one)
    bool hasVision = false, hasAudio = false;
    std::optional<EncoderFacts> vision, audio;
};

struct ControlDirection {
    uint64_t layer = 0;
    const TensorInfo *tensor = nullptr;
};

struct ControlVectorFacts {
    std::string modelHint;
    std::optional<uint64_t> layerCount;
    uint64_t embeddingLength = 0;
    std::vector<ControlDirection> directions; ///< by layer
};

/// `quantize.imatrix.*`: a model quantized with an importance matrix.
struct ImatrixRecord {
    std::string file, dataset;
    std::optional<uint64_t> entries, chunks;
};

struct KindReport {
    FileKind kind = FileKind::Model;
    std::string why; ///< what decided it, e.g. "general.type = adapter"
    std::optional<LoraFacts> lora;
    std::optional<ImatrixFacts> imatrix;
    std::optional<ProjectorFacts> projector;
    std::optional<ControlVectorFacts> controlVector;
    std::optional<ImatrixRecord> quantizedWith;
    std::vector<KindFinding> findings;
};

/// Splits a tensor name by llama.cpp's block naming: "blk.12.attn_q.weight" → 12, "attn_q.weight";
/// a name outside the blocks → -1, the whole name.
void layerAndRole(const std::string &name, int32_t &layer, std::string &role);

/// The kind of `file` from its metadata and tensor names alone (cheap: reads no tensor data);
/// `why` gets what decided it.
FileKind detectKind(const GgufFile &file, std::string *why = nullptr);

/// `quantize.imatrix.*`, when `file` records the importance matrix it was quantized with (cheap).
std::optional<ImatrixRecord> quantizedWithImatrix(const GgufFile &file);

/// Recognizes the kind of `file` (detectKind) and reads its facts. Reads the small `counts` tensors of an imatrix
/// (one float per matrix); nothing else of the tensor data.
KindReport describeKind(const GgufFile &file);

/// One adapter pair against the base model, as llama.cpp checks it before applying the adapter.
struct BaseCheck {
    std::string base;
    bool found = false;
    bool shapeOk = false;
    std::string problem; ///< llama.cpp's words when it would refuse
};

struct AdapterCheck {
    bool architectureOk = false;
    uint64_t adapterRefusals = 0; ///< the adapter's own problems llama.cpp refuses (KindFinding::refusal)
    std::string adapterArchitecture, baseArchitecture;
    std::vector<BaseCheck> pairs;
    uint64_t refused = 0; ///< pairs llama.cpp would refuse
    /// Shards of a split base that could not be opened ("path: reason"): their tensors count as
    /// missing, as they would for llama.cpp.
    std::vector<std::string> baseProblems;
    /// True when llama.cpp would apply the adapter to this base.
    bool applies() const { return architectureOk && adapterRefusals == 0 && refused == 0; }
};

/// Checks a LoRA adapter (its report from describeKind) against a base model, as
/// src/llama-adapter.cpp does before applying it.
AdapterCheck checkAdapterAgainstBase(const GgufFile &adapter, const KindReport &report, const GgufFile &base);
/// The same against a base of one or more shards (every shard's tensors).
AdapterCheck checkAdapterAgainstBase(const GgufFile &adapter, const KindReport &report, const SplitModel &base);

} // namespace gguf
