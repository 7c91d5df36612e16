// SPDX-License-Identifier: GPL-3.0-or-later
// planSplit, planMerge and writePlan (docs/EDITING.md §6). The files are GGUF v3 little-endian, as
// gguf-split writes them: the kept key/value pairs copied byte for byte from a v2/v3 little-endian
// source, the split keys and the tensor infos encoded here, the data region padded to the
// alignment, each tensor's data padded to it too.
#include "core/edit/shard_writer.h"

#include "core/format/byte_source.h"
#include "core/format/split_model.h"

#include "output_file.h"

#include <cstdio>

namespace gguf {
namespace {

constexpr uint64_t kDefaultAlignment = 32;

uint64_t padded(uint64_t n, uint64_t alignment)
{
    return (n + alignment - 1) / alignment * alignment;
}

bool isSplitKey(std::string_view key)
{
    return key == "split.no" || key == "split.count" || key == "split.tensors.count";
}

void putU32(std::vector<uint8_t> &out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}
void putU64(std::vector<uint8_t> &out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}
void putString(std::vector<uint8_t> &out, std::string_view s)
{
    putU64(out, s.size());
    out.insert(out.end(), s.begin(), s.end());
}
// A pair of an integer type (UINT16 or INT32), little-endian.
void putIntPair(std::vector<uint8_t> &out, std::string_view key, ValueType type, uint64_t v)
{
    putString(out, key);
    putU32(out, uint32_t(type));
    for (uint32_t i = 0; i < valueTypeSize(type); ++i)
        out.push_back(uint8_t(v >> (8 * i)));
}

// Why `model` cannot be read into shards or a merged file here, or "".
std::string refusal(const SplitModel &model)
{
    for (const SplitModel::Shard &s : model.shards()) {
        if (!s.file)
            return s.path + ": " + (s.error.message.empty() ? std::string("could not be opened") : s.error.message);
        if (!s.file->complete())
            return s.path + ": the file could not be read whole: " + s.file->error().message;
        if (s.file->byteSwapped() || s.file->version() < 2)
            return s.path + ": only little-endian GGUF v2 and v3 files are split and merged here (this is " +
                   (s.file->byteSwapped() ? std::string("big-endian") : "version 1") + ")";
        if (s.file->isRemote())
            return s.path + ": a remote file cannot be split or merged; download it first";
    }
    if (const std::vector<Finding> set = model.setFindings(); !set.empty())
        return set.front().message;
    return {};
}

// The header of one output file: the kept pairs of `metadata` (a shard's file, or null), the
// split keys when `no` is set, the tensor infos, the padding.
std::vector<uint8_t> headerOf(const SplitModel &model, const PlannedFile &file, const GgufFile *metadata,
                              std::optional<uint16_t> no, uint16_t count, uint64_t alignment)
{
    std::vector<uint8_t> out{'G', 'G', 'U', 'F'};
    putU32(out, 3);
    putU64(out, file.tensors.size());
    const size_t kvCountAt = out.size();
    putU64(out, 0);
    uint64_t pairs = 0;
    if (metadata)
        for (const MetadataEntry &e : metadata->metadata()) {
            if (isSplitKey(e.key))
                continue;
            const std::span<const uint8_t> raw = metadata->bytes(e.offset, e.end() - e.offset);
            out.insert(out.end(), raw.begin(), raw.end());
            ++pairs;
        }
    if (no) { // gguf-split's order: split.no, split.tensors.count, split.count
        putIntPair(out, "split.no", ValueType::Uint16, *no);
        putIntPair(out, "split.tensors.count", ValueType::Int32, model.tensors().size());
        putIntPair(out, "split.count", ValueType::Uint16, count);
        pairs += 3;
    }
    for (int i = 0; i < 8; ++i)
        out[kvCountAt + size_t(i)] = uint8_t(pairs >> (8 * i));
    uint64_t offset = 0;
    for (const size_t t : file.tensors) {
        const TensorInfo &info = *model.tensors()[t].info;
        putString(out, info.name);
        putU32(out, info.nDims);
        for (uint32_t d = 0; d < info.nDims; ++d)
            putU64(out, d < 4 ? info.ne[d] : 1);
        putU32(out, info.typeId);
        putU64(out, offset);
        offset += padded(info.byteSize, alignment);
    }
    out.resize(padded(out.size(), alignment), 0);
    return out;
}

} // namespace

std::vector<PlannedFile> packTensors(size_t count, const std::function<uint64_t(size_t)> &bytesOf,
                                     const SplitLimits &limits, std::string &error)
{
    if (limits.maxTensors == 0 && limits.maxBytes == 0) {
        error = "give --split-max-tensors N or --split-max-size SIZE";
        return {};
    }
    std::vector<PlannedFile> files(1);
    for (size_t t = 0; t < count; ++t) {
        const uint64_t bytes = bytesOf(t);
        const PlannedFile &cur = files.back();
        if ((limits.maxTensors && cur.tensors.size() >= limits.maxTensors) ||
            (limits.maxBytes && !cur.tensors.empty() && cur.dataBytes + bytes > limits.maxBytes))
            files.emplace_back();
        files.back().tensors.push_back(t);
        files.back().dataBytes += bytes;
    }
    return files;
}

WritePlan planSplit(const SplitModel &model, const std::string &prefix, const SplitLimits &limits)
{
    WritePlan plan;
    if ((plan.error = refusal(model)); !plan.error.empty())
        return plan;
    std::vector<PlannedFile> files = packTensors(
        model.tensors().size(), [&](size_t t) { return padded(model.tensors()[t].info->byteSize, kDefaultAlignment); },
        limits, plan.error);
    if (files.empty())
        return plan;
    if (files.size() > 65535) {
        plan.error = "that makes " + std::to_string(files.size()) + " shards; split.count holds at most 65535";
        return plan;
    }
    for (size_t k = 0; k < files.size(); ++k)
        files[k].path = shardFileName(prefix, k, files.size(), "gguf");
    plan.files = std::move(files);
    return plan;
}

std::string shardFileName(const std::string &prefix, size_t k, size_t count, const char *extension)
{
    char suffix[64];
    std::snprintf(suffix, sizeof suffix, "-%05zu-of-%05zu.%s", k + 1, count, extension);
    return prefix + suffix;
}

WritePlan planMerge(const SplitModel &model, const std::string &out)
{
    WritePlan plan;
    if ((plan.error = refusal(model)); !plan.error.empty())
        return plan;
    PlannedFile file{out, {}, 0};
    for (size_t t = 0; t < model.tensors().size(); ++t) {
        file.tensors.push_back(t);
        file.dataBytes += padded(model.tensors()[t].info->byteSize, model.primary().alignment());
    }
    plan.files.push_back(std::move(file));
    return plan;
}

WriteOutcome writePlan(const SplitModel &model, const WritePlan &plan, bool split, const ProgressFn &progress)
{
    if (!plan.error.empty()) {
        WriteOutcome out;
        out.message = plan.error;
        return out;
    }
    std::vector<std::string> paths;
    uint64_t total = 0;
    for (const PlannedFile &f : plan.files) {
        paths.push_back(f.path);
        total += f.dataBytes;
    }
    return writeFiles(
        paths, false, total, progress,
        [&](size_t k, FileFill &sink) {
            const PlannedFile &f = plan.files[k];
            // shard 1 (or the merged file) takes the model's metadata and its alignment; the other
            // shards hold no general.alignment, so their readers use 32
            const GgufFile *metadata = k == 0 ? &model.primary() : nullptr;
            const uint64_t alignment = k == 0 ? model.primary().alignment() : kDefaultAlignment;
            const std::vector<uint8_t> header =
                headerOf(model, f, metadata, split ? std::optional<uint16_t>(uint16_t(k)) : std::nullopt,
                         uint16_t(plan.files.size()), alignment);
            if (!sink.write(header.data(), header.size()))
                return false;
            static const uint8_t zeros[256] = {};
            for (const size_t t : f.tensors) {
                const SplitModel::TensorRef &ref = model.tensors()[t];
                const GgufFile &src = *model.shards()[ref.shard].file;
                const std::span<const uint8_t> bytes = src.tensorBytes(*ref.info);
                if (bytes.size() != ref.info->byteSize)
                    return sink.fail(src.path() + ": tensor " + std::string(ref.info->name) +
                                     "'s data is not inside the file");
                if (!sink.data(bytes))
                    return false;
                for (uint64_t pad = padded(bytes.size(), alignment) - bytes.size(); pad > 0;) {
                    const uint64_t n = std::min<uint64_t>(pad, sizeof zeros);
                    if (!sink.write(zeros, n))
                        return false;
                    pad -= n;
                }
            }
            return true;
        },
        [&] { return detail::changedSource(model.shards()); });
}

} // namespace gguf
