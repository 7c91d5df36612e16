// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/format/gguf_file.h"
#include "core/util/byte_order.h"

#include <algorithm>
#include <string>
#include <unordered_set>

namespace gguf {

/// The field that could not be read, for the Breakage: its size, what it is, the layout it needed.
struct FieldNote {
    uint64_t size = 0;
    std::string field;
    std::string expected;
};

/// Walks a mapped file once, filling a GgufFile: every length is checked against the bytes left
/// before it is used, every count against the smallest encoding its items can have, so nothing
/// is allocated for a claim the file cannot back. Problems llama.cpp would refuse (docs/FORMAT.md §5)
/// become findings; only structure that makes the rest unreadable stops the walk (recorded as the
/// file's error).
/// A remote file is parsed from a prefix of `available` bytes: every read stays inside it, and
/// running out of it stops the walk with ErrorKind::NeedMore whose offset is the end it needs.
class GgufParser {
public:
    GgufParser(GgufFile &file, const OpenOptions &options, uint64_t available = UINT64_MAX);
    void run();

private:
    bool readHeader();
    bool readMagic();
    bool readVersion();
    bool checkDeclaredCounts();
    bool detectExtendedHeader();
    bool readMetadata();
    bool readTensorInfos();
    /// How many of the declared tensor infos lie whole in the bytes from m_pos (structure only).
    uint64_t countWholeTensorInfos() const;
    void layOutData();
    void checkAlignmentKey(const MetadataEntry &entry);

    // Walks one value of `type` at m_pos; false on a fatal problem (already recorded).
    // `outer` names the key; `element` the array element (-1 for none), spelled out only on errors.
    bool walkValue(ValueType type, int depth, const std::string &outer, int64_t element);
    bool walkArray(int depth, const std::string &outer, int64_t element);
    /// Skips up to `count` strings that need no finding and lie in the prefix; returns how many.
    uint64_t skipPlainStrings(uint64_t count);

    /// True when `n` more bytes exist; otherwise records a `truncated` error described by what().
    template <typename Describe> bool need(uint64_t n, Describe &&what) { return n <= left() || needSlow(n, what()); }
    bool needSlow(uint64_t n, const std::string &what);
    uint32_t readU32()
    {
        const auto v = loadAs<uint32_t>(m_data + m_pos, m_swap);
        m_pos += 4;
        return v;
    }
    uint64_t readU64()
    {
        const auto v = loadAs<uint64_t>(m_data + m_pos, m_swap);
        m_pos += 8;
        return v;
    }
    uint64_t readLength() { return m_v1 ? readU32() : readU64(); } ///< u32 in v1, u64 from v2
    /// The header is read front to back, and the processor's own prefetching stops at each 4 KiB
    /// page: asking for the page ahead halved the time of walking a 16 MB vocabulary.
    static constexpr uint64_t kPrefetchDistance = 4096;
    void prefetchAhead() const
    {
        if (m_size > 0)
            __builtin_prefetch(m_data + std::min(m_pos + kPrefetchDistance, m_size - 1));
    }
    /// Bytes that may be read from m_pos (to the end of the prefix).
    uint64_t left() const { return m_pos < m_size ? m_size - m_pos : 0; }
    /// Bytes from m_pos to the end of the file, for checking lengths and counts.
    uint64_t fileLeft() const { return m_pos < m_fileSize ? m_fileSize - m_pos : 0; }
    /// When the prefix ends before `end` but the file does not: records NeedMore and returns true.
    bool needMore(uint64_t end);
    bool reportProgress();

    void fatal(ErrorKind kind, std::string code, uint64_t offset, std::string message, FieldNote note = {});
    /// "u32" in version 1 files (lengths and counts), else "u64".
    const char *lengthName() const { return m_v1 ? "u32" : "u64"; }
    void finding(Severity severity, std::string code, uint64_t offset, std::string message);

    GgufFile &m_file;
    const OpenOptions &m_options;
    const uint8_t *m_data = nullptr;
    uint64_t m_size = 0;     ///< bytes that may be read: the prefix of a remote file, else the file
    uint64_t m_fileSize = 0; ///< the whole file
    uint64_t m_pos = 0;
    bool m_swap = false;
    bool m_v1 = false;
    uint64_t m_itemsDone = 0;
    uint64_t m_itemsTotal = 0;
    bool m_reportedNested = false;
    /// The declared counts need more bytes than follow the header, yet are not absurd: the file was
    /// most likely cut short, so reading goes on and the field where it ends is named (with this
    /// note of what the counts needed).
    std::string m_countsNote;
    /// ", which ends at N (0x…)" and the counts note: the end of a "runs past the end" message.
    std::string fileEnd() const;
    int32_t m_splitNo = -1;
    // The item being read, for the Breakage when reading stops inside it.
    Breakage::Section m_section = Breakage::Section::Header;
    uint64_t m_itemIndex = 0;
    uint64_t m_itemOffset = 0;
    MetadataEntry m_entry; ///< the pair being read (Section::Metadata)
    TensorInfo m_tensor;   ///< the tensor info being read (Section::TensorInfos)
    uint32_t m_valueType = UINT32_MAX;
};

/// "1234 (0x4d2)": how offsets are written in messages.
std::string formatOffset(uint64_t offset);

} // namespace gguf
