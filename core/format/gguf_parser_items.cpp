// SPDX-License-Identifier: GPL-3.0-or-later
// The parser's items: key/value pairs (their values walked, nested arrays included) and tensor infos,
// each checked as ggml's reader checks it (docs/FORMAT.md §5). The header is read in gguf_parser.cpp.
#include "core/format/gguf_parser.h"

#include "core/format/ggml_types.h"
#include "core/util/byte_order.h"
#include "parser_text.h"

#include <algorithm>

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
constexpr uint64_t kMaxIndexReserve = uint64_t(1) << 16;

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
    uint64_t i = type == ValueType::String ? skipPlainStrings(count) : 0;
    for (; i < count; ++i)
        if (!walkValue(type, depth + 1, outer, static_cast<int64_t>(i)))
            return false;
    return true;
}

uint64_t GgufParser::skipPlainStrings(uint64_t count)
{
    // walkValue's checks of a string, in a tight loop: the first string with anything to say (its
    // length field not all there, past the end of the file, over ggml's limit) is left to walkValue
    // (in locals: the loads through a byte pointer could alias the members, so the compiler would
    // store and reload m_pos at every string)
    const uint64_t lengthSize = m_v1 ? 4 : 8;
    const uint8_t *data = m_data;
    const uint64_t readable = m_size, fileSize = m_fileSize; // m_size ≤ m_fileSize
    const bool swap = m_swap;
    uint64_t pos = m_pos, i = 0;
    for (; i < count && pos <= readable && readable - pos >= lengthSize; ++i) {
        const uint64_t len = m_v1 ? loadAs<uint32_t>(data + pos, swap) : loadAs<uint64_t>(data + pos, swap);
        if (len > fileSize - pos - lengthSize || len > kMaxStringLength)
            break;
        pos += lengthSize + len;
        __builtin_prefetch(data + std::min(pos + kPrefetchDistance, readable - 1));
    }
    m_pos = pos;
    return i;
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

uint64_t GgufParser::countWholeTensorInfos() const
{
    // a record: name length, name, u32 dimension count, the dimensions, u32 type, u64 offset
    const uint64_t lengthSize = m_v1 ? 4 : 8;
    const uint8_t *data = m_data;
    const uint64_t size = m_size;
    const bool swap = m_swap;
    uint64_t pos = m_pos, n = 0;
    const auto has = [&](uint64_t bytes) { return pos <= size && size - pos >= bytes; };
    for (; n < m_file.m_declaredTensors; ++n) {
        if (!has(lengthSize))
            break;
        const uint64_t nameLen = m_v1 ? loadAs<uint32_t>(data + pos, swap) : loadAs<uint64_t>(data + pos, swap);
        pos += lengthSize;
        if (!has(nameLen) || !has(nameLen + 4))
            break;
        pos += nameLen;
        const uint64_t dimsBytes = uint64_t(loadAs<uint32_t>(data + pos, swap)) * lengthSize;
        pos += 4;
        if (!has(dimsBytes) || !has(dimsBytes + 12))
            break;
        pos += dimsBytes + 12;
    }
    return n;
}

bool GgufParser::readTensorInfos()
{
    auto &tensors = m_file.m_tensors;
    // room for the records that are there: a damaged count never makes a large allocation, and a
    // file of 20,000 tensors is not copied four times while its vector grows
    tensors.reserve(static_cast<size_t>(countWholeTensorInfos()));
    // the name index's buckets for as many records as the rest of the file can hold (24 bytes at
    // least each), at most 2^16 (512 KiB): rehashing 20,000 names as they come took 1 ms
    m_file.m_tensorIndex.reserve(
        static_cast<size_t>(std::min({m_file.m_declaredTensors, fileLeft() / 24, kMaxIndexReserve})));
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
        prefetchAhead();
        t.name = std::string_view(reinterpret_cast<const char *>(m_data + m_pos), static_cast<size_t>(nameLen));
        m_pos += nameLen;
        const auto named = [&] { return where() + " (" + quoted(t.name) + ")"; };
        if (nameLen >= kMaxTensorName)
            finding(Severity::Error, "tensor_name_too_long", t.infoOffset,
                    named() + ": name of " + std::to_string(nameLen) + " bytes; ggml allows at most 63");
        // indexed at once (one lookup), and unindexed if the record breaks: a name read before a break
        // names no tensor; the first of duplicated names counts
        const auto [indexed, isNew] = m_file.m_tensorIndex.try_emplace(t.name, t.index);
        if (!isNew)
            finding(Severity::Error, "duplicate_tensor_name", t.infoOffset,
                    named() + ": duplicate tensor name (first used by tensor " + std::to_string(indexed->second) + ")");
        struct Unindex {
            std::unordered_map<std::string_view, uint32_t> &index;
            std::unordered_map<std::string_view, uint32_t>::iterator it;
            bool drop;
            ~Unindex()
            {
                if (drop)
                    index.erase(it);
            }
        } unindex{m_file.m_tensorIndex, indexed, isNew};

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
        tensors.push_back(t);
        unindex.drop = false;
    }
    m_file.m_tensorInfoEnd = m_pos;
    return true;
}

} // namespace gguf
