// SPDX-License-Identifier: GPL-3.0-or-later
// The parser: the magic, version and counts, the extended header, and the reading of a whole file
// (run); the key/value pairs and tensor infos are read in gguf_parser_items.cpp, the data layout in
// gguf_parser_layout.cpp.
#include "core/format/gguf_parser.h"

#include "core/format/ggml_types.h"
#include "core/util/byte_order.h"
#include "magic_sniffer.h"
#include "parser_text.h"

#include <algorithm>
#include <cstdio>

namespace gguf {

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

} // namespace gguf
