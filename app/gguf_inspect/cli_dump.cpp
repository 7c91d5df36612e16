// SPDX-License-Identifier: GPL-3.0-or-later
// `dump`: the document llama.cpp's gguf-py/gguf/scripts/gguf_dump.py --json [--json-array] prints,
// rebuilt from our parse. Where gguf-py's reader has quirks (it flattens nested arrays, takes an
// array's element types from element 0 only), they are reproduced, so scripts see the same values.
// The script's goldens and what its document holds: tests/data/gguf-dump/README.md; nested arrays:
// docs/FORMAT.md §1.6.
#include "app/gguf_inspect/commands.h"

#include "app/gguf_inspect/json_writer.h"
#include "core/format/ggml_types.h"
#include "core/format/gguf_value.h"
#include "core/util/byte_order.h"

#include <algorithm>
#include <cstdio>

namespace cli {
namespace {

using gguf::ArrayRef;
using gguf::Value;
using gguf::ValueType;

// gguf-py's ReaderField.types: the value's type, then (for arrays) the types of element 0, recursively.
std::vector<ValueType> typeChain(const Value &value)
{
    std::vector<ValueType> chain{value.type()};
    Value current = value;
    while (current.isValid() && current.type() == ValueType::Array) {
        const ArrayRef array = current.array();
        if (!array.isValid() || array.empty())
            break;
        chain.push_back(array.elementType());
        current = array.at(0);
    }
    return chain;
}

// A scalar as Python's json writes numpy's tolist() of it.
void writeScalar(JsonWriter &json, const Value &v)
{
    switch (v.type()) {
    case ValueType::Uint8:
    case ValueType::Uint16:
    case ValueType::Uint32:
    case ValueType::Uint64: json.unsignedInteger(v.toUInt().value_or(0)); return;
    case ValueType::Int8:
    case ValueType::Int16:
    case ValueType::Int32:
    case ValueType::Int64: json.integer(v.toInt().value_or(0)); return;
    case ValueType::Float32:
    case ValueType::Float64: json.number(v.toDouble().value_or(0.0)); return;
    case ValueType::Bool: json.boolean(v.toBool().value_or(false)); return;
    case ValueType::String: json.string(v.toStringView()); return;
    case ValueType::Array: break;
    }
    json.null();
}

// The leaves of an array, depth first, as gguf-py's ReaderField.contents() flattens them: with a
// STRING sub-type every leaf is decoded as text (even a number's raw bytes); otherwise a string
// leaf contributes its bytes as integers.
void writeLeaves(JsonWriter &json, const gguf::GgufFile &file, const ArrayRef &array, bool stringSubType)
{
    for (uint64_t i = 0; i < array.size(); ++i) {
        const Value element = array.at(i);
        if (!element.isValid())
            return;
        if (element.type() == ValueType::Array) {
            writeLeaves(json, file, element.array(), stringSubType);
        } else if (stringSubType && element.type() != ValueType::String) {
            const auto raw = file.bytes(element.offset(), element.size());
            json.string(std::string_view(reinterpret_cast<const char *>(raw.data()), raw.size()));
        } else if (!stringSubType && element.type() == ValueType::String) {
            for (unsigned char c : element.toStringView())
                json.unsignedInteger(c);
        } else {
            writeScalar(json, element);
        }
    }
}

void writeField(JsonWriter &json, std::string_view name, uint64_t index, std::string_view type, uint64_t offset)
{
    json.key(name);
    json.beginObject();
    json.field("index", index);
    json.field("type", type);
    json.field("offset", offset);
}

// gguf-py names tensor types by GGMLQuantizationType; ids it does not know keep our name.
std::string tensorTypeName(uint32_t id)
{
    const gguf::TypeTraits &traits = gguf::typeTraits(id);
    return traits.name.empty() ? gguf::typeName(id) : std::string(traits.name);
}

// All stored dims, innermost first, read from the record (TensorInfo keeps only four).
void writeShape(JsonWriter &json, const gguf::GgufFile &file, const gguf::TensorInfo &t)
{
    const uint64_t dimSize = file.v1() ? 4 : 8;
    const auto bytes = file.bytes(t.dimsOffset, uint64_t(t.nDims) * dimSize);
    json.beginArray();
    for (size_t d = 0; d + dimSize <= bytes.size(); d += dimSize)
        json.unsignedInteger(dimSize == 4 ? gguf::loadAs<uint32_t>(bytes.data() + d, file.byteSwapped())
                                          : gguf::loadAs<uint64_t>(bytes.data() + d, file.byteSwapped()));
    json.endArray();
}

// One file's document, its fields written into the object the caller opened.
void writeDocument(JsonWriter &json, const std::string &filename, const gguf::GgufFile &file, bool jsonArray)
{
    json.field("filename", filename);
    json.field("endian", file.byteSwapped() ? "BIG" : "LITTLE");
    json.key("metadata");
    json.beginObject();
    // gguf-py's pseudo-fields for the header come first.
    const char *countType = file.v1() ? "UINT32" : "UINT64";
    // (a damaged file: only the fields that were read)
    if (file.version() != 0) {
        writeField(json, "GGUF.version", 0, "UINT32", file.versionOffset());
        json.field("value", file.version());
        json.endObject();
    }
    if (file.headerEnd() != 0) {
        writeField(json, "GGUF.tensor_count", 1, countType, file.tensorCountOffset());
        json.field("value", file.declaredTensorCount());
        json.endObject();
        writeField(json, "GGUF.kv_count", 2, countType, file.kvCountOffset());
        json.field("value", file.declaredKvCount());
        json.endObject();
    }

    for (const gguf::MetadataEntry &e : file.metadata()) {
        writeField(json, e.key, 3 + uint64_t(e.index), gguf::valueTypeName(e.value.type()), e.offset);
        if (e.value.type() == ValueType::Array) {
            const std::vector<ValueType> chain = typeChain(e.value);
            json.key("array_types");
            json.beginArray();
            for (size_t i = 1; i < chain.size(); ++i)
                json.string(gguf::valueTypeName(chain[i]));
            json.endArray();
            if (jsonArray) {
                json.key("value");
                json.beginArray();
                writeLeaves(json, file, e.value.array(), chain.back() == ValueType::String);
                json.endArray();
            }
        } else {
            json.key("value");
            writeScalar(json, e.value);
        }
        json.endObject();
    }
    json.endObject();

    json.key("tensors");
    json.beginObject();
    for (const gguf::TensorInfo &t : file.tensors()) {
        json.key(t.name);
        json.beginObject();
        json.field("index", t.index);
        json.key("shape");
        writeShape(json, file, t);
        json.field("type", tensorTypeName(t.typeId));
        json.field("offset", t.infoOffset);
        json.endObject();
    }
    json.endObject();
}

// The document of FILE; for a split set, also `shards`: every shard's document in shard order (a
// missing or unreadable shard: its `filename` and `error`).
int dumpJson(const CommandArgs &args, const gguf::SplitModel &model, size_t named)
{
    JsonWriter json(stdout);
    json.beginObject();
    const auto &file = model.shards()[named].file;
    writeDocument(json, args.file, file ? *file : model.primary(), args.jsonArray);
    if (model.isSplit()) {
        json.key("shards");
        json.beginArray();
        for (const gguf::SplitModel::Shard &shard : model.shards()) {
            json.beginObject();
            if (shard.file) {
                writeDocument(json, shard.path, *shard.file, args.jsonArray);
            } else {
                json.field("filename", shard.path);
                json.field("error", shard.error.message);
            }
            json.endObject();
        }
        json.endArray();
    }
    json.endObject();
    return json.finish() ? kExitOk : kExitBadFile;
}

// gguf_dump.py's "[[INT32]]" notation for a field's type.
std::string prettyType(const std::vector<ValueType> &chain)
{
    if (chain.front() != ValueType::Array)
        return gguf::valueTypeName(chain.front());
    const size_t nest = chain.size() - 1;
    return std::string(nest, '[') + gguf::valueTypeName(chain.back()) + std::string(nest, ']');
}

std::string arrayPreview(const ArrayRef &array)
{
    std::string out = "[";
    const uint64_t shown = std::min<uint64_t>(array.size(), 6);
    for (uint64_t i = 0; i < shown; ++i)
        out += (i ? ", " : "") + array.at(i).toDisplayString(40);
    return out + (array.size() > shown ? ", …]" : "]");
}

void dumpText(const gguf::GgufFile &file)
{
    print("* File is " + std::string(file.byteSwapped() ? "BIG" : "LITTLE") + " endian\n");
    print("* " + std::to_string(file.metadata().size() + 3) + " key/value pairs (3 header fields first)\n");
    TextTable kv({{"#", TextTable::Align::Right},
                  {"offset", TextTable::Align::Right},
                  {"type"},
                  {"count", TextTable::Align::Right},
                  {"key"},
                  {"value"}});
    // (a damaged file: only the fields that were read)
    if (file.version() != 0)
        kv.addRow(
            {"0", std::to_string(file.versionOffset()), "UINT32", "1", "GGUF.version", std::to_string(file.version())});
    if (file.headerEnd() != 0) {
        kv.addRow({"1", std::to_string(file.tensorCountOffset()), file.v1() ? "UINT32" : "UINT64", "1",
                   "GGUF.tensor_count", std::to_string(file.declaredTensorCount())});
        kv.addRow({"2", std::to_string(file.kvCountOffset()), file.v1() ? "UINT32" : "UINT64", "1", "GGUF.kv_count",
                   std::to_string(file.declaredKvCount())});
    }
    for (const gguf::MetadataEntry &e : file.metadata()) {
        const bool isArray = e.value.type() == ValueType::Array;
        const std::string value = isArray ? arrayPreview(e.value.array()) : e.value.toDisplayString(60);
        kv.addRow({std::to_string(3 + uint64_t(e.index)), std::to_string(e.offset), prettyType(typeChain(e.value)),
                   std::to_string(isArray ? e.value.array().size() : 1), printable(e.key, 80), printable(value)});
    }
    kv.print(2);
    print("* " + countOf(file.tensors().size(), "tensor", "tensors") + "\n");
    TextTable tensors({{"#", TextTable::Align::Right},
                       {"offset", TextTable::Align::Right},
                       {"elements", TextTable::Align::Right},
                       {"shape"},
                       {"type"},
                       {"name"}});
    for (const gguf::TensorInfo &t : file.tensors())
        tensors.addRow({std::to_string(t.index), std::to_string(t.infoOffset), std::to_string(t.elements), shapeText(t),
                        tensorTypeName(t.typeId), printable(t.name, 80)});
    tensors.print(2);
}

} // namespace

int runDump(const CommandArgs &args)
{
    // a split set: every shard in turn; a damaged file or set: what was read (the pairs and tensor
    // infos before the break), then the error
    const auto model = openModelAsFarAsItParses(args.file);
    if (!model)
        return kExitBadFile;
    // the shard FILE names (it opened: a refused FILE gives no model)
    size_t named = 0;
    if (const auto name = gguf::parseShardName(args.file); name && model->isSplit())
        named = std::min<size_t>(name->number - 1, model->shards().size() - 1);
    int status = kExitOk;
    if (args.json) {
        status = dumpJson(args, *model, named);
    } else if (!model->isSplit()) {
        dumpText(*model->shards().front().file);
    } else {
        for (size_t i = 0; i < model->shards().size(); ++i)
            if (const gguf::GgufFile *file = printShardHeading(*model, i))
                dumpText(*file);
    }
    return reportModelProblem(*model) ? kExitBadFile : status;
}

} // namespace cli
