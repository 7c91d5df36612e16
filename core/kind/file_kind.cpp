// SPDX-License-Identifier: GPL-3.0-or-later
// The other kinds of GGUF and what their loaders in llama.cpp expect: LoRA adapters
// (src/llama-adapter.cpp), importance matrices (tools/imatrix/imatrix.cpp), multimodal projectors
// (tools/mtmd/clip-impl.h), control vectors (common/common.cpp); docs/KINDS.md.
#include "core/kind/file_kind.h"

#include "core/format/ggml_types.h"
#include "core/format/gguf_file.h"
#include "core/format/split_model.h"
#include "core/util/byte_order.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

namespace gguf {
namespace {

constexpr uint64_t kMaxCountsRead = 1 << 16;    // matrices per imatrix entry read (experts are at most a few hundred)
constexpr uint64_t kMaxCountsTotal = 1 << 22;   // counts read over the whole file
constexpr uint64_t kMaxUnusedExperts = 1 << 16; // unused experts listed

bool endsWith(std::string_view s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

std::string text(const GgufFile &f, std::string_view key)
{
    return std::string(f.value(key).toStringView());
}

std::optional<uint64_t> number(const GgufFile &f, std::string_view key)
{
    return f.value(key).toUInt();
}

bool hasKeyWithPrefix(const GgufFile &f, std::string_view prefix)
{
    return std::any_of(f.metadata().begin(), f.metadata().end(),
                       [&](const MetadataEntry &e) { return startsWith(e.key, prefix); });
}

bool anyTensorEndsWith(const GgufFile &f, std::string_view suffix)
{
    return std::any_of(f.tensors().begin(), f.tensors().end(),
                       [&](const TensorInfo &t) { return endsWith(t.name, suffix); });
}

LoraFacts readLora(const GgufFile &f, std::vector<KindFinding> &findings)
{
    LoraFacts lora;
    lora.adapterType = text(f, "adapter.type");
    const Value alpha = f.value("adapter.lora.alpha");
    if (const auto v = alpha.toDouble())
        lora.alpha = *v;
    if (alpha.isValid() && alpha.type() != ValueType::Float32)
        findings.push_back(
            {"adapter-alpha-type", "adapter.lora.alpha is not a FLOAT32: llama.cpp cannot read it", {}, true});
    lora.taskName = text(f, "adapter.lora.task_name");
    lora.promptPrefix = text(f, "adapter.lora.prompt_prefix");
    const Value tokens = f.value("adapter.alora.invocation_tokens");
    lora.invocationTokens = tokens.array().size();
    if (tokens.isValid() && (tokens.type() != ValueType::Array || tokens.array().elementType() != ValueType::Uint32))
        findings.push_back({"adapter-alora-tokens",
                            "adapter.alora.invocation_tokens is not an array of UINT32: llama.cpp refuses it",
                            {},
                            true});
    if (text(f, "general.type") != "adapter")
        findings.push_back({"adapter-general-type",
                            "general.type is '" + text(f, "general.type") + "': llama.cpp expects 'adapter'",
                            {},
                            true});
    if (lora.adapterType != "lora")
        findings.push_back(
            {"adapter-type", "adapter.type is '" + lora.adapterType + "': llama.cpp expects 'lora'", {}, true});

    // bundle lora_a and lora_b into pairs by base name, as llama.cpp does
    std::map<std::string, std::pair<const TensorInfo *, const TensorInfo *>> byBase;
    std::vector<std::string> order;
    for (const TensorInfo &t : f.tensors()) {
        const std::string name(t.name);
        const bool a = endsWith(name, ".lora_a"), b = endsWith(name, ".lora_b");
        if (a || b) {
            const std::string base = name.substr(0, name.size() - 7);
            auto [it, added] = byBase.try_emplace(base);
            if (added)
                order.push_back(base);
            (a ? it->second.first : it->second.second) = &t;
        } else if (endsWith(name, "_norm.weight")) {
            ++lora.normTensors; // llama.cpp skips these
        } else {
            findings.push_back({"lora-unexpected-tensor",
                                "'" + name + "' is neither .lora_a nor .lora_b: llama.cpp refuses the adapter", name,
                                true});
        }
    }
    std::set<uint64_t> ranks;
    for (const std::string &base : order) {
        const auto [a, b] = byBase[base];
        if (!a || !b) {
            findings.push_back({"lora-pair-incomplete",
                                "'" + base + "' has " + (a ? "lora_a but no lora_b" : "lora_b but no lora_a") +
                                    ": llama.cpp refuses the adapter (a pair is missing one component)",
                                base + (a ? ".lora_a" : ".lora_b"), true});
            continue;
        }
        LoraPair p = makeLoraPair(base, *a, *b);
        if (!p.embedding && a->ne[1] != b->ne[0])
            findings.push_back({"lora-rank-mismatch",
                                "'" + base + "': lora_a has rank " + std::to_string(a->ne[1]) + ", lora_b " +
                                    std::to_string(b->ne[0]) + " (llama.cpp: lora_a tensor is not transposed)",
                                base + ".lora_a", true});
        ranks.insert(p.rank);
        lora.pairs.push_back(std::move(p));
    }
    lora.ranks.assign(ranks.begin(), ranks.end());
    if (lora.pairs.empty())
        findings.push_back({"lora-no-pairs", "no complete lora_a/lora_b pair: the adapter changes nothing", {}});
    return lora;
}

std::vector<double> readCounts(const GgufFile &f, const TensorInfo &t)
{
    std::vector<double> out;
    const ByteLease lease = f.tensorLease(t);
    const auto bytes = lease.bytes();
    const uint64_t n = std::min<uint64_t>(t.elements, kMaxCountsRead);
    if (t.typeId != ggmlTypeId(GgmlType::F32) || bytes.size() < n * 4)
        return out;
    out.reserve(n);
    for (uint64_t i = 0; i < n; ++i)
        out.push_back(loadAs<float>(bytes.data() + 4 * i, f.byteSwapped()));
    return out;
}

// The imatrix.* keys llama-quantize needs (datasets, chunk count and size), and what is wrong with them.
void readImatrixMetadata(const GgufFile &f, ImatrixFacts &m, std::vector<KindFinding> &findings)
{
    const ArrayRef datasets = f.value("imatrix.datasets").array();
    for (uint64_t i = 0; i < datasets.size() && i < 1000; ++i)
        m.datasets.emplace_back(datasets.stringAt(i));
    m.chunkCount = number(f, "imatrix.chunk_count");
    m.chunkSize = number(f, "imatrix.chunk_size");
    // llama-quantize stops with "missing imatrix metadata" without these (tools/quantize)
    for (const char *key : {"imatrix.datasets", "imatrix.chunk_count", "imatrix.chunk_size"})
        if (!f.findMetadata(key))
            findings.push_back(
                {"imatrix-metadata", std::string(key) + " is missing: llama-quantize refuses the file", {}, true});
    for (const char *key : {"imatrix.chunk_count", "imatrix.chunk_size"})
        if (const MetadataEntry *e = f.findMetadata(key); e && e->value.type() != ValueType::Uint32)
            findings.push_back(
                {"imatrix-metadata", std::string(key) + " is not a UINT32: llama.cpp cannot read it", {}, true});
}

// The in_sum2 / counts tensor pairs of each weight, in file order; other tensors are counted.
void pairImatrixTensors(const GgufFile &f, ImatrixFacts &m, std::vector<KindFinding> &findings)
{
    std::map<std::string, size_t> byWeight;
    auto entryFor = [&](const std::string &weight) -> ImatrixEntry & {
        auto [it, added] = byWeight.try_emplace(weight, m.entries.size());
        if (added) {
            m.entries.emplace_back();
            m.entries.back().weight = weight;
        }
        return m.entries[it->second];
    };
    uint64_t ignored = 0;
    for (const TensorInfo &t : f.tensors()) {
        const std::string name(t.name);
        if (endsWith(name, ".in_sum2"))
            entryFor(name.substr(0, name.size() - 8)).sum2 = &t;
        else if (endsWith(name, ".counts"))
            entryFor(name.substr(0, name.size() - 7)).counts = &t;
        else
            ++ignored; // common/imatrix-loader.cpp skips them
    }
    if (ignored > 0)
        findings.push_back(
            {"imatrix-other-tensors",
             std::to_string(ignored) + " tensor(s) are neither in_sum2 nor counts: llama.cpp ignores them",
             {}});
}

ImatrixFacts readImatrix(const GgufFile &f, std::vector<KindFinding> &findings)
{
    ImatrixFacts m;
    readImatrixMetadata(f, m, findings);
    pairImatrixTensors(f, m, findings);
    uint64_t countsRead = 0;
    for (ImatrixEntry &e : m.entries) {
        if (!e.sum2 || !e.counts) {
            findings.push_back({"imatrix-entry-incomplete",
                                "'" + e.weight + "' has " +
                                    (e.sum2 ? "in_sum2 but no counts" : "counts but no in_sum2") +
                                    ": llama.cpp's loader needs both",
                                e.weight, true});
            continue;
        }
        e.nIn = e.sum2->ne[0];
        e.nMat = e.sum2->ne[1];
        // the loader reads counts by element count: one per matrix
        if (e.counts->elements != e.nMat || e.counts->typeId != ggmlTypeId(GgmlType::F32) ||
            e.sum2->typeId != ggmlTypeId(GgmlType::F32)) {
            findings.push_back({"imatrix-counts-shape",
                                "'" + e.weight + "': counts should be " + std::to_string(e.nMat) +
                                    " F32 values beside in_sum2 F32 [" + std::to_string(e.nIn) + ", " +
                                    std::to_string(e.nMat) + "], found " + std::to_string(e.counts->elements),
                                std::string(e.counts->name), true});
            continue;
        }
        if (countsRead >= kMaxCountsTotal) {
            m.truncated = true;
            continue;
        }
        e.countValues = readCounts(f, *e.counts);
        countsRead += e.countValues.size();
        uint64_t zero = 0;
        for (uint64_t x = 0; x < e.countValues.size(); ++x)
            if (std::lround(e.countValues[x]) == 0) { // the loader rounds the counts
                ++zero;
                if (m.unusedExperts.size() < kMaxUnusedExperts)
                    m.unusedExperts.push_back({e.weight, x});
                else
                    m.truncated = true;
            }
        if (zero > 0 && zero == e.countValues.size())
            findings.push_back({"imatrix-zero-counts",
                                "'" + e.weight + "': every count is zero, so no importance can be computed",
                                std::string(e.counts->name)});
    }
    return m;
}

std::optional<EncoderFacts> readEncoder(const GgufFile &f, const std::string &which)
{
    const std::string p = "clip." + which + ".";
    if (!hasKeyWithPrefix(f, p))
        return std::nullopt;
    EncoderFacts e;
    e.imageSize = number(f, p + "image_size");
    e.patchSize = number(f, p + "patch_size");
    e.embeddingLength = number(f, p + "embedding_length");
    e.blockCount = number(f, p + "block_count");
    e.feedForwardLength = number(f, p + "feed_forward_length");
    e.projectionDim = number(f, p + "projection_dim");
    e.headCount = number(f, p + "attention.head_count");
    return e;
}

ProjectorFacts readProjector(const GgufFile &f)
{
    ProjectorFacts p;
    p.type = text(f, "clip.projector_type");
    if (p.type.empty())
        p.type = text(f, "clip.vision.projector_type");
    if (p.type.empty())
        p.type = text(f, "clip.audio.projector_type");
    p.hasVision = f.value("clip.has_vision_encoder").toBool().value_or(false);
    p.hasAudio = f.value("clip.has_audio_encoder").toBool().value_or(false);
    p.vision = readEncoder(f, "vision");
    p.audio = readEncoder(f, "audio");
    return p;
}

ControlVectorFacts readControlVector(const GgufFile &f, std::vector<KindFinding> &findings)
{
    ControlVectorFacts c;
    c.modelHint = text(f, "controlvector.model_hint");
    c.layerCount = number(f, "controlvector.layer_count");
    for (const TensorInfo &t : f.tensors()) {
        const std::string_view name = t.name;
        // llama.cpp takes what follows "direction." with std::stoi: leading digits, the rest ignored
        int32_t layer = -1;
        const bool named = startsWith(name, "direction.");
        const auto [ptr, ec] = named ? std::from_chars(name.data() + 10, name.data() + name.size(), layer)
                                     : std::from_chars_result{name.data(), std::errc::invalid_argument};
        (void)ptr;
        if (!named || ec != std::errc() || layer <= 0) {
            findings.push_back(
                {"control-vector-name",
                 "'" + std::string(name) + "' is not direction.N with N ≥ 1: llama.cpp refuses the control vector",
                 std::string(name), true});
            continue;
        }
        if (t.typeId != ggmlTypeId(GgmlType::F32) ||
            t.elements != t.ne[0]) { // ggml_n_dims: trailing dims of 1 do not count
            findings.push_back({"control-vector-tensor",
                                "'" + std::string(name) + "' must be a 1-D F32 tensor for llama.cpp", std::string(name),
                                true});
            continue;
        }
        if (c.embeddingLength == 0)
            c.embeddingLength = t.ne[0];
        else if (t.ne[0] != c.embeddingLength)
            findings.push_back({"control-vector-size",
                                "'" + std::string(name) + "' has " + std::to_string(t.ne[0]) +
                                    " values, the first had " + std::to_string(c.embeddingLength) +
                                    ": llama.cpp refuses the control vector",
                                std::string(name), true});
        c.directions.push_back({uint64_t(layer), &t});
    }
    std::sort(c.directions.begin(), c.directions.end(),
              [](const ControlDirection &a, const ControlDirection &b) { return a.layer < b.layer; });
    return c;
}

} // namespace

void layerAndRole(const std::string &name, int32_t &layer, std::string &role)
{
    layer = -1;
    role = name;
    if (!startsWith(name, "blk."))
        return;
    const size_t dot = name.find('.', 4);
    int32_t n = -1;
    const auto [ptr, ec] =
        std::from_chars(name.data() + 4, name.data() + (dot == std::string::npos ? name.size() : dot), n);
    if (ec == std::errc() && dot != std::string::npos && ptr == name.data() + dot) {
        layer = n;
        role = name.substr(dot + 1);
    }
}

LoraPair makeLoraPair(const std::string &base, const TensorInfo &a, const TensorInfo &b)
{
    LoraPair p;
    p.base = base;
    p.a = &a;
    p.b = &b;
    p.embedding = endsWith(base, "token_embd.weight");
    p.rank = b.ne[0];
    p.nIn = p.embedding ? a.ne[1] : a.ne[0];
    p.nOut = b.ne[1];
    layerAndRole(base, p.layer, p.role);
    return p;
}

const char *fileKindName(FileKind kind)
{
    switch (kind) {
    case FileKind::Model: return "model";
    case FileKind::Adapter: return "adapter";
    case FileKind::Imatrix: return "imatrix";
    case FileKind::Projector: return "projector";
    case FileKind::ControlVector: return "control-vector";
    case FileKind::Vocabulary: return "vocabulary";
    }
    return "model";
}

const char *fileKindTitle(FileKind kind)
{
    switch (kind) {
    case FileKind::Model: return "model";
    case FileKind::Adapter: return "LoRA adapter";
    case FileKind::Imatrix: return "importance matrix";
    case FileKind::Projector: return "multimodal projector";
    case FileKind::ControlVector: return "control vector";
    case FileKind::Vocabulary: return "vocabulary";
    }
    return "model";
}

double LoraFacts::scale(uint64_t rank) const
{
    if (!alpha || *alpha == 0 || rank == 0)
        return 1.0;
    return *alpha / double(rank);
}

FileKind detectKind(const GgufFile &f, std::string *why)
{
    const std::string type = text(f, "general.type");
    const std::string arch = f.architecture();
    const std::string adapterType = text(f, "adapter.type");
    // general.type decides when it names a kind; the architecture, keys and tensor names otherwise
    const bool controlVector = arch == "controlvector" || hasKeyWithPrefix(f, "controlvector.");
    const bool imatrix = type == "imatrix" || (type.empty() && anyTensorEndsWith(f, ".in_sum2"));
    const bool projector = type == "mmproj" || arch == "clip" || (type.empty() && hasKeyWithPrefix(f, "clip."));
    const bool adapter =
        type == "adapter" ||
        (type.empty() && (!adapterType.empty() || anyTensorEndsWith(f, ".lora_a") || anyTensorEndsWith(f, ".lora_b")));
    std::string reason;
    FileKind kind = FileKind::Model;
    if (controlVector && !imatrix && !adapter) {
        kind = FileKind::ControlVector;
        reason = arch == "controlvector" ? "general.architecture = controlvector" : "controlvector keys";
    } else if (imatrix) {
        kind = FileKind::Imatrix;
        reason = type == "imatrix" ? "general.type = imatrix" : "tensors named *.in_sum2";
    } else if (adapter) {
        kind = FileKind::Adapter;
        reason = type == "adapter" ? "general.type = adapter"
                                   : (!adapterType.empty() ? "adapter.type" : "tensors named *.lora_a / *.lora_b");
    } else if (projector) {
        kind = FileKind::Projector;
        reason =
            arch == "clip" ? "general.architecture = clip" : (type == "mmproj" ? "general.type = mmproj" : "clip keys");
    } else if (f.tensors().empty() && f.value("split.count").toUInt().value_or(0) <= 1) {
        kind = FileKind::Vocabulary;
        reason = "no tensors";
    } else {
        reason = f.tensors().empty() ? "first shard of a split model, its tensors in the others"
                                     : (type.empty() ? "tensors, no general.type" : "general.type = " + type);
    }
    if (why)
        *why = std::move(reason);
    return kind;
}

KindReport describeKind(const GgufFile &f)
{
    KindReport r;
    r.kind = detectKind(f, &r.why);
    switch (r.kind) {
    case FileKind::ControlVector: r.controlVector = readControlVector(f, r.findings); break;
    case FileKind::Imatrix: r.imatrix = readImatrix(f, r.findings); break;
    case FileKind::Adapter: r.lora = readLora(f, r.findings); break;
    case FileKind::Projector: r.projector = readProjector(f); break;
    case FileKind::Model:
    case FileKind::Vocabulary: break;
    }
    r.quantizedWith = quantizedWithImatrix(f);
    return r;
}

std::optional<ImatrixRecord> quantizedWithImatrix(const GgufFile &f)
{
    if (!hasKeyWithPrefix(f, "quantize.imatrix."))
        return std::nullopt;
    ImatrixRecord q;
    q.file = text(f, "quantize.imatrix.file");
    q.dataset = text(f, "quantize.imatrix.dataset");
    q.entries = number(f, "quantize.imatrix.entries_count");
    q.chunks = number(f, "quantize.imatrix.chunks_count");
    return q;
}

namespace {

/// The checks of checkAdapterAgainstBase, with the base's tensors found by `find`.
template <typename Find>
AdapterCheck checkPairs(const GgufFile &adapter, const KindReport &report, const std::string &baseArchitecture,
                        Find find)
{
    AdapterCheck c;
    for (const KindFinding &f : report.findings)
        c.adapterRefusals += f.refusal ? 1 : 0;
    if (!report.lora)
        return c;
    const LoraFacts &lora = *report.lora;
    c.adapterArchitecture = adapter.architecture();
    c.baseArchitecture = baseArchitecture;
    c.architectureOk = c.adapterArchitecture == c.baseArchitecture;
    for (const LoraPair &p : lora.pairs) {
        BaseCheck b;
        b.base = p.base;
        const TensorInfo *w = find(p.base);
        b.found = w != nullptr;
        if (!w) {
            b.problem = "does not exist in the base model (hint: maybe wrong base model?)";
        } else if (p.embedding) {
            // the embedding's pair is stored the other way round (llama.cpp's llm_build_inp_embd)
            b.shapeOk = w->ne[0] == p.b->ne[1] && w->ne[1] == p.a->ne[1];
        } else {
            b.shapeOk = w->ne[0] == p.a->ne[0] && w->ne[1] == p.b->ne[1];
        }
        if (w && !b.shapeOk)
            b.problem = "has incorrect shape: base [" + std::to_string(w->ne[0]) + ", " + std::to_string(w->ne[1]) +
                        "], adapter [" + std::to_string(p.nIn) + " → " + std::to_string(p.nOut) + "]";
        if (!b.problem.empty())
            ++c.refused;
        c.pairs.push_back(std::move(b));
    }
    return c;
}

} // namespace

AdapterCheck checkAdapterAgainstBase(const GgufFile &adapter, const KindReport &report, const GgufFile &base)
{
    return checkPairs(adapter, report, base.architecture(),
                      [&base](const std::string &name) { return base.findTensor(name); });
}

AdapterCheck checkAdapterAgainstBase(const GgufFile &adapter, const KindReport &report, const SplitModel &base)
{
    // every shard's tensors: a split base holds its weights in the shards after the first
    std::unordered_map<std::string_view, const TensorInfo *> byName;
    byName.reserve(base.tensors().size());
    for (const SplitModel::TensorRef &t : base.tensors())
        byName.emplace(t.info->name, t.info);
    AdapterCheck c = checkPairs(adapter, report, base.primary().architecture(), [&byName](const std::string &name) {
        const auto it = byName.find(name);
        return it == byName.end() ? nullptr : it->second;
    });
    c.baseProblems = base.problems();
    return c;
}

} // namespace gguf
