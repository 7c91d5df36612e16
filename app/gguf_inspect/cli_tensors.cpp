// SPDX-License-Identifier: GPL-3.0-or-later
// `tensors`: the tensor index.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"

#include <algorithm>
#include <cstdio>

namespace cli {
namespace {

void writeTensorIndexJson(const gguf::GgufFile &file)
{
    JsonWriter json(stdout);
    json.beginArray();
    for (const gguf::TensorInfo &t : file.tensors()) {
        json.beginObject();
        json.field("index", t.index);
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
        json.key("file_offset");
        // unknown in a file whose tensor infos broke off: the data starts after their end
        if (file.tensorInfoEnd() != 0)
            json.unsignedInteger(t.fileOffset);
        else
            json.null();
        json.endObject();
    }
    json.endArray();
    json.finish();
}

void printTable(const gguf::GgufFile &file)
{
    TextTable table({{"#", TextTable::Align::Right},
                     {"name"},
                     {"type"},
                     {"shape"},
                     {"elements", TextTable::Align::Right},
                     {"bytes", TextTable::Align::Right},
                     {"offset", TextTable::Align::Right},
                     {"file offset", TextTable::Align::Right}});
    for (const gguf::TensorInfo &t : file.tensors()) {
        std::string bytes = groupDigits(t.byteSize);
        if (t.sizeInferred)
            bytes += " (inferred)";
        table.addRow({std::to_string(t.index), printable(t.name, 64), gguf::typeName(t.typeId), shapeText(t),
                      groupDigits(t.elements), bytes, groupDigits(t.relativeOffset),
                      file.tensorInfoEnd() != 0 ? groupDigits(t.fileOffset) : "?"});
    }
    table.print();
    if (file.tensorInfoEnd() == 0) {
        // the file broke off before the end of its tensor infos: the error follows on stderr
        if (file.headerEnd() == 0)
            print("no tensor infos read: the header broke off\n");
        else
            print(std::to_string(file.tensors().size()) + " of " + std::to_string(file.declaredTensorCount()) +
                  " tensor infos read, " + groupDigits(file.parameterCount()) +
                  " elements; where the data starts is unknown\n");
        return;
    }
    print(std::to_string(file.tensors().size()) + " tensors, " + groupDigits(file.parameterCount()) + " elements, " +
          humanBytes(file.tensorDataBytes()) + " of data starting at offset " + std::to_string(file.dataOffset()) +
          "\n");
}

} // namespace

int runTensors(const CommandArgs &args)
{
    // a damaged file: the tensor infos that were read, then the error
    const auto file = openFile(args.file, OpenMode::Partial);
    if (!file)
        return kExitBadFile;
    if (args.names) {
        // raw bytes, as stored: what a shell completion or a script hands back to the other commands
        for (const gguf::TensorInfo &t : file->tensors()) {
            std::fwrite(t.name.data(), 1, t.name.size(), stdout);
            std::fputc('\n', stdout);
        }
    } else if (args.json)
        writeTensorIndexJson(*file);
    else
        printTable(*file);
    if (file->error()) {
        reportError(args.file, file->error());
        return kExitBadFile;
    }
    return kExitOk;
}

} // namespace cli
