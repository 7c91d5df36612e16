// SPDX-License-Identifier: GPL-3.0-or-later
// `tensors`: the tensor index.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"

#include <algorithm>
#include <cstdio>

namespace cli {
namespace {

// Offsets are named twice over: `offset` (kept for scripts) and `data_offset` count from the start
// of the tensor data, `file_offset` from the start of the file holding the tensor. A split set's
// tensors are one list; `shard` (1-based) says which file holds each.
void writeTensorIndexJson(const gguf::SplitModel &model)
{
    JsonWriter json(stdout);
    json.beginArray();
    const std::vector<gguf::SplitModel::TensorRef> &tensors = model.tensors();
    for (size_t i = 0; i < tensors.size(); ++i) {
        const gguf::TensorInfo &t = *tensors[i].info;
        const gguf::GgufFile &file = *model.shards()[tensors[i].shard].file;
        json.beginObject();
        json.field("index", uint64_t(i));
        json.field("name", t.name);
        json.field("type", gguf::typeName(t.typeId));
        json.field("type_id", t.typeId);
        json.key("dims");
        json.beginArray();
        for (uint32_t d = 0; d < std::min<uint32_t>(t.nDims, 4); ++d)
            json.unsignedInteger(t.ne[d]);
        json.endArray();
        json.field("elements", t.elements);
        json.field("bytes", t.byteSize);
        json.field("offset", t.relativeOffset);
        json.field("data_offset", t.relativeOffset);
        json.key("file_offset");
        // unknown in a file whose tensor infos broke off: the data starts after their end
        if (file.tensorInfoEnd() != 0)
            json.unsignedInteger(t.fileOffset);
        else
            json.null();
        if (model.isSplit())
            json.field("shard", uint64_t(tensors[i].shard) + 1);
        json.endObject();
    }
    json.endArray();
    json.finish();
}

// What the table held: the count, elements and data size, or where a shard's reading stopped.
void printTotals(const gguf::SplitModel &model)
{
    for (const gguf::SplitModel::Shard &shard : model.shards()) {
        if (!shard.file || shard.file->tensorInfoEnd() != 0)
            continue;
        // a file broke off before the end of its tensor infos: the error follows on stderr
        const gguf::GgufFile &file = *shard.file;
        const std::string where = model.isSplit() ? printable(shard.path) + ": " : std::string();
        if (file.headerEnd() == 0)
            print(where + "no tensor infos read: the header broke off\n");
        else
            print(where + std::to_string(file.tensors().size()) + " of " +
                  countOf(file.declaredTensorCount(), "tensor info", "tensor infos") + " read, " +
                  countOf(file.parameterCount(), "element", "elements") + "; where the data starts is unknown\n");
        return;
    }
    uint64_t bytes = 0;
    for (const gguf::SplitModel::TensorRef &t : model.tensors())
        bytes += t.info->byteSize;
    std::string line = countOf(model.tensors().size(), "tensor", "tensors");
    if (model.isSplit())
        line += " in " + std::to_string(model.shards().size()) + " files";
    line += ", " + countOf(model.parameterCount(), "element", "elements") + ", " + humanBytes(bytes) + " of data";
    if (!model.isSplit())
        line += " starting at offset " + std::to_string(model.primary().dataOffset());
    print(line + "\n");
}

} // namespace

int runTensors(const CommandArgs &args)
{
    // a split set as one list; a damaged file or set: the tensor infos that were read, then the error
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    if (args.names) {
        // raw bytes, as stored: what a shell completion or a script hands back to the other commands
        for (const gguf::SplitModel::TensorRef &t : model->tensors()) {
            std::fwrite(t.info->name.data(), 1, t.info->name.size(), stdout);
            std::fputc('\n', stdout);
        }
    } else if (args.json) {
        writeTensorIndexJson(*model);
    } else {
        printTensorTable(*model, 0, model->tensors().size(), 0);
        printTotals(*model);
    }
    return reportModelProblem(*model) ? kExitBadFile : kExitOk;
}

} // namespace cli
