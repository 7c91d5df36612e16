// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/format/gguf_parser.h"

#include "core/format/ggml_types.h"
#include "core/util/byte_order.h"
#include "magic_sniffer.h"
#include "parser_text.h"

#include <algorithm>
#include <cstdio>

namespace gguf {
namespace {

// Limits mirrored from ggml's gguf.cpp (docs/FORMAT.md §5).
constexpr uint64_t kMaxStringLength = uint64_t(1) << 30;
constexpr uint64_t kMaxArrayElements = uint64_t(1) << 30;
constexpr uint64_t kLargeAlignment = uint64_t(1) << 20; ///< above this, a warning (no limit in ggml)
constexpr uint64_t kMaxTensorName = 64;                 // GGML_MAX_NAME
constexpr uint32_t kMaxDims = 4;
constexpr int kMaxNesting = 8;
// Items reserved up front: a count is only a claim until its items are read, and a large file can
// back a claim of millions (a reservation for it would be gigabytes).
constexpr uint64_t kMaxReserve = 4096;

bool isPowerOfTwo(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

// Smallest encoding of a value of `type` (a string is at least its length field).
uint64_t minValueSize(ValueType type, bool v1)
{
    const uint32_t fixed = valueTypeSize(type);
    if (fixed)
        return fixed;
    return type == ValueType::String ? (v1 ? 4 : 8) : (v1 ? 8 : 12);
}

int32_t layerOf(std::string_view name)
{
    for (std::string_view prefix :
         {std::string_view("blk."), std::string_view("layers."), std::string_view("model.layers.")}) {
        if (name.substr(0, prefix.size()) != prefix)
            continue;
        int64_t n = 0;
        size_t i = prefix.size();
        const size_t start = i;
        while (i < name.size() && name[i] >= '0' && name[i] <= '9' && n < 1000000)
            n = n * 10 + (name[i++] - '0');
        if (i > start && (i == name.size() || name[i] == '.'))
            return static_cast<int32_t>(n);
    }
    return -1;
}

} // namespace

std::string formatOffset(uint64_t offset)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, "%llu (0x%llx)", static_cast<unsigned long long>(offset),
                  static_cast<unsigned long long>(offset));
    return buf;
}

GgufParser::GgufParser(GgufFile &file, const OpenOptions &options, uint64_t available)
    : m_file(file), m_options(options), m_data(file.m_source->data()),
      m_size(std::min(available, file.m_source->size())), m_fileSize(file.m_source->size())
{
}

bool GgufParser::needMore(uint64_t end)
{
    if (m_size >= m_fileSize || end <= m_size)
        return false;
    fatal(ErrorKind::NeedMore, "need_more", std::min(end, m_fileSize), "the fetched part of the header ends here");
    return true;
}

void GgufParser::fatal(ErrorKind kind, std::string code, uint64_t offset, std::string message, FieldNote note)
{
    if (m_file.m_error)
        return;
    m_file.m_error = Error{kind, code, offset, message};
    if (kind == ErrorKind::Cancelled || kind == ErrorKind::NeedMore)
        return;
    if (kind != ErrorKind::InvalidMagic) {
        Breakage b;
        b.section = m_section;
        b.index = m_itemIndex;
        b.offset = m_itemOffset;
        if (m_section == Breakage::Section::Metadata)
            b.entry = m_entry;
        else if (m_section == Breakage::Section::TensorInfos)
            b.tensor = m_tensor;
        b.valueType = m_valueType;
        b.fieldOffset = offset;
        b.fieldSize = note.size;
        b.field = std::move(note.field);
        b.expected = note.expected.empty() ? message : std::move(note.expected);
        m_file.m_breakage = std::move(b);
    }
    m_file.m_findings.push_back(Finding{Severity::Error, std::move(code), offset, std::move(message)});
}

void GgufParser::finding(Severity severity, std::string code, uint64_t offset, std::string message)
{
    m_file.m_findings.push_back(Finding{severity, std::move(code), offset, std::move(message)});
}

std::string GgufParser::fileEnd() const
{
    return ", which ends at " + formatOffset(m_fileSize) + m_countsNote;
}

bool GgufParser::needSlow(uint64_t n, const std::string &what)
{
    if (n <= fileLeft() && needMore(m_pos + n))
        return false;
    fatal(ErrorKind::Malformed, "truncated", m_pos,
          // the code says "truncated"; the message says where the file ends and in which field
          what + " needs " + std::to_string(n) + " bytes at offset " + formatOffset(m_pos) + " but the file ends at " +
              formatOffset(m_fileSize) + m_countsNote,
          {n, what, what + ": needs " + std::to_string(n) + " bytes, " + std::to_string(fileLeft()) + " left"});
    return false;
}

uint32_t GgufParser::readU32()
{
    const uint32_t v = loadAs<uint32_t>(m_data + m_pos, m_swap);
    m_pos += 4;
    return v;
}

uint64_t GgufParser::readU64()
{
    const uint64_t v = loadAs<uint64_t>(m_data + m_pos, m_swap);
    m_pos += 8;
    return v;
}

uint64_t GgufParser::readLength()
{
    return m_v1 ? readU32() : readU64();
}

bool GgufParser::reportProgress()
{
    ++m_itemsDone;
    if (!m_options.progress || (m_itemsDone & 1023) != 0)
        return true;
    if (m_options.progress(m_itemsDone, m_itemsTotal))
        return true;
    fatal(ErrorKind::Cancelled, "cancelled", m_pos, "opening was cancelled");
    return false;
}

void GgufParser::run()
{
    if (!readHeader())
        return;
    if (!readMetadata())
        return;
    m_file.m_metadataEnd = m_pos;
    if (m_options.metadataOnly) {
        m_file.m_metadataOnly = true;
        return;
    }
    if (!readTensorInfos())
        return;
    layOutData();
    if (m_options.progress)
        m_options.progress(m_itemsTotal, m_itemsTotal);
}

// "GGUF", or "FUGG" (byte-swapped); anything else is not a GGUF file.
bool GgufParser::readMagic()
{
    if (m_fileSize < 4) {
        const std::string what = m_fileSize == 0 ? "the file is empty (0 bytes)"
                                                 : "the file is only " + std::to_string(m_fileSize) + " bytes long";
        fatal(ErrorKind::InvalidMagic, "invalid_magic", 0,
              "not a GGUF file: " + what + "; a GGUF file starts with the 4 bytes 'GGUF'");
        return false;
    }
    if (needMore(4))
        return false;
    if (std::equal(m_data, m_data + 4, "GGUF")) {
        // the common case
    } else if (std::equal(m_data, m_data + 4, "FUGG")) {
        m_file.m_swappedMagic = true;
    } else {
        fatal(ErrorKind::InvalidMagic, "invalid_magic", 0,
              "not a GGUF file: " + describeMagic(m_data, m_size) + "; a GGUF file starts with 'GGUF' (47 47 55 46)");
        return false;
    }
    return true;
}

// The version, and from it the byte order (ggml's heuristic) and the findings it implies.
bool GgufParser::readVersion()
{
    if (!need(4, [&] { return std::string("u32 version"); }))
        return false;
    uint32_t version = readU32();
    // ggml's heuristic: a version whose low 16 bits are zero was written in the other byte order
    // (docs/FORMAT.md §2.2).
    if ((version & 0xFFFF) == 0 && version != 0) {
        m_swap = true;
        version = byteSwap(version);
    }
    m_file.m_version = version;
    m_file.m_byteOrder = m_swap ? ByteOrder::Big : ByteOrder::Little;
    if (version == 0 || version > 3) {
        fatal(ErrorKind::UnsupportedVersion, "unsupported_version", 4,
              "unsupported GGUF version " + std::to_string(version) + " at offset 4 (versions 1, 2 and 3 exist)",
              {4, "u32 version", "u32 version: 1, 2 or 3; this file says " + std::to_string(version)});
        return false;
    }
    m_v1 = version == 1;
    if (m_file.m_swappedMagic)
        finding(Severity::Error, "swapped_magic", 0,
                "the magic is stored byte-swapped ('FUGG'); ggml only accepts 'GGUF'");
    if (m_swap)
        finding(Severity::Error, "byte_swapped", 4,
                "the file is big-endian (byte-swapped version field); ggml refuses files of the other byte order");
    if (m_v1)
        finding(Severity::Error, "version_1", 4, "GGUF version 1: ggml no longer reads version 1 files");
    return true;
}

// A claimed count must be backed by bytes: each item has a smallest possible encoding. A count past
// 2^32 that the file cannot back is refused as absurd (no file holds four billion tensors or keys).
// A smaller one is most likely a file cut short: reading goes on, and the field where the file ends
// is named (needSlow adds what the counts needed), rather than blaming a count that is right.
bool GgufParser::checkDeclaredCounts()
{
    constexpr uint64_t kAbsurdCount = uint64_t(1) << 32;
    const uint64_t minKv = (m_v1 ? 4 : 8) + 4 + 1;
    const uint64_t minTensor = (m_v1 ? 4 : 8) + 4 + 4 + 8;
    const uint64_t tensors = m_file.m_declaredTensors, kvs = m_file.m_declaredKvs;
    if (tensors > kAbsurdCount && tensors > fileLeft() / minTensor) {
        fatal(ErrorKind::Malformed, "tensor_count_too_large", 8,
              "the header claims " + std::to_string(tensors) + " tensors but only " + std::to_string(fileLeft()) +
                  " bytes follow the header",
              {m_v1 ? 4u : 8u, lengthName() + std::string(" tensor count"),
               lengthName() + std::string(" tensor count: each tensor info takes at least ") +
                   std::to_string(minTensor) + " bytes, and " + std::to_string(fileLeft()) +
                   " bytes follow the header"});
        return false;
    }
    if (kvs > kAbsurdCount && kvs > fileLeft() / minKv) {
        fatal(ErrorKind::Malformed, "kv_count_too_large", m_file.kvCountOffset(),
              "the header claims " + std::to_string(kvs) + " key/value pairs but only " + std::to_string(fileLeft()) +
                  " bytes follow the header",
              {m_v1 ? 4u : 8u, lengthName() + std::string(" key/value count"),
               lengthName() + std::string(" key/value count: each pair takes at least ") + std::to_string(minKv) +
                   " bytes, and " + std::to_string(fileLeft()) + " bytes follow the header"});
        return false;
    }
    // (both at most 2^32 here: the sum cannot overflow)
    const uint64_t needed = (m_options.metadataOnly ? 0 : tensors * minTensor) + kvs * minKv;
    if (needed > fileLeft())
        m_countsNote = "; the header's " + std::to_string(tensors) + (tensors == 1 ? " tensor and " : " tensors and ") +
                       std::to_string(kvs) + (kvs == 1 ? " key/value pair" : " key/value pairs") + " need at least " +
                       std::to_string(needed) + " bytes after it, and " + std::to_string(fileLeft()) +
                       " follow: the file was cut short";
    return true;
}

bool GgufParser::readHeader()
{
    if (!readMagic())
        return false;
    m_pos = 4;
    if (!readVersion())
        return false;
    if (!need(m_v1 ? 4 : 8, [&] { return lengthName() + std::string(" tensor count"); }))
        return false;
    m_file.m_declaredTensors = readLength();
    if (!need(m_v1 ? 4 : 8, [&] { return lengthName() + std::string(" key/value count"); }))
        return false;
    m_file.m_declaredKvs = readLength();
    m_file.m_headerEnd = m_pos;
    if (!m_v1 && !detectExtendedHeader())
        return false;

    if (!checkDeclaredCounts())
        return false;
    m_itemsTotal = m_file.m_declaredKvs + (m_options.metadataOnly ? 0 : m_file.m_declaredTensors);
    return true;
}

bool GgufParser::detectExtendedHeader()
{
    // Plain layout: what follows the counts is a key (u64 length + printable text), or a tensor
    // name when there are no keys, or nothing at all (docs/FORMAT.md §1.3).
    const uint64_t at = m_pos;
    const bool anythingFollows = m_file.m_declaredKvs + m_file.m_declaredTensors > 0;
    if (!anythingFollows || m_fileSize - at < 12)
        return true;
    // the most this guess reads: a length and up to 64 bytes of text
    if (needMore(at + std::min<uint64_t>(m_fileSize - at, 8 + 64)))
        return false;
    const uint64_t len = loadAs<uint64_t>(m_data + at, m_swap);
    bool plain = len > 0 && len <= 65535 && len <= m_fileSize - at - 8;
    for (uint64_t i = 0; plain && i < std::min<uint64_t>(len, 64); ++i) {
        const uint8_t c = m_data[at + 8 + i];
        plain = c >= 0x20 && c != 0x7f;
    }
    if (plain)
        return true;
    const uint32_t alignment = loadAs<uint32_t>(m_data + at, m_swap);
    const uint64_t dataOffset = loadAs<uint64_t>(m_data + at + 4, m_swap);
    if (!isPowerOfTwo(alignment) || dataOffset < at + 12 || dataOffset > m_fileSize)
        return true;
    m_file.m_layout = HeaderLayout::Extended;
    m_file.m_alignment = alignment;
    m_file.m_dataOffset = dataOffset;
    m_pos = at + 12;
    m_file.m_headerEnd = m_pos;
    finding(Severity::Error, "extended_header", at,
            "extended v3 header (alignment " + std::to_string(alignment) + ", data offset " +
                std::to_string(dataOffset) +
                " after the counts): written by BitNet-rs; ggml reads only the plain layout");
    return true;
}

bool GgufParser::walkArray(int depth, const std::string &outer, int64_t element)
{
    const auto where = [&] { return element < 0 ? outer : outer + " element " + std::to_string(element); };
    const uint64_t headerAt = m_pos;
    if (!need(m_v1 ? 8 : 12, [&] { return where() + ": array header (u32 element type, " + lengthName() + " count)"; }))
        return false;
    const uint32_t elemType = readU32();
    const uint64_t count = readLength();
    if (elemType >= kValueTypeCount) {
        fatal(ErrorKind::UnsupportedType, "invalid_value_type", headerAt,
              where() + ": array element type " + std::to_string(elemType) + " at offset " + formatOffset(headerAt) +
                  " is not a GGUF value type (0–12)",
              {4, where() + ": u32 array element type",
               "u32 array element type: 0–12 (a GGUF value type); this file says " + std::to_string(elemType)});
        return false;
    }
    const auto type = static_cast<ValueType>(elemType);
    if (type == ValueType::Array) {
        if (depth + 1 >= kMaxNesting) {
            fatal(ErrorKind::Malformed, "nesting_too_deep", headerAt,
                  where() + ": arrays nested more than " + std::to_string(kMaxNesting) + " levels deep",
                  {4, where() + ": u32 array element type",
                   "u32 array element type: arrays nest at most " + std::to_string(kMaxNesting) + " levels"});
            return false;
        }
        if (!m_reportedNested) {
            m_reportedNested = true;
            finding(Severity::Error, "nested_array", headerAt,
                    where() + ": an array of arrays; ggml cannot read nested arrays");
        }
    }
    if (count > kMaxArrayElements && depth == 0)
        finding(Severity::Error, "array_too_long", headerAt + 4,
                where() + ": " + std::to_string(count) + " elements; ggml refuses arrays of more than 2^30");
    const uint64_t minSize = minValueSize(type, m_v1);
    if (count > fileLeft() / minSize) {
        fatal(ErrorKind::Malformed, "array_count_too_large", headerAt + 4,
              where() + ": array claims " + std::to_string(count) + " elements of " + valueTypeName(type) +
                  " but only " + std::to_string(fileLeft()) + " bytes are left",
              {m_v1 ? 4u : 8u, where() + ": " + lengthName() + " array count",
               lengthName() + std::string(" array count: ") + std::to_string(count) + " elements of at least " +
                   std::to_string(minSize) + " bytes each, and " + std::to_string(fileLeft()) + " bytes are left"});
        return false;
    }
    const uint32_t fixed = valueTypeSize(type);
    if (fixed) {
        m_pos += count * fixed;
        return true;
    }
    // the context names the element only when something is wrong, so the walk allocates nothing
    for (uint64_t i = 0; i < count; ++i)
        if (!walkValue(type, depth + 1, outer, static_cast<int64_t>(i)))
            return false;
    return true;
}

bool GgufParser::walkValue(ValueType type, int depth, const std::string &outer, int64_t element)
{
    const auto where = [&] { return element < 0 ? outer : outer + " element " + std::to_string(element); };
    const uint32_t fixed = valueTypeSize(type);
    if (fixed) {
        if (!need(fixed, [&] { return std::string(where() + ": " + valueTypeName(type) + " value"); }))
            return false;
        m_pos += fixed;
        return true;
    }
    if (type == ValueType::String) {
        const uint64_t at = m_pos;
        if (!need(m_v1 ? 4 : 8, [&] { return where() + ": " + lengthName() + " string length"; }))
            return false;
        const uint64_t len = readLength();
        if (len > fileLeft()) {
            fatal(ErrorKind::Malformed, "string_past_end", at,
                  where() + ": string length " + std::to_string(len) + " at offset " + formatOffset(at) +
                      " runs past the end of the file (" + std::to_string(fileLeft()) + " bytes left)" + fileEnd(),
                  {m_v1 ? 4u : 8u, where() + ": " + lengthName() + " string length",
                   lengthName() + std::string(" string length: ") + std::to_string(len) + " bytes of text, and " +
                       std::to_string(fileLeft()) + " bytes are left"});
            return false;
        }
        if (len > kMaxStringLength)
            finding(Severity::Error, "string_too_long", at,
                    where() + ": string of " + std::to_string(len) + " bytes; ggml refuses strings over 1 GiB");
        m_pos += len;
        return true;
    }
    return walkArray(depth, outer, element);
}

bool GgufParser::readMetadata()
{
    auto &entries = m_file.m_metadata;
    entries.reserve(static_cast<size_t>(std::min(m_file.m_declaredKvs, kMaxReserve)));
    for (uint64_t i = 0; i < m_file.m_declaredKvs; ++i) {
        if (!reportProgress())
            return false;
        m_entry = MetadataEntry{};
        MetadataEntry &e = m_entry;
        e.index = static_cast<uint32_t>(i);
        e.offset = m_pos;
        m_section = Breakage::Section::Metadata;
        m_itemIndex = i;
        m_itemOffset = e.offset;
        m_valueType = UINT32_MAX;
        const auto where = [&] { return "key/value pair " + std::to_string(i); };
        if (!need(m_v1 ? 4 : 8, [&] { return where() + ": " + lengthName() + " key length"; }))
            return false;
        const uint64_t keyLen = readLength();
        if (keyLen > fileLeft()) {
            fatal(ErrorKind::Malformed, "key_past_end", e.offset,
                  where() + ": key length " + std::to_string(keyLen) + " at offset " + formatOffset(e.offset) +
                      " runs past the end of the file" + fileEnd(),
                  {m_v1 ? 4u : 8u, where() + ": " + lengthName() + " key length",
                   lengthName() + std::string(" key length: ") + std::to_string(keyLen) + " bytes of key, and " +
                       std::to_string(fileLeft()) + " bytes are left"});
            return false;
        }
        if (needMore(m_pos + keyLen))
            return false;
        e.keyOffset = m_pos;
        e.key = std::string_view(reinterpret_cast<const char *>(m_data + m_pos), static_cast<size_t>(keyLen));
        m_pos += keyLen;
        const auto named = [&] { return where() + " (" + quoted(e.key) + ")"; };
        if (keyLen > kMaxStringLength)
            finding(Severity::Error, "key_too_long", e.offset, named() + ": key longer than 1 GiB");
        if (keyLen == 0)
            finding(Severity::Error, "empty_key", e.offset, where() + ": empty key");
        if (!need(4, [&] { return named() + ": u32 value type"; }))
            return false;
        e.typeOffset = m_pos;
        const uint32_t type = readU32();
        if (type >= kValueTypeCount) {
            fatal(ErrorKind::UnsupportedType, "invalid_value_type", e.typeOffset,
                  named() + ": value type " + std::to_string(type) + " at offset " + formatOffset(e.typeOffset) +
                      " is not a GGUF value type (0–12)",
                  {4, named() + ": u32 value type",
                   "u32 value type: 0–12 (a GGUF value type); this file says " + std::to_string(type)});
            return false;
        }
        m_valueType = type;
        const uint64_t valueAt = m_pos;
        if (!walkValue(static_cast<ValueType>(type), 0, named(), -1))
            return false;
        e.value = Value(&m_file, static_cast<ValueType>(type), valueAt, m_pos - valueAt);
        const auto [it, inserted] = m_file.m_keyIndex.emplace(e.key, e.index);
        if (!inserted)
            finding(Severity::Error, "duplicate_key", e.offset,
                    named() + ": duplicate key (first defined as pair " + std::to_string(it->second) + ")");
        entries.push_back(e);
        // like ggml's gguf_find_key, the first of duplicated keys is the one that counts (docs/FORMAT.md §1.8)
        if (e.key == "general.alignment" && inserted)
            checkAlignmentKey(entries.back());
        else if (e.key == "split.no")
            m_splitNo = static_cast<int32_t>(e.value.toUInt().value_or(0));
    }
    return true;
}

void GgufParser::checkAlignmentKey(const MetadataEntry &entry)
{
    if (entry.value.type() != ValueType::Uint32) {
        finding(Severity::Error, "alignment_type", entry.typeOffset,
                "general.alignment is " + valueTypeName(entry.value.type()) + "; ggml requires UINT32");
        return;
    }
    const uint64_t a = entry.value.toUInt().value_or(0);
    if (!isPowerOfTwo(a)) {
        finding(Severity::Error, "alignment_not_power_of_two", entry.value.offset(),
                "general.alignment = " + std::to_string(a) + " is not a power of two; using 32 to lay out the data");
        return;
    }
    // ggml sets no upper limit (docs/FORMAT.md §5): only unusual, since every tensor is padded to it
    if (a > kLargeAlignment)
        finding(Severity::Warning, "alignment_large", entry.value.offset(),
                "general.alignment = " + std::to_string(a) +
                    " is over 1 MiB: each tensor's data is padded to a multiple of it (ggml accepts it)");
    if (m_file.m_layout == HeaderLayout::Plain)
        m_file.m_alignment = a;
}

bool GgufParser::readTensorInfos()
{
    auto &tensors = m_file.m_tensors;
    tensors.reserve(static_cast<size_t>(std::min(m_file.m_declaredTensors, kMaxReserve)));
    for (uint64_t i = 0; i < m_file.m_declaredTensors; ++i) {
        if (!reportProgress())
            return false;
        m_tensor = TensorInfo{};
        TensorInfo &t = m_tensor;
        t.index = static_cast<uint32_t>(i);
        t.infoOffset = m_pos;
        m_section = Breakage::Section::TensorInfos;
        m_itemIndex = i;
        m_itemOffset = t.infoOffset;
        const auto where = [&] { return "tensor info " + std::to_string(i); };
        if (!need(m_v1 ? 4 : 8, [&] { return where() + ": " + lengthName() + " name length"; }))
            return false;
        const uint64_t nameLen = readLength();
        if (nameLen > fileLeft()) {
            fatal(ErrorKind::Malformed, "tensor_name_past_end", t.infoOffset,
                  where() + ": name length " + std::to_string(nameLen) + " at offset " + formatOffset(t.infoOffset) +
                      " runs past the end of the file" + fileEnd(),
                  {m_v1 ? 4u : 8u, where() + ": " + lengthName() + " name length",
                   lengthName() + std::string(" name length: ") + std::to_string(nameLen) + " bytes of name, and " +
                       std::to_string(fileLeft()) + " bytes are left"});
            return false;
        }
        if (needMore(m_pos + nameLen))
            return false;
        t.nameOffset = m_pos;
        t.name = std::string_view(reinterpret_cast<const char *>(m_data + m_pos), static_cast<size_t>(nameLen));
        m_pos += nameLen;
        const auto named = [&] { return where() + " (" + quoted(t.name) + ")"; };
        if (nameLen >= kMaxTensorName)
            finding(Severity::Error, "tensor_name_too_long", t.infoOffset,
                    named() + ": name of " + std::to_string(nameLen) + " bytes; ggml allows at most 63");
        // (indexed only once the record is whole: a name read before a break names no tensor)
        if (const auto it = m_file.m_tensorIndex.find(t.name); it != m_file.m_tensorIndex.end())
            finding(Severity::Error, "duplicate_tensor_name", t.infoOffset,
                    named() + ": duplicate tensor name (first used by tensor " + std::to_string(it->second) + ")");

        if (!need(4, [&] { return named() + ": u32 number of dimensions"; }))
            return false;
        t.nDimsOffset = m_pos;
        t.nDims = readU32();
        const uint64_t dimSize = m_v1 ? 4 : 8;
        if (t.nDims > kMaxDims)
            finding(Severity::Error, "too_many_dims", t.nDimsOffset,
                    named() + ": " + std::to_string(t.nDims) + " dimensions; ggml allows at most 4");
        if (!need(uint64_t(t.nDims) * dimSize,
                  [&] { return named() + ": " + std::to_string(t.nDims) + " × " + lengthName() + " dimensions"; }))
            return false;
        t.dimsOffset = m_pos;
        // check that all ne are non-negative (as int64) and that their product is representable
        bool overflow = false, negative = false;
        uint64_t elements = 1;
        for (uint32_t d = 0; d < t.nDims; ++d) {
            const uint64_t ne = m_v1 ? readU32() : readU64();
            if (d < kMaxDims)
                t.ne[d] = ne;
            if (ne > static_cast<uint64_t>(INT64_MAX))
                negative = true;
            if (ne != 0 && elements > static_cast<uint64_t>(INT64_MAX) / ne)
                overflow = true;
            elements = overflow ? UINT64_MAX : elements * ne;
        }
        t.elements = (negative || overflow) ? UINT64_MAX : elements;
        if (negative)
            finding(Severity::Error, "negative_dim", t.dimsOffset, named() + ": a dimension is negative as int64");
        else if (overflow)
            finding(Severity::Error, "dims_overflow", t.dimsOffset,
                    named() + ": the number of elements overflows int64");

        if (!need(4 + 8, [&] { return named() + ": u32 type and u64 data offset"; }))
            return false;
        t.typeOffset = m_pos;
        t.typeId = readU32();
        t.offsetFieldOffset = m_pos;
        t.relativeOffset = readU64();
        t.infoEnd = m_pos;
        t.layer = layerOf(t.name);
        t.shard = m_splitNo > 0 ? static_cast<uint16_t>(m_splitNo) : 0;

        const TypeTraits &traits = typeTraits(t.typeId);
        if (traits.rule == SizeRule::BitNetI2S)
            finding(Severity::Error, "fork_tensor_type", t.typeOffset,
                    named() + ": type 36 is BitNet's I2_S; upstream ggml has no such type (block size 0)");
        else if (traits.removed)
            finding(Severity::Error, "removed_tensor_type", t.typeOffset,
                    named() + ": type " + std::to_string(t.typeId) + " (" + std::string(traits.name) +
                        ") was removed from ggml");
        else if (traits.name.empty())
            finding(Severity::Error, "unknown_tensor_type", t.typeOffset,
                    named() + ": unknown ggml type " + std::to_string(t.typeId) + " (ggml knows 0–42)");
        if (traits.rule != SizeRule::Unsized && !negative && !overflow) {
            if (t.ne[0] % traits.blockSize != 0)
                finding(Severity::Error, "row_not_multiple_of_block", t.dimsOffset,
                        named() + ": ne[0] = " + std::to_string(t.ne[0]) + " is not a multiple of the " +
                            std::string(traits.name) + " block size " + std::to_string(traits.blockSize));
            else if (const auto size = tensorByteSize(t.typeId, t.ne[0], t.elements)) {
                t.byteSize = *size;
                t.sizeFromType = true;
            } else
                finding(Severity::Error, "tensor_size_overflow", t.dimsOffset,
                        named() + ": the byte size cannot be represented");
        }
        m_file.m_tensorIndex.emplace(t.name, t.index); // the first of duplicated names counts
        tensors.push_back(t);
    }
    m_file.m_tensorInfoEnd = m_pos;
    return true;
}

} // namespace gguf
