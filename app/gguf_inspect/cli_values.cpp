// SPDX-License-Identifier: GPL-3.0-or-later
// `dequant` and `stats`: the tensor values, decoded by the same core as the explorer's views.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/quant/dequantize.h"
#include "core/safetensors/checkpoint.h"
#include "core/stats/tensor_export.h"
#include "core/stats/tensor_stats.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>

namespace cli {
namespace {

// A tensor whose values a command reads: its info (a GGUF tensor's, or one made for a safetensors
// tensor, #43), how to reach its bytes, and why they cannot be read when that is known up front.
struct ValueTensor {
    const gguf::TensorInfo *info = nullptr;
    std::function<gguf::TensorData()> data;
    std::string unreadable;
    std::string type; ///< the type's name as the file calls it
};

// The tensors of FILE — a GGUF, a split set as a whole, or a safetensors checkpoint — and the files
// they are in (never written over).
struct ValueSource {
    std::vector<ValueTensor> tensors;
    std::vector<std::string> files;
    std::shared_ptr<const void> keep; ///< the model or checkpoint the infos point into
};

// What a safetensors tensor would be as a GGUF tensor info: the ggml type of its dtype (F32, F16,
// BF16, F64, I8–I64; others have none), its dims innermost first.
gguf::TensorInfo infoOf(const gguf::st::TensorEntry &t, uint32_t index)
{
    gguf::TensorInfo info;
    info.index = index;
    info.name = t.name;
    info.typeId = gguf::st::ggmlTypeOf(t.dtype).value_or(UINT32_MAX);
    info.nDims = static_cast<uint32_t>(std::min<size_t>(t.shape.size(), 4));
    for (size_t d = 0; d < info.nDims; ++d)
        info.ne[d] = t.shape[t.shape.size() - 1 - d];
    for (size_t d = 4; d < t.shape.size(); ++d) // more than four dims: the outer ones folded into the fourth
        info.ne[3] *= t.shape[t.shape.size() - 1 - d];
    info.elements = t.elements;
    info.byteSize = t.bytes();
    info.sizeFromType = info.byteSize == t.elements * gguf::st::dtypeSize(t.dtype);
    info.dataInFile = t.dataInFile;
    info.fileOffset = t.fileBegin;
    return info;
}

std::optional<ValueSource> checkpointValues(const std::string &path)
{
    gguf::Error error;
    const auto checkpoint = gguf::st::Checkpoint::open(path, error);
    if (!checkpoint) {
        reportError(path, error);
        return std::nullopt;
    }
    struct Kept {
        std::shared_ptr<const gguf::st::Checkpoint> checkpoint;
        std::vector<gguf::TensorInfo> infos;
    };
    auto kept = std::make_shared<Kept>();
    kept->checkpoint = checkpoint;
    for (size_t i = 0; i < checkpoint->tensors().size(); ++i)
        kept->infos.push_back(infoOf(*checkpoint->tensors()[i].entry, static_cast<uint32_t>(i)));
    ValueSource out;
    out.keep = kept;
    for (const gguf::st::Checkpoint::Shard &shard : checkpoint->shards())
        out.files.push_back(shard.path);
    for (size_t i = 0; i < checkpoint->tensors().size(); ++i) {
        const gguf::st::Checkpoint::TensorRef ref = checkpoint->tensors()[i];
        const gguf::st::SafetensorsFile *file = checkpoint->shards()[ref.shard].file.get();
        const gguf::TensorInfo *info = &kept->infos[i];
        ValueTensor v{info,
                      [file, info] {
                          return gguf::tensorData(file->source(), info->typeId, info->elements, info->fileOffset,
                                                  info->byteSize, info->dataInFile);
                      },
                      {},
                      std::string(gguf::st::dtypeName(ref.entry->dtype))};
        if (info->typeId == UINT32_MAX)
            v.unreadable = "its dtype " + std::string(gguf::st::dtypeName(ref.entry->dtype)) + " is not read yet";
        out.tensors.push_back(std::move(v));
    }
    return out;
}

std::optional<ValueSource> valuesOf(const std::string &path)
{
    if (gguf::st::Checkpoint::looksLikeCheckpoint(path))
        return checkpointValues(path);
    // a split set as a whole: every tensor of every shard
    const auto model = openModel(path);
    if (!model)
        return std::nullopt;
    ValueSource out;
    out.keep = model;
    for (const gguf::SplitModel::Shard &shard : model->shards())
        out.files.push_back(shard.path);
    for (const gguf::SplitModel::TensorRef &t : model->tensors()) {
        const gguf::GgufFile *file = model->shards()[t.shard].file.get();
        const gguf::TensorInfo *info = t.info;
        out.tensors.push_back(
            {info, [file, info] { return gguf::tensorData(*file, *info); }, {}, gguf::typeName(info->typeId)});
    }
    return out;
}

// The tensor called `name`; null (and one line on stderr) when there is none.
const ValueTensor *findTensorOrComplain(const ValueSource &source, const std::string &path, const std::string &name)
{
    for (const ValueTensor &t : source.tensors)
        if (t.info->name == name)
            return &t;
    std::fprintf(stderr,
                 "gguf-inspect: %s: no tensor named '%s' (%zu tensors; list them with 'gguf-inspect tensors %s')\n",
                 printable(path).c_str(), printable(name, 80).c_str(), source.tensors.size(), printable(path).c_str());
    return nullptr;
}

// Why a tensor's values cannot be produced, or empty when they can.
std::string whyNotDecodable(const ValueTensor &v)
{
    const gguf::TensorInfo &t = *v.info;
    if (!v.unreadable.empty())
        return v.unreadable;
    if (!gguf::canDequantize(t.typeId))
        return "its type " + gguf::typeName(t.typeId) + " cannot be decoded";
    if (!t.dataInFile)
        return "its data lies past the end of the file (the file is truncated)";
    if (!t.sizeFromType)
        return "its size does not follow from its shape and type";
    return {};
}

void writeStatsJson(JsonWriter &json, const gguf::TensorInfo &t, const gguf::TensorStatistics *s)
{
    json.beginObject();
    json.field("name", t.name);
    json.field("count", s ? s->count : t.elements);
    const auto numberOrNull = [&](const char *key, double v) {
        json.key(key);
        if (s && s->finite > 0)
            json.number(v);
        else
            json.null();
    };
    numberOrNull("min", s ? s->min : 0);
    numberOrNull("max", s ? s->max : 0);
    numberOrNull("mean", s ? s->mean : 0);
    numberOrNull("std", s ? s->std : 0);
    json.field("zeros", s ? s->zeros : 0);
    json.field("nan", s ? s->nan : 0);
    json.field("inf", s ? s->posInf + s->negInf : 0);
    json.key("percentiles");
    json.beginObject();
    static constexpr const char *kKeys[] = {"p1", "p5", "p25", "p50", "p75", "p95", "p99"};
    static_assert(std::size(kKeys) == gguf::kPercentileLevels.size());
    for (size_t i = 0; i < std::size(kKeys); ++i)
        numberOrNull(kKeys[i], s ? s->percentiles[i] : 0);
    json.endObject();
    json.field("percentiles_exact", s && s->percentilesExact);
    json.key("histogram");
    json.beginObject();
    json.key("lo");
    json.number(s ? s->histogram.lo : 0);
    json.key("hi");
    json.number(s ? s->histogram.hi : 0);
    json.key("counts");
    json.beginArray();
    if (s)
        for (uint64_t c : s->histogram.counts)
            json.unsignedInteger(c);
    json.endArray();
    json.field("below", s ? s->histogram.below : 0);
    json.field("above", s ? s->histogram.above : 0);
    json.field("exact", s && s->histogram.exact);
    json.endObject();
    if (s && s->sampledElements > 0) { // --sample, on a tensor larger than the sample
        json.field("sampled_elements", s->sampledElements);
    }
    json.endObject();
}

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

} // namespace

int runDequant(const CommandArgs &args)
{
    if (args.rest.size() != 1 || args.output.empty()) {
        std::fputs("gguf-inspect: usage: gguf-inspect dequant FILE TENSOR -o OUT (OUT ending in .npy writes NumPy; "
                   "'-' writes raw float32 to standard output)\n",
                   stderr);
        return kExitUsage;
    }
    // a shard of a split set, or of a checkpoint: the tensor may be in any shard
    const auto source = valuesOf(args.file);
    if (!source)
        return kExitBadFile;
    const ValueTensor *found = findTensorOrComplain(*source, args.file, args.rest[0]);
    if (!found)
        return kExitUsage;
    const gguf::TensorInfo *t = found->info;
    if (const std::string why = whyNotDecodable(*found); !why.empty()) {
        std::fprintf(stderr, "gguf-inspect: %s: tensor '%s': %s\n", args.file.c_str(), printable(t->name, 80).c_str(),
                     why.c_str());
        return kExitBadFile;
    }
    // never write over a file being read
    if (args.output != "-" && namesOneOf(source->files, args.output)) {
        std::fprintf(stderr, "gguf-inspect: refusing to write the output over the input file %s\n",
                     args.output.c_str());
        return kExitUsage;
    }
    std::FILE *out = args.output == "-" ? stdout : std::fopen(args.output.c_str(), "wb");
    if (!out) {
        std::fprintf(stderr, "gguf-inspect: cannot write %s: %s\n", args.output.c_str(), std::strerror(errno));
        return kExitBadFile;
    }
    const bool npy = args.output.size() > 4 && args.output.compare(args.output.size() - 4, 4, ".npy") == 0;
    const std::span<const uint64_t> dims(t->ne.data(), std::min<uint32_t>(t->nDims, 4));
    ProgressPrinter progress("decoding " + std::string(t->name));
    const gguf::TensorData data = found->data();
    const gguf::StatsStatus status = gguf::exportFloat32(
        data, dims, npy ? gguf::ExportFormat::Npy : gguf::ExportFormat::RawFloat32, out, std::ref(progress));
    const bool closed = out == stdout ? std::fflush(out) == 0 : std::fclose(out) == 0;
    if (const std::optional<gguf::Error> e = gguf::readError(data)) {
        std::fprintf(stderr, "gguf-inspect: %s\n", e->message.c_str()); // a remote file's bytes
        if (out != stdout)
            std::remove(args.output.c_str()); // no half-written file left behind
        return kExitBadFile;
    }
    if (status != gguf::StatsStatus::Ok || !closed) {
        std::fprintf(stderr, "gguf-inspect: writing %s failed\n", args.output.c_str());
        return kExitBadFile;
    }
    return kExitOk;
}

namespace {

// One tensor's statistics as `stats` computes them: exact unless --fast.
struct TensorOutcome {
    bool ok = false;
    std::string why; ///< when not ok: why not (empty: its values could not be decoded)
    gguf::TensorStatistics stats;
};

TensorOutcome statisticsOf(const CommandArgs &args, const ValueTensor &v)
{
    const gguf::TensorInfo &t = *v.info;
    TensorOutcome out;
    out.why = whyNotDecodable(v);
    if (!out.why.empty())
        return out;
    gguf::StatsOptions options;
    options.bins = static_cast<uint32_t>(args.bins);
    options.range = args.range;
    options.sampleBytes = static_cast<uint64_t>(args.sampleMiB) << 20;
    ProgressPrinter progress("statistics of " + std::string(t.name));
    options.progress = std::ref(progress);
    const gguf::TensorData data = v.data();
    out.ok = gguf::computeStatistics(data, options, out.stats) == gguf::StatsStatus::Ok;
    // the same first pass as the window's, then its exact passes
    if (out.ok && !args.fast)
        out.ok = gguf::refineStatistics(data, options, out.stats) == gguf::StatsStatus::Ok;
    if (const std::optional<gguf::Error> e = gguf::readError(data))
        out.why = e->message; // a remote file's bytes could not be fetched
    return out;
}

TextTable statsTable()
{
    constexpr auto right = TextTable::Align::Right;
    return TextTable({{"name"},
                      {"type"},
                      {"count", right},
                      {"min", right},
                      {"max", right},
                      {"mean", right},
                      {"std", right},
                      {"p1", right},
                      {"p50", right},
                      {"p99", right},
                      {"zeros", right},
                      {"nan", right},
                      {"inf", right}});
}

void addStatsRow(TextTable &table, const ValueTensor &v, const TensorOutcome &r)
{
    const gguf::TensorInfo &t = *v.info;
    if (!r.ok) {
        table.addRow(
            {printable(t.name, 64), v.type, groupDigits(t.elements), "-", "-", "-", "-", "-", "-", "-", "-", "-", "-"});
        return;
    }
    const gguf::TensorStatistics &s = r.stats;
    table.addRow({printable(t.name, 64), v.type, groupDigits(s.count), number(s.min), number(s.max), number(s.mean),
                  number(s.std), number(s.percentiles[0]), number(s.percentiles[3]), number(s.percentiles[6]),
                  groupDigits(s.zeros), groupDigits(s.nan), groupDigits(s.posInf + s.negInf)});
}

// What the figures under the table are: exact or estimated, of a sample or of every value.
void printStatsNotes(const CommandArgs &args, double worstRankError, uint64_t sampledRead, uint64_t sampledOf)
{
    if (!args.fast)
        print("(exact: percentiles as NumPy's np.percentile gives them, the histogram counted value by value)\n");
    else
        print("(--fast: percentiles are estimates within 2^-7 of the value; see the README)\n");
    if (sampledOf > 0)
        std::printf("(--sample: tensors over %lld MiB were read in evenly spaced blocks, %s of their %s "
                    "elements; every figure of those is of the values read)\n",
                    args.sampleMiB, groupDigits(sampledRead).c_str(), groupDigits(sampledOf).c_str());
    if (args.fast && worstRankError > 0)
        std::printf("(tensors over %llu elements: percentiles of a random sample, rank within ±%.3f points "
                    "with probability 1 - 1e-6)\n",
                    static_cast<unsigned long long>(gguf::StatsOptions{}.exactKeyElements), worstRankError);
}

} // namespace

int runStats(const CommandArgs &args)
{
    if (args.bins < 1 || args.bins > 65536) {
        std::fputs("gguf-inspect: --bins must be between 1 and 65536\n", stderr);
        return kExitUsage;
    }
    // a split set (or checkpoint) as a whole: every tensor of every shard, or the named ones wherever they are
    const auto source = valuesOf(args.file);
    if (!source)
        return kExitBadFile;
    std::vector<const ValueTensor *> chosen;
    for (const std::string &name : args.rest) {
        const ValueTensor *t = findTensorOrComplain(*source, args.file, name);
        if (!t)
            return kExitUsage;
        chosen.push_back(t);
    }
    if (args.rest.empty())
        for (const ValueTensor &t : source->tensors)
            chosen.push_back(&t);

    int status = kExitOk;
    JsonWriter json(stdout);
    if (args.json)
        json.beginArray();
    TextTable table = statsTable();
    double worstRankError = 0;               // of the tensors whose keys were sampled
    uint64_t sampledRead = 0, sampledOf = 0; // --sample: elements read, of the sampled tensors' elements
    for (const ValueTensor *m : chosen) {
        const gguf::TensorInfo *t = m->info;
        const TensorOutcome r = statisticsOf(args, *m);
        if (r.ok) {
            worstRankError = std::max(worstRankError, r.stats.percentileRankError);
            if (r.stats.sampledElements > 0) {
                sampledRead += r.stats.sampledElements;
                sampledOf += r.stats.count;
            }
        } else {
            std::fprintf(stderr, "gguf-inspect: %s: tensor '%s': %s\n", args.file.c_str(),
                         printable(t->name, 80).c_str(),
                         r.why.empty() ? "its values could not be decoded" : r.why.c_str());
            // a tensor without statistics: named or not, the answer is incomplete
            status = kExitBadFile;
        }
        if (args.json)
            writeStatsJson(json, *t, r.ok ? &r.stats : nullptr);
        else
            addStatsRow(table, *m, r);
    }
    if (args.json) {
        json.endArray();
        json.finish();
    } else {
        table.print();
        printStatsNotes(args, worstRankError, sampledRead, sampledOf);
    }
    return status;
}

} // namespace cli
