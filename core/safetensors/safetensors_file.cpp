// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a safetensors header (docs/SAFETENSORS.md): the length, the JSON, each tensor entry, and
// the reference implementation's checks of the offsets against the shapes and the file.
#include "safetensors_file.h"

#include "core/format/ggml_types.h"
#include "core/format/mapped_file.h"
#include "core/util/byte_order.h"
#include "json_reader.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace gguf::st {
namespace {

struct DtypeInfo {
    Dtype dtype;
    std::string_view name;
    uint32_t size;
};

// The dtypes of huggingface/safetensors (`enum Dtype`, with `Dtype::size`)
constexpr std::array<DtypeInfo, 15> kDtypes{{
    {Dtype::BOOL, "BOOL", 1},
    {Dtype::U8, "U8", 1},
    {Dtype::I8, "I8", 1},
    {Dtype::F8_E5M2, "F8_E5M2", 1},
    {Dtype::F8_E4M3, "F8_E4M3", 1},
    {Dtype::I16, "I16", 2},
    {Dtype::U16, "U16", 2},
    {Dtype::F16, "F16", 2},
    {Dtype::BF16, "BF16", 2},
    {Dtype::I32, "I32", 4},
    {Dtype::U32, "U32", 4},
    {Dtype::F32, "F32", 4},
    {Dtype::F64, "F64", 8},
    {Dtype::I64, "I64", 8},
    {Dtype::U64, "U64", 8},
}};

std::string inQuotes(std::string_view s)
{
    return "\"" + std::string(s) + "\"";
}

} // namespace

std::string_view dtypeName(Dtype dtype)
{
    return kDtypes[static_cast<size_t>(dtype)].name;
}

uint32_t dtypeSize(Dtype dtype)
{
    return kDtypes[static_cast<size_t>(dtype)].size;
}

std::optional<Dtype> dtypeFromName(std::string_view name)
{
    for (const DtypeInfo &d : kDtypes)
        if (d.name == name)
            return d.dtype;
    return std::nullopt;
}

std::optional<uint32_t> ggmlTypeOf(Dtype dtype)
{
    switch (dtype) {
    case Dtype::F32: return static_cast<uint32_t>(GgmlType::F32);
    case Dtype::F16: return static_cast<uint32_t>(GgmlType::F16);
    case Dtype::BF16: return static_cast<uint32_t>(GgmlType::BF16);
    case Dtype::F64: return static_cast<uint32_t>(GgmlType::F64);
    case Dtype::I8: return static_cast<uint32_t>(GgmlType::I8);
    case Dtype::I16: return static_cast<uint32_t>(GgmlType::I16);
    case Dtype::I32: return static_cast<uint32_t>(GgmlType::I32);
    case Dtype::I64: return static_cast<uint32_t>(GgmlType::I64);
    case Dtype::U8: return extendedTypeId(ExtendedType::U8);
    case Dtype::U16: return extendedTypeId(ExtendedType::U16);
    case Dtype::U32: return extendedTypeId(ExtendedType::U32);
    case Dtype::U64: return extendedTypeId(ExtendedType::U64);
    case Dtype::BOOL: return extendedTypeId(ExtendedType::Bool);
    case Dtype::F8_E4M3: return extendedTypeId(ExtendedType::F8_E4M3);
    case Dtype::F8_E5M2: return extendedTypeId(ExtendedType::F8_E5M2);
    default: return std::nullopt;
    }
}

/// Reads one file's header into a SafetensorsFile.
class SafetensorsParser {
public:
    explicit SafetensorsParser(SafetensorsFile &file) : m_file(file) {}

    void run()
    {
        if (!readLength())
            return;
        const auto header = m_file.m_source->acquire(8, m_file.m_headerLength);
        if (!header) {
            m_file.m_error = header.error();
            return;
        }
        const std::string_view text(reinterpret_cast<const char *>(header.bytes().data()), header.bytes().size());
        json::ParseError why;
        const auto root = json::parse(text, why);
        if (!root)
            return fatal("bad_header_json", 8 + why.offset, "the header is not JSON: " + why.message);
        if (root->kind != json::Value::Kind::Object)
            return fatal("header_not_object", 8 + root->begin, "the header is not a JSON object");
        if (text.front() != '{') // whitespace first: accepted, though the reference plans to refuse it
            finding("header_start", 8,
                    "the header does not start with '{' (accepted today; safetensors plans to refuse it)",
                    Severity::Warning);
        m_file.m_jsonEnd = 8 + root->end;
        for (size_t i = 0; i < root->values.size(); ++i) {
            if (root->keys[i].first == "__metadata__")
                m_file.m_metadataRange = {8 + root->keys[i].second, 8 + root->values[i].end};
            entry(root->keys[i].first, 8 + root->keys[i].second, root->values[i]);
        }
        checkOffsets();
    }

private:
    void fatal(std::string code, uint64_t offset, std::string message)
    {
        m_file.m_findings.push_back(Finding{Severity::Error, code, offset, message});
        m_file.m_error = Error{ErrorKind::Malformed, std::move(code), offset, std::move(message)};
    }
    void finding(std::string code, uint64_t offset, std::string message, Severity severity = Severity::Error)
    {
        m_file.m_findings.push_back(Finding{severity, std::move(code), offset, std::move(message)});
    }
    /// finding(), then false: the entry is left out.
    bool refuse(std::string code, uint64_t offset, std::string message)
    {
        finding(std::move(code), offset, std::move(message));
        return false;
    }

    bool readLength()
    {
        const uint64_t size = m_file.m_fileSize;
        if (size < 8) {
            fatal("header_too_small", 0,
                  "the file has " + std::to_string(size) +
                      " bytes; a safetensors file starts with an 8-byte header length");
            return false;
        }
        const auto head = m_file.m_source->acquire(0, 8);
        if (!head) {
            m_file.m_error = head.error();
            return false;
        }
        const uint64_t n = loadAs<uint64_t>(head.bytes().data(), false);
        m_file.m_headerLength = n;
        if (n > kMaxHeaderLength) {
            fatal("header_too_large", 0,
                  "the header length " + std::to_string(n) + " is over the 100,000,000 bytes safetensors reads");
            return false;
        }
        if (n > size - 8) {
            fatal("header_past_end", 0,
                  "the header length " + std::to_string(n) + " runs past the end of the file (" +
                      std::to_string(size - 8) + " bytes follow the length)");
            return false;
        }
        return true;
    }

    void metadata(const json::Value &v)
    {
        if (v.kind != json::Value::Kind::Object)
            return finding("metadata_not_object", 8 + v.begin, "__metadata__ is not an object of strings");
        for (size_t i = 0; i < v.values.size(); ++i) {
            const json::Value &value = v.values[i];
            const uint64_t at = 8 + v.keys[i].second;
            if (value.kind != json::Value::Kind::String) {
                finding("metadata_value_not_string", 8 + value.begin,
                        "__metadata__ " + inQuotes(v.keys[i].first) + " is not a string");
                continue;
            }
            m_file.m_metadata.push_back(MetadataItem{v.keys[i].first, value.text, at});
        }
    }

    /// The shape's dimensions and their product; false (after a finding) when it is not a list of
    /// non-negative integers, or the product overflows.
    bool shapeOf(const std::string &name, const json::Value &shape, TensorEntry &t)
    {
        if (shape.kind != json::Value::Kind::Array)
            return refuse("bad_shape", 8 + shape.begin, "tensor " + inQuotes(name) + ": shape is not a list");
        uint64_t elements = 1;
        bool overflow = false;
        for (const json::Value &d : shape.values) {
            const auto n = d.asUnsigned();
            if (!n)
                return refuse("bad_shape", 8 + d.begin,
                              "tensor " + inQuotes(name) + ": a dimension is not a non-negative integer");
            t.shape.push_back(*n);
            if (*n != 0 && elements > UINT64_MAX / *n)
                overflow = true;
            elements *= *n;
        }
        if (overflow)
            return refuse("shape_overflow", 8 + shape.begin,
                          "tensor " + inQuotes(name) + ": the number of elements overflows 64 bits");
        t.elements = elements;
        return true;
    }

    bool offsetsOf(const std::string &name, const json::Value &offsets, TensorEntry &t)
    {
        const auto bad = [&] {
            return refuse("bad_offsets", 8 + offsets.begin,
                          "tensor " + inQuotes(name) +
                              ": data_offsets is not a pair of non-negative integers [begin, end]");
        };
        if (offsets.kind != json::Value::Kind::Array || offsets.values.size() != 2)
            return bad();
        const auto b = offsets.values[0].asUnsigned(), e = offsets.values[1].asUnsigned();
        if (!b || !e)
            return bad();
        t.begin = *b;
        t.end = *e;
        return true;
    }

    void entry(const std::string &name, uint64_t keyOffset, const json::Value &v)
    {
        if (name == "__metadata__")
            return metadata(v);
        if (std::any_of(m_file.m_tensors.begin(), m_file.m_tensors.end(),
                        [&](const TensorEntry &t) { return t.name == name; }))
            finding("duplicate_tensor_name", keyOffset,
                    "tensor " + inQuotes(name) + " is named twice (the reference implementation keeps the last)",
                    Severity::Warning);
        TensorEntry t;
        t.name = name;
        t.nameOffset = keyOffset;
        t.entryOffset = 8 + v.begin;
        t.entryEnd = 8 + v.end;
        if (v.kind != json::Value::Kind::Object)
            return finding("bad_tensor_entry", t.entryOffset, "tensor " + inQuotes(name) + " is not an object");
        const json::Value *dtype = v.find("dtype"), *shape = v.find("shape"), *offsets = v.find("data_offsets");
        if (!dtype || !shape || !offsets)
            return finding("missing_field", t.entryOffset,
                           "tensor " + inQuotes(name) + " lacks " +
                               (!dtype   ? "dtype"
                                : !shape ? "shape"
                                         : "data_offsets"));
        const auto d = dtype->kind == json::Value::Kind::String ? dtypeFromName(dtype->text) : std::nullopt;
        if (!d)
            return finding("unknown_dtype", 8 + dtype->begin,
                           "tensor " + inQuotes(name) + ": " +
                               (dtype->kind == json::Value::Kind::String
                                    ? "dtype " + inQuotes(dtype->text) + " is not one safetensors defines"
                                    : std::string("dtype is not a string")));
        t.dtype = *d;
        if (!shapeOf(name, *shape, t) || !offsetsOf(name, *offsets, t))
            return;
        m_file.m_tensors.push_back(std::move(t));
        m_offsetsAt.push_back(8 + offsets->begin);
    }

    /// The reference implementation's validate(): taken in order of their offsets, the tensors
    /// fill the data section from 0 without gap or overlap, each exactly its shape times its
    /// dtype's size, and the last ends where the file does.
    void checkOffsets()
    {
        auto &tensors = m_file.m_tensors;
        const uint64_t dataSize = m_file.m_fileSize - m_file.dataOffset();
        std::vector<size_t> order(tensors.size());
        std::iota(order.begin(), order.end(), size_t{0});
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return std::pair(tensors[a].begin, tensors[a].end) < std::pair(tensors[b].begin, tensors[b].end);
        });
        uint64_t expected = 0;
        for (const size_t i : order) {
            TensorEntry &t = tensors[i];
            const uint64_t at = m_offsetsAt[i];
            const std::string who = "tensor " + inQuotes(t.name);
            t.fileBegin = t.begin > UINT64_MAX - m_file.dataOffset() ? UINT64_MAX : t.begin + m_file.dataOffset();
            t.dataInFile = t.end >= t.begin && t.end <= dataSize;
            if (t.end < t.begin)
                finding("offsets_reversed", at,
                        who + ": data_offsets end " + std::to_string(t.end) + " is before begin " +
                            std::to_string(t.begin));
            else if (t.begin < expected)
                finding("tensors_overlap", at,
                        who + ": data starts at " + std::to_string(t.begin) +
                            ", inside the previous tensor's data (which ends at " + std::to_string(expected) + ")");
            else if (t.begin > expected)
                finding("gap_before_tensor", at,
                        who + ": data starts at " + std::to_string(t.begin) + ", leaving " +
                            std::to_string(t.begin - expected) + " bytes unused before it");
            if (t.end >= t.begin) {
                const uint64_t size = dtypeSize(t.dtype);
                if (t.elements > UINT64_MAX / size || t.end - t.begin != t.elements * size)
                    finding("size_mismatch", at,
                            who + ": " + std::to_string(t.end - t.begin) + " bytes of data, but " +
                                std::to_string(t.elements) + " elements of " + std::string(dtypeName(t.dtype)) +
                                " take " + std::to_string(t.elements * size));
                if (!t.dataInFile)
                    finding("tensor_data_past_end", at,
                            who + ": data [" + std::to_string(t.begin) + ", " + std::to_string(t.end) +
                                ") runs past the end of the file (" + std::to_string(dataSize) +
                                " bytes of data): the file is truncated");
            }
            expected = std::max(expected, t.end);
        }
        if (expected < dataSize)
            finding("data_past_last_tensor", m_file.dataOffset() + expected,
                    std::to_string(dataSize - expected) + " bytes follow the last tensor's data; safetensors requires "
                                                          "the last tensor to end where the file does");
    }

    SafetensorsFile &m_file;
    std::vector<uint64_t> m_offsetsAt; ///< per tensor, where its data_offsets are written
};

SafetensorsOpen SafetensorsFile::openSource(std::shared_ptr<const ByteSource> source, std::string path)
{
    auto file = std::make_shared<SafetensorsFile>();
    file->m_path = std::move(path);
    file->m_fileSize = source->size();
    file->m_source = std::move(source);
    SafetensorsParser(*file).run();
    SafetensorsOpen out;
    out.error = file->m_error;
    out.file = std::move(file);
    return out;
}

SafetensorsOpen SafetensorsFile::open(const std::string &path)
{
    Error error;
    auto source = openByteSource(path, error); // a local file, or a URL when core/net is enabled
    if (!source)
        return SafetensorsOpen{nullptr, std::move(error)};
    return openSource(std::move(source), path);
}

SafetensorsOpen SafetensorsFile::openBuffer(std::vector<uint8_t> bytes, std::string name)
{
    auto buffer = MappedFile::fromBuffer(std::move(bytes), name);
    return openSource(std::move(buffer), std::move(name));
}

bool SafetensorsFile::referenceAccepts() const
{
    return !m_error && std::none_of(m_findings.begin(), m_findings.end(),
                                    [](const Finding &f) { return f.severity == Severity::Error; });
}

uint64_t SafetensorsFile::parameterCount() const
{
    uint64_t n = 0;
    for (const TensorEntry &t : m_tensors)
        n += t.elements;
    return n;
}

std::string shapeText(const std::vector<uint64_t> &shape)
{
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string_view regionKindName(RegionKind kind)
{
    switch (kind) {
    case RegionKind::HeaderLength: return "header_length";
    case RegionKind::Header: return "header";
    case RegionKind::Metadata: return "metadata";
    case RegionKind::TensorEntry: return "tensor_info";
    case RegionKind::HeaderPadding: return "padding";
    case RegionKind::TensorData: return "tensor_data";
    case RegionKind::Unused: return "unused";
    case RegionKind::Unparsed: return "unparsed";
    }
    return "unknown";
}

namespace {

/// Appends [from, to) as `kind`, filling any gap before it with `filler`.
void place(std::vector<Region> &out, uint64_t &at, uint64_t from, uint64_t to, RegionKind kind, std::string label,
           RegionKind filler, const std::string &fillerLabel)
{
    from = std::max(from, at);
    if (to <= from)
        return;
    if (from > at)
        out.push_back(Region{at, from - at, filler, fillerLabel});
    out.push_back(Region{from, to - from, kind, std::move(label)});
    at = to;
}

void headerRegions(const SafetensorsFile &f, std::vector<Region> &out, uint64_t &at)
{
    struct Piece {
        uint64_t begin, end;
        RegionKind kind;
        std::string label;
    };
    std::vector<Piece> pieces;
    if (f.metadataRange().second > f.metadataRange().first)
        pieces.push_back({f.metadataRange().first, f.metadataRange().second, RegionKind::Metadata,
                          "__metadata__ (" + std::to_string(f.metadata().size()) + " strings)"});
    for (const TensorEntry &t : f.tensors())
        pieces.push_back({t.nameOffset, t.entryEnd, RegionKind::TensorEntry,
                          "tensor \"" + t.name + "\" " + std::string(dtypeName(t.dtype)) + " " + shapeText(t.shape)});
    std::sort(pieces.begin(), pieces.end(), [](const Piece &a, const Piece &b) { return a.begin < b.begin; });
    for (Piece &p : pieces)
        place(out, at, p.begin, p.end, p.kind, std::move(p.label), RegionKind::Header, "header JSON");
    place(out, at, f.jsonEnd(), f.dataOffset(), RegionKind::HeaderPadding, "header padding", RegionKind::Header,
          "header JSON");
}

void dataRegions(const SafetensorsFile &f, std::vector<Region> &out, uint64_t &at)
{
    std::vector<const TensorEntry *> order;
    for (const TensorEntry &t : f.tensors())
        if (t.end >= t.begin && t.fileBegin < f.fileSize())
            order.push_back(&t);
    std::stable_sort(order.begin(), order.end(),
                     [](const TensorEntry *a, const TensorEntry *b) { return a->fileBegin < b->fileBegin; });
    for (const TensorEntry *t : order) {
        const uint64_t end = std::min(f.fileSize(), t->fileBegin + t->bytes());
        place(out, at, t->fileBegin, end, RegionKind::TensorData,
              "tensor \"" + t->name + "\" data" + (t->dataInFile ? "" : " (cut short: the file ends)"),
              RegionKind::Unused, "unused: no tensor's data");
    }
    if (at < f.fileSize())
        out.push_back(Region{at, f.fileSize() - at, RegionKind::Unused, "unused: after the last tensor's data"});
}

} // namespace

std::vector<Region> byteRegions(const SafetensorsFile &f)
{
    std::vector<Region> out;
    const uint64_t size = f.fileSize();
    if (size == 0)
        return out;
    out.push_back(Region{0, std::min<uint64_t>(8, size), RegionKind::HeaderLength,
                         "header length: " + std::to_string(f.headerLength()) + " bytes of JSON"});
    uint64_t at = out.back().size;
    if (!f.headerComplete()) {
        if (at < size)
            out.push_back(Region{at, size - at, RegionKind::Unparsed, "not read: " + f.error().message});
        return out;
    }
    headerRegions(f, out, at);
    dataRegions(f, out, at);
    return out;
}

bool looksLikeSafetensors(const uint8_t *head, size_t headSize, uint64_t fileSize)
{
    if (headSize < 10 || fileSize < 10)
        return false;
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i)
        n = (n << 8) | head[i];
    if (n < 2 || n > kMaxHeaderLength || n > fileSize - 8)
        return false;
    size_t i = 8;
    while (i < headSize && head[i] == ' ')
        ++i;
    return i < headSize && head[i] == '{';
}

const TensorEntry *SafetensorsFile::tensor(std::string_view name) const
{
    const auto it =
        std::find_if(m_tensors.begin(), m_tensors.end(), [&](const TensorEntry &t) { return t.name == name; });
    return it == m_tensors.end() ? nullptr : &*it;
}

} // namespace gguf::st
